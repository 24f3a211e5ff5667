package io.qlog.solr;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertThrows;

import io.qlog.similarities.QLogBM25Similarity;
import org.apache.solr.common.SolrException;
import org.apache.solr.common.params.ModifiableSolrParams;
import org.junit.Test;

/**
 * The factory's parameters as Solr hands them over (strings from the schema's similarity element, the
 * element's class among them). The values themselves are QLogBM25Parameters' (TestQLogBM25Parameters); here,
 * what Solr adds: the class attribute, and errors as SolrExceptions naming the factory.
 */
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

  @Test
  public void schemaParametersReachTheSimilarity() {
    QLogBM25Similarity s = make("class", QLogBM25SimilarityFactory.class.getName(),
        "q", "0.7", "k1", "1.2", "b", "0.75", "idf_form", "rsj");
    assertEquals("QLogBM25(k1=1.2,b=0.75,q=0.7,form=rsj)", s.toString());
    assertEquals("QLogBM25(k1=0.9,b=0.4,q=1.0,form=lucene)", make().toString());
  }

  @Test
  public void badParametersStopTheCoreWithTheFactorysName() {
    SolrException e = assertThrows(SolrException.class, () -> make("b", "1.5"));
    assertEquals("QLogBM25SimilarityFactory: illegal b value: 1.5, must be between 0 and 1", e.getMessage());
    e = assertThrows(SolrException.class, () -> make("q", "5"));
    assertEquals("QLogBM25SimilarityFactory: illegal q value: 5.0, must be between -1.0 and 3.0", e.getMessage());
    e = assertThrows(SolrException.class, () -> make("idfForm", "rsj"));
    assertEquals("QLogBM25SimilarityFactory: unknown parameter 'idfForm', allowed: b, idf_form, k1, q", e.getMessage());
  }

  @Test
  public void usedBeforeInitIsAnError() {
    assertThrows(IllegalStateException.class, () -> new QLogBM25SimilarityFactory().getSimilarity());
  }
}
