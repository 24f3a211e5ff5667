package io.qlog.rewrite;

import io.qlog.similarities.QLogBM25Similarity;
import io.qlog.similarities.QLogBM25Similarity.IdfForm;
import io.qlog.testing.Benchmarks;
import io.qlog.testing.CsnRuby;
import io.qlog.testing.InterleavedRounds;
import io.qlog.testing.ReferenceIndex;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import org.apache.lucene.search.IndexSearcher;
import org.apache.lucene.search.Query;
import org.apache.lucene.search.TopDocs;
import org.apache.lucene.search.similarities.BM25Similarity;

/**
 * The query cost of the rewrite against plain BM25 and against the q-log similarity on one in-memory CSN-Ruby
 * index, top 10 through IndexSearcher.search (block-max WAND pruning past 1,000 counted hits); the table of
 * results/rewrite-bench.md. Four sides: BM25; the rewritten query built beforehand (what an engine runs once the
 * boosts are known); the rewrite built per query (its statistics lookups and boosts timed too); the original query
 * under QLogBM25Similarity. Per query the four run back to back, the order rotating from query to query so load on
 * a shared machine hits all alike. Also counts the queries whose total hits came back as a lower bound, the sign
 * that pruning skipped documents. That the rewrite ranks as QLogBM25Similarity does is TestQLogBoostedQuery's.
 *
 * <p>{@code java ... io.qlog.rewrite.RewriteBench OUT.md}; the corpus is {@code -Dqlog.csn=DIR} (prepared CSN-Ruby,
 * else prepared from {@code -Dqlog.data}), {@code -Dqlog.bench.rounds=N} (7) timed rounds after 2 untimed,
 * {@code -Dqlog.bench.q=Q} (0.7).
 */
public final class RewriteBench {
  private RewriteBench() {}

  public static void main(String[] args) throws Exception {
    Path out = Benchmarks.output("RewriteBench", args, List.of());
    String why = CsnRuby.unavailable();
    if (why != null) {
      System.err.println("error: " + why);
      System.exit(2);
    }
    double q = Double.parseDouble(System.getProperty("qlog.bench.q", "0.7"));
    String table = table(CsnRuby.load(), q, Integer.getInteger("qlog.bench.rounds", 7));
    Benchmarks.write(out, table);
    System.out.print(table);
  }

  /** The markdown table of {@code rounds} timed rounds over {@code data}'s queries at {@code q}. */
  static String table(CsnRuby data, double q, int rounds) throws Exception {
    String[] names = {"BM25", "rewrite (prebuilt)", "rewrite (built per query)", "QLogBM25Similarity"};
    int sides = names.length;
    try (ReferenceIndex reference = new ReferenceIndex(data)) {
      QLogBM25Similarity qlog = new QLogBM25Similarity(0.9f, 0.4f, q, IdfForm.LUCENE);
      IndexSearcher plain = new IndexSearcher(reference.searcher().getIndexReader());
      plain.setSimilarity(new BM25Similarity(0.9f, 0.4f));
      IndexSearcher qlogSearcher = new IndexSearcher(reference.searcher().getIndexReader());
      qlogSearcher.setSimilarity(qlog);
      List<Query> queries = new ArrayList<>();
      List<Query> prebuilt = new ArrayList<>();
      for (String text : data.topics.values()) {
        Query query = reference.query(text);
        if (query != null) {
          queries.add(query);
          prebuilt.add(QLogBoostedQuery.rewrite(query, plain, qlog));
        }
      }
      StringBuilder md = new StringBuilder("| round | BM25 queries/s | rewrite prebuilt / BM25 | rewrite built per query / BM25 "
          + "| q-log similarity / BM25 |\n|---:|---:|---:|---:|---:|\n");
      InterleavedRounds.Request request = (side, i) -> search(side, queries.get(i), prebuilt.get(i), plain, qlogSearcher,
          qlog);
      long[][] nanos = InterleavedRounds.run(sides, queries.size(), 2, rounds, request, (r, n) ->
          md.append(String.format(Locale.ROOT, "| %d | %.0f | %.3f | %.3f | %.3f |%n", r + 1,
              InterleavedRounds.perSecond(queries.size(), n[0]), n[0] / (double) n[1], n[0] / (double) n[2],
              n[0] / (double) n[3])));
      StringBuilder pruned = new StringBuilder(); // untimed: total hits do not change from round to round
      for (int side = 0; side < sides; side++) {
        int lowerBounds = 0;
        for (int i = 0; i < queries.size(); i++) {
          TopDocs top = search(side, queries.get(i), prebuilt.get(i), plain, qlogSearcher, qlog);
          // "N+ hits": a lower bound (TotalHits' accessors differ between Lucene 9 and 10, its text does not)
          if (top.totalHits.toString().contains("+")) {
            lowerBounds++;
          }
        }
        pruned.append(String.format(Locale.ROOT, "%s%s %d", side == 0 ? "" : ", ", names[side], lowerBounds));
      }
      md.append(String.format(Locale.ROOT, "%nCSN-Ruby, %d documents in one in-memory index, %d queries, top 10, q = %s. "
          + "Median throughput ratio over %d rounds: %s. Queries whose total hits were a lower bound (pruned): %s.%n",
          reference.searcher().getIndexReader().maxDoc(), queries.size(), q, rounds,
          InterleavedRounds.medians(nanos, names, "; "), pruned));
      return md.toString();
    }
  }

  /** One benchmark search, top 10: side 0 BM25, 1 the prebuilt rewrite, 2 the rewrite built here, 3 q-log. */
  private static TopDocs search(int side, Query query, Query prebuilt, IndexSearcher plain, IndexSearcher qlogSearcher,
      QLogBM25Similarity qlog) throws IOException {
    return side == 0 ? plain.search(query, 10)
        : side == 1 ? plain.search(prebuilt, 10)
        : side == 2 ? plain.search(QLogBoostedQuery.rewrite(query, plain, qlog), 10)
        : qlogSearcher.search(query, 10);
  }
}
