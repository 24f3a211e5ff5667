package io.qlog.solr;

import io.qlog.rewrite.QLogBoostedQuery;
import io.qlog.similarities.QLogBM25Similarity;
import io.qlog.testing.Benchmarks;
import io.qlog.testing.DistributedComparison;
import io.qlog.testing.InterleavedRounds;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import org.apache.lucene.search.BooleanClause;
import org.apache.lucene.search.BooleanQuery;
import org.apache.lucene.search.BoostQuery;
import org.apache.lucene.search.Query;
import org.apache.lucene.search.TermQuery;
import org.apache.solr.SolrTestCaseJ4;
import org.apache.solr.client.solrj.SolrQuery;
import org.apache.solr.client.solrj.request.CollectionAdminRequest;
import org.apache.solr.client.solrj.util.ClientUtils;
import org.junit.Test;

/**
 * The SolrCloud benchmarks, a program ({@code java ... io.qlog.solr.SolrCloudBench {drift|cost} OUT.md}) run in
 * the cluster of {@link TestSolrCloudCsnRuby} (Solr's test framework starts it, so the program runs one method of
 * this suite through JUnit; the suite's own tests are not run). {@code drift}: the table of results/solr-drift.md
 * at -Dqlog.drift.qs; {@code cost}: results/solr-bench.md, -Dqlog.bench.rounds timed rounds (5). The corpus is
 * -Dqlog.csn=DIR (prepared CSN-Ruby).
 */
@SolrTestCaseJ4.SuppressSSL
public class SolrCloudBench extends TestSolrCloudCsnRuby {
  static String table;

  public static void main(String[] args) throws Exception {
    Benchmarks.main(SolrCloudBench.class, args, () -> table);
  }

  /** ExactStatsCache and LocalStatsCache against the single index at each q of -Dqlog.drift.qs. */
  @Test
  public void drift() throws Exception {
    table = compareDrift(DistributedComparison.QS).checkedReport();
  }

  /**
   * Queries per second of q-log (q = 0.7) against BM25 (q = 1) in
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
  public void queryCost() throws Exception {
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
    table = md.toString();
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
