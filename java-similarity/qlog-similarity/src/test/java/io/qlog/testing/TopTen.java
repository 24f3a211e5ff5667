package io.qlog.testing;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/** One ranked list of up to 10 hits, as an engine returned it: ids and float scores, best first. */
public final class TopTen {
  public final List<String> ids = new ArrayList<>();
  public final List<Float> scores = new ArrayList<>();

  /** Appends one hit. */
  public TopTen add(String id, float score) {
    ids.add(id);
    scores.add(score);
    return this;
  }

  /** Same ids in the same order and every score within one float ulp of the other's. */
  public static boolean same(TopTen a, TopTen b) {
    if (!a.ids.equals(b.ids)) {
      return false;
    }
    for (int i = 0; i < a.scores.size(); i++) {
      float x = a.scores.get(i);
      float y = b.scores.get(i);
      if (Math.abs(x - y) > Math.ulp(Math.max(x, y))) {
        return false;
      }
    }
    return true;
  }

  /**
   * Null when the scores agree at every rank within {@code rel} (relative) plus {@code tol} (absolute) and the ids
   * agree at every rank whose reference score is not tied (within the same tolerance) with a neighbour's, the
   * tenth included (it may tie with an eleventh not listed): float rounding may only reorder equal scores.
   * Otherwise what differs first.
   */
  public static String sameRanking(TopTen engine, TopTen reference, double rel, double tol) {
    if (engine.ids.size() != reference.ids.size()) {
      return engine.ids.size() + " hits vs " + reference.ids.size();
    }
    for (int i = 0; i < reference.ids.size(); i++) {
      float r = reference.scores.get(i);
      if (!close(engine.scores.get(i), r, rel, tol)) {
        return "score at rank " + (i + 1) + " differs";
      }
      boolean tied = (i > 0 && close(reference.scores.get(i - 1), r, rel, tol))
          || (i + 1 < reference.ids.size() && close(reference.scores.get(i + 1), r, rel, tol))
          || i + 1 == reference.ids.size();
      if (!tied && !engine.ids.get(i).equals(reference.ids.get(i))) {
        return "id at rank " + (i + 1) + " differs";
      }
    }
    return null;
  }

  private static boolean close(double a, double b, double rel, double tol) {
    return Math.abs(a - b) <= rel * Math.max(Math.abs(a), Math.abs(b)) + tol;
  }

  /** |a ∩ reference| / |reference|; 1 when both are empty. */
  public static double overlap(TopTen a, TopTen reference) {
    if (reference.ids.isEmpty()) {
      return a.ids.isEmpty() ? 1 : 0;
    }
    Set<String> common = new HashSet<>(a.ids);
    common.retainAll(reference.ids);
    return common.size() / (double) reference.ids.size();
  }

  @Override
  public String toString() {
    return ids + " " + scores;
  }
}
