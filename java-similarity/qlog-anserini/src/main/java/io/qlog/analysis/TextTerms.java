package io.qlog.analysis;

import io.anserini.analysis.AnalyzerUtils;
import org.apache.lucene.analysis.Analyzer;

/**
 * The terms of many texts under one analyzer in one call: a caller through a JNI bridge that scores
 * the parts of a file (its functions and classes) by a query's terms analyzes them all at once,
 * exactly as the index analyzed the file.
 */
public final class TextTerms {

  private TextTerms() {}

  /**
   * For each of {@code texts}, its terms under the analyzer called {@code name} ({@link
   * IdentifierAnalyzer#forName}), in stream order, joined by single spaces (no analyzer here makes a
   * term holding a space).
   */
  public static String[] analyzeAll(String name, String[] texts) {
    Analyzer analyzer = IdentifierAnalyzer.forName(name);
    try {
      String[] out = new String[texts.length];
      for (int i = 0; i < texts.length; i++) {
        out[i] = String.join(" ", AnalyzerUtils.analyze(analyzer, texts[i]));
      }
      return out;
    } finally {
      analyzer.close();
    }
  }
}
