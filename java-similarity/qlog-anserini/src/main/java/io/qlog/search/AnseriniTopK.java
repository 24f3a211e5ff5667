package io.qlog.search;

import java.io.IOException;
import java.util.Collection;
import org.apache.lucene.index.LeafReaderContext;
import org.apache.lucene.search.Collector;
import org.apache.lucene.search.CollectorManager;
import org.apache.lucene.search.LeafCollector;
import org.apache.lucene.search.Scorable;
import org.apache.lucene.search.ScoreDoc;
import org.apache.lucene.search.ScoreMode;
import org.apache.lucene.search.TopDocs;
import org.apache.lucene.search.TotalHits;
import java.util.Arrays;
import org.apache.lucene.util.TernaryLongHeap;
import org.apache.lucene.util.NumericUtils;

/**
 * The top k of a query in Anserini's order (score descending, ties by external docid ascending) in
 * one pruned pass: a plain top-k's cost, with no (score, docid) field sort.
 *
 * <p>Anserini sorts by (score, docid) with a {@code TopFieldCollector}, which reads and compares the
 * id bytes of every competitive hit from doc values. Lucene's own {@code TopScoreDocCollector} is
 * cheaper but breaks ties by doc number and, since documents arrive in doc-number order, prunes
 * every later document that only ties the k-th score (it asks the scorer for {@code nextUp} of it).
 * This collector works as Lucene's does (one {@code long} per hit in a ternary heap of longs, the score's
 * sortable bits above the tie key, so a comparison is one integer compare) with two changes: the
 * tie key is the place of the document's id in id order ({@link Docids#order}, sorted once per
 * reader) instead of its doc number, and it asks the scorer only for documents scoring at least the
 * k-th score, ties included, so a tied document with a smaller docid can still enter. The result is
 * exactly Anserini's top k whether or not a tie crosses the cut-off.
 *
 * <p>A similarity whose scores are not monotone in tf ({@code ExhaustiveScoring}, DPH) gets
 * {@link ScoreMode#COMPLETE}: every match is scored, since block-max pruning would skip documents
 * that belong in the top k.
 */
public final class AnseriniTopK implements CollectorManager<AnseriniTopK.TopK, TopDocs> {

  /** Below every hit's code: the heap starts full of it, so a hit never checks whether the heap is full. */
  static final long EMPTY = Long.MIN_VALUE;

  private final int k;
  private final Docids.IdOrder order;
  private final boolean prune;

  /**
   * @param k the number of hits wanted (at least 1)
   * @param order the id order of the searched reader ({@link Docids#order})
   * @param prune whether the scorer may skip documents that cannot enter the top k
   */
  public AnseriniTopK(int k, Docids.IdOrder order, boolean prune) {
    if (k < 1) {
      throw new IllegalArgumentException("illegal k value: " + k + ", must be at least 1");
    }
    this.k = k;
    this.order = order;
    this.prune = prune;
  }

  @Override
  public TopK newCollector() {
    return new TopK();
  }

  /**
   * The top k of all slices, best first; the total is the number of hits returned, as a lower bound
   * (pruned documents are not counted).
   */
  @Override
  public TopDocs reduce(Collection<TopK> collectors) {
    TernaryLongHeap heap = collectors.size() == 1 ? collectors.iterator().next().heap : new TernaryLongHeap(k, EMPTY);
    if (collectors.size() > 1) {
      for (TopK c : collectors) {
        for (int i = 1; i <= c.heap.size(); i++) { // 1-based
          long code = c.heap.get(i);
          if (code > heap.top()) {
            heap.updateTop(code);
          }
        }
      }
    }
    ScoreDoc[] top = best(heap, order);
    return new TopDocs(new TotalHits(top.length, TotalHits.Relation.GREATER_THAN_OR_EQUAL_TO), top);
  }

  /** The hits of {@code heap}, best first. */
  static ScoreDoc[] best(TernaryLongHeap heap, Docids.IdOrder order) {
    long[] codes = bestCodes(heap);
    ScoreDoc[] top = new ScoreDoc[codes.length];
    for (int i = 0; i < codes.length; i++) {
      top[i] = new ScoreDoc(order.doc()[rankOf(codes[i])], scoreOf(codes[i]));
    }
    return top;
  }

  /** The codes of {@code heap}, best first: sorted (one sort of k longs) instead of popped one by one. */
  static long[] bestCodes(TernaryLongHeap heap) {
    long[] codes = new long[heap.size()];
    int hits = 0;
    for (int i = 1; i <= heap.size(); i++) { // 1-based, as Lucene's long heaps are
      long code = heap.get(i);
      if (code != EMPTY) {
        codes[hits++] = code;
      }
    }
    Arrays.sort(codes, 0, hits);
    long[] best = new long[hits];
    for (int i = 0; i < hits; i++) {
      best[i] = codes[hits - 1 - i];
    }
    return best;
  }

  /** A hit's code: larger is better (higher score, then smaller docid). */
  static long code(float score, int rank) {
    return ((long) NumericUtils.floatToSortableInt(score) << 32) | (Integer.MAX_VALUE - rank);
  }

  static float scoreOf(long code) {
    return NumericUtils.sortableIntToFloat((int) (code >> 32));
  }

  static int rankOf(long code) {
    return Integer.MAX_VALUE - (int) code;
  }

  /** One slice's collector. */
  public final class TopK implements Collector {
    private final TernaryLongHeap heap = new TernaryLongHeap(k, EMPTY);

    @Override
    public ScoreMode scoreMode() {
      return prune ? ScoreMode.TOP_SCORES : ScoreMode.COMPLETE;
    }

    @Override
    public LeafCollector getLeafCollector(LeafReaderContext context) {
      final int docBase = context.docBase;
      final int[] rank = order.rank();
      return new LeafCollector() {
        private Scorable scorer;
        private float asked = Float.NEGATIVE_INFINITY;

        @Override
        public void setScorer(Scorable scorer) throws IOException {
          this.scorer = scorer;
          askForCompetitive();
        }

        @Override
        public void collect(int doc) throws IOException {
          long code = code(scorer.score(), rank[docBase + doc]);
          if (code > heap.top()) {
            heap.updateTop(code);
            askForCompetitive();
          }
        }

        // Documents scoring below the k-th score cannot enter; one that ties it can (its docid may be
        // smaller), so the bound is the k-th score itself, not the next float up as Lucene's own
        // collector asks.
        private void askForCompetitive() throws IOException {
          long bottom = heap.top();
          if (prune && bottom != EMPTY) {
            float min = scoreOf(bottom);
            if (min > asked) {
              scorer.setMinCompetitiveScore(min);
              asked = min;
            }
          }
        }
      };
    }
  }
}
