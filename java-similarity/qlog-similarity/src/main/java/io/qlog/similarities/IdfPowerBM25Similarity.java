package io.qlog.similarities;

import org.apache.lucene.search.CollectionStatistics;
import org.apache.lucene.search.Explanation;
import org.apache.lucene.search.TermStatistics;
import org.apache.lucene.search.similarities.BM25Similarity;

/**
 * Baseline: BM25 with its IDF raised to a power, the simplest other way to weight rare terms more.
 *
 * <pre>
 *   idf_gamma = (ln(1 + (N - n + 0.5) / (n + 0.5)))^gamma
 * </pre>
 *
 * gamma = 1 is Lucene's BM25; gamma &gt; 1 spreads rare and common terms further apart, but only as a
 * power of the logarithm, where q-log BM25 uses a power of the odds themselves. Everything else is
 * BM25's, as in {@link QLogBM25Similarity}.
 */
public class IdfPowerBM25Similarity extends BM25Similarity {
  private final double gamma;

  /**
   * @param gamma the exponent, finite and &gt; 0
   * @throws IllegalArgumentException if a parameter is out of range
   */
  public IdfPowerBM25Similarity(float k1, float b, double gamma) {
    super(k1, b);
    if (!Double.isFinite(gamma) || gamma <= 0) {
      throw new IllegalArgumentException("illegal gamma value: " + gamma + ", must be a finite number > 0");
    }
    this.gamma = gamma;
  }

  /** (ln(1 + (N - n + 0.5) / (n + 0.5)))^gamma */
  @Override
  protected float idf(long docFreq, long docCount) {
    double ln = Math.log(1 + (docCount - docFreq + 0.5D) / (docFreq + 0.5D));
    return (float) (gamma == 1.0 ? ln : Math.pow(ln, gamma));
  }

  @Override
  public Explanation idfExplain(CollectionStatistics collectionStats, TermStatistics termStats) {
    final long df = termStats.docFreq();
    final long docCount = collectionStats.docCount();
    return Explanation.match(
        idf(df, docCount),
        "idf, computed as (log(1 + (N - n + 0.5) / (n + 0.5)))^gamma, gamma = " + gamma + " from:",
        Explanation.match(df, "n, number of documents containing term"),
        Explanation.match(docCount, "N, total number of documents with field"));
  }

  public double getGamma() {
    return gamma;
  }

  @Override
  public String toString() {
    return "IdfPowerBM25(k1=" + getK1() + ",b=" + getB() + ",gamma=" + gamma + ")";
  }
}
