package io.qlog.elasticsearch;

import static org.elasticsearch.test.hamcrest.ElasticsearchAssertions.assertResponse;

import io.qlog.testing.DistributedComparison;
import io.qlog.testing.TopTen;
import java.util.Collection;
import java.util.List;
import org.elasticsearch.action.search.SearchType;
import org.elasticsearch.common.settings.Settings;
import org.elasticsearch.index.query.QueryBuilders;
import org.elasticsearch.plugins.Plugin;
import org.elasticsearch.search.sort.SortBuilders;
import org.elasticsearch.search.sort.SortOrder;
import org.elasticsearch.transport.netty4.Netty4Plugin;

/**
 * q-log BM25 in a real Elasticsearch 9.1 cluster (the test framework's internal cluster: 2 data nodes, this
 * plugin loaded), on CodeSearchNet Ruby (2,661 functions, 1,261 queries) in one 2-shard index analyzed as
 * Anserini's default English analyzer.
 *
 * <ul>
 *   <li>With {@code dfs_query_then_fetch} (global document frequencies) each query's top 10 must equal a
 *       single-index Lucene run with the same analyzer, query and similarity: same ids, same order, scores
 *       within one float ulp. Both sides order ties by id.
 *   <li>With {@code query_then_fetch} (each shard its own statistics) the drift from that reference is
 *       measured: top-10 overlap and NDCG@10, the table {@link ElasticsearchBench} writes.
 * </ul>
 */
public class TestElasticsearchCsnRuby extends CsnRubyCluster {
  @Override
  protected Collection<Class<? extends Plugin>> nodePlugins() {
    // Netty4Plugin: real HTTP on 127.0.0.1, which the rewrite verb talks to as a user's client would
    return List.of(QLogSimilarityPlugin.class, AnseriniAnalysisPlugin.class, Netty4Plugin.class,
        ActionRecorderPlugin.class);
  }

  /**
   * 2 shards, no replica, and Lucene's LZ4 stored fields: Elasticsearch's default codec compresses them with the
   * zstd native library, which a distribution ships in lib/platform but Maven Central does not, so the test
   * nodes have none. Scores do not depend on the codec.
   */
  static Settings.Builder shards() {
    return Settings.builder().put("index.number_of_shards", 2).put("index.number_of_replicas", 0)
        .put("index.codec", "legacy_default");
  }

  /** Index settings: the similarity named "qlog" (k1 = 0.9, b = 0.4, Anserini's) at {@code q}. */
  static Settings indexSettings(double q) {
    return shards()
        .put("index.similarity.qlog.type", QLogSimilarityPlugin.TYPE)
        .put("index.similarity.qlog.q", q)
        .put("index.similarity.qlog.k1", 0.9)
        .put("index.similarity.qlog.b", 0.4)
        .build();
  }

  @Override
  Settings settings(double q) {
    return indexSettings(q);
  }

  @Override
  TopTen top(String index, String field, SearchType type, String text) {
    TopTen[] top = new TopTen[1];
    assertResponse(client().prepareSearch(index).setSearchType(type)
        .setQuery(QueryBuilders.matchQuery(field, text))
        .setSize(10)
        .addSort(SortBuilders.scoreSort().order(SortOrder.DESC))
        .addSort(SortBuilders.fieldSort("id").order(SortOrder.ASC))
        .setTrackScores(true), rsp -> top[0] = Hits.topTen(rsp));
    return top[0];
  }

  public void testBadSimilaritySettingsAreRefusedWithTheirName() {
    assertBadSimilaritySettingsRefused();
  }

  public void testDfsEqualsSingleIndexAndQueryThenFetchDrifts() throws Exception {
    compareDrift(DistributedComparison.REQUIRED).assertGlobalEqualsSingleIndex();
  }

  /**
   * The no-plugin route as a read-only application runs it: an index of 2 shards and 1 replica whose field uses
   * Elasticsearch's built-in BM25 (k1 = 0.9, b = 0.4), reached only through the read-only proxy
   * (tests/rewrite/readonly_proxy.py: _search, _msearch and _field_caps on the named indexes, anything else
   * refused and recorded). {@code python -m qlog_pyserini.rewrite --engine elasticsearch} (tokens from the term
   * suggester, dfs term statistics, one preference) must give QLogBM25Similarity's top 10 on the single index at
   * q = 1, 0.7, 0.3 (lucene odds) on every query, every score 1 + k1 times the single index's; a --field the index
   * lacks must be one error line (exit 2); the Python tests of tests/rewrite/test_client_route.py (an
   * elasticsearch.Elasticsearch client: search_analyzer honoured, to_query under a caller's filter, the cache off)
   * must pass through the same proxy. The proxy must refuse nothing, and every action the nodes ran for its requests
   * must be one the read privilege grants (indices:data/read/*).
   */
  public void testRewriteOverHttpEqualsQLogOnSingleIndex() throws Exception {
    // Elasticsearch's built-in BM25 (LegacyBM25Similarity) keeps BM25's (k1 + 1) numerator, which Lucene's
    // BM25Similarity dropped: every score is 1.9 times Lucene's, the ranking the same
    assertReadOnlyRoute(shards().build(), 1 + 0.9f, "indices:data/read/", "the read index privilege");
  }
}
