package io.qlog.testing;

import io.qlog.similarities.QLogBM25Similarity;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

/**
 * A sharded engine against the single-index reference, per q: how often its top 10 under global
 * statistics equals the reference (the correctness claim), and how far its top 10 under shard-local
 * statistics drifts (top-10 overlap, NDCG@10). Renders the markdown table of results/*-drift.md.
 */
public final class DistributedComparison {
  /** The q values a drift benchmark compares: 1 and 0.7 by default, -Dqlog.drift.qs=1,0.7,0.5,0.3 for the results tables. */
  public static final double[] QS = java.util.Arrays.stream(System.getProperty("qlog.drift.qs", "1,0.7").split(","))
      .mapToDouble(Double::parseDouble).toArray();
  /** The q values at which the global-statistics side must equal the single index; others are reported. */
  public static final double[] REQUIRED = {1.0, 0.7};
  /** The share of queries that must be equal at a required q. */
  public static final double REQUIRED_SHARE = 0.99;

  private final String global;
  private final String local;
  private final CsnRuby data;
  private final Map<Double, Row> rows = new TreeMap<>((a, b) -> Double.compare(b, a));
  private final StringBuilder differences = new StringBuilder();
  private String note = "";

  private static final class Row {
    int n;
    int equalGlobal;
    int bitwise;
    int equalLocal;
    double overlapLocal;
    double ndcgRef;
    double ndcgGlobal;
    double ndcgLocal;
  }

  /**
   * @param global what the engine's global-statistics side is called in the table (e.g. ExactStatsCache)
   * @param local what its shard-local side is called (e.g. LocalStatsCache)
   * @param data the corpus, for its qrels
   */
  public DistributedComparison(String global, String local, CsnRuby data) {
    this.global = global;
    this.local = local;
    this.data = data;
  }

  /** A sharded engine's two answers to one query text: {global statistics, shard-local statistics}. */
  public interface Engine {
    TopTen[] answer(String text) throws Exception;
  }

  /**
   * Asks {@code engine} every topic, 2 requests at a time (the machine has 2 cores), then adds each query's
   * lists at {@code q} against the reference under QLogBM25Similarity(k1 = 0.9, b = 0.4, q, lucene odds), in
   * topic order.
   */
  public void compareAll(double q, Engine engine, ReferenceIndex reference) throws Exception {
    Map<String, Future<TopTen[]>> answers = new LinkedHashMap<>();
    ExecutorService pool = Executors.newFixedThreadPool(2);
    try {
      for (Map.Entry<String, String> topic : data.topics.entrySet()) {
        String text = topic.getValue();
        answers.put(topic.getKey(), pool.submit(() -> engine.answer(text)));
      }
      for (Future<TopTen[]> f : answers.values()) {
        f.get();
      }
    } finally {
      pool.shutdown();
      if (!pool.awaitTermination(1, TimeUnit.MINUTES)) {
        throw new IllegalStateException("engine requests still running after a minute");
      }
    }
    QLogBM25Similarity similarity = new QLogBM25Similarity(0.9f, 0.4f, q, QLogBM25Similarity.IdfForm.LUCENE);
    for (Map.Entry<String, String> topic : data.topics.entrySet()) {
      TopTen[] engineTops = answers.get(topic.getKey()).get();
      add(q, topic.getKey(), engineTops[0], engineTops[1], reference.top(similarity, topic.getValue()));
    }
  }

  /** How a test sets q on the engine's index (for Elasticsearch and OpenSearch: close, update, open, wait). */
  public interface QSetting {
    void set(double q) throws Exception;
  }

  /**
   * The drift comparison of an engine with Elasticsearch's search types, once {@code suite}'s corpus is indexed in
   * 1 index of 2 shards on 2 data nodes: at each q of {@code qs}, {@code setQ}, then every query answered with
   * dfs_query_then_fetch and query_then_fetch ({@code engine}, in that order) against the single index.
   */
  public static DistributedComparison searchTypes(String engineName, double[] qs, SuiteCorpus suite, QSetting setQ,
      Engine engine) throws Exception {
    CsnRuby data = suite.data();
    DistributedComparison comparison = new DistributedComparison("dfs_query_then_fetch", "query_then_fetch", data);
    for (double q : qs) {
      setQ.set(q);
      comparison.compareAll(q, engine, suite.reference());
      suite.log("q=" + q + ": " + engineName + " answered " + data.topics.size() + " queries with both search types");
    }
    comparison.describe(String.format(Locale.ROOT, "%d documents, 2 data nodes, 1 index of 2 shards; time %.0f s "
        + "(corpus load, indexing, %d query passes; cluster start not counted).%n", data.docs.size(), suite.seconds(),
        qs.length * 2));
    return comparison;
  }

  /** The text printed under the table by {@link #report} (what was compared, how long it took). */
  public void describe(String note) {
    this.note = note;
  }

  /** The table, then the note of {@link #describe}: the markdown of results/*-drift.md. */
  public String report() {
    return markdown() + "\n" + note;
  }

  /** The drift table ({@link #report}), once {@link #assertGlobalEqualsSingleIndex} has passed. */
  public String checkedReport() {
    assertGlobalEqualsSingleIndex();
    return report();
  }

  /** One query's three top-10 lists at {@code q}. */
  public void add(double q, String qid, TopTen globalTop, TopTen localTop, TopTen reference) {
    Row row = rows.computeIfAbsent(q, k -> new Row());
    row.n++;
    if (TopTen.same(globalTop, reference)) {
      row.equalGlobal++;
      row.bitwise += globalTop.scores.equals(reference.scores) ? 1 : 0;
    } else if (differences.length() < 20_000) {
      differences.append(String.format(Locale.ROOT, "q=%s %s%n  engine    %s%n  reference %s%n", q, qid, globalTop, reference));
    }
    row.equalLocal += localTop.ids.equals(reference.ids) ? 1 : 0; // scores differ by construction
    row.overlapLocal += TopTen.overlap(localTop, reference);
    row.ndcgRef += data.ndcg10(qid, reference.ids);
    row.ndcgGlobal += data.ndcg10(qid, globalTop.ids);
    row.ndcgLocal += data.ndcg10(qid, localTop.ids);
  }

  /** Share of queries at {@code q} whose global-statistics top 10 equals the reference. */
  public double equalShare(double q) {
    Row row = rows.get(q);
    return row == null || row.n == 0 ? 0 : row.equalGlobal / (double) row.n;
  }

  /** The lists that differed under global statistics (capped), or "" when none did. */
  public String differences() {
    return differences.toString();
  }

  /** The table, one row per q, then the differences if any. */
  public String markdown() {
    StringBuilder md = new StringBuilder();
    md.append(String.format(Locale.ROOT, "| q | queries | %s top 10 = single index | NDCG@10 single index | %s | %s | local - single "
        + "| top-10 overlap, local vs single | local top 10 same ids and order |%n", global, global, local));
    md.append("|---|---:|---|---:|---:|---:|---:|---:|---|\n");
    for (Map.Entry<Double, Row> e : rows.entrySet()) {
      double q = e.getKey();
      Row r = e.getValue();
      md.append(String.format(Locale.ROOT, "| %s | %d | %d (%.2f%%), %d bitwise | %.4f | %.4f | %.4f | %+.4f | %.3f | %d (%.1f%%) |%n",
          q == 1.0 ? "1 (BM25)" : Double.toString(q), r.n, r.equalGlobal, 100.0 * r.equalGlobal / r.n, r.bitwise,
          r.ndcgRef / r.n, r.ndcgGlobal / r.n, r.ndcgLocal / r.n, (r.ndcgLocal - r.ndcgRef) / r.n, r.overlapLocal / r.n,
          r.equalLocal, 100.0 * r.equalLocal / r.n));
    }
    if (differences.length() > 0) {
      md.append("\n").append(global).append(" differences:\n\n```\n").append(differences).append("```\n");
    }
    return md.toString();
  }

  /**
   * Fails, listing the q values and the lists that differed, unless at every q of {@link #REQUIRED} that was
   * compared the global-statistics top 10 equals the single index on at least {@link #REQUIRED_SHARE} of queries.
   */
  public void assertGlobalEqualsSingleIndex() {
    List<String> failures = new ArrayList<>();
    for (double q : REQUIRED) {
      if (rows.containsKey(q) && equalShare(q) < REQUIRED_SHARE) {
        failures.add(String.format(Locale.ROOT, "q=%s: %s top 10 equals the single index on %.2f%% of queries (< %.0f%%)",
            q, global, 100 * equalShare(q), 100 * REQUIRED_SHARE));
      }
    }
    if (!failures.isEmpty()) {
      throw new AssertionError(String.join("\n", failures) + "\n" + differences);
    }
  }
}
