package io.qlog.similarities;

import com.carrotsearch.randomizedtesting.annotations.Name;
import com.carrotsearch.randomizedtesting.annotations.ParametersFactory;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.apache.lucene.search.similarities.Similarity;
import org.apache.lucene.tests.search.similarities.BaseSimilarityTestCase;

/**
 * Lucene's randomized contract for every similarity (finite, non-negative scores; explain equal to
 * score; scores non-decreasing in freq, shortness and rarity; huge 64-bit statistics and boosts up to
 * Integer.MAX_VALUE), run for each q of the grid and both odds forms. k1 and b are randomized over
 * their whole valid range, as Lucene's own TestBM25Similarity does.
 *
 * <p>The same class runs against Lucene 10.5 (this module) and Lucene 9.12 (qlog-similarity-lucene9).
 */
public class TestQLogBM25SimilarityContract extends BaseSimilarityTestCase {
  private final double q;
  private final QLogBM25Similarity.IdfForm form;

  public TestQLogBM25SimilarityContract(@Name("q") double q, @Name("form") String form) {
    this.q = q;
    this.form = QLogBM25Similarity.IdfForm.parse(form);
  }

  @ParametersFactory(argumentFormatting = "q=%s form=%s")
  public static Iterable<Object[]> parameters() {
    List<Object[]> params = new ArrayList<>();
    for (double q : new double[] {0.05, 0.5, 0.7, 1.0, 1.5}) {
      for (String form : new String[] {"lucene", "rsj"}) {
        params.add(new Object[] {q, form});
      }
    }
    return params;
  }

  @Override
  protected Similarity getSimilarity(Random random) {
    return new QLogBM25Similarity(randomK1(random), randomB(random), q, form);
  }

  /** k1 over [0, Integer.MAX_VALUE], with the edge values, as in Lucene's TestBM25Similarity. */
  static float randomK1(Random random) {
    switch (random.nextInt(4)) {
      case 0:
        return 0;
      case 1:
        return Float.MIN_VALUE;
      case 2:
        return Integer.MAX_VALUE;
      default:
        return Integer.MAX_VALUE * random.nextFloat();
    }
  }

  /** b over [0, 1], with both ends. */
  static float randomB(Random random) {
    switch (random.nextInt(3)) {
      case 0:
        return 0;
      case 1:
        return 1;
      default:
        return random.nextFloat();
    }
  }
}
