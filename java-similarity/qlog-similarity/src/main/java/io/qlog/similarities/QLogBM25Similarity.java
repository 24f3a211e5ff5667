package io.qlog.similarities;

import org.apache.lucene.search.CollectionStatistics;
import org.apache.lucene.search.Explanation;
import org.apache.lucene.search.TermStatistics;
import org.apache.lucene.search.similarities.BM25Similarity;

/**
 * BM25 whose IDF takes the Tsallis q-logarithm of the Robertson–Spärck Jones odds instead of the
 * natural logarithm. Everything else (k1, b, length norms, term-frequency saturation, and Lucene's
 * final BM25 scorer with its block-max pruning) is inherited unchanged from {@link BM25Similarity}.
 *
 * <pre>
 *   ln_q(x) = (x^(1-q) - 1) / (1 - q)        ln_q = ln when |1 - q| &lt; 1e-9
 *   idf_q   = ln_q(x)
 *   x       = 1 + (N - n + 0.5) / (n + 0.5)   form "lucene" (default; q = 1 is Lucene's BM25 exactly)
 *   x       =     (N - n + 0.5) / (n + 0.5)   form "rsj"    (the paper's odds; idf floored at 0)
 * </pre>
 *
 * with N = {@code docCount} and n = {@code docFreq} as Lucene passes them. q &lt; 1 amplifies rare terms
 * as a power law (a Box-Cox transform of the odds with lambda = 1 - q); q &gt; 1 saturates.
 *
 * <p>The {@code rsj} odds fall below 1 for terms in more than half the documents, where ln_q is
 * negative; Lucene requires non-negative scores, so that IDF is floored at 0 (such a term then adds
 * nothing to the score, as in Okapi implementations that clip negative IDF). The {@code lucene} odds are
 * always above 1, so its IDF is always positive.
 */
public class QLogBM25Similarity extends BM25Similarity {

  /** The odds inside the logarithm. */
  public enum IdfForm {
    /** x = 1 + (N - n + 0.5) / (n + 0.5): Lucene's BM25 odds, always &gt; 1. */
    LUCENE,
    /** x = (N - n + 0.5) / (n + 0.5): the Robertson–Spärck Jones odds of the paper; idf floored at 0. */
    RSJ;

    /** Parses "lucene" or "rsj" (case-insensitive). */
    public static IdfForm parse(String name) {
      if (name != null) {
        for (IdfForm f : values()) {
          if (f.name().equalsIgnoreCase(name.trim())) {
            return f;
          }
        }
      }
      throw new IllegalArgumentException("illegal idf form: " + name + ", must be one of lucene, rsj");
    }

    @Override
    public String toString() {
      return name().toLowerCase(java.util.Locale.ROOT);
    }
  }

  /** Below this distance from 1 the q-logarithm is the natural logarithm (its limit). */
  public static final double Q_EPSILON = 1e-9;

  /**
   * The range of q, decided here for every engine and API (Python's formula.check_qlog repeats it, and a
   * test compares the two). Above Q_MAX every term rarer than about 1 in 10,000 documents gets the same
   * float IDF, 1/(q-1); below Q_MIN the IDF grows faster than the square of the odds, so a term in one of a
   * million documents alone scores above 1e11.
   */
  public static final double Q_MIN = -1.0;

  public static final double Q_MAX = 3.0;

  private final double q;
  private final IdfForm form;

  /**
   * @param k1 term-frequency saturation, finite and non-negative
   * @param b length normalisation, in [0, 1]
   * @param q the q of the q-logarithm, in [{@link #Q_MIN}, {@link #Q_MAX}]; 1 gives BM25
   * @param form which odds the q-logarithm is taken of
   * @throws IllegalArgumentException if a parameter is out of range
   */
  public QLogBM25Similarity(float k1, float b, double q, IdfForm form) {
    super(k1, b); // validates k1 and b with Lucene's own messages
    if (!(q >= Q_MIN && q <= Q_MAX)) { // NaN included
      throw new IllegalArgumentException("illegal q value: " + q + ", must be between " + Q_MIN + " and " + Q_MAX);
    }
    if (form == null) {
      throw new IllegalArgumentException("illegal idf form: null, must be one of lucene, rsj");
    }
    this.q = q;
    this.form = form;
  }

  public QLogBM25Similarity(float k1, float b, double q, String form) {
    this(k1, b, q, IdfForm.parse(form));
  }

  /** k1 = 0.9, b = 0.4 (Pyserini's defaults), form lucene. */
  public QLogBM25Similarity(double q) {
    this(0.9f, 0.4f, q, IdfForm.LUCENE);
  }

  /** The Tsallis q-logarithm, computed as expm1((1-q) ln x) / (1-q) so that it is continuous at q = 1. */
  public static double lnQ(double x, double q) {
    double oneMinusQ = 1.0 - q;
    double lnX = Math.log(x);
    if (Math.abs(oneMinusQ) < Q_EPSILON) {
      return lnX;
    }
    return Math.expm1(oneMinusQ * lnX) / oneMinusQ;
  }

  /** The odds x for n = docFreq, N = docCount under the given form. */
  public static double odds(long docFreq, long docCount, IdfForm form) {
    double rsj = (docCount - docFreq + 0.5D) / (docFreq + 0.5D);
    return form == IdfForm.LUCENE ? 1 + rsj : rsj;
  }

  /** idf_q = max(0, ln_q(x)), x = odds(n, N, form); at q = 1, form lucene, exactly Lucene's BM25 idf. */
  @Override
  protected float idf(long docFreq, long docCount) {
    double x = odds(docFreq, docCount, form);
    if (q == 1.0) {
      // Same expression and rounding as BM25Similarity.idf, so q = 1 reproduces BM25 to the bit.
      return (float) Math.max(0.0, Math.log(x));
    }
    double idf = Math.max(0.0, lnQ(x, q));
    float value = (float) idf;
    if (!Float.isFinite(value)) {
      throw new IllegalArgumentException(
          "q-log idf overflows a float for q=" + q + " (n=" + docFreq + ", N=" + docCount + "); use a larger q");
    }
    return value;
  }

  @Override
  public Explanation idfExplain(CollectionStatistics collectionStats, TermStatistics termStats) {
    final long df = termStats.docFreq();
    final long docCount = collectionStats.docCount();
    final float idf = idf(df, docCount);
    String oddsText = form == IdfForm.LUCENE ? "1 + (N - n + 0.5) / (n + 0.5)" : "(N - n + 0.5) / (n + 0.5)";
    String floor = form == IdfForm.RSJ ? "max(0, ln_q(x))" : "ln_q(x)";
    return Explanation.match(
        idf,
        "idf, computed as " + floor + " with ln_q(x) = (x^(1-q) - 1) / (1 - q), q = " + q
            + ", x = " + oddsText + " (form " + form + ") from:",
        Explanation.match(df, "n, number of documents containing term"),
        Explanation.match(docCount, "N, total number of documents with field"),
        Explanation.match((float) q, "q, the q-logarithm parameter"),
        Explanation.match((float) odds(df, docCount, form), "x, the odds"));
  }

  public double getQ() {
    return q;
  }

  public IdfForm getForm() {
    return form;
  }

  @Override
  public String toString() {
    return "QLogBM25(k1=" + getK1() + ",b=" + getB() + ",q=" + q + ",form=" + form + ")";
  }
}
