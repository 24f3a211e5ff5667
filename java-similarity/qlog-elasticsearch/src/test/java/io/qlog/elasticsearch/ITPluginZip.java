package io.qlog.elasticsearch;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.Map;
import java.util.Set;
import java.util.zip.ZipEntry;
import java.util.zip.ZipInputStream;
import org.apache.lucene.analysis.core.WhitespaceAnalyzer;
import org.apache.lucene.document.Document;
import org.apache.lucene.document.Field;
import org.apache.lucene.document.TextField;
import org.apache.lucene.index.DirectoryReader;
import org.apache.lucene.index.IndexWriter;
import org.apache.lucene.index.IndexWriterConfig;
import org.apache.lucene.index.Term;
import org.apache.lucene.search.IndexSearcher;
import org.apache.lucene.search.ScoreDoc;
import org.apache.lucene.search.TermQuery;
import org.apache.lucene.search.similarities.Similarity;
import org.apache.lucene.store.ByteBuffersDirectory;
import org.apache.lucene.tests.util.LuceneTestCase;
import org.elasticsearch.common.settings.Settings;
import org.elasticsearch.plugins.Plugin;
import org.elasticsearch.plugins.PluginBundle;
import org.elasticsearch.plugins.PluginDescriptor;
import org.elasticsearch.plugins.PluginsLoader;
import org.elasticsearch.plugins.PluginsService;
import org.elasticsearch.test.ESTestCase;

/**
 * The packaged plugin zip, unpacked the way {@code elasticsearch-plugin install} lays it out
 * ({@code $ES_HOME/plugins/qlog-similarity/}), loaded by Elasticsearch's own PluginsLoader and PluginsService (the
 * code a node runs at start: descriptor checks, jar-hell check, the plugin's own class loader), then scoring with
 * the q-log formula. Runs after {@code package} (failsafe), with neither this module's classes nor qlog-similarity
 * on the test classpath, so the similarity can only come from the zip. The test framework's nodes take classpath
 * plugins only (MockPluginsService), so no node is started here: the cluster tests cover the plugin in a node.
 */
// Lucene's test file system may add stray "extraN" files to temp folders; in plugins/ the loader would take one for a plugin
@LuceneTestCase.SuppressFileSystems("ExtrasFS")
public class ITPluginZip extends ESTestCase {

  private Path unpack() throws IOException {
    Path zip = Paths.get(System.getProperty("qlog.plugin.zip"));
    Path plugins = createTempDir("es-home").resolve("plugins");
    Path plugin = plugins.resolve("qlog-similarity");
    Files.createDirectories(plugin);
    try (ZipInputStream in = new ZipInputStream(Files.newInputStream(zip))) {
      for (ZipEntry e; (e = in.getNextEntry()) != null; ) {
        Path target = plugin.resolve(e.getName()).normalize();
        assertTrue("zip entry outside the plugin folder: " + e.getName(), target.startsWith(plugin));
        if (e.isDirectory()) {
          Files.createDirectories(target);
        } else {
          Files.createDirectories(target.getParent());
          Files.copy(in, target);
        }
      }
    }
    return plugins;
  }

  public void testZipHoldsTheDescriptorAndTheJarsAndNothingElse() throws Exception {
    Path plugin = unpack().resolve("qlog-similarity");
    PluginDescriptor info = PluginDescriptor.readFromProperties(plugin);
    assertEquals("io.qlog.elasticsearch.QLogSimilarityPlugin", info.getClassname());
    try (var files = Files.list(plugin)) {
      for (Path f : (Iterable<Path>) files::iterator) {
        String name = f.getFileName().toString();
        assertTrue("unexpected file in the zip: " + name, name.equals("plugin-descriptor.properties")
            || name.matches("qlog-(elasticsearch|similarity)-.*\\.jar"));
      }
    }
  }

  public void testElasticsearchLoadsThePluginFromTheZipAndItScoresWithQLog() throws Exception {
    expectThrows(ClassNotFoundException.class, () -> Class.forName("io.qlog.elasticsearch.QLogSimilarityPlugin"));
    Path plugins = unpack();
    Set<PluginBundle> bundles = PluginsLoader.loadPluginsBundles(plugins);
    PluginsLoader loader = PluginsLoader.createPluginsLoader(Set.of(), bundles, Map.of(), false);
    PluginsService service = new PluginsService(Settings.EMPTY, createTempDir("config"), loader);
    Plugin plugin = service.pluginMap().get("qlog-similarity");
    assertNotNull(service.pluginMap().keySet().toString(), plugin);
    assertNotSame("the plugin class must come from the zip's class loader", getClass().getClassLoader(),
        plugin.getClass().getClassLoader());

    double q = 0.5;
    Similarity similarity = (Similarity) plugin.getClass().getMethod("similarity", Settings.class)
        .invoke(null, Settings.builder().put("type", "qlog_bm25").put("q", q).build());
    ByteBuffersDirectory dir = new ByteBuffersDirectory();
    IndexWriterConfig iwc = new IndexWriterConfig(new WhitespaceAnalyzer()).setSimilarity(similarity);
    String[] docs = {"alpha beta", "alpha gamma", "alpha beta delta"};
    try (IndexWriter w = new IndexWriter(dir, iwc)) {
      for (String d : docs) {
        Document doc = new Document();
        doc.add(new TextField("body", d, Field.Store.NO));
        w.addDocument(doc);
      }
    }
    try (DirectoryReader reader = DirectoryReader.open(dir)) {
      IndexSearcher searcher = new IndexSearcher(reader);
      searcher.setSimilarity(similarity);
      ScoreDoc[] hits = searcher.search(new TermQuery(new Term("body", "beta")), 10).scoreDocs;
      assertEquals(2, hits.length);
      // the formula by hand: N = 3, n = 2, avgdl = 7/3, k1 = 0.9, b = 0.4, odds x = 1 + (N - n + 0.5) / (n + 0.5)
      double idf = (Math.pow(1 + (3 - 2 + 0.5) / (2 + 0.5), 1 - q) - 1) / (1 - q);
      double avgdl = 7.0 / 3.0;
      for (ScoreDoc hit : hits) {
        double dl = hit.doc == 0 ? 2 : 3;
        double expected = idf * 1 / (1 + 0.9 * (1 - 0.4 + 0.4 * dl / avgdl));
        assertEquals("doc " + hit.doc, expected, hit.score, 1e-6 * expected);
      }
    }
  }
}
