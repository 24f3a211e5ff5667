package io.qlog.testing;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import org.apache.lucene.analysis.Analyzer;
import org.apache.lucene.analysis.TokenStream;
import org.apache.lucene.analysis.tokenattributes.CharTermAttribute;

/**
 * Texts and the tokens Anserini 2.3's DefaultEnglishAnalyzer makes of them (one line of space-separated
 * tokens per text). qlog-anserini recomputes the tokens with Anserini itself, so the fixture cannot drift;
 * the engine tests check their analyzer configuration against it.
 */
public final class AnalyzerFixture {
  private AnalyzerFixture() {}

  /** The texts, one per line of texts.txt (blank ones included). */
  public static List<String> texts() {
    return lines("texts.txt");
  }

  /** Anserini's tokens for each text, space-separated, in the order of {@link #texts()}. */
  public static List<String> anseriniTokens() {
    return lines("anserini-default-english.tokens");
  }

  /** The terms {@code analyzer} makes of {@code text} in field {@code contents}. */
  public static List<String> tokens(Analyzer analyzer, String text) throws IOException {
    List<String> out = new ArrayList<>();
    try (TokenStream ts = analyzer.tokenStream("contents", text)) {
      CharTermAttribute term = ts.addAttribute(CharTermAttribute.class);
      ts.reset();
      while (ts.incrementToken()) {
        out.add(term.toString());
      }
      ts.end();
    }
    return out;
  }

  private static List<String> lines(String name) {
    List<String> out = new ArrayList<>();
    try (InputStream in = AnalyzerFixture.class.getResourceAsStream(name)) {
      if (in == null) {
        throw new IllegalStateException("test resource io/qlog/testing/" + name + " is missing");
      }
      BufferedReader r = new BufferedReader(new InputStreamReader(in, StandardCharsets.UTF_8));
      for (String line; (line = r.readLine()) != null; ) {
        out.add(line);
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return out;
  }
}
