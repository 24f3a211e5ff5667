package io.qlog.opensearch;

import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.HashMap;
import java.util.Map;
import org.apache.lucene.tests.util.LuceneTestCase;
import org.opensearch.action.admin.cluster.node.info.NodesInfoResponse;
import org.opensearch.action.admin.cluster.node.info.PluginsAndModules;
import org.opensearch.action.search.SearchResponse;
import org.opensearch.action.search.SearchType;
import org.opensearch.common.settings.Settings;
import org.opensearch.index.query.QueryBuilders;
import org.opensearch.plugins.PluginInfo;
import org.opensearch.search.SearchHit;
import org.opensearch.test.OpenSearchSingleNodeTestCase;

/**
 * The packaged plugin zip, installed the way {@code opensearch-plugin install} lays it out (unpacked into
 * {@code $OPENSEARCH_HOME/plugins/qlog-similarity/}), loaded by a node's own PluginsService through its own
 * class loader, and scoring with the q-log formula. Runs after {@code package} (failsafe), with neither this
 * module's classes nor qlog-similarity on the test classpath, so the similarity can only come from the zip.
 */
// Lucene's test file system may add stray "extraN" files to temp folders; in plugins/ a node would take one for a plugin
@LuceneTestCase.SuppressFileSystems("ExtrasFS")
public class ITPluginZip extends OpenSearchSingleNodeTestCase {
  private static Path home;

  /** $OPENSEARCH_HOME with the zip unpacked into plugins/, made once for the suite's node. */
  private static synchronized Path home() throws IOException {
    if (home == null) {
      Path zip = Paths.get(System.getProperty("qlog.plugin.zip"));
      Path plugin = createTempDir("opensearch-home").resolve("plugins").resolve("qlog-similarity");
      PluginFolder.unpack(zip, plugin);
      home = plugin.getParent().getParent();
    }
    return home;
  }

  @Override
  protected Settings nodeSettings() {
    try {
      return Settings.builder().put(super.nodeSettings()).put("path.home", home().toString()).build();
    } catch (IOException e) {
      throw new AssertionError(e);
    }
  }

  @Override
  protected boolean resetNodeAfterTest() {
    return true; // the node is made after nodeSettings() has unpacked the zip
  }

  public void testZipHoldsTheDescriptorAndTheJarsAndNothingElse() throws Exception {
    Path plugin = home().resolve("plugins").resolve("qlog-similarity");
    PluginInfo info = PluginInfo.readFromProperties(plugin);
    assertEquals("io.qlog.opensearch.QLogSimilarityPlugin", info.getClassname());
    try (var files = Files.list(plugin)) {
      for (Path f : (Iterable<Path>) files::iterator) {
        String name = f.getFileName().toString();
        assertTrue("unexpected file in the zip: " + name, name.equals("plugin-descriptor.properties")
            || name.matches("qlog-(opensearch2?|similarity(-lucene9)?)-.*\\.jar"));
      }
    }
  }

  public void testNodeLoadsThePluginFromTheZipAndScoresWithQLog() throws Exception {
    expectThrows(ClassNotFoundException.class, () -> Class.forName("io.qlog.opensearch.QLogSimilarityPlugin"));
    NodesInfoResponse nodes = client().admin().cluster().prepareNodesInfo().addMetric("plugins").get();
    PluginsAndModules plugins = nodes.getNodes().get(0).getInfo(PluginsAndModules.class);
    assertTrue(plugins.getPluginInfos().toString(),
        plugins.getPluginInfos().stream().anyMatch(p -> p.getName().equals("qlog-similarity")));

    double q = 0.5;
    client().admin().indices().prepareCreate("zip").setSettings(Settings.builder()
        .put("index.number_of_shards", 1).put("index.number_of_replicas", 0)
        .put("index.similarity.qlog.type", "qlog_bm25").put("index.similarity.qlog.q", q))
        .setMapping("{\"dynamic\": \"strict\", \"properties\": "
            + "{\"body\": {\"type\": \"text\", \"analyzer\": \"standard\", \"similarity\": \"qlog\"}}}")
        .get();
    String[] docs = {"alpha beta", "alpha gamma", "alpha beta delta"};
    for (int i = 0; i < docs.length; i++) {
      client().prepareIndex("zip").setId("d" + i).setSource(Map.of("body", docs[i])).get();
    }
    client().admin().indices().prepareRefresh("zip").get();
    SearchResponse rsp = client().prepareSearch("zip").setSearchType(SearchType.DFS_QUERY_THEN_FETCH)
        .setQuery(QueryBuilders.matchQuery("body", "beta")).get();
    Map<String, Float> scores = new HashMap<>();
    for (SearchHit hit : rsp.getHits().getHits()) {
      scores.put(hit.getId(), hit.getScore());
    }
    // the formula by hand: N = 3, n = 2, avgdl = 7/3, k1 = 0.9, b = 0.4, odds x = 1 + (N - n + 0.5) / (n + 0.5)
    double idf = (Math.pow(1 + (3 - 2 + 0.5) / (2 + 0.5), 1 - q) - 1) / (1 - q);
    double avgdl = 7.0 / 3.0;
    assertEquals(Map.of("d0", 0f, "d2", 0f).keySet(), scores.keySet());
    for (String id : new String[] {"d0", "d2"}) {
      double dl = id.equals("d0") ? 2 : 3;
      double expected = idf * 1 / (1 + 0.9 * (1 - 0.4 + 0.4 * dl / avgdl));
      assertEquals(id, expected, scores.get(id), 1e-6 * expected);
    }
    // and not BM25's log: the score at q = 0.5 is not the score at q = 1
    double bm25 = Math.log(1 + 1.5 / 2.5) / (1 + 0.9 * (1 - 0.4 + 0.4 * 2 / avgdl));
    assertTrue(Math.abs(scores.get("d0") - bm25) > 0.01);
  }
}
