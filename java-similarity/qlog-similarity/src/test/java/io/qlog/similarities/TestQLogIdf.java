package io.qlog.similarities;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertThrows;
import static org.junit.Assert.assertTrue;

import io.qlog.similarities.QLogBM25Similarity.IdfForm;
import org.apache.lucene.search.similarities.BM25Similarity;
import org.junit.Test;

/**
 * The IDF against values computed outside Java (idf-reference.tsv, beside this class in the test resources, whose
 * values the Python tests recompute), against Lucene's BM25 at q = 1 bit for bit, and its edges.
 */
public class TestQLogIdf {

  @Test
  public void idfEqualsValuesComputedOutsideJava() throws java.io.IOException {
    int rows = 0;
    try (java.io.InputStream in = TestQLogIdf.class.getResourceAsStream("idf-reference.tsv")) {
      for (String line : new String(in.readAllBytes(), java.nio.charset.StandardCharsets.UTF_8).split("\n")) {
        if (line.isBlank() || line.startsWith("#")) {
          continue;
        }
        String[] f = line.split("\t");
        double expected = Double.parseDouble(f[0]);
        long n = Long.parseLong(f[1]);
        long bigN = Long.parseLong(f[2]);
        double q = Double.parseDouble(f[3]);
        float actual = new QLogBM25Similarity(0.9f, 0.4f, q, f[4]).idf(n, bigN);
        // the similarity returns a float: allow float rounding, relative to the value
        assertEquals(f[5] + ": idf(n=" + n + ", N=" + bigN + ", q=" + q + ", " + f[4] + ")",
            expected, actual, Math.max(1e-6, Math.abs(expected) * 1e-6));
        rows++;
      }
    }
    assertEquals(12, rows);
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
