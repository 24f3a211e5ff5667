package io.qlog.elasticsearch;

import static org.elasticsearch.test.hamcrest.ElasticsearchAssertions.assertResponse;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Random;
import org.apache.lucene.analysis.core.WhitespaceAnalyzer;
import org.apache.lucene.document.Document;
import org.apache.lucene.document.Field;
import org.apache.lucene.document.StringField;
import org.apache.lucene.document.TextField;
import org.apache.lucene.index.DirectoryReader;
import org.apache.lucene.index.IndexWriter;
import org.apache.lucene.index.IndexWriterConfig;
import org.apache.lucene.index.Term;
import org.apache.lucene.search.BooleanClause;
import org.apache.lucene.search.BooleanQuery;
import org.apache.lucene.search.IndexSearcher;
import org.apache.lucene.search.ScoreDoc;
import org.apache.lucene.search.TermQuery;
import org.apache.lucene.search.similarities.Similarity;
import org.apache.lucene.store.ByteBuffersDirectory;
import org.apache.lucene.tests.util.LuceneTestCase;
import org.elasticsearch.action.bulk.BulkRequestBuilder;
import org.elasticsearch.action.search.SearchType;
import org.elasticsearch.action.support.WriteRequest;
import org.elasticsearch.client.internal.Client;
import org.elasticsearch.cluster.ClusterName;
import org.elasticsearch.common.settings.Settings;
import org.elasticsearch.env.Environment;
import org.elasticsearch.node.InternalSettingsPreparer;
import org.elasticsearch.node.Node;
import org.elasticsearch.node.PluginsFolderNode;
import org.elasticsearch.plugins.Plugin;
import org.elasticsearch.plugins.PluginDescriptor;
import org.elasticsearch.plugins.PluginRuntimeInfo;
import org.elasticsearch.plugins.PluginsService;
import org.elasticsearch.index.query.QueryBuilders;
import org.elasticsearch.search.SearchHit;
import org.elasticsearch.test.ESTestCase;
import org.elasticsearch.transport.netty4.Netty4Plugin;

/**
 * The packaged plugin zip, unpacked the way {@code elasticsearch-plugin install} lays it out
 * ({@code $ES_HOME/plugins/qlog-similarity/}), then a node started from that home: a real {@link Node} whose
 * plugins are read from its plugins folder by Elasticsearch's own {@code PluginsLoader} and {@code PluginsService}
 * (descriptor checks, jar-hell check against the classpath, the plugin in its own class loader), indexing into a
 * {@code qlog_bm25} field and answering {@code dfs_query_then_fetch} searches that must score exactly as a single
 * Lucene index does. Runs after {@code package} (failsafe), with neither this module's classes nor qlog-similarity
 * on the test classpath, so the similarity can only come from the zip. The transport (Netty) is a classpath
 * plugin here, where a distribution takes it from its modules folder; see {@link PluginsFolderNode}.
 */
// Lucene's test file system may add stray "extraN" files to temp folders; in plugins/ the loader would take one for a plugin
@LuceneTestCase.SuppressFileSystems("ExtrasFS")
@LuceneTestCase.SuppressCodecs("*") // the reference index's scores do not depend on the codec
public class ITPluginZip extends ESTestCase {
  private static final String PLUGIN = "qlog-similarity";
  private static final double[] QS = {1.0, 0.7, 0.5, 0.3};

  private Path unpack() throws IOException {
    Path zip = Paths.get(System.getProperty("qlog.plugin.zip"));
    Path plugins = createTempDir("es-home").resolve("plugins");
    PluginFolder.unpack(zip, plugins.resolve(PLUGIN));
    return plugins.getParent();
  }

  public void testZipHoldsTheDescriptorAndTheJarsAndNothingElse() throws Exception {
    Path plugin = unpack().resolve("plugins").resolve(PLUGIN);
    PluginDescriptor info = PluginDescriptor.readFromProperties(plugin);
    assertEquals("io.qlog.elasticsearch.QLogSimilarityPlugin", info.getClassname());
    try (var files = Files.list(plugin)) {
      for (Path f : (Iterable<Path>) files::iterator) {
        String name = f.getFileName().toString();
        assertTrue("unexpected file in the zip: " + name, name.equals("plugin-descriptor.properties")
            || name.matches("qlog-(elasticsearch8?|similarity(-lucene9)?)-.*\\.jar"));
      }
    }
  }

  /** A one-node cluster's settings, as the test framework's single-node tests make them, homed at {@code home}. */
  private Settings nodeSettings(Path home) {
    String name = "zip-node";
    return Settings.builder()
        .put(ClusterName.CLUSTER_NAME_SETTING.getKey(), "qlog-zip-" + randomLong())
        .put(Environment.PATH_HOME_SETTING.getKey(), home)
        .put(Node.NODE_NAME_SETTING.getKey(), name)
        .put("node.processors", 1)
        .put("network.host", "127.0.0.1")
        .put("transport.type", Netty4Plugin.NETTY_TRANSPORT_NAME)
        .put("http.type", Netty4Plugin.NETTY_HTTP_TRANSPORT_NAME)
        .put("transport.port", getPortRange())
        .put("http.port", getPortRange())
        .putList("discovery.seed_hosts")
        .putList("cluster.initial_master_nodes", name)
        .put("cluster.routing.allocation.disk.watermark.low", "1b")
        .put("cluster.routing.allocation.disk.watermark.high", "1b")
        .put("cluster.routing.allocation.disk.watermark.flood_stage", "1b")
        .put("indices.breaker.total.use_real_memory", false)
        .build();
  }

  /** {@code count} documents of 1 to 12 words drawn from a skewed 40-word vocabulary, so document frequencies vary. */
  private static List<String> corpus(Random random, int count) {
    List<String> docs = new ArrayList<>();
    for (int i = 0; i < count; i++) {
      StringBuilder doc = new StringBuilder();
      int length = 1 + random.nextInt(12);
      for (int j = 0; j < length; j++) {
        int w = (int) Math.floor(40 * Math.pow(random.nextDouble(), 2)); // word 0 is in most documents
        doc.append(j == 0 ? "" : " ").append("w").append(w);
      }
      docs.add(doc.toString());
    }
    return docs;
  }

  public void testNodeLoadsThePluginFromItsPluginsFolderAndScoresAsASingleLuceneIndex() throws Exception {
    expectThrows(ClassNotFoundException.class, () -> Class.forName("io.qlog.elasticsearch.QLogSimilarityPlugin"));
    expectThrows(ClassNotFoundException.class, () -> Class.forName("io.qlog.similarities.QLogBM25Similarity"));
    Path home = unpack();
    Settings settings = nodeSettings(home);
    Environment environment = InternalSettingsPreparer.prepareEnvironment(settings, Map.of(), null, () -> "zip-node");
    Random random = new Random(random().nextLong());
    List<String> docs = corpus(random, 300);
    List<String> queries = new ArrayList<>();
    for (int i = 0; i < 40; i++) {
      int a = (int) Math.floor(40 * Math.pow(random.nextDouble(), 2));
      int b = (int) Math.floor(40 * Math.pow(random.nextDouble(), 2));
      queries.add(a == b ? "w" + a : "w" + a + " w" + b);
    }

    try (PluginsFolderNode node = new PluginsFolderNode(environment, List.of(Netty4Plugin.class))) {
      node.start();
      PluginsService service = node.injector().getInstance(PluginsService.class);
      Plugin plugin = service.pluginMap().get(PLUGIN);
      assertNotNull(service.pluginMap().keySet().toString(), plugin);
      assertEquals("io.qlog.elasticsearch.QLogSimilarityPlugin", plugin.getClass().getName());
      assertNotSame("the plugin class must come from the zip's class loader", getClass().getClassLoader(),
          plugin.getClass().getClassLoader());
      List<String> listed = service.info().getPluginInfos().stream().map(PluginRuntimeInfo::descriptor)
          .map(PluginDescriptor::getName).toList();
      assertTrue("the node's plugin list (_nodes/plugins): " + listed, listed.contains(PLUGIN));

      Client client = node.client();
      for (double q : QS) {
        String index = "zip-" + String.valueOf(q).replace('.', '-');
        client.admin().indices().prepareCreate(index).setSettings(Settings.builder()
            .put("index.number_of_shards", 2).put("index.number_of_replicas", 0)
            .put("index.codec", "legacy_default") // no zstd native library off a distribution
            .put("index.similarity.qlog.type", "qlog_bm25").put("index.similarity.qlog.q", q))
            .setMapping("{\"dynamic\": \"strict\", \"properties\": {\"id\": {\"type\": \"keyword\"},"
                + " \"body\": {\"type\": \"text\", \"analyzer\": \"whitespace\", \"similarity\": \"qlog\"}}}")
            .get();
        BulkRequestBuilder bulk = client.prepareBulk().setRefreshPolicy(WriteRequest.RefreshPolicy.IMMEDIATE);
        for (int i = 0; i < docs.size(); i++) {
          bulk.add(client.prepareIndex(index).setId("d" + i).setSource(Map.of("id", "d" + i, "body", docs.get(i))));
        }
        var indexed = bulk.get();
        assertFalse(indexed.buildFailureMessage(), indexed.hasFailures());

        // the reference: one Lucene index of the same documents under the similarity the node's plugin made
        Similarity similarity = (Similarity) plugin.getClass().getMethod("similarity", Settings.class)
            .invoke(null, Settings.builder().put("type", "qlog_bm25").put("q", q).build());
        ByteBuffersDirectory dir = new ByteBuffersDirectory();
        try (IndexWriter w = new IndexWriter(dir, new IndexWriterConfig(new WhitespaceAnalyzer()).setSimilarity(similarity))) {
          for (int i = 0; i < docs.size(); i++) {
            Document doc = new Document();
            doc.add(new StringField("id", "d" + i, Field.Store.YES));
            doc.add(new TextField("body", docs.get(i), Field.Store.NO));
            w.addDocument(doc);
          }
        }
        try (DirectoryReader reader = DirectoryReader.open(dir)) {
          IndexSearcher searcher = new IndexSearcher(reader);
          searcher.setSimilarity(similarity);
          for (String text : queries) {
            BooleanQuery.Builder query = new BooleanQuery.Builder();
            for (String t : text.split(" ")) {
              query.add(new TermQuery(new Term("body", t)), BooleanClause.Occur.SHOULD);
            }
            Map<String, Float> expected = new HashMap<>();
            for (ScoreDoc hit : searcher.search(query.build(), docs.size()).scoreDocs) {
              expected.put(reader.storedFields().document(hit.doc).get("id"), hit.score);
            }
            Map<String, Float> actual = new HashMap<>();
            assertResponse(client.prepareSearch(index).setSearchType(SearchType.DFS_QUERY_THEN_FETCH)
                .setQuery(QueryBuilders.matchQuery("body", text)).setSize(docs.size()), rsp -> {
                  for (SearchHit hit : rsp.getHits().getHits()) {
                    actual.put(hit.getId(), hit.getScore());
                  }
                });
            // every matching document, with the same float score (bitwise: Map.equals compares Float.equals)
            assertEquals(String.format(Locale.ROOT, "q=%s query [%s]", q, text), expected, actual);
          }
        }

        // and the formula by hand for one word, independently of the plugin's code
        String word = "w" + (5 + random.nextInt(10));
        int n = 0;
        long total = 0;
        for (String d : docs) {
          total += d.split(" ").length;
          n += List.of(d.split(" ")).contains(word) ? 1 : 0;
        }
        double odds = 1 + (docs.size() - n + 0.5) / (n + 0.5);
        double idf = q == 1.0 ? Math.log(odds) : (Math.pow(odds, 1 - q) - 1) / (1 - q);
        double avgdl = (double) total / docs.size();
        String w = word;
        assertResponse(client.prepareSearch(index).setSearchType(SearchType.DFS_QUERY_THEN_FETCH)
            .setQuery(QueryBuilders.termQuery("body", w)).setSize(docs.size()), rsp -> {
              assertTrue(rsp.getHits().getHits().length > 0);
              for (SearchHit hit : rsp.getHits().getHits()) {
                String[] tokens = docs.get(Integer.parseInt(hit.getId().substring(1))).split(" ");
                long tf = List.of(tokens).stream().filter(w::equals).count();
                // Lucene's one-byte length norm is exact for lengths this short
                double bm = tf / (tf + 0.9 * (1 - 0.4 + 0.4 * tokens.length / avgdl));
                assertEquals(hit.getId() + " for " + w, idf * bm, hit.getScore(), 1e-5 * idf * bm);
              }
            });
      }
    }
  }
}
