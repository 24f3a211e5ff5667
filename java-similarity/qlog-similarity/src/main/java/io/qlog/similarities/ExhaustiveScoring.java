package io.qlog.similarities;

import org.apache.lucene.search.similarities.Similarity;

/**
 * Marks a similarity whose score is not monotone in term frequency and length norm, so a searcher
 * must score every matching document instead of letting Lucene prune.
 *
 * <p>Lucene's block-max pruning (WAND / MAXSCORE over the postings' impacts) bounds a block's best
 * score by scoring only its competitive (freq, norm) pairs: a pair with a lower frequency and a
 * longer document than another is dropped from the impacts, on the assumption that it cannot score
 * higher. For a model where it can (DPH: a term that fills its document scores 0), the bound is too
 * low and the true best documents are skipped. A collector built with {@link #totalHitsThreshold}
 * counts every hit, which turns the skipping off.
 */
public interface ExhaustiveScoring {

  /** {@code threshold} for a monotone similarity, {@code Integer.MAX_VALUE} (no pruning) for one marked by this interface. */
  static int totalHitsThreshold(Similarity similarity, int threshold) {
    return similarity instanceof ExhaustiveScoring ? Integer.MAX_VALUE : threshold;
  }
}
