package io.qlog.solr;

import io.qlog.testing.AnalyzerFixture;
import io.qlog.testing.CsnRuby;
import io.qlog.testing.DistributedComparison;
import io.qlog.testing.InterleavedRounds;
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
import io.qlog.rewrite.QLogBoostedQuery;
import io.qlog.similarities.QLogBM25Similarity;
import org.apache.lucene.search.BooleanClause;
import org.apache.lucene.search.BooleanQuery;
import org.apache.lucene.search.BoostQuery;
import org.apache.lucene.search.Query;
import org.apache.lucene.search.TermQuery;
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
import org.junit.AssumptionViolatedException;
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
 *       is measured for BM25 (q = 1) and q-log (q = 0.7, 0.5, 0.3): top-10 overlap and NDCG@10. Written to
 *       target/solr-drift.md (or -Dqlog.drift.out=PATH).
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
    DistributedComparison comparison = new DistributedComparison("ExactStatsCache", "LocalStatsCache", data);
    for (double q : DistributedComparison.QS) {
      setQ(q);
      suite.log("q=" + q + ": configsets uploaded, collections reloaded");
      comparison.compareAll(q, text -> new TopTen[] {solrTop("exact", text), solrTop("local", text)}, reference);
      suite.log("q=" + q + ": Solr answered " + data.topics.size() + " queries on both collections");
    }
    comparison.finish(String.format(Locale.ROOT,
        "%d documents, 2 nodes, 2 shards; test time %.0f s (cluster start, indexing twice, %d query passes).%n",
        data.docs.size(), suite.seconds(), DistributedComparison.QS.length * 2), "solr-drift.md");
  }

  /**
   * Off by default (-Dqlog.bench=true): queries per second of q-log (q = 0.7) against BM25 (q = 1) in
   * one SolrCloud collection (2 shards, ExactStatsCache) holding the corpus twice: field {@code contents} with
   * q-log and its copy {@code contents_bm25} whose field type is identical but for q = 1; and a third side, the
   * boosted-query rewrite (q = 0.7) on {@code contents_bm25} in the rewrite verb's query form ({@code {!term}}
   * clauses with boosts), its boosts computed beforehand from the single reference index (whose statistics are
   * the collection's global ones under ExactStatsCache; the statistics requests the verb makes per query are not
   * timed). Every query is sent to the three sides back to back, the order rotating from query to query, so load
   * changes on a shared machine hit all alike; each side's time is the sum of its request latencies. One client
   * thread, rows = 10.
   */
  @Test
  public void throughputQLogVsBM25VsRewrite() throws Exception {
    if (!Boolean.getBoolean("qlog.bench")) {
      throw new AssumptionViolatedException("throughput benchmark runs only with -Dqlog.bench=true");
    }
    int rounds = Integer.getInteger("qlog.bench.rounds", 5);
    double qlogQ = 0.7;
    Path conf = configs.resolve("qlog-bench").resolve("conf");
    Files.createDirectories(conf);
    Path template = Paths.get(System.getProperty("basedir", ".")).resolve("src/test/resources/configset/conf");
    String schema = Files.readString(template.resolve("schema.xml"), StandardCharsets.UTF_8).replace("@Q@", Double.toString(qlogQ));
    int typeStart = schema.indexOf("  <fieldType name=\"text_anserini\"");
    int typeEnd = schema.indexOf("</fieldType>", typeStart) + "</fieldType>".length();
    String bm25Type = schema.substring(typeStart, typeEnd)
        .replace("name=\"text_anserini\"", "name=\"text_anserini_bm25\"")
        .replace("<float name=\"q\">" + qlogQ + "</float>", "<float name=\"q\">1.0</float>");
    schema = schema.replace("</schema>", bm25Type + "\n  <field name=\"contents_bm25\" type=\"text_anserini_bm25\" indexed=\"true\" stored=\"false\"/>\n"
        + "  <copyField source=\"contents\" dest=\"contents_bm25\"/>\n</schema>");
    Files.writeString(conf.resolve("schema.xml"), schema, StandardCharsets.UTF_8);
    Files.writeString(conf.resolve("solrconfig.xml"), Files.readString(template.resolve("solrconfig.xml"), StandardCharsets.UTF_8)
        .replace("@STATS_CACHE@", "org.apache.solr.search.stats.ExactStatsCache"), StandardCharsets.UTF_8);
    cluster.uploadConfigSet(conf, "qlog-bench");
    CollectionAdminRequest.createCollection("bench", "qlog-bench", 2, 1).process(cluster.getSolrClient());
    cluster.waitForActiveCollection("bench", 2, 2);
    indexCorpus("bench");

    QLogBM25Similarity qlog = new QLogBM25Similarity(0.9f, 0.4f, qlogQ, QLogBM25Similarity.IdfForm.LUCENE);
    List<String> texts = new ArrayList<>();
    List<SolrQuery> rewrites = new ArrayList<>();
    for (String text : data.topics.values()) {
      Query query = reference.query(text);
      if (query != null) {
        texts.add(text);
        rewrites.add(rewriteQuery(QLogBoostedQuery.rewrite(query, reference.searcher(), qlog), "contents_bm25"));
      }
    }
    int sides = 3; // BM25, q-log, rewrite
    InterleavedRounds.Request request = (side, i) -> benchSide(side, texts.get(i), rewrites.get(i));
    InterleavedRounds.warmUp(sides, 300, request);
    long[][] nanos = InterleavedRounds.run(sides, texts.size(), 0, rounds, request, (r, n) -> suite.log(String.format(
        Locale.ROOT, "round %d: BM25 %.1f q/s, q-log %.1f q/s, rewrite %.1f q/s", r + 1,
        InterleavedRounds.perSecond(texts.size(), n[0]), InterleavedRounds.perSecond(texts.size(), n[1]),
        InterleavedRounds.perSecond(texts.size(), n[2]))));
    StringBuilder md = new StringBuilder();
    md.append("| round | BM25 (q = 1) queries/s | q-log (q = 0.7) queries/s | rewrite (q = 0.7) queries/s "
        + "| q-log / BM25 | rewrite / BM25 |\n|---:|---:|---:|---:|---:|---:|\n");
    for (int r = 0; r < rounds; r++) {
      md.append(InterleavedRounds.row(r, texts.size(), nanos[r]));
    }
    double[] qlogMedian = InterleavedRounds.medianAndRange(InterleavedRounds.ratios(nanos, 1));
    double[] rewriteMedian = InterleavedRounds.medianAndRange(InterleavedRounds.ratios(nanos, 2));
    md.append(String.format(Locale.ROOT, "%nMedian throughput ratio over %d rounds of %d queries per side: q-log / BM25 **%.3f** "
        + "(range %.3f to %.3f), rewrite / BM25 **%.3f** (range %.3f to %.3f).%n", rounds, texts.size(),
        qlogMedian[0], qlogMedian[1], qlogMedian[2], rewriteMedian[0], rewriteMedian[1], rewriteMedian[2]));
    InterleavedRounds.publish(md.toString(), "solr-bench.md");
  }

  /** One benchmark request: side 0 BM25 on the text, 1 q-log on the text, 2 the prebuilt rewrite. */
  static void benchSide(int side, String text, SolrQuery rewrite) throws Exception {
    if (side == 2) {
      cluster.getSolrClient().query("bench", rewrite);
    } else {
      benchQuery(side == 0 ? "contents_bm25" : "contents", text);
    }
  }

  /**
   * A rewritten Lucene query as the rewrite verb sends it to Solr (qlog_pyserini/rewrite/http.py's solr_query):
   * one SHOULD clause {@code _query_:"{!term f=FIELD v=$tN}"^boost} per boosted term, the token in parameter tN;
   * terms no document holds (left unboosted by the rewrite) are left out.
   */
  static SolrQuery rewriteQuery(Query query, String field) {
    List<Query> leaves = new ArrayList<>();
    if (query instanceof BooleanQuery) {
      for (BooleanClause clause : ((BooleanQuery) query).clauses()) {
        leaves.add(clause.getQuery());
      }
    } else {
      leaves.add(query);
    }
    SolrQuery solr = new SolrQuery();
    List<String> clauses = new ArrayList<>();
    for (Query leaf : leaves) {
      if (leaf instanceof BoostQuery) {
        BoostQuery boosted = (BoostQuery) leaf;
        String name = "t" + clauses.size();
        solr.set(name, ((TermQuery) boosted.getQuery()).getTerm().text());
        clauses.add(String.format(Locale.ROOT, "_query_:\"{!term f=%s v=$%s}\"^%.9f", field, name, boosted.getBoost()));
      }
    }
    solr.setQuery("{!lucene q.op=OR}" + (clauses.isEmpty() ? "-*:*" : String.join(" ", clauses)));
    solr.setRows(10);
    solr.setFields("id", "score");
    return solr;
  }

  static void benchQuery(String field, String text) throws Exception {
    SolrQuery query = new SolrQuery(ClientUtils.escapeQueryChars(text));
    query.set("defType", "lucene");
    query.set("df", field);
    query.setRows(10);
    query.setFields("id", "score");
    cluster.getSolrClient().query("bench", query);
  }
}
