package io.qlog.similarities;

import java.util.Random;
import org.apache.lucene.search.similarities.Similarity;
import org.apache.lucene.tests.search.similarities.BaseSimilarityTestCase;

/** Lucene's randomized similarity contract for the idf^gamma baseline, gamma in (0, 3]. */
public class TestIdfPowerBM25SimilarityContract extends BaseSimilarityTestCase {
  @Override
  protected Similarity getSimilarity(Random random) {
    double gamma = random.nextBoolean() ? 1.0 : 3.0 * (1.0 - random.nextDouble()); // (0, 3]
    return new IdfPowerBM25Similarity(
        TestQLogBM25SimilarityContract.randomK1(random),
        TestQLogBM25SimilarityContract.randomB(random),
        gamma);
  }
}
