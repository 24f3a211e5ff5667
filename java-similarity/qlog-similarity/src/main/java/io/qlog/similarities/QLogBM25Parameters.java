package io.qlog.similarities;

import java.util.List;
import java.util.Map;
import java.util.TreeSet;

/**
 * The parameters of {@link QLogBM25Similarity} as a search engine's configuration hands them over: text
 * values by name ({@code q}, {@code k1}, {@code b}, {@code idf_form}). Solr's factory and OpenSearch's
 * plugin both read them here, so the two engines accept the same values, apply the same defaults and
 * refuse the same mistakes with the same words. Only the text is read here: which numbers are allowed is
 * decided by the {@link QLogBM25Similarity} constructor (Lucene's own checks for k1 and b), so every engine
 * and API refuses the same values with the same message.
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
    double q = number(params, "q", 1.0);
    double k1 = number(params, "k1", 0.9);
    double b = number(params, "b", 0.4);
    String form = params.getOrDefault("idf_form", "lucene");
    QLogBM25Similarity.IdfForm idfForm;
    try {
      idfForm = QLogBM25Similarity.IdfForm.parse(form);
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException("illegal idf_form value: " + form + ", must be one of lucene, rsj");
    }
    return new QLogBM25Similarity((float) k1, (float) b, q, idfForm);
  }

  /**
   * The similarity of one engine settings group (OpenSearch's and Elasticsearch's {@code index.similarity.NAME}),
   * whose {@code type} key is how the engine chose the provider and is not a parameter.
   *
   * @param type the similarity type name, which error messages start with ("similarity type [qlog_bm25]: ...")
   * @param keys the group's keys
   * @param value a key's text value
   * @throws IllegalArgumentException naming the type, the bad parameter, its value and what it must be
   */
  public static QLogBM25Similarity similarity(String type, Iterable<String> keys, java.util.function.Function<String, String> value) {
    Map<String, String> values = new java.util.HashMap<>();
    for (String key : keys) {
      if (!"type".equals(key)) {
        values.put(key, value.apply(key));
      }
    }
    try {
      return similarity(values);
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException("similarity type [" + type + "]: " + e.getMessage(), e);
    }
  }

  /** The number the text says, or the default when absent; its range is the constructor's to check. */
  private static double number(Map<String, String> params, String name, double defaultValue) {
    String text = params.get(name);
    if (text == null) {
      return defaultValue;
    }
    try {
      return Double.parseDouble(text.trim());
    } catch (NumberFormatException e) {
      throw new IllegalArgumentException("illegal " + name + " value: " + text + ", must be a number");
    }
  }
}
