package io.qlog.solr;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertThrows;

import io.qlog.similarities.QLogBM25Similarity;
import org.apache.solr.common.SolrException;
import org.apache.solr.common.params.ModifiableSolrParams;
import org.junit.Test;

/** The factory's parameters as Solr hands them over (strings from the schema's similarity element). */
public class TestQLogBM25SimilarityFactory {

  private static QLogBM25Similarity make(String... kv) {
    ModifiableSolrParams params = new ModifiableSolrParams();
    for (int i = 0; i < kv.length; i += 2) {
      params.set(kv[i], kv[i + 1]);
    }
    QLogBM25SimilarityFactory factory = new QLogBM25SimilarityFactory();
    factory.init(params);
    return (QLogBM25Similarity) factory.getSimilarity();
  }

  private static String failure(String... kv) {
    return assertThrows(SolrException.class, () -> make(kv)).getMessage();
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
  public void classAttributeAsSolrPassesItIsAccepted() {
    // a field type's <similarity class="..."> reaches init() with "class" among the parameters
    assertEquals(0.5, make("class", QLogBM25SimilarityFactory.class.getName(), "q", "0.5").getQ(), 0.0);
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
    assertEquals(QLogBM25Similarity.IdfForm.LUCENE, make("idf_form", "LUCENE").getForm());
  }

  @Test
  public void eachInvalidParameterIsNamedWithItsValueAndRange() {
    String p = "QLogBM25SimilarityFactory: ";
    assertEquals(p + "illegal q value: abc, must be a finite number (1 is BM25)", failure("q", "abc"));
    assertEquals(p + "illegal q value: NaN, must be a finite number (1 is BM25)", failure("q", "NaN"));
    assertEquals(p + "illegal q value: Infinity, must be a finite number (1 is BM25)", failure("q", "Infinity"));
    assertEquals(p + "illegal k1 value: -0.1, must be a finite number >= 0", failure("k1", "-0.1"));
    assertEquals(p + "illegal k1 value: x, must be a finite number >= 0", failure("k1", "x"));
    assertEquals(p + "illegal b value: 1.5, must be between 0 and 1", failure("b", "1.5"));
    assertEquals(p + "illegal b value: -0.01, must be between 0 and 1", failure("b", "-0.01"));
    assertEquals(p + "illegal idf_form value: okapi, must be one of lucene, rsj", failure("idf_form", "okapi"));
    assertEquals(p + "unknown parameter 'idfForm', allowed: b, idf_form, k1, q", failure("idfForm", "rsj"));
  }
}
