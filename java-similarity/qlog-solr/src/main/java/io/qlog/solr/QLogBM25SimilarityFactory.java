package io.qlog.solr;

import io.qlog.similarities.QLogBM25Parameters;
import io.qlog.similarities.QLogBM25Similarity;
import java.util.HashMap;
import java.util.Iterator;
import java.util.Locale;
import java.util.Map;
import org.apache.lucene.search.similarities.Similarity;
import org.apache.solr.common.SolrException;
import org.apache.solr.common.params.SolrParams;
import org.apache.solr.schema.SimilarityFactory;

/**
 * Solr factory for {@link QLogBM25Similarity}: reads its parameters from the schema, validates them and
 * returns the Lucene similarity. No scoring logic lives here, and no parameter logic: that is
 * {@link QLogBM25Parameters}, shared with the OpenSearch plugin.
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
  private QLogBM25Similarity similarity;

  @Override
  public void init(SolrParams params) {
    super.init(params);
    Map<String, String> values = new HashMap<>();
    for (Iterator<String> names = params.getParameterNamesIterator(); names.hasNext(); ) {
      String name = names.next();
      // Solr hands over the element's class attribute among the parameters
      if (!"class".equals(name)) {
        values.put(name, params.get(name));
      }
    }
    try {
      similarity = QLogBM25Parameters.similarity(values);
    } catch (IllegalArgumentException e) {
      throw new SolrException(SolrException.ErrorCode.SERVER_ERROR,
          QLogBM25SimilarityFactory.class.getSimpleName() + ": " + e.getMessage(), e);
    }
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
