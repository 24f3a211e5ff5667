package io.qlog.search;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.Arrays;

/**
 * The hits of a batch of queries as primitive arrays: query {@code i}'s hits are
 * {@code docs[offsets[i] .. offsets[i + 1])} (Lucene doc numbers of the searched reader) with
 * {@code scores[...]} beside them, in Anserini's order. Immutable once made.
 *
 * <p>Python reads a batch through the static {@link #packed} (one {@code byte[]}, read with
 * {@code np.frombuffer}) and never through an instance method: pyjnius keeps the Java instance of
 * a call on the class's shared method object, so instance calls from two Python threads can cross.
 */
public final class BatchHits {

  final int[] offsets;
  final int[] docs;
  final float[] scores;

  BatchHits(int[] offsets, int[] docs, float[] scores) {
    if (offsets.length == 0 || offsets[offsets.length - 1] != docs.length || docs.length != scores.length) {
      throw new IllegalArgumentException("offsets, docs and scores do not describe one batch");
    }
    this.offsets = offsets;
    this.docs = docs;
    this.scores = scores;
  }

  /** Number of queries. */
  public int queries() {
    return offsets.length - 1;
  }

  /** Number of hits over all queries. */
  public int hits() {
    return docs.length;
  }

  /** Query {@code i}'s Lucene doc numbers. */
  public int[] docs(int i) {
    return Arrays.copyOfRange(docs, offsets[i], offsets[i + 1]);
  }

  /** Query {@code i}'s scores. */
  public float[] scores(int i) {
    return Arrays.copyOfRange(scores, offsets[i], offsets[i + 1]);
  }

  /**
   * {@code hits} as one little-endian buffer: int32 queries n, int32 hits m, then n + 1 int32 offsets,
   * m int32 Lucene doc numbers and m float32 scores.
   */
  public static byte[] packed(BatchHits hits) {
    int n = hits.queries();
    int m = hits.hits();
    ByteBuffer out = ByteBuffer.allocate(4 * (2 + n + 1 + 2 * m)).order(ByteOrder.LITTLE_ENDIAN);
    out.putInt(n).putInt(m);
    out.asIntBuffer().put(hits.offsets);
    out.position(out.position() + 4 * (n + 1));
    out.asIntBuffer().put(hits.docs);
    out.position(out.position() + 4 * m);
    out.asFloatBuffer().put(hits.scores);
    return out.array();
  }

  /** The batch of query {@code i}'s hits {@code docs[i]} with {@code scores[i]}, queries in order. */
  static BatchHits of(int[][] docs, float[][] scores) {
    int total = 0;
    for (int[] d : docs) {
      total += d.length;
    }
    Builder out = new Builder(docs.length, total);
    for (int i = 0; i < docs.length; i++) {
      out.addAll(docs[i], scores[i]);
      out.endQuery();
    }
    return out.build();
  }

  /** Builds a batch query by query, with room for {@code expected} hits. */
  static final class Builder {
    private final int[] offsets;
    private int[] docs;
    private float[] scores;
    private int size;
    private int query;

    Builder(int queries, int expected) {
      offsets = new int[queries + 1];
      docs = new int[Math.max(16, expected)];
      scores = new float[docs.length];
    }

    void add(int doc, float score) {
      if (size == docs.length) {
        int grown = (int) Math.min(Integer.MAX_VALUE - 8, 2L * size);
        docs = Arrays.copyOf(docs, grown);
        scores = Arrays.copyOf(scores, grown);
      }
      docs[size] = doc;
      scores[size] = score;
      size++;
    }

    /** Adds a query's hits at once (then {@link #endQuery}). */
    void addAll(int[] queryDocs, float[] queryScores) {
      if (queryDocs.length != queryScores.length) {
        throw new IllegalArgumentException(queryDocs.length + " docs but " + queryScores.length + " scores");
      }
      if (size + queryDocs.length > docs.length) {
        int grown = (int) Math.min(Integer.MAX_VALUE - 8, Math.max(2L * docs.length, (long) size + queryDocs.length));
        docs = Arrays.copyOf(docs, grown);
        scores = Arrays.copyOf(scores, grown);
      }
      System.arraycopy(queryDocs, 0, docs, size, queryDocs.length);
      System.arraycopy(queryScores, 0, scores, size, queryScores.length);
      size += queryDocs.length;
    }

    /** Closes the current query's hits. */
    void endQuery() {
      offsets[++query] = size;
    }

    BatchHits build() {
      if (query != offsets.length - 1) {
        throw new IllegalStateException(query + " of " + (offsets.length - 1) + " queries ended");
      }
      // the arrays as they are when the expected size was exact (a batch's total is counted first)
      return size == docs.length ? new BatchHits(offsets, docs, scores)
          : new BatchHits(offsets, Arrays.copyOf(docs, size), Arrays.copyOf(scores, size));
    }
  }
}
