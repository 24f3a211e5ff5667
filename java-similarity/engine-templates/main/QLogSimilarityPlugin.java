package io.qlog.${qlog.engine};

import io.qlog.similarities.QLogBM25Parameters;
import io.qlog.similarities.QLogBM25Similarity;
import org.${qlog.engine}.common.settings.Settings;
import org.${qlog.engine}.index.IndexModule;
import org.${qlog.engine}.plugins.Plugin;

/**
 * ${qlog.engine.name} plugin that adds the similarity type {@value #TYPE}: {@link QLogBM25Similarity}, BM25 with
 * the q-logarithm of the document-frequency odds as IDF. No scoring logic lives here, and no parameter
 * logic: that is {@link QLogBM25Parameters}, shared with the Solr factory. One source for Elasticsearch and
 * OpenSearch (java-similarity/engine-templates: their plugin APIs are alike but for the package).
 *
 * <pre>
 * "settings": {"index": {"similarity": {"qlog": {
 *     "type": "qlog_bm25", "q": 0.7, "k1": 0.9, "b": 0.4, "idf_form": "lucene"}}}}
 * "mappings": {"properties": {"contents": {"type": "text", "similarity": "qlog"}}}
 * </pre>
 *
 * Similarity settings are static index settings: to change q, close the index, update them and open it
 * again (no reindexing; q only changes the IDF). q &lt; 1 makes the IDF a power of the odds, so per-shard
 * document frequencies distort it far more than BM25's logarithm: search a sharded index with
 * {@code search_type=dfs_query_then_fetch}.
 */
public class QLogSimilarityPlugin extends Plugin {
  /** The similarity type name used in index settings. */
  public static final String TYPE = "qlog_bm25";

  @Override
  public void onIndexModule(IndexModule indexModule) {
    indexModule.addSimilarity(TYPE, (settings, indexCreatedVersion, scriptService) -> similarity(settings));
  }

  /**
   * The similarity for one {@code index.similarity.NAME} settings group.
   *
   * @param settings the group's settings, {@code type} among them
   * @throws IllegalArgumentException naming the bad parameter, which ${qlog.engine.name} returns to the client as a
   *     400 response and which keeps the index from being created or opened
   */
  public static QLogBM25Similarity similarity(Settings settings) {
    return QLogBM25Parameters.similarity(TYPE, settings.keySet(), settings::get);
  }
}
