package io.qlog.${qlog.engine};

import io.qlog.testing.Causes;
import io.qlog.testing.CsnRuby;
import io.qlog.testing.DistributedComparison;
import io.qlog.testing.ReadOnlyProxy;
import io.qlog.testing.ReferenceIndex;
import io.qlog.testing.RewriteVerb;
import io.qlog.testing.SuiteCorpus;
import io.qlog.testing.TopTen;
import java.io.IOException;
import java.util.List;
import java.util.Map;
import org.apache.lucene.tests.util.LuceneTestCase;
import org.junit.AfterClass;
import org.${qlog.engine}.action.bulk.BulkRequestBuilder;
import org.${qlog.engine}.action.bulk.BulkResponse;
import org.${qlog.engine}.action.search.SearchType;
import org.${qlog.engine}.common.settings.Settings;
import org.${qlog.engine}.http.HttpServerTransport;
import org.${qlog.engine}.test.${qlog.engine.integ};

/**
 * What the ${qlog.engine.name} CodeSearchNet Ruby suites run in: the test framework's internal cluster (2 data
 * nodes, real HTTP), the corpus and its single-index Lucene reference once per suite, indexing, q changed as a
 * deployment changes it (close the index, update {@code index.similarity.qlog.q}, open), and the checks whose
 * requests read alike in every ${qlog.engine.name} line. A suite adds its plugins, its index settings and how it
 * reads a search response.
 */
@${qlog.engine.integ}.ClusterScope(scope = ${qlog.engine.integ}.Scope.SUITE, numDataNodes = 2, numClientNodes = 0,
    supportsDedicatedMasters = false)
// 1,261 queries x 2 search types x the q values on 2 cores, plus indexing: over the framework's 20 min on a loaded machine
@com.carrotsearch.randomizedtesting.annotations.TimeoutSuite(millis = 60 * 60 * 1000)
@LuceneTestCase.SuppressCodecs("*") // scores do not depend on the codec; the default one keeps the test fast
public abstract class CsnRubyCluster extends ${qlog.engine.integ} {
  static final String INDEX = "csn-ruby";

  static final String MAPPING = "{\"properties\": {\"id\": {\"type\": \"keyword\"},"
      + " \"contents\": {\"type\": \"text\", \"analyzer\": \"anserini\", \"similarity\": \"qlog\"}}}";

  static final SuiteCorpus suite = new SuiteCorpus();
  static CsnRuby data;
  static ReferenceIndex reference;

  /** The index settings of the suite: the similarity named "qlog" (k1 = 0.9, b = 0.4, Anserini's) at {@code q}. */
  abstract Settings settings(double q);

  /** The top 10 of a match query on {@code field}, by score then id (so that tied scores come back in one order). */
  abstract TopTen top(String index, String field, SearchType type, String text);

  @Override
  protected boolean addMockHttpTransport() {
    return false;
  }

  /** The corpus and the reference index, once per suite; skips the calling test when the data is absent. */
  static void requireCorpus() throws Exception {
    suite.require();
    data = suite.data();
    reference = suite.reference();
  }

  @AfterClass
  public static void closeReference() throws IOException {
    suite.close();
    reference = null;
    data = null;
  }

  /** An index with these settings and mapping holding {@code docs} ({id, contents}), refreshed. */
  static void createIndex(String name, Settings settings, String mapping, List<String[]> docs) {
    client().admin().indices().prepareCreate(name).setSettings(settings).setMapping(mapping).get();
    for (int from = 0; from < docs.size(); from += 500) {
      BulkRequestBuilder bulk = client().prepareBulk();
      for (String[] d : docs.subList(from, Math.min(from + 500, docs.size()))) {
        bulk.add(client().prepareIndex(name).setId(d[0]).setSource(Map.of("id", d[0], "contents", d[1])));
      }
      BulkResponse response = bulk.get();
      assertFalse(response.buildFailureMessage(), response.hasFailures());
    }
    client().admin().indices().prepareRefresh(name).get();
  }

  /** Changes q as a deployment would: close, update the static similarity setting, open. */
  static void setQ(String index, double q) {
    client().admin().indices().prepareClose(index).get();
    client().admin().indices().prepareUpdateSettings(index)
        .setSettings(Settings.builder().put("index.similarity.qlog.q", q)).get();
    client().admin().indices().prepareOpen(index).get();
  }

  /** A b out of range and a misspelt key are each refused with the setting's name, and the index is not made. */
  void assertBadSimilaritySettingsRefused() {
    Settings bad = Settings.builder().put(settings(1.0)).put("index.similarity.qlog.b", 1.5).build();
    Exception e = expectThrows(Exception.class,
        () -> client().admin().indices().prepareCreate("bad-b").setSettings(bad).setMapping(MAPPING).get());
    assertTrue(Causes.messages(e), Causes.messages(e).contains("similarity type [qlog_bm25]: illegal b value: 1.5, must be between 0 and 1"));
    assertFalse("a refused index must not exist", indexExists("bad-b"));

    Settings typo = Settings.builder().put(settings(1.0)).put("index.similarity.qlog.idfForm", "rsj").build();
    e = expectThrows(Exception.class,
        () -> client().admin().indices().prepareCreate("bad-key").setSettings(typo).setMapping(MAPPING).get());
    assertTrue(Causes.messages(e), Causes.messages(e).contains("unknown parameter 'idfForm', allowed: b, idf_form, k1, q"));
  }

  /**
   * The corpus in one 2-shard index, then each query at each q with both search types against the single index
   * (the drift table of the suite's benchmark at the q values of the results, the suite's equality check at those
   * it requires).
   */
  DistributedComparison compareDrift(double[] qs) throws Exception {
    suite.restartClock();
    requireCorpus();
    createIndex(INDEX, settings(1.0), MAPPING, data.docs);
    ensureGreen(INDEX);
    suite.log("cluster up, " + data.docs.size() + " documents indexed in 2 shards");
    return DistributedComparison.searchTypes("${qlog.engine.name}", qs, suite, q -> {
      setQ(INDEX, q);
      ensureGreen(INDEX);
      suite.log("q=" + q + ": index closed, similarity updated, opened");
    }, text -> new TopTen[] {
        top(INDEX, "contents", SearchType.DFS_QUERY_THEN_FETCH, text),
        top(INDEX, "contents", SearchType.QUERY_THEN_FETCH, text)});
  }

  /**
   * The no-plugin route through the read-only proxy: the corpus in an index of 2 shards and 1 replica scored by the
   * engine's built-in BM25 (k1 = 0.9, b = 0.4) and an empty analyzer index, both on {@code base} and reached over the
   * cluster's HTTP only through {@link ReadOnlyProxy}. The route's own checks must pass, the rewrite verb must give
   * QLogBM25Similarity's top 10 on the single index with every score {@code scale} times it, and every action the
   * nodes ran for the proxy's requests must begin with {@code readPrefix}, what {@code privilege} grants.
   */
  void assertReadOnlyRoute(Settings base, float scale, String readPrefix, String privilege) throws Exception {
    requireCorpus();
    String plainIndex = "csn-ruby-bm25";
    createIndex(plainIndex, Settings.builder().put(base).put("index.number_of_replicas", 1)
            .put("index.similarity.bm25.type", "BM25").put("index.similarity.bm25.k1", 0.9)
            .put("index.similarity.bm25.b", 0.4).build(),
        MAPPING.replace("\"similarity\": \"qlog\"", "\"similarity\": \"bm25\""), data.docs);
    String analyzerIndex = "qlog-search-analyzer";
    createIndex(analyzerIndex, base, ReadOnlyProxy.ANALYZER_INDEX_MAPPING, List.<String[]>of());
    ensureGreen(plainIndex, analyzerIndex);
    var http = internalCluster().getInstance(HttpServerTransport.class).boundAddress().publishAddress();
    String upstream = "http://" + http.getAddress() + ":" + http.getPort();
    ActionRecorderPlugin.ACTIONS.clear();
    try (ReadOnlyProxy proxy = new ReadOnlyProxy(upstream, plainIndex + "," + analyzerIndex, createTempDir("proxy"))) {
      proxy.checkRoute("${qlog.engine}", plainIndex, analyzerIndex, CsnRuby.prepared().resolve("topics.tsv"),
          createTempDir("route"));
      RewriteVerb.assertEqualsReference("${qlog.engine}", proxy.url, plainIndex, data, reference, scale,
          List.of("lucene"), createTempDir("rewrite"));
    }
    ReadOnlyProxy.assertReadOnlyActions(ActionRecorderPlugin.ACTIONS, readPrefix, privilege);
  }
}
