package io.qlog.similarities;

import java.util.List;
import org.apache.lucene.search.Explanation;
import org.apache.lucene.search.similarities.BasicStats;
import org.apache.lucene.search.similarities.SimilarityBase;

/**
 * Baseline: DPH, the parameter-free hypergeometric model of the Divergence From Randomness family,
 * as Terrier implements it (Amati, 2006):
 *
 * <pre>
 *   f     = tf / dl
 *   norm  = (1 - f)^2 / (tf + 1)
 *   score = boost * norm * ( tf * log2( (tf * avgdl / dl) * (N / F) ) + 0.5 * log2( 2 * pi * tf * (1 - f) ) )
 * </pre>
 *
 * with tf the term's frequency in the document, dl the document length, avgdl the mean length, N the
 * number of documents and F the term's total frequency in the collection. Lucene requires
 * non-negative scores, so a negative value (possible only when a term nearly fills a document) is
 * clamped to 0. dl comes from Lucene's one-byte length norm, as in every Lucene similarity.
 *
 * <p>DPH is not monotone in tf: the factor (1 - f)^2 falls to 0 as a term fills its document, so
 * "x x x" (tf = 3, dl = 3) scores 0 where "x x y" (tf = 2) scores more. Lucene's block-max pruning
 * assumes the opposite and would skip such documents, so DPH is {@link ExhaustiveScoring}: our
 * searcher scores every match under it (TestDPHSimilarity shows a document pruning would lose).
 */
public class DPHSimilarity extends SimilarityBase implements ExhaustiveScoring {
  public DPHSimilarity() {}

  @Override
  protected double score(BasicStats stats, double freq, double docLen) {
    if (freq <= 0) {
      return 0;
    }
    double f = Math.min(freq / docLen, 1.0); // dl is quantised, so tf may exceed it slightly
    double norm = (1 - f) * (1 - f) / (freq + 1);
    double n = stats.getNumberOfDocuments();
    double F = stats.getTotalTermFreq();
    double avgdl = stats.getAvgFieldLength();
    double value = norm * (freq * log2((freq * avgdl / docLen) * (n / F)) + 0.5 * log2(2 * Math.PI * freq * (1 - f)));
    if (!(value > 0)) { // also catches NaN from log2(0) when f == 1
      return 0;
    }
    return stats.getBoost() * value;
  }

  @Override
  protected void explain(List<Explanation> subs, BasicStats stats, double freq, double docLen) {
    subs.add(Explanation.match((float) freq, "tf, frequency of term in document"));
    subs.add(Explanation.match((float) docLen, "dl, length of field"));
    subs.add(Explanation.match((float) stats.getAvgFieldLength(), "avgdl, average length of field"));
    subs.add(Explanation.match(stats.getNumberOfDocuments(), "N, number of documents"));
    subs.add(Explanation.match(stats.getTotalTermFreq(), "F, total frequency of term in collection"));
    super.explain(subs, stats, freq, docLen);
  }

  @Override
  public String toString() {
    return "DPH";
  }
}
