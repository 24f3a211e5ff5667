package io.qlog.opensearch;

import io.qlog.rewrite.QLogBoostedQuery;
import io.qlog.similarities.QLogBM25Similarity;
import io.qlog.testing.Benchmarks;
import io.qlog.testing.CsnRuby;
import io.qlog.testing.InterleavedRounds;
import io.qlog.testing.ReferenceIndex;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import org.apache.lucene.search.Query;
import org.junit.Test;
import org.opensearch.action.search.SearchResponse;
import org.opensearch.action.search.SearchType;
import org.opensearch.index.query.QueryBuilder;
import org.opensearch.index.query.QueryBuilders;

/**
 * The OpenSearch benchmarks, a program ({@code java ... io.qlog.opensearch.OpenSearchBench {drift|cost} OUT.md})
 * run in the cluster of {@link TestOpenSearchCsnRuby} (OpenSearch's test framework starts it, so the program runs
 * one method of this suite through JUnit; the suite's own tests are not run). {@code drift}: the table of
 * results/opensearch-drift.md at -Dqlog.drift.qs; {@code cost}: results/opensearch-bench.md. The corpus is
 * -Dqlog.csn=DIR (prepared CSN-Ruby).
 */
public class OpenSearchBench extends ClusterBench {
  public static void main(String[] args) throws Exception {
    Benchmarks.main(OpenSearchBench.class, args, () -> table);
  }

  /**
   * Queries per second with dfs_query_then_fetch on the three fields of one
   * index, q-log by the plugin, built-in BM25, and q-log by the scripted similarity, and a fourth side, the
   * boosted-query rewrite (q = 0.7) on the BM25 field, its boosts computed beforehand from the single index (whose
   * statistics are the cluster's global ones: same documents, none deleted; the statistics round trip the rewrite
   * verb makes per query is not timed). Each query goes to the four sides back to back, the order rotating from
   * query to query, so load changes on a shared machine hit all alike; a side's time is the sum of its request
   * latencies. One client thread, 10 hits, 300 warm-up queries per side.
   *
   * <p>-Dqlog.bench.copies=K indexes every document K times (ids suffixed), so queries match K times as many
   * documents; -Dqlog.bench.prune=true sends {@code track_total_hits: false} in score order only (no id
   * tie-break), so a side whose scorer can skip blocks (block-max WAND/MaxScore) may, where OpenSearch's default
   * counts the first 10,000 hits of every query exactly.
   */
  @Test
  public void queryCost() throws Exception {
    requireCorpus();
    int copies = Integer.getInteger("qlog.bench.copies", 1);
    boolean prune = Boolean.getBoolean("qlog.bench.prune");
    CsnRuby corpus = data;
    ReferenceIndex stats = reference;
    if (copies > 1) {
      corpus = CsnRuby.load();
      List<String[]> originals = new ArrayList<>(corpus.docs);
      for (int k = 1; k < copies; k++) {
        for (String[] d : originals) {
          corpus.docs.add(new String[] {d[0] + "~" + k, d[1]});
        }
      }
      stats = new ReferenceIndex(corpus); // the boosts from the statistics the bench index holds
    }
    createThreeSimilarityIndex("bench", corpus.docs);
    QLogBM25Similarity qlog = new QLogBM25Similarity(0.9f, 0.4f, 0.7, QLogBM25Similarity.IdfForm.LUCENE);
    List<QueryBuilder[]> queries = new ArrayList<>();
    for (String text : data.topics.values()) {
      Query query = stats.query(text);
      if (query != null) {
        queries.add(new QueryBuilder[] {QueryBuilders.matchQuery("contents_bm25", text),
            QueryBuilders.matchQuery("contents", text), QueryBuilders.matchQuery("contents_scripted", text),
            boosted(QLogBoostedQuery.rewrite(query, stats.searcher(), qlog), "contents_bm25")});
      }
    }
    if (stats != reference) {
      stats.close();
    }
    int sides = 4;
    InterleavedRounds.Request request = (side, i) -> benchSearch(queries.get(i)[side], prune);
    InterleavedRounds.warmUp(sides, Math.min(300, queries.size()), request);
    int rounds = Integer.getInteger("qlog.bench.rounds", 5);
    StringBuilder md = new StringBuilder("| round | BM25 queries/s | q-log plugin queries/s | q-log scripted queries/s "
        + "| rewrite queries/s | plugin / BM25 | scripted / BM25 | rewrite / BM25 |\n"
        + "|---:|---:|---:|---:|---:|---:|---:|---:|\n");
    long[][] nanos = InterleavedRounds.run(sides, queries.size(), 0, rounds, request, (r, n) -> {
      md.append(InterleavedRounds.row(r, queries.size(), n));
      suite.log(String.format(Locale.ROOT, "round %d: BM25 %.1f, plugin %.1f, scripted %.1f, rewrite %.1f queries/s", r + 1,
          InterleavedRounds.perSecond(queries.size(), n[0]), InterleavedRounds.perSecond(queries.size(), n[1]),
          InterleavedRounds.perSecond(queries.size(), n[2]), InterleavedRounds.perSecond(queries.size(), n[3])));
    });
    String medians = InterleavedRounds.medians(nanos, new String[] {"BM25", "plugin", "scripted", "rewrite"}, ", ");
    md.append(String.format(Locale.ROOT, "%nCorpus %s%s: %d documents, 2 shards, %s. Median throughput ratio over %d rounds "
        + "of %d queries per side: %s.%n", "CSN-Ruby",
        copies > 1 ? ", every document " + copies + " times" : "", corpus.docs.size(),
        prune ? "track_total_hits false, score order" : "hits counted (OpenSearch's default), score then id order",
        rounds, queries.size(), medians));
    table = md.toString();
  }

  /** One benchmark request on the bench index: as {@link #openSearchTop}, or (prune) uncounted in score order. */
  static void benchSearch(QueryBuilder query, boolean prune) {
    if (!prune) {
      openSearchTop("bench", query, SearchType.DFS_QUERY_THEN_FETCH);
      return;
    }
    SearchResponse rsp = client().prepareSearch("bench").setSearchType(SearchType.DFS_QUERY_THEN_FETCH)
        .setQuery(query).setSize(10).setTrackTotalHits(false).get();
    assertNotNull(rsp.getHits());
  }
}
