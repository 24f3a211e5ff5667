package io.qlog.search;

/**
 * The tie arithmetic of Anserini's runs: scores rounded to 4 decimals and tied scores pushed apart
 * by 1e-6 steps, as its {@code ScoreTiesAdjusterReranker} does, and the one rule added on top so
 * that any consumer that re-sorts by score keeps the order: each score strictly below the one above
 * as a float.
 */
final class AnseriniTies {

  private AnseriniTies() {}

  /**
   * Anserini's tie steps ({@link #anserini}), then each score strictly below the one above as a
   * float, which the 1e-6 step alone is not where floats are more than 1e-6 apart (above a score of 16).
   */
  static void adjust(float[] scores) {
    anserini(scores);
    strictlyDecreasing(scores);
  }

  /**
   * Anserini's {@code ScoreTiesAdjusterReranker} step for step: round to 4 decimals, then push each
   * score that ties (within 1e-4) with the one above it down by 1e-6 per tie.
   */
  static void anserini(float[] scores) {
    float anserini = 0f;
    int tied = 0;
    for (int i = 0; i < scores.length; i++) {
      float score = (float) (Math.round(scores[i] * 10000d) / 10000d);
      if (i == 0 || anserini - score > 1e-4f) {
        tied = 0;
      } else {
        tied++;
        score -= 1e-6f * tied;
      }
      anserini = score;
      scores[i] = score;
    }
  }

  /** Each score strictly below the one above it, as a float: a score not below becomes the next float down. */
  static void strictlyDecreasing(float[] scores) {
    for (int i = 1; i < scores.length; i++) {
      if (!(scores[i] < scores[i - 1])) {
        scores[i] = Math.nextDown(scores[i - 1]);
      }
    }
  }
}
