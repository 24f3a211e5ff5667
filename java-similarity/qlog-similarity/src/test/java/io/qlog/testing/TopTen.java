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
