package io.qlog.solr;

import io.qlog.similarities.QLogBM25Similarity;
import java.util.Iterator;
import java.util.Locale;
import java.util.Set;
import org.apache.lucene.search.similarities.Similarity;
import org.apache.solr.common.SolrException;
import org.apache.solr.common.params.SolrParams;
import org.apache.solr.schema.SimilarityFactory;

/**
 * Solr factory for {@link QLogBM25Similarity}: reads its parameters from the schema, validates them and
 * returns the Lucene similarity. No scoring logic lives here.
 *
 * <pre>
 * &lt;similarity class="io.qlog.solr.QLogBM25SimilarityFactory"&gt;
 *   &lt;float name="q"&gt;0.7&lt;/float&gt;             &lt;!-- finite; 1 is BM25 (default 1) --&gt;
 *   &lt;float name="k1"&gt;0.9&lt;/float&gt;            &lt;!-- finite, &gt;= 0 (default 0.9, Anserini's) --&gt;
 *   &lt;float name="b"&gt;0.4&lt;/float&gt;             &lt;!-- in [0, 1] (default 0.4, Anserini's) --&gt;
 *   &lt;str name="idf_form"&gt;lucene&lt;/str&gt;      &lt;!-- lucene | rsj (default lucene) --&gt;
 * &lt;/similarity&gt;
 * </pre>
 *
 * The defaults are Anserini's k1 and b, not Solr's BM25SimilarityFactory's (1.2, 0.75), so a collection
 * scores like the Pyserini runs of this project. q &lt; 1 makes the IDF a power of the document-frequency
 * odds, so shard-local statistics distort it much more than BM25's: use a global stats cache
 * ({@code ExactStatsCache}) on a sharded collection.
 */
public class QLogBM25SimilarityFactory extends SimilarityFactory {
  /** Every parameter the factory reads; anything else in the element is a typo and is refused. */
  static final Set<String> PARAMETERS = Set.of("q", "k1", "b", "idf_form");

  private QLogBM25Similarity similarity;

  @Override
  public void init(SolrParams params) {
    super.init(params);
    for (Iterator<String> names = params.getParameterNamesIterator(); names.hasNext(); ) {
      String name = names.next();
      // Solr hands over the element's class attribute among the parameters
      if (!PARAMETERS.contains(name) && !"class".equals(name)) {
        throw error("unknown parameter '" + name + "', allowed: b, idf_form, k1, q");
      }
    }
    double q = number(params, "q", 1.0, "a finite number (1 is BM25)");
    double k1 = number(params, "k1", 0.9, "a finite number >= 0");
    double b = number(params, "b", 0.4, "a number between 0 and 1");
    if (k1 < 0) {
      throw error("illegal k1 value: " + params.get("k1") + ", must be a finite number >= 0");
    }
    if (b < 0 || b > 1) {
      throw error("illegal b value: " + params.get("b") + ", must be between 0 and 1");
    }
    String form = params.get("idf_form", "lucene");
    QLogBM25Similarity.IdfForm idfForm;
    try {
      idfForm = QLogBM25Similarity.IdfForm.parse(form);
    } catch (IllegalArgumentException e) {
      throw error("illegal idf_form value: " + form + ", must be one of lucene, rsj");
    }
    similarity = new QLogBM25Similarity((float) k1, (float) b, q, idfForm);
  }

  /** A finite number, or the default when absent; the message names the parameter, the text and the range. */
  private static double number(SolrParams params, String name, double defaultValue, String range) {
    String text = params.get(name);
    if (text == null) {
      return defaultValue;
    }
    double value;
    try {
      value = Double.parseDouble(text.trim());
    } catch (NumberFormatException e) {
      throw error("illegal " + name + " value: " + text + ", must be " + range);
    }
    if (!Double.isFinite(value)) {
      throw error("illegal " + name + " value: " + text + ", must be " + range);
    }
    return value;
  }

  private static SolrException error(String message) {
    return new SolrException(SolrException.ErrorCode.SERVER_ERROR,
        QLogBM25SimilarityFactory.class.getSimpleName() + ": " + message);
  }

  @Override
  public Similarity getSimilarity() {
    if (similarity == null) {
      throw new IllegalStateException("QLogBM25SimilarityFactory used before init");
    }
    return similarity;
  }

  @Override
  public String toString() {
    return String.format(Locale.ROOT, "QLogBM25SimilarityFactory(%s)", similarity);
  }
}
