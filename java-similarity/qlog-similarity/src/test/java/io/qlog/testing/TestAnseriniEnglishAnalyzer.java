package io.qlog.testing;

import static org.junit.Assert.assertEquals;

import java.util.List;
import org.junit.Test;

/** The reference analyzer reproduces Anserini's tokens, on whichever Lucene this module is built against. */
public class TestAnseriniEnglishAnalyzer {
  @Test
  public void tokensEqualAnserinisDefaultEnglishAnalyzer() throws Exception {
    List<String> texts = AnalyzerFixture.texts();
    List<String> expected = AnalyzerFixture.anseriniTokens();
    assertEquals("one token line per text", texts.size(), expected.size());
    try (AnseriniEnglishAnalyzer analyzer = new AnseriniEnglishAnalyzer()) {
      for (int i = 0; i < texts.size(); i++) {
        assertEquals("text " + (i + 1) + ": " + texts.get(i), expected.get(i),
            String.join(" ", AnalyzerFixture.tokens(analyzer, texts.get(i))));
      }
    }
  }
}
