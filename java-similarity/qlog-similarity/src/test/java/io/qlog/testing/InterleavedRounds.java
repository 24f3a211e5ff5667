package io.qlog.testing;

import java.util.Arrays;
import java.util.Locale;

/**
 * The interleaved A/B throughput loop of the engine benchmarks: every query is sent to all sides back
 * to back, the order rotating from query to query and from round to round, so load changes on a
 * shared machine hit every side alike; a side's time in a round is the sum of its request latencies.
 */
public final class InterleavedRounds {

  /** One request: query number {@code query} sent to side number {@code side}. */
  @FunctionalInterface
  public interface Request {
    void send(int side, int query) throws Exception;
  }

  /** Called after each timed round with its number (from 0) and each side's nanoseconds. */
  @FunctionalInterface
  public interface RoundDone {
    void done(int round, long[] nanos) throws Exception;
  }

  private InterleavedRounds() {}

  /** Untimed warm-up: each of the first {@code queries} queries to every side, in side order. */
  public static void warmUp(int sides, int queries, Request request) throws Exception {
    for (int i = 0; i < queries; i++) {
      for (int side = 0; side < sides; side++) {
        request.send(side, i);
      }
    }
  }

  /**
   * {@code warmUpRounds} untimed rounds, then {@code rounds} timed ones over queries {@code 0..queries-1};
   * in round {@code r} query {@code i} goes to side {@code (i + r + k) mod sides} for k = 0, 1, ....
   * Returns each timed round's nanoseconds per side.
   */
  public static long[][] run(int sides, int queries, int warmUpRounds, int rounds, Request request, RoundDone done)
      throws Exception {
    long[][] out = new long[rounds][];
    for (int r = -warmUpRounds; r < rounds; r++) {
      long[] nanos = new long[sides];
      for (int i = 0; i < queries; i++) {
        for (int k = 0; k < sides; k++) {
          int side = Math.floorMod(i + r + k, sides);
          long t0 = System.nanoTime();
          request.send(side, i);
          nanos[side] += System.nanoTime() - t0;
        }
      }
      if (r >= 0) {
        out[r] = nanos;
        done.done(r, nanos);
      }
    }
    return out;
  }

  /** Queries per second of {@code queries} requests that took {@code nanos} in all. */
  public static double perSecond(int queries, long nanos) {
    return queries / (nanos / 1e9);
  }

  /** Per round, the throughput of side {@code side} over side 0's (side 0's time over this side's). */
  public static double[] ratios(long[][] nanos, int side) {
    double[] out = new double[nanos.length];
    for (int r = 0; r < nanos.length; r++) {
      out[r] = nanos[r][0] / (double) nanos[r][side];
    }
    return out;
  }

  /**
   * A table row of round {@code round} (from 0): its number from 1, each side's queries per second,
   * then each later side's throughput over side 0's.
   */
  public static String row(int round, int queries, long[] nanos) {
    StringBuilder row = new StringBuilder(String.format(Locale.ROOT, "| %d |", round + 1));
    for (long n : nanos) {
      row.append(String.format(Locale.ROOT, " %.1f |", perSecond(queries, n)));
    }
    for (int side = 1; side < nanos.length; side++) {
      row.append(String.format(Locale.ROOT, " %.3f |", nanos[0] / (double) nanos[side]));
    }
    return row.append(String.format(Locale.ROOT, "%n")).toString();
  }

  /**
   * {@code "name / base **median** (lowest to highest)"} for each side after the first, joined by
   * {@code separator}; {@code names[0]} is side 0's (the base).
   */
  public static String medians(long[][] nanos, String[] names, String separator) {
    StringBuilder out = new StringBuilder();
    for (int side = 1; side < names.length; side++) {
      double[] m = medianAndRange(ratios(nanos, side));
      out.append(side == 1 ? "" : separator).append(String.format(Locale.ROOT, "%s / %s **%.3f** (%.3f to %.3f)",
          names[side], names[0], m[0], m[1], m[2]));
    }
    return out.toString();
  }

  /** The median, the lowest and the highest of {@code ratios}. */
  public static double[] medianAndRange(double[] ratios) {
    double[] sorted = ratios.clone();
    Arrays.sort(sorted);
    return new double[] {sorted[sorted.length / 2], sorted[0], sorted[sorted.length - 1]};
  }
}
