package io.qlog.testing;

import static org.junit.Assert.assertArrayEquals;
import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertTrue;

import java.util.ArrayList;
import java.util.List;
import org.junit.Test;

/** The benchmark loop sends what it says in the order it says, and its tables read the nanoseconds right. */
public class TestInterleavedRounds {

  @Test
  public void everyQueryGoesToEverySideOncePerRoundInRotatingOrder() throws Exception {
    List<int[]> sent = new ArrayList<>();
    List<Integer> done = new ArrayList<>();
    long[][] nanos = InterleavedRounds.run(3, 4, 2, 5, (side, query) -> sent.add(new int[] {side, query}),
        (round, n) -> done.add(round));
    assertEquals(5, nanos.length);
    assertEquals(List.of(0, 1, 2, 3, 4), done); // the two warm-up rounds are neither reported nor returned
    assertEquals(7 * 4 * 3, sent.size());
    for (int r = -2; r < 5; r++) {
      for (int i = 0; i < 4; i++) {
        int at = ((r + 2) * 4 + i) * 3;
        int first = Math.floorMod(i + r, 3);
        for (int k = 0; k < 3; k++) { // query i's three sides back to back, starting one further each query and round
          assertArrayEquals("round " + r + " query " + i, new int[] {(first + k) % 3, i}, sent.get(at + k));
        }
      }
    }
    for (long[] round : nanos) {
      for (long side : round) {
        assertTrue(side >= 0);
      }
    }
  }

  @Test
  public void warmUpSendsTheFirstQueriesToEachSideInOrder() throws Exception {
    List<String> sent = new ArrayList<>();
    InterleavedRounds.warmUp(2, 3, (side, query) -> sent.add(side + ":" + query));
    assertEquals(List.of("0:0", "1:0", "0:1", "1:1", "0:2", "1:2"), sent);
  }

  @Test
  public void tablesReadRatiosAsSideZerosTimeOverEachSides() {
    long[][] nanos = {{2_000_000_000L, 1_000_000_000L, 4_000_000_000L}, {1_000_000_000L, 1_000_000_000L, 1_000_000_000L},
        {3_000_000_000L, 1_000_000_000L, 2_000_000_000L}};
    assertArrayEquals(new double[] {2.0, 1.0, 3.0}, InterleavedRounds.ratios(nanos, 1), 0);
    assertArrayEquals(new double[] {2.0, 1.0, 3.0}, InterleavedRounds.medianAndRange(new double[] {3.0, 2.0, 1.0}), 0);
    assertEquals(String.format("| 1 | 50.0 | 100.0 | 25.0 | 2.000 | 0.500 |%n"), InterleavedRounds.row(0, 100, nanos[0]));
    assertEquals("plugin / BM25 **2.000** (1.000 to 3.000); rewrite / BM25 **1.000** (0.500 to 1.500)",
        InterleavedRounds.medians(nanos, new String[] {"BM25", "plugin", "rewrite"}, "; "));
  }
}
