package io.qlog.analysis;

import static org.junit.Assert.assertEquals;

import io.anserini.analysis.DefaultEnglishAnalyzer;
import io.qlog.testing.AnalyzerFixture;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.List;
import org.apache.lucene.analysis.Analyzer;
import org.junit.Test;

/**
 * The token fixture that the reference analyzer and the Solr and OpenSearch analyzer configurations are
 * checked against (io.qlog.testing.AnalyzerFixture) is Anserini's own
 * DefaultEnglishAnalyzer output (Anserini 2.3 / Lucene 10.5, from Pyserini's fatjar): this test
 * recomputes it and compares, so the fixture cannot drift from Anserini.
 *
 * <p>Regenerate (after editing texts.txt):
 * {@code bash scripts/java-verify.sh -pl qlog-anserini -am -Dtest=TestAnserinitokenFixture -Dsurefire.failIfNoSpecifiedTests=false -Dqlog.fixture.write=true}
 */
public class TestAnserinitokenFixture {
  static final Path DIR = Paths.get(System.getProperty("basedir", "."), "..", "qlog-similarity", "src", "test", "resources", "io", "qlog", "testing");

  @Test
  public void fixtureIsAnserinisDefaultEnglishAnalyzerOutput() throws IOException {
    List<String> texts = AnalyzerFixture.texts();
    List<String> actual = new ArrayList<>();
    try (Analyzer analyzer = DefaultEnglishAnalyzer.newDefaultInstance()) {
      for (String text : texts) {
        actual.add(String.join(" ", AnalyzerFixture.tokens(analyzer, text)));
      }
    }
    Path fixture = DIR.resolve("anserini-default-english.tokens");
    if (Boolean.getBoolean("qlog.fixture.write")) {
      Files.write(fixture, actual, StandardCharsets.UTF_8);
      return; // the fixture on the classpath is the one from before this write; rerun to compare
    }
    List<String> expected = AnalyzerFixture.anseriniTokens();
    assertEquals("one token line per text", texts.size(), expected.size());
    for (int i = 0; i < texts.size(); i++) {
      assertEquals("text " + (i + 1) + ": " + texts.get(i), expected.get(i), actual.get(i));
    }
  }
}
