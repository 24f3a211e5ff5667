package io.qlog.elasticsearch;

import static org.elasticsearch.test.hamcrest.ElasticsearchAssertions.assertResponse;

import io.qlog.testing.Causes;
import io.qlog.testing.CsnRuby;
import io.qlog.testing.DistributedComparison;
import io.qlog.testing.ReadOnlyProxy;
import io.qlog.testing.ReferenceIndex;
import io.qlog.testing.RewriteVerb;
import io.qlog.testing.SuiteCorpus;
import io.qlog.testing.TopTen;
import java.io.IOException;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import org.apache.lucene.tests.util.LuceneTestCase;
import org.elasticsearch.action.bulk.BulkRequestBuilder;
import org.elasticsearch.action.bulk.BulkResponse;
import org.elasticsearch.action.search.SearchType;
import org.elasticsearch.common.settings.Settings;
import org.elasticsearch.common.transport.TransportAddress;
import org.elasticsearch.http.HttpServerTransport;
import org.elasticsearch.index.query.QueryBuilder;
import org.elasticsearch.index.query.QueryBuilders;
import org.elasticsearch.plugins.Plugin;
import org.elasticsearch.search.sort.SortBuilders;
import org.elasticsearch.search.sort.SortOrder;
import org.elasticsearch.test.ESIntegTestCase;
import org.elasticsearch.transport.netty4.Netty4Plugin;
import org.junit.AfterClass;

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
 *
 * q changes the way a deployment changes it: close the index, update {@code index.similarity.qlog.q}, open.
 */
@ESIntegTestCase.ClusterScope(scope = ESIntegTestCase.Scope.SUITE, numDataNodes = 2, numClientNodes = 0,
    supportsDedicatedMasters = false)
// 1,261 queries x 2 search types x the q values on 2 cores, plus indexing: over the default 20 min on a loaded machine
@com.carrotsearch.randomizedtesting.annotations.TimeoutSuite(millis = 60 * 60 * 1000)
@LuceneTestCase.SuppressCodecs("*") // scores do not depend on the codec; the default one keeps the test fast
public class TestElasticsearchCsnRuby extends ESIntegTestCase {
  static final String INDEX = "csn-ruby";

  static final SuiteCorpus suite = new SuiteCorpus();
  static CsnRuby data;
  static ReferenceIndex reference;

  @Override
  protected Collection<Class<? extends Plugin>> nodePlugins() {
    // Netty4Plugin: real HTTP on 127.0.0.1, which the rewrite verb talks to as a user's client would
    return List.of(QLogSimilarityPlugin.class, AnseriniAnalysisPlugin.class, Netty4Plugin.class,
        ActionRecorderPlugin.class);
  }

  @Override
  protected boolean addMockHttpTransport() {
    return false;
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

  static final String MAPPING = "{\"properties\": {\"id\": {\"type\": \"keyword\"},"
      + " \"contents\": {\"type\": \"text\", \"analyzer\": \"anserini\", \"similarity\": \"qlog\"}}}";

  /** The corpus and the reference index, once per suite; skips the calling test when the data is absent. */
  static void requireCorpus() throws Exception {
    suite.require();
    data = suite.data();
    reference = suite.reference();
  }

  /** An index with these settings and mapping holding {@code docs} ({id, contents}), refreshed. */
  static void createIndex(String name, Settings settings, String mapping, List<String[]> docs) {
    indicesAdmin().prepareCreate(name).setSettings(settings).setMapping(mapping).get();
    for (int from = 0; from < docs.size(); from += 500) {
      BulkRequestBuilder bulk = client().prepareBulk();
      for (String[] d : docs.subList(from, Math.min(from + 500, docs.size()))) {
        bulk.add(client().prepareIndex(name).setId(d[0]).setSource(Map.of("id", d[0], "contents", d[1])));
      }
      BulkResponse response = bulk.get();
      assertFalse(response.buildFailureMessage(), response.hasFailures());
    }
    indicesAdmin().prepareRefresh(name).get();
  }

  @AfterClass
  public static void closeReference() throws IOException {
    suite.close();
    reference = null;
    data = null;
  }

  /** Changes q as a deployment would: close, update the static similarity setting, open. */
  static void setQ(String index, double q) {
    indicesAdmin().prepareClose(index).get();
    indicesAdmin().prepareUpdateSettings(index).setSettings(Settings.builder().put("index.similarity.qlog.q", q)).get();
    indicesAdmin().prepareOpen(index).get();
  }

  public void testBadSimilaritySettingsAreRefusedWithTheirName() {
    Settings bad = Settings.builder().put(indexSettings(1.0)).put("index.similarity.qlog.b", 1.5).build();
    Exception e = expectThrows(Exception.class,
        () -> indicesAdmin().prepareCreate("bad-b").setSettings(bad).setMapping(MAPPING).get());
    assertTrue(Causes.messages(e), Causes.messages(e).contains("similarity type [qlog_bm25]: illegal b value: 1.5, must be between 0 and 1"));
    assertFalse("a refused index must not exist", indexExists("bad-b"));

    Settings typo = Settings.builder().put(indexSettings(1.0)).put("index.similarity.qlog.idfForm", "rsj").build();
    e = expectThrows(Exception.class,
        () -> indicesAdmin().prepareCreate("bad-key").setSettings(typo).setMapping(MAPPING).get());
    assertTrue(Causes.messages(e), Causes.messages(e).contains("unknown parameter 'idfForm', allowed: b, idf_form, k1, q"));
  }

  static TopTen top(String index, String field, SearchType type, String text) {
    TopTen[] top = new TopTen[1];
    assertResponse(client().prepareSearch(index).setSearchType(type)
        .setQuery(QueryBuilders.matchQuery(field, text))
        .setSize(10)
        .addSort(SortBuilders.scoreSort().order(SortOrder.DESC))
        .addSort(SortBuilders.fieldSort("id").order(SortOrder.ASC))
        .setTrackScores(true), rsp -> top[0] = Hits.topTen(rsp));
    return top[0];
  }

  public void testDfsEqualsSingleIndexAndQueryThenFetchDrifts() throws Exception {
    compareDrift(DistributedComparison.REQUIRED).assertGlobalEqualsSingleIndex();
  }

  /**
   * The corpus in one 2-shard index, then each query at each q with both search types against the single index
   * (ElasticsearchBench's drift table at the q values of the results, this suite's equality check at those it
   * requires).
   */
  DistributedComparison compareDrift(double[] qs) throws Exception {
    suite.restartClock();
    requireCorpus();
    createIndex(INDEX, indexSettings(1.0), MAPPING, data.docs);
    ensureGreen(INDEX);
    suite.log("cluster up, " + data.docs.size() + " documents indexed in 2 shards");
    return DistributedComparison.searchTypes("Elasticsearch", qs, suite, q -> {
      setQ(INDEX, q);
      ensureGreen(INDEX);
    }, text -> new TopTen[] {
        top(INDEX, "contents", SearchType.DFS_QUERY_THEN_FETCH, text),
        top(INDEX, "contents", SearchType.QUERY_THEN_FETCH, text)});
  }

  /**
   * The no-plugin route as a read-only application runs it: an index of 2 shards and 1 replica whose field uses
   * Elasticsearch's built-in BM25 (k1 = 0.9, b = 0.4), reached only through the read-only proxy
   * (tests/rewrite/readonly_proxy.py: _search, _msearch and _field_caps on the named indexes, anything else
   * refused and recorded). {@code python -m qlog_pyserini.rewrite --engine elasticsearch} (tokens from the term
   * suggester, dfs term statistics, one preference) must give QLogBM25Similarity's top 10 on the single index at
   * q = 1, 0.7, 0.3 (lucene odds) on every query, every score 1 + k1 times the single index's (Elasticsearch's
   * BM25 keeps that constant factor); a --field the index lacks must be one error line (exit 2); the Python tests of
   * tests/rewrite/test_client_route.py (an elasticsearch.Elasticsearch client: search_analyzer honoured, to_query
   * under a caller's filter, the cache off) must pass through the same proxy. The proxy must refuse nothing, and
   * every action the nodes ran for its requests must be one the read privilege grants (indices:data/read/*).
   */
  public void testRewriteOverHttpEqualsQLogOnSingleIndex() throws Exception {
    requireCorpus();
    String plain = "csn-ruby-bm25";
    Settings settings = shards().put("index.number_of_replicas", 1)
        .put("index.similarity.bm25.type", "BM25").put("index.similarity.bm25.k1", 0.9).put("index.similarity.bm25.b", 0.4)
        .build();
    createIndex(plain, settings, MAPPING.replace("\"similarity\": \"qlog\"", "\"similarity\": \"bm25\""), data.docs);
    String analyzers = "qlog-search-analyzer";
    createIndex(analyzers, shards().build(), ReadOnlyProxy.ANALYZER_INDEX_MAPPING, List.<String[]>of());
    ensureGreen(plain, analyzers);
    TransportAddress http = internalCluster().getInstance(HttpServerTransport.class).boundAddress().publishAddress();
    String upstream = "http://" + http.getAddress() + ":" + http.getPort();
    ActionRecorderPlugin.ACTIONS.clear();
    try (ReadOnlyProxy proxy = new ReadOnlyProxy(upstream, plain + "," + analyzers, createTempDir("proxy"))) {
      proxy.checkRoute("elasticsearch", plain, analyzers, CsnRuby.prepared().resolve("topics.tsv"),
          createTempDir("route"));
      // Elasticsearch's built-in BM25 (LegacyBM25Similarity) keeps BM25's (k1 + 1) numerator, which Lucene's
      // BM25Similarity dropped: every score is 1.9 times Lucene's, the ranking the same
      RewriteVerb.assertEqualsReference("elasticsearch", proxy.url, plain, data, reference, 1 + 0.9f,
          List.of("lucene"), createTempDir("rewrite"));
    }
    ReadOnlyProxy.assertReadOnlyActions(ActionRecorderPlugin.ACTIONS, "indices:data/read/", "the read index privilege");
  }
}
