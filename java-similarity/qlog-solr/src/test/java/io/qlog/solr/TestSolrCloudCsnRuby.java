package io.qlog.solr;

import io.qlog.testing.AnalyzerFixture;
import io.qlog.testing.CsnRuby;
import io.qlog.testing.DistributedComparison;
import io.qlog.testing.ReferenceIndex;
import io.qlog.testing.SuiteCorpus;
import io.qlog.testing.TopTen;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import org.apache.solr.client.solrj.SolrQuery;
import org.apache.solr.client.solrj.request.CollectionAdminRequest;
import org.apache.solr.client.solrj.request.FieldAnalysisRequest;
import org.apache.solr.client.solrj.response.AnalysisResponseBase;
import org.apache.solr.client.solrj.response.FieldAnalysisResponse;
import org.apache.solr.client.solrj.response.QueryResponse;
import org.apache.solr.client.solrj.util.ClientUtils;
import org.apache.solr.SolrTestCaseJ4;
import org.apache.solr.cloud.SolrCloudTestCase;
import org.apache.solr.common.SolrDocument;
import org.apache.solr.common.SolrInputDocument;
import org.junit.AfterClass;
import org.junit.BeforeClass;
import org.junit.Test;

/**
 * q-log BM25 in a real SolrCloud: 2 nodes, 2-shard collections of CodeSearchNet Ruby (2,661 functions,
 * 1,261 queries), analyzed as Anserini's default English analyzer.
 *
 * <ul>
 *   <li>With ExactStatsCache (global document frequencies) each query's top 10 must equal a single-index
 *       Lucene 9.12 run with the same analyzer, query and similarity: same ids, same order, scores within
 *       one float ulp. Both sides order ties by id, as Anserini does, so a tie cannot reorder them.
 *   <li>With LocalStatsCache (Solr's default: each shard its own statistics) the drift from that reference
 *       is measured for BM25 (q = 1) and q-log (q = 0.7, 0.5, 0.3): top-10 overlap and NDCG@10, the table
 *       {@link SolrCloudBench} writes.
 * </ul>
 *
 * The query is what Solr's standard parser makes of the escaped text (one SHOULD clause per analyzed term,
 * repeated terms merged into a boost by BooleanQuery's rewrite, as Anserini's bag of words), built on the
 * reference side with Lucene's QueryBuilder, the class Solr's parser extends.
 */
// plain HTTP: the test framework would otherwise pick SSL at random, which only slows the 10,000 requests
@SolrTestCaseJ4.SuppressSSL
public class TestSolrCloudCsnRuby extends SolrCloudTestCase {

  static final SuiteCorpus suite = new SuiteCorpus();
  static CsnRuby data;
  static Path configs;
  static ReferenceIndex reference;

  @BeforeClass
  public static void setUpCluster() throws Exception {
    suite.restartClock();
    suite.require();
    data = suite.data();
    reference = suite.reference();
    configs = createTempDir("configsets");
    writeConfigSet("qlog-exact", "org.apache.solr.search.stats.ExactStatsCache", 1.0);
    writeConfigSet("qlog-local", "org.apache.solr.search.stats.LocalStatsCache", 1.0);
    configureCluster(2)
        .addConfig("qlog-exact", configs.resolve("qlog-exact").resolve("conf"))
        .addConfig("qlog-local", configs.resolve("qlog-local").resolve("conf"))
        .configure();
    for (String c : new String[] {"exact", "local"}) {
      CollectionAdminRequest.createCollection(c, "qlog-" + c, 2, 1).process(cluster.getSolrClient());
      cluster.waitForActiveCollection(c, 2, 2);
      indexCorpus(c);
    }
    // the single-index reference, Lucene 9.12 (the Lucene Solr runs)
    suite.log("cluster up, both collections indexed");
  }

  /** Every CSN-Ruby document ({@code id}, {@code contents}) into {@code collection}, committed. */
  static void indexCorpus(String collection) throws Exception {
    List<SolrInputDocument> batch = new ArrayList<>();
    for (String[] d : data.docs) {
      SolrInputDocument doc = new SolrInputDocument();
      doc.addField("id", d[0]);
      doc.addField("contents", d[1]);
      batch.add(doc);
    }
    cluster.getSolrClient().add(collection, batch);
    cluster.getSolrClient().commit(collection);
  }

  @AfterClass
  public static void closeReference() throws IOException {
    suite.close();
    reference = null;
    data = null;
  }

  static void writeConfigSet(String name, String statsCache, double q) throws IOException {
    Path conf = configs.resolve(name).resolve("conf");
    Files.createDirectories(conf);
    Path template = Paths.get(System.getProperty("basedir", ".")).resolve("src/test/resources/configset/conf");
    String schema = Files.readString(template.resolve("schema.xml"), StandardCharsets.UTF_8);
    String config = Files.readString(template.resolve("solrconfig.xml"), StandardCharsets.UTF_8);
    Files.writeString(conf.resolve("schema.xml"), schema.replace("@Q@", Double.toString(q)), StandardCharsets.UTF_8);
    Files.writeString(conf.resolve("solrconfig.xml"), config.replace("@STATS_CACHE@", statsCache), StandardCharsets.UTF_8);
  }

  /** Changes q the way a deployment would: a new schema in the configset, then a collection RELOAD. */
  static void setQ(double q) throws Exception {
    writeConfigSet("qlog-exact", "org.apache.solr.search.stats.ExactStatsCache", q);
    writeConfigSet("qlog-local", "org.apache.solr.search.stats.LocalStatsCache", q);
    for (String c : new String[] {"exact", "local"}) {
      cluster.uploadConfigSet(configs.resolve("qlog-" + c).resolve("conf"), "qlog-" + c);
      CollectionAdminRequest.reloadCollection(c).process(cluster.getSolrClient());
    }
  }

  @Test
  public void schemaAnalyzerIsAnserinisDefaultEnglishAnalyzer() throws Exception {
    List<String> texts = AnalyzerFixture.texts();
    List<String> expected = AnalyzerFixture.anseriniTokens();
    for (int i = 0; i < texts.size(); i++) {
      String text = texts.get(i);
      if (text.isBlank()) {
        continue; // Solr's analysis handler refuses an empty value; TestAnseriniEnglishAnalyzer covers it
      }
      FieldAnalysisRequest req = new FieldAnalysisRequest();
      req.addFieldType("text_anserini");
      req.setFieldValue(text);
      FieldAnalysisResponse rsp = req.process(cluster.getSolrClient(), "exact");
      List<String> solr = new ArrayList<>();
      AnalysisResponseBase.AnalysisPhase last = null;
      for (AnalysisResponseBase.AnalysisPhase phase : rsp.getFieldTypeAnalysis("text_anserini").getIndexPhases()) {
        last = phase;
      }
      for (AnalysisResponseBase.TokenInfo t : last.getTokens()) {
        solr.add(t.getText());
      }
      assertEquals("Solr schema analyzer, text " + (i + 1) + ": " + text, expected.get(i), String.join(" ", solr));
    }
  }

  static TopTen solrTop(String collection, String text) throws Exception {
    SolrQuery query = new SolrQuery(ClientUtils.escapeQueryChars(text));
    query.set("defType", "lucene");
    query.setRows(10);
    query.setFields("id", "score");
    query.set("sort", "score desc,id asc");
    QueryResponse rsp = cluster.getSolrClient().query(collection, query);
    TopTen top = new TopTen();
    for (SolrDocument d : rsp.getResults()) {
      top.add((String) d.getFieldValue("id"), ((Number) d.getFieldValue("score")).floatValue());
    }
    return top;
  }

  @Test
  public void exactStatsEqualSingleIndexAndLocalStatsDrift() throws Exception {
    compareDrift(DistributedComparison.REQUIRED).assertGlobalEqualsSingleIndex();
  }

  /**
   * Each query at each q on both collections against the single index (SolrCloudBench's drift table at the q values
   * of the results, this suite's equality check at those it requires).
   */
  static DistributedComparison compareDrift(double[] qs) throws Exception {
    DistributedComparison comparison = new DistributedComparison("ExactStatsCache", "LocalStatsCache", data);
    for (double q : qs) {
      setQ(q);
      suite.log("q=" + q + ": configsets uploaded, collections reloaded");
      comparison.compareAll(q, text -> new TopTen[] {solrTop("exact", text), solrTop("local", text)}, reference);
      suite.log("q=" + q + ": Solr answered " + data.topics.size() + " queries on both collections");
    }
    comparison.describe(String.format(Locale.ROOT,
        "%d documents, 2 nodes, 2 shards; time %.0f s (cluster start, indexing twice, %d query passes).%n",
        data.docs.size(), suite.seconds(), qs.length * 2));
    return comparison;
  }
}
