package io.qlog.similarities;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertThrows;

import java.util.HashMap;
import java.util.Map;
import org.junit.Test;

/** The engines' parameters (text values by name), as Solr's factory and OpenSearch's plugin pass them on. */
public class TestQLogBM25Parameters {

  private static QLogBM25Similarity make(String... kv) {
    Map<String, String> params = new HashMap<>();
    for (int i = 0; i < kv.length; i += 2) {
      params.put(kv[i], kv[i + 1]);
    }
    return QLogBM25Parameters.similarity(params);
  }

  private static String failure(String... kv) {
    return assertThrows(IllegalArgumentException.class, () -> make(kv)).getMessage();
  }

  @Test
  public void validParameters() {
    QLogBM25Similarity s = make("q", "0.7", "k1", "1.2", "b", "0.75", "idf_form", "rsj");
    assertEquals(0.7, s.getQ(), 0.0);
    assertEquals(1.2f, s.getK1(), 0f);
    assertEquals(0.75f, s.getB(), 0f);
    assertEquals(QLogBM25Similarity.IdfForm.RSJ, s.getForm());
  }

  @Test
  public void defaultsAreAnserinisBM25() {
    assertEquals("QLogBM25(k1=0.9,b=0.4,q=1.0,form=lucene)", make().toString());
  }

  @Test
  public void edgesOfTheRangesAreAccepted() {
    assertEquals(0f, make("b", "0").getB(), 0f);
    assertEquals(1f, make("b", "1").getB(), 0f);
    assertEquals(0f, make("k1", "0").getK1(), 0f);
    assertEquals(-0.5, make("q", "-0.5").getQ(), 0.0);
    assertEquals(0.25, make("q", " 0.25 ").getQ(), 0.0);
    assertEquals(QLogBM25Similarity.IdfForm.LUCENE, make("idf_form", "LUCENE").getForm());
  }

  @Test
  public void eachInvalidParameterIsNamedWithItsValueAndRange() {
    assertEquals("illegal q value: abc, must be a number", failure("q", "abc"));
    assertEquals("illegal q value: NaN, must be between -1.0 and 3.0", failure("q", "NaN"));
    assertEquals("illegal q value: Infinity, must be between -1.0 and 3.0", failure("q", "Infinity"));
    assertEquals("illegal q value: , must be a number", failure("q", ""));
    assertEquals("illegal k1 value: -0.1, must be a non-negative finite value", failure("k1", "-0.1"));
    assertEquals("illegal k1 value: x, must be a number", failure("k1", "x"));
    assertEquals("illegal b value: 1.5, must be between 0 and 1", failure("b", "1.5"));
    assertEquals("illegal b value: -0.01, must be between 0 and 1", failure("b", "-0.01"));
    assertEquals("illegal idf_form value: okapi, must be one of lucene, rsj", failure("idf_form", "okapi"));
    assertEquals("unknown parameter 'idfForm', allowed: b, idf_form, k1, q", failure("idfForm", "rsj"));
    assertEquals("unknown parameter '', allowed: b, idf_form, k1, q", failure("", "1"));
  }

  @Test
  public void theRangeOfQIsTheConstructorsForEveryEngine() {
    // Solr's factory and OpenSearch's plugin read their parameters here; the constructor decides the range.
    assertEquals("illegal q value: 5.0, must be between -1.0 and 3.0", failure("q", "5"));
    assertEquals("illegal q value: -1.5, must be between -1.0 and 3.0", failure("q", "-1.5"));
    assertEquals(failure("q", "5"), assertThrows(IllegalArgumentException.class,
        () -> new QLogBM25Similarity(0.9f, 0.4f, 5.0, QLogBM25Similarity.IdfForm.LUCENE)).getMessage());
    assertEquals(3.0, make("q", "3").getQ(), 0.0);
    assertEquals(-1.0, make("q", "-1").getQ(), 0.0);
  }

  @Test
  public void unknownNamesAreReportedBeforeBadValuesInNameOrder() {
    // one message, and the same one whatever order the engine's map iterates in
    assertEquals("unknown parameter 'K1', allowed: b, idf_form, k1, q", failure("q", "abc", "K1", "2", "zz", "1"));
  }
}
