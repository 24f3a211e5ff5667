package io.qlog.opensearch;

import io.qlog.testing.AnalyzerFixture;
import io.qlog.testing.Causes;
import io.qlog.testing.CsnRuby;
import io.qlog.testing.DistributedComparison;
import io.qlog.testing.ReadOnlyProxy;
import io.qlog.testing.ReferenceIndex;
import io.qlog.testing.TopTen;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import org.apache.lucene.tests.util.LuceneTestCase;
import org.junit.AfterClass;
import org.opensearch.action.admin.indices.analyze.AnalyzeAction;
import org.opensearch.action.bulk.BulkRequestBuilder;
import org.opensearch.action.bulk.BulkResponse;
import org.opensearch.action.search.SearchResponse;
import org.opensearch.action.search.SearchType;
import org.opensearch.common.settings.Settings;
import org.opensearch.common.xcontent.XContentType;
import org.opensearch.index.query.QueryBuilder;
import org.opensearch.index.query.QueryBuilders;
import org.opensearch.plugins.Plugin;
import org.opensearch.search.sort.SortBuilders;
import org.opensearch.search.sort.SortOrder;
import org.opensearch.test.OpenSearchIntegTestCase;
import org.opensearch.core.common.transport.TransportAddress;
import org.opensearch.http.HttpServerTransport;
import io.qlog.testing.RewriteVerb;
import io.qlog.testing.SuiteCorpus;

/**
 * q-log BM25 in a real OpenSearch 3.9 cluster (the test framework's internal cluster: 2 data nodes, this
 * plugin and analysis-common loaded), on CodeSearchNet Ruby (2,661 functions, 1,261 queries) in one
 * 2-shard index analyzed as Anserini's default English analyzer.
 *
 * <ul>
 *   <li>With {@code dfs_query_then_fetch} (global document frequencies) each query's top 10 must equal a
 *       single-index Lucene run (Lucene 10.5, the one OpenSearch runs) with the same analyzer, query and
 *       similarity: same ids, same order, scores within one float ulp. Both sides order ties by id.
 *   <li>With {@code query_then_fetch} (OpenSearch's default: each shard its own statistics) the drift from
 *       that reference is measured: top-10 overlap and NDCG@10, the table {@link OpenSearchBench} writes.
 * </ul>
 *
 * q changes the way a deployment changes it: close the index, update {@code index.similarity.qlog.q}, open.
 */
@OpenSearchIntegTestCase.ClusterScope(scope = OpenSearchIntegTestCase.Scope.SUITE, numDataNodes = 2, numClientNodes = 0,
    supportsDedicatedMasters = false)
// 1,261 queries x 2 search types x 2 q on 2 cores, plus indexing: well over the framework's default 20 min on a loaded machine
@com.carrotsearch.randomizedtesting.annotations.TimeoutSuite(millis = 60 * 60 * 1000)
@LuceneTestCase.SuppressCodecs("*") // scores do not depend on the codec; the default one keeps the test fast
public class TestOpenSearchCsnRuby extends OpenSearchIntegTestCase {
  static final String INDEX = "csn-ruby";

  static final SuiteCorpus suite = new SuiteCorpus();
  static CsnRuby data;
  static ReferenceIndex reference;

  @Override
  protected Collection<Class<? extends Plugin>> nodePlugins() {
    // Netty: real HTTP on 127.0.0.1, which the rewrite verb talks to as a user's client would
    return List.of(QLogSimilarityPlugin.class, OpenSearchLine.ANALYSIS_COMMON, OpenSearchLine.PAINLESS,
        OpenSearchLine.NETTY4, ActionRecorderPlugin.class);
  }

  @Override
  protected boolean addMockHttpTransport() {
    return false;
  }

  /** Index settings: the similarity named "qlog" and the analyzer "anserini" (Anserini's DefaultEnglishAnalyzer). */
  static Settings indexSettings(double q) {
    return Settings.builder()
        .put("index.number_of_shards", 2)
        .put("index.number_of_replicas", 0)
        .put("index.similarity.qlog.type", QLogSimilarityPlugin.TYPE)
        .put("index.similarity.qlog.q", q)
        .put("index.similarity.qlog.k1", 0.9)
        .put("index.similarity.qlog.b", 0.4)
        .put("index.analysis.filter.english_possessive.type", "stemmer")
        .put("index.analysis.filter.english_possessive.language", "possessive_english")
        .put("index.analysis.filter.english_stop.type", "stop")
        .put("index.analysis.filter.english_stop.stopwords", "_english_")
        .put("index.analysis.analyzer.anserini.type", "custom")
        .put("index.analysis.analyzer.anserini.tokenizer", "standard")
        .putList("index.analysis.analyzer.anserini.filter", "english_possessive", "lowercase", "english_stop", "porter_stem")
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

  /** A 2-shard index named {@code name} with the similarity and analyzer, holding {@code docs}. */
  static void createIndex(String name, List<String[]> docs) {
    createIndex(name, indexSettings(1.0), MAPPING, docs);
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

  @AfterClass
  public static void closeReference() throws IOException {
    suite.close();
    reference = null;
    data = null;
  }

  /** Changes q as a deployment would: close, update the static similarity setting, open. */
  static void setQ(double q) {
    client().admin().indices().prepareClose(INDEX).get();
    client().admin().indices().prepareUpdateSettings(INDEX)
        .setSettings(Settings.builder().put("index.similarity.qlog.q", q)).get();
    client().admin().indices().prepareOpen(INDEX).get();
  }

  public void testIndexAnalyzerIsAnserinisDefaultEnglishAnalyzer() {
    createIndex(INDEX, List.of());
    ensureGreen(INDEX);
    List<String> texts = AnalyzerFixture.texts();
    List<String> expected = AnalyzerFixture.anseriniTokens();
    for (int i = 0; i < texts.size(); i++) {
      String text = texts.get(i);
      if (text.isBlank()) {
        continue; // the analyze API refuses an empty text; TestAnseriniEnglishAnalyzer covers it
      }
      AnalyzeAction.Response rsp = client().admin().indices().prepareAnalyze(INDEX, text).setAnalyzer("anserini").get();
      List<String> tokens = new ArrayList<>();
      for (AnalyzeAction.AnalyzeToken t : rsp.getTokens()) {
        tokens.add(t.getTerm());
      }
      assertEquals("analyzer \"anserini\", text " + (i + 1) + ": " + text, expected.get(i), String.join(" ", tokens));
    }
  }

  public void testBadSimilaritySettingsAreRefusedWithTheirName() {
    Settings bad = Settings.builder().put(indexSettings(1.0)).put("index.similarity.qlog.b", 1.5).build();
    Exception e = expectThrows(Exception.class,
        () -> client().admin().indices().prepareCreate("bad-b").setSettings(bad).setMapping(MAPPING).get());
    assertTrue(Causes.messages(e), Causes.messages(e).contains("similarity type [qlog_bm25]: illegal b value: 1.5, must be between 0 and 1"));
    assertFalse("a refused index must not exist", indexExists("bad-b"));

    Settings typo = Settings.builder().put(indexSettings(1.0)).put("index.similarity.qlog.idfForm", "rsj").build();
    e = expectThrows(Exception.class,
        () -> client().admin().indices().prepareCreate("bad-key").setSettings(typo).setMapping(MAPPING).get());
    assertTrue(Causes.messages(e), Causes.messages(e).contains("unknown parameter 'idfForm', allowed: b, idf_form, k1, q"));

    // a bad q on a closed index is refused too, and the index opens again with its old similarity
    List<String[]> docs = new ArrayList<>();
    for (String text : AnalyzerFixture.texts()) {
      docs.add(new String[] {"t" + docs.size(), text});
    }
    createIndex(INDEX, docs);
    ensureGreen(INDEX);
    TopTen before = openSearchTop(SearchType.DFS_QUERY_THEN_FETCH, "returns the value");
    client().admin().indices().prepareClose(INDEX).get();
    try {
      e = expectThrows(Exception.class, () -> client().admin().indices().prepareUpdateSettings(INDEX)
          .setSettings(Settings.builder().put("index.similarity.qlog.q", "NaN")).get());
      assertTrue(Causes.messages(e), Causes.messages(e).contains("illegal q value: NaN, must be between -1.0 and 3.0"));
    } finally {
      client().admin().indices().prepareOpen(INDEX).get();
      ensureGreen(INDEX);
    }
    TopTen after = openSearchTop(SearchType.DFS_QUERY_THEN_FETCH, "returns the value");
    assertFalse(before.ids.isEmpty());
    assertTrue(before + " vs " + after, TopTen.same(before, after) && before.scores.equals(after.scores));
  }

  static TopTen openSearchTop(SearchType type, String text) {
    return openSearchTop(INDEX, "contents", type, text);
  }

  static TopTen openSearchTop(String index, String field, SearchType type, String text) {
    return openSearchTop(index, QueryBuilders.matchQuery(field, text), type);
  }

  /** The top 10 of {@code query}, by score then id (so that tied scores come back in one order). */
  static TopTen openSearchTop(String index, QueryBuilder query, SearchType type) {
    SearchResponse rsp = client().prepareSearch(index).setSearchType(type)
        .setQuery(query)
        .setSize(10)
        .addSort(SortBuilders.scoreSort().order(SortOrder.DESC))
        .addSort(SortBuilders.fieldSort("id").order(SortOrder.ASC))
        .setTrackScores(true)
        .get();
    return Hits.topTen(rsp);
  }

  public void testDfsEqualsSingleIndexAndQueryThenFetchDrifts() throws Exception {
    compareDrift(DistributedComparison.REQUIRED).assertGlobalEqualsSingleIndex();
  }

  /**
   * The corpus in one 2-shard index, then each query at each q with both search types against the single index
   * (OpenSearchBench's drift table at the q values of the results, this suite's equality check at those it requires).
   */
  DistributedComparison compareDrift(double[] qs) throws Exception {
    suite.restartClock();
    requireCorpus();
    createIndex(INDEX, data.docs);
    suite.log("cluster up, " + data.docs.size() + " documents indexed in 2 shards");
    return DistributedComparison.searchTypes("OpenSearch", qs, suite, q -> {
      setQ(q);
      ensureGreen(INDEX);
      suite.log("q=" + q + ": index closed, similarity updated, opened");
    }, text -> new TopTen[] {
        openSearchTop(SearchType.DFS_QUERY_THEN_FETCH, text), openSearchTop(SearchType.QUERY_THEN_FETCH, text)});
  }

  /**
   * One index whose {@code contents} is copied to two more fields that differ only in similarity: the plugin's
   * q-log (q = 0.7), OpenSearch's built-in BM25 (k1 = 0.9, b = 0.4), and the no-plugin route, the {@code scripted}
   * similarity of scripted-similarity.json (q = 0.7), the file the README shows.
   */
  void createThreeSimilarityIndex(String name) throws IOException {
    createThreeSimilarityIndex(name, data.docs);
  }

  /** The same index holding {@code docs}. */
  void createThreeSimilarityIndex(String name, List<String[]> docs) throws IOException {
    Path json = Paths.get(System.getProperty("basedir", ".")).resolve("scripted-similarity.json");
    Settings scripted = Settings.builder().loadFromSource(Files.readString(json, StandardCharsets.UTF_8), XContentType.JSON)
        .normalizePrefix("index.similarity.scripted_qlog.").build();
    Settings settings = Settings.builder().put(indexSettings(0.7)).put(scripted)
        .put("index.similarity.bm25.type", "BM25").put("index.similarity.bm25.k1", 0.9).put("index.similarity.bm25.b", 0.4)
        .build();
    String mapping = "{\"properties\": {\"id\": {\"type\": \"keyword\"},"
        + " \"contents\": {\"type\": \"text\", \"analyzer\": \"anserini\", \"similarity\": \"qlog\","
        + " \"copy_to\": [\"contents_bm25\", \"contents_scripted\"]},"
        + " \"contents_bm25\": {\"type\": \"text\", \"analyzer\": \"anserini\", \"similarity\": \"bm25\"},"
        + " \"contents_scripted\": {\"type\": \"text\", \"analyzer\": \"anserini\", \"similarity\": \"scripted_qlog\"}}}";
    createIndex(name, settings, mapping, docs);
    ensureGreen(name);
  }

  /**
   * The scripted route computes the same formula in Painless (double arithmetic) where the plugin uses Lucene's
   * float BM25 scorer, so scores may differ in the last bits and a near-tie may swap; everything else must agree.
   * The counts are printed.
   */
  public void testScriptedSimilarityRouteAgreesWithThePlugin() throws Exception {
    requireCorpus();
    createThreeSimilarityIndex("three");
    int n = 0;
    int sameOrder = 0;
    int sameSet = 0;
    double worst = 0;
    StringBuilder swaps = new StringBuilder();
    for (Map.Entry<String, String> topic : data.topics.entrySet()) {
      TopTen plugin = openSearchTop("three", "contents", SearchType.DFS_QUERY_THEN_FETCH, topic.getValue());
      TopTen scripted = openSearchTop("three", "contents_scripted", SearchType.DFS_QUERY_THEN_FETCH, topic.getValue());
      n++;
      sameOrder += plugin.ids.equals(scripted.ids) ? 1 : 0;
      sameSet += new java.util.HashSet<>(plugin.ids).equals(new java.util.HashSet<>(scripted.ids)) ? 1 : 0;
      for (int i = 0; i < Math.min(plugin.scores.size(), scripted.scores.size()); i++) {
        float a = plugin.scores.get(i);
        float b = scripted.scores.get(i);
        worst = Math.max(worst, Math.abs(a - b) / Math.max(a, b));
      }
      if (!plugin.ids.equals(scripted.ids) && swaps.length() < 4000) {
        swaps.append(String.format(Locale.ROOT, "%s%n  plugin   %s%n  scripted %s%n", topic.getKey(), plugin, scripted));
      }
    }
    String md = String.format(Locale.ROOT, "| queries | same top 10, same order | same top-10 set | largest relative score difference at a rank |%n"
        + "|---:|---:|---:|---:|%n| %d | %d (%.2f%%) | %d (%.2f%%) | %.2e |%n", n, sameOrder, 100.0 * sameOrder / n, sameSet,
        100.0 * sameSet / n, worst) + (swaps.length() > 0 ? "\nDiffering lists:\n\n```\n" + swaps + "```\n" : "");
    System.out.println(md);
    assertTrue("scores differ by more than float rounding: " + worst, worst < 1e-5);
    assertTrue(md, sameOrder >= 0.99 * n);
  }

  /**
   * The no-plugin route as a read-only application runs it: an index of 2 shards and 1 replica whose field is
   * scored by OpenSearch's built-in BM25 (k1 = 0.9, b = 0.4; OpenSearchLine.builtInBm25Scale), reached only through the
   * read-only proxy (tests/rewrite/readonly_proxy.py: _search, _msearch and _field_caps on the named indexes,
   * anything else refused and recorded). {@code python -m qlog_pyserini.rewrite --engine opensearch} (tokens from
   * the term suggester, dfs term statistics, one preference) must give QLogBM25Similarity's top 10 on the single
   * index at q = 1, 0.7, 0.3 (lucene odds), on every query; a --field the index lacks must be one error line
   * (exit 2); tests/rewrite/test_client_route.py (an opensearchpy.OpenSearch client) must pass through the same
   * proxy. The proxy must refuse nothing, and every action the nodes ran for its requests must be one the security
   * plugin's read action group grants (indices:data/read*).
   */
  public void testRewriteOverHttpEqualsQLogOnSingleIndex() throws Exception {
    requireCorpus();
    String plain = "csn-ruby-bm25";
    Settings settings = Settings.builder().put(indexSettings(1.0)).put("index.number_of_replicas", 1)
        .put("index.similarity.bm25.type", "BM25").put("index.similarity.bm25.k1", 0.9).put("index.similarity.bm25.b", 0.4)
        .build();
    createIndex(plain, settings, MAPPING.replace("\"similarity\": \"qlog\"", "\"similarity\": \"bm25\""), data.docs);
    String analyzers = "qlog-search-analyzer";
    createIndex(analyzers, indexSettings(1.0), ReadOnlyProxy.ANALYZER_INDEX_MAPPING, List.<String[]>of());
    ensureGreen(plain, analyzers);
    TransportAddress http = internalCluster().getInstance(HttpServerTransport.class).boundAddress().publishAddress();
    String upstream = "http://" + http.getAddress() + ":" + http.getPort();
    ActionRecorderPlugin.ACTIONS.clear();
    Path topics = CsnRuby.prepared().resolve("topics.tsv");
    try (ReadOnlyProxy proxy = new ReadOnlyProxy(upstream, plain + "," + analyzers, createTempDir("proxy"))) {
      proxy.checkRoute("opensearch", plain, analyzers, topics, createTempDir("route"));
      RewriteVerb.assertEqualsReference("opensearch", proxy.url, plain, data, reference,
          OpenSearchLine.builtInBm25Scale(0.9f), List.of("lucene"),
          createTempDir("rewrite"));
    }
    ReadOnlyProxy.assertReadOnlyActions(ActionRecorderPlugin.ACTIONS, "indices:data/read", "the read action group");
  }
}
