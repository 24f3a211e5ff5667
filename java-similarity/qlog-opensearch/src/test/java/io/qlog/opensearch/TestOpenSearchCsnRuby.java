package io.qlog.opensearch;

import io.qlog.testing.AnalyzerFixture;
import io.qlog.testing.Causes;
import io.qlog.testing.DistributedComparison;
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
import org.opensearch.action.admin.indices.analyze.AnalyzeAction;
import org.opensearch.action.search.SearchResponse;
import org.opensearch.action.search.SearchType;
import org.opensearch.common.settings.Settings;
import org.opensearch.common.xcontent.XContentType;
import org.opensearch.index.query.QueryBuilder;
import org.opensearch.index.query.QueryBuilders;
import org.opensearch.plugins.Plugin;
import org.opensearch.search.sort.SortBuilders;
import org.opensearch.search.sort.SortOrder;

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
 */
public class TestOpenSearchCsnRuby extends CsnRubyCluster {
  @Override
  protected Collection<Class<? extends Plugin>> nodePlugins() {
    // Netty: real HTTP on 127.0.0.1, which the rewrite verb talks to as a user's client would
    return List.of(QLogSimilarityPlugin.class, OpenSearchLine.ANALYSIS_COMMON, OpenSearchLine.PAINLESS,
        OpenSearchLine.NETTY4, ActionRecorderPlugin.class);
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

  @Override
  Settings settings(double q) {
    return indexSettings(q);
  }

  /** A 2-shard index named {@code name} with the similarity and analyzer, holding {@code docs}. */
  static void createIndex(String name, List<String[]> docs) {
    createIndex(name, indexSettings(1.0), MAPPING, docs);
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
    assertBadSimilaritySettingsRefused();

    // a bad q on a closed index is refused too, and the index opens again with its old similarity
    List<String[]> docs = new ArrayList<>();
    for (String text : AnalyzerFixture.texts()) {
      docs.add(new String[] {"t" + docs.size(), text});
    }
    createIndex(INDEX, docs);
    ensureGreen(INDEX);
    TopTen before = top(INDEX, "contents", SearchType.DFS_QUERY_THEN_FETCH, "returns the value");
    client().admin().indices().prepareClose(INDEX).get();
    try {
      Exception e = expectThrows(Exception.class, () -> client().admin().indices().prepareUpdateSettings(INDEX)
          .setSettings(Settings.builder().put("index.similarity.qlog.q", "NaN")).get());
      assertTrue(Causes.messages(e), Causes.messages(e).contains("illegal q value: NaN, must be between -1.0 and 3.0"));
    } finally {
      client().admin().indices().prepareOpen(INDEX).get();
      ensureGreen(INDEX);
    }
    TopTen after = top(INDEX, "contents", SearchType.DFS_QUERY_THEN_FETCH, "returns the value");
    assertFalse(before.ids.isEmpty());
    assertTrue(before + " vs " + after, TopTen.same(before, after) && before.scores.equals(after.scores));
  }

  @Override
  TopTen top(String index, String field, SearchType type, String text) {
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
      TopTen plugin = top("three", "contents", SearchType.DFS_QUERY_THEN_FETCH, topic.getValue());
      TopTen scripted = top("three", "contents_scripted", SearchType.DFS_QUERY_THEN_FETCH, topic.getValue());
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
    assertReadOnlyRoute(indexSettings(1.0), OpenSearchLine.builtInBm25Scale(0.9f), "indices:data/read",
        "the read action group");
  }
}
