package io.qlog.similarities;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertThrows;
import static org.junit.Assert.assertTrue;

import io.qlog.similarities.QLogBM25Similarity.IdfForm;
import org.apache.lucene.search.similarities.BM25Similarity;
import org.junit.Test;

/**
 * The IDF against values computed outside Java: each literal below is ln_q of the odds, evaluated
 * with 40-digit decimals (Python's decimal module: exp((1-q) ln x) - 1) / (1-q)), then floored at 0.
 */
public class TestQLogIdf {

  private static void assertIdf(double expected, long n, long bigN, double q, IdfForm form) {
    float actual = new QLogBM25Similarity(0.9f, 0.4f, q, form).idf(n, bigN);
    // the similarity returns a float: allow float rounding, relative to the value
    assertEquals("idf(n=" + n + ", N=" + bigN + ", q=" + q + ", " + form + ")",
        expected, actual, Math.max(1e-6, Math.abs(expected) * 1e-6));
  }

  @Test
  public void issueExampleRareTermOnOneMillionAndOnAShard() {
    // n = 1, N = 1M: ln 13.4, ln_0.5 1631; on a 250K-document shard 12.0 and 815
    assertIdf(13.410044949855985, 1, 1_000_000, 1.0, IdfForm.RSJ);
    assertIdf(1630.9927536071107, 1, 1_000_000, 0.5, IdfForm.RSJ);
    assertIdf(12.023749088734219, 1, 250_000, 1.0, IdfForm.RSJ);
    assertIdf(814.4957644307368, 1, 250_000, 0.5, IdfForm.RSJ);
  }

  @Test
  public void luceneFormAcrossQ() {
    assertIdf(78.84960466633835, 10, 1000, 0.05, IdfForm.LUCENE);
    assertIdf(9.748005014578668, 10, 1000, 0.7, IdfForm.LUCENE);
    assertIdf(4.557379522151743, 10, 1000, 1.0, IdfForm.LUCENE);
    assertIdf(1.7951633774003244, 10, 1000, 1.5, IdfForm.LUCENE);
    assertIdf(0.5522395981757556, 600, 1000, 0.7, IdfForm.LUCENE);
    assertIdf(28.116169396833264, 1, 2661, 0.7, IdfForm.LUCENE);
  }

  @Test
  public void rsjFormFloorsCommonTermsAtZero() {
    // n = 600 of 1000: odds 400.5 / 600.5 < 1, ln_q < 0, floored
    assertIdf(0.0, 600, 1000, 0.7, IdfForm.RSJ);
    // n = 499 of 1000: odds just above 1, a small positive idf, not floored
    assertIdf(0.0039984054843634, 499, 1000, 0.7, IdfForm.RSJ);
  }

  @Test
  public void qOneIsLuceneBM25ToTheBit() {
    BM25Similarity bm25 = new BM25Similarity(0.9f, 0.4f);
    QLogBM25Similarity qlog = new QLogBM25Similarity(0.9f, 0.4f, 1.0, IdfForm.LUCENE);
    long[][] stats = {{1, 1}, {1, 2661}, {17, 2661}, {2661, 2661}, {3, 1L << 40}};
    for (long[] s : stats) {
      float expected = bm25.idfExplain(
              new org.apache.lucene.search.CollectionStatistics("f", s[1], s[1], s[1] * 10, s[1] * 5),
              new org.apache.lucene.search.TermStatistics(new org.apache.lucene.util.BytesRef("t"), s[0], s[0]))
          .getValue().floatValue();
      assertEquals("n=" + s[0] + " N=" + s[1], Float.floatToIntBits(expected), Float.floatToIntBits(qlog.idf(s[0], s[1])));
    }
  }

  @Test
  public void continuousAcrossQEqualsOne() {
    // expm1 keeps ln_q continuous: q = 1 +- 1e-6 differs from ln by O(1e-6 * ln^2 / 2), not by cancellation noise
    double lnX = Math.log(1 + (2661 - 1 + 0.5) / 1.5);
    for (double q : new double[] {1 - 1e-6, 1 + 1e-6}) {
      double expected = lnX + (1 - q) * lnX * lnX / 2; // first-order Taylor term of ln_q around q = 1
      assertEquals(expected, QLogBM25Similarity.lnQ(Math.exp(lnX), q), 1e-9);
    }
  }

  @Test
  public void idfDecreasesWithDocumentFrequency() {
    for (double q : new double[] {0.05, 0.7, 1.0, 1.5}) {
      QLogBM25Similarity sim = new QLogBM25Similarity(0.9f, 0.4f, q, IdfForm.LUCENE);
      float previous = Float.POSITIVE_INFINITY;
      for (long n = 1; n <= 1000; n++) {
        float idf = sim.idf(n, 1000);
        assertTrue("q=" + q + " n=" + n, idf <= previous && idf > 0);
        previous = idf;
      }
    }
  }

  @Test
  public void invalidParametersNameParameterValueAndRange() {
    IllegalArgumentException e =
        assertThrows(IllegalArgumentException.class, () -> new QLogBM25Similarity(0.9f, 0.4f, Double.NaN, IdfForm.LUCENE));
    assertEquals("illegal q value: NaN, must be between -1.0 and 3.0", e.getMessage());
    e = assertThrows(IllegalArgumentException.class, () -> new QLogBM25Similarity(0.9f, 0.4f, 0.7, "okapi"));
    assertEquals("illegal idf form: okapi, must be one of lucene, rsj", e.getMessage());
    e = assertThrows(IllegalArgumentException.class, () -> new QLogBM25Similarity(0.9f, 1.5f, 0.7, IdfForm.LUCENE));
    assertTrue(e.getMessage(), e.getMessage().contains("illegal b value: 1.5"));
    e = assertThrows(IllegalArgumentException.class, () -> new QLogBM25Similarity(-1f, 0.4f, 0.7, IdfForm.LUCENE));
    assertTrue(e.getMessage(), e.getMessage().contains("illegal k1 value: -1.0"));
  }

  @Test
  public void explainSpellsOutTheFormula() {
    QLogBM25Similarity sim = new QLogBM25Similarity(0.9f, 0.4f, 0.7, IdfForm.RSJ);
    org.apache.lucene.search.Explanation e = sim.idfExplain(
        new org.apache.lucene.search.CollectionStatistics("f", 1000, 1000, 10000, 5000),
        new org.apache.lucene.search.TermStatistics(new org.apache.lucene.util.BytesRef("t"), 10, 10));
    String text = e.toString();
    assertTrue(text, text.contains("q = 0.7") && text.contains("form rsj") && text.contains("(N - n + 0.5) / (n + 0.5)"));
    assertEquals(sim.idf(10, 1000), e.getValue().floatValue(), 0f);
  }

  @Test
  public void toStringNamesEveryParameter() {
    assertEquals("QLogBM25(k1=0.9,b=0.4,q=0.7,form=lucene)", new QLogBM25Similarity(0.7).toString());
  }
}
