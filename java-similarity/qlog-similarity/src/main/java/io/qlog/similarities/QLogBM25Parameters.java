package io.qlog.similarities;

import java.util.List;
import java.util.Map;
import java.util.TreeSet;

/**
 * The parameters of {@link QLogBM25Similarity} as a search engine's configuration hands them over: text
 * values by name ({@code q}, {@code k1}, {@code b}, {@code idf_form}). Solr's factory and OpenSearch's
 * plugin both read them here, so the two engines accept the same values, apply the same defaults and
 * refuse the same mistakes with the same words.
 *
 * <p>The defaults are Anserini's k1 = 0.9 and b = 0.4 (not the engines' own BM25 defaults, 1.2 and 0.75),
 * q = 1 (BM25) and the {@code lucene} odds, so a collection scores like this project's Pyserini runs.
 */
public final class QLogBM25Parameters {
  /** Every parameter name, in the order error messages list them. */
  public static final List<String> NAMES = List.of("b", "idf_form", "k1", "q");

  private QLogBM25Parameters() {}

  /**
   * The similarity the parameters describe.
   *
   * @param params name to text value; absent names take their defaults
   * @return the configured similarity
   * @throws IllegalArgumentException naming the first bad parameter, its value and what it must be
   */
  public static QLogBM25Similarity similarity(Map<String, String> params) {
    for (String name : new TreeSet<>(params.keySet())) {
      if (!NAMES.contains(name)) {
        throw new IllegalArgumentException("unknown parameter '" + name + "', allowed: " + String.join(", ", NAMES));
      }
    }
    double q = number(params, "q", 1.0, "a finite number (1 is BM25)");
    double k1 = number(params, "k1", 0.9, "a finite number >= 0");
    double b = number(params, "b", 0.4, "a number between 0 and 1");
    if (k1 < 0) {
      throw new IllegalArgumentException("illegal k1 value: " + params.get("k1") + ", must be a finite number >= 0");
    }
    if (b < 0 || b > 1) {
      throw new IllegalArgumentException("illegal b value: " + params.get("b") + ", must be between 0 and 1");
    }
    String form = params.getOrDefault("idf_form", "lucene");
    QLogBM25Similarity.IdfForm idfForm;
    try {
      idfForm = QLogBM25Similarity.IdfForm.parse(form);
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException("illegal idf_form value: " + form + ", must be one of lucene, rsj");
    }
    return new QLogBM25Similarity((float) k1, (float) b, q, idfForm);
  }

  /** A finite number, or the default when absent; the message names the parameter, the text and the range. */
  private static double number(Map<String, String> params, String name, double defaultValue, String range) {
    String text = params.get(name);
    if (text == null) {
      return defaultValue;
    }
    double value;
    try {
      value = Double.parseDouble(text.trim());
    } catch (NumberFormatException e) {
      throw new IllegalArgumentException("illegal " + name + " value: " + text + ", must be " + range);
    }
    if (!Double.isFinite(value)) {
      throw new IllegalArgumentException("illegal " + name + " value: " + text + ", must be " + range);
    }
    return value;
  }
}
