package io.qlog.search;

import io.qlog.similarities.ExhaustiveScoring;
import java.io.IOException;
import org.apache.lucene.search.IndexSearcher;
import org.apache.lucene.search.Query;
import org.apache.lucene.search.ScoreDoc;
import org.apache.lucene.search.Sort;
import org.apache.lucene.search.TopFieldCollector;
import org.apache.lucene.search.TopFieldCollectorManager;
import org.apache.lucene.search.TopFieldDocs;

/**
 * The top k of a query in Anserini's order (score descending, docid ascending), scores as Lucene
 * gives them, by one of three engines: term at a time ({@link TermAtATimeTopK}), one pruned pass of
 * Lucene's keeping (score, docid) itself ({@link AnseriniTopK}), or Lucene's sorted search as
 * Anserini runs it. Every engine gives the same documents in the same order with the same float
 * scores; {@link #routed} picks the fastest, and each is public so that the benchmark can time it alone.
 */
public final class TopKRouter {

  /** The clause limit searches here need (Lucene's default is 1,024). */
  private static final int MAX_CLAUSES = 1 << 20;

  static {
    allowLongQueries();
  }

  private TopKRouter() {}

  /**
   * Raises Lucene's clause limit: a long natural-language or code query has more than 1,024
   * distinct terms (one clause each), and IndexSearcher.TooManyClauses would fail the whole batch it is in.
   */
  public static void allowLongQueries() {
    IndexSearcher.setMaxClauseCount(Math.max(IndexSearcher.getMaxClauseCount(), MAX_CLAUSES));
  }

  /**
   * The route the search verb takes: term at a time ({@link #termAtATime}) where k is at least
   * {@link TermAtATimeTopK#MIN_K} and the query's terms hold at most
   * {@link TermAtATimeTopK#POSTINGS_PER_HIT} postings per hit wanted, else in one pruned pass of
   * Lucene's ({@link #lucene}).
   */
  public static ScoreDoc[] routed(IndexSearcher searcher, Query query, int k, Docids.IdOrder ids) throws IOException {
    int n = cap(searcher, k);
    if (n >= TermAtATimeTopK.MIN_K) {
      return termAtATime(searcher, query, n, ids, TermAtATimeTopK.POSTINGS_PER_HIT * n);
    }
    return lucene(searcher, query, n, ids);
  }

  /**
   * Scored term at a time ({@link TermAtATimeTopK}) at any k when the query is a disjunction of term
   * queries whose terms hold at most {@code maxPostings} postings ({@code Long.MAX_VALUE}: any
   * number), else by {@link #lucene}.
   */
  public static ScoreDoc[] termAtATime(IndexSearcher searcher, Query query, int k, Docids.IdOrder ids,
      long maxPostings) throws IOException {
    int n = cap(searcher, k);
    long[] codes = TermAtATimeTopK.search(searcher, query, n, ids, maxPostings);
    if (codes == null) {
      return lucene(searcher, query, n, ids);
    }
    ScoreDoc[] top = new ScoreDoc[codes.length];
    for (int i = 0; i < codes.length; i++) {
      top[i] = new ScoreDoc(ids.doc()[AnseriniTopK.rankOf(codes[i])], AnseriniTopK.scoreOf(codes[i]));
    }
    return top;
  }

  /** One pruned pass of Lucene's ({@link AnseriniTopK}), at any k. */
  public static ScoreDoc[] lucene(IndexSearcher searcher, Query query, int k, Docids.IdOrder ids) throws IOException {
    boolean prune = !(searcher.getSimilarity() instanceof ExhaustiveScoring);
    return searcher.search(query, new AnseriniTopK(cap(searcher, k), ids, prune)).scoreDocs;
  }

  /**
   * {@code searcher.search(query, k, tieBreakingSort, true)}, Anserini's own search, whose hits carry
   * the docid among their sort values; except under an {@link ExhaustiveScoring} similarity (DPH),
   * whose scores are not monotone in tf: there every match is scored, since Lucene's block-max
   * pruning would skip documents that belong in the top k.
   */
  static TopFieldDocs sorted(IndexSearcher searcher, Query query, int k) throws IOException {
    Sort sort = SimpleSearcherAccess.tieBreakingSort();
    if (!(searcher.getSimilarity() instanceof ExhaustiveScoring)) {
      return searcher.search(query, k, sort, true);
    }
    int hits = cap(searcher, k);
    int threshold = ExhaustiveScoring.totalHitsThreshold(searcher.getSimilarity(), hits);
    TopFieldDocs top = searcher.search(query, new TopFieldCollectorManager(sort.rewrite(searcher), hits, null,
        threshold));
    TopFieldCollector.populateScores(top.scoreDocs, searcher, query);
    return top;
  }

  /** k as IndexSearcher caps it: at least 1, at most the number of documents. */
  private static int cap(IndexSearcher searcher, int k) {
    return Math.max(1, Math.min(k, searcher.getIndexReader().maxDoc()));
  }
}
