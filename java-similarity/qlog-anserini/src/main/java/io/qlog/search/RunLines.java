package io.qlog.search;

import java.io.FileOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.HashSet;
import java.util.Set;
import org.apache.lucene.index.IndexReader;

/**
 * TREC and MS MARCO run lines of a {@link BatchHits}, written in Java so that a run costs no
 * Python work per hit; byte for byte what {@code qlog_pyserini.formats.trec.format_run_lines}
 * writes (tests compare the two).
 *
 * <p>Scores are printed with 6 decimals, as Pyserini prints them. trec_eval reads a score into a
 * 32-bit float and re-sorts by (score, docid), so a written score must be strictly below the one on
 * the line above <em>as a float</em>, not only as text, or trec_eval evaluates another order than
 * the one written. A score whose 6-decimal text breaks that is written as the largest 6-decimal
 * value that does not: one micro below the score above where that float is smaller (always below
 * 16, where floats are closer than 1e-6, so Pyserini's runs are kept unchanged wherever they are
 * unambiguous), else the largest value that reads as the next float down.
 */
public final class RunLines {

  private RunLines() {
  }

  /** {@code qid Q0 docid rank score tag} lines, ranks from 1, queries in batch order. */
  public static byte[] trec(BatchHits hits, IndexReader reader, String[] qids, String tag) throws IOException {
    Bytes out = new Bytes(Math.max(64, hits.hits() * 48), null);
    trec(hits, reader, qids, tag, out);
    return out.toArray();
  }

  /**
   * Appends the run lines of {@code hits} ({@code format} {@code trec} or {@code msmarco}) to the file
   * at {@code path} and returns the number of bytes written: a run written without its text crossing
   * the bridge. Python passes its open temporary file as {@code /dev/fd/N}.
   */
  public static long append(BatchHits hits, IndexReader reader, String[] qids, String tag, String format,
      String path) throws IOException {
    try (OutputStream file = new FileOutputStream(path, true)) {
      Bytes out = new Bytes(1 << 20, file);
      switch (format) {
        case "trec" -> trec(hits, reader, qids, tag, out);
        case "msmarco" -> msmarco(hits, reader, qids, out);
        default -> throw new IllegalArgumentException("unknown run format " + format + "; choose trec or msmarco");
      }
      return out.flush();
    }
  }

  private static void trec(BatchHits hits, IndexReader reader, String[] qids, String tag, Bytes out)
      throws IOException {
    checkQids(hits, qids);
    byte[][] ids = Docids.of(reader);
    byte[] tail = (" " + tag + "\n").getBytes(StandardCharsets.UTF_8);
    for (int q = 0; q < hits.queries(); q++) {
      byte[] head = (qids[q] + " Q0 ").getBytes(StandardCharsets.UTF_8);
      long previous = 0;
      float previousFloat = 0f;
      for (int i = hits.offsets[q], rank = 1; i < hits.offsets[q + 1]; i++, rank++) {
        float s = hits.scores[i];
        if (!Float.isFinite(s)) {
          throw new IllegalArgumentException("query " + qids[q] + ": a score of " + s + " cannot be written");
        }
        long printed = micros(s);
        long micros = rank == 1 ? printed : writtenMicros(s, previous, previousFloat);
        previous = micros;
        previousFloat = asFloat(micros);
        out.put(head).put(ids[hits.docs[i]]).put((byte) ' ').putLong(rank).put((byte) ' ');
        // Python prints the sign of a negative score that rounds to zero ("-0.000000"); so does this.
        if (micros < 0 || (micros == 0 && micros == printed && (s < 0 || Float.floatToRawIntBits(s) == Integer.MIN_VALUE))) {
          out.put((byte) '-');
        }
        long abs = Math.abs(micros);
        out.putLong(abs / 1_000_000).put((byte) '.').putPadded(abs % 1_000_000, 6).put(tail);
      }
    }
  }

  /** {@code qid TAB docid TAB rank} lines (Pyserini's MS MARCO run format). */
  public static byte[] msmarco(BatchHits hits, IndexReader reader, String[] qids) throws IOException {
    Bytes out = new Bytes(Math.max(64, hits.hits() * 24), null);
    msmarco(hits, reader, qids, out);
    return out.toArray();
  }

  private static void msmarco(BatchHits hits, IndexReader reader, String[] qids, Bytes out) throws IOException {
    checkQids(hits, qids);
    byte[][] ids = Docids.of(reader);
    for (int q = 0; q < hits.queries(); q++) {
      byte[] head = (qids[q] + "\t").getBytes(StandardCharsets.UTF_8);
      for (int i = hits.offsets[q], rank = 1; i < hits.offsets[q + 1]; i++, rank++) {
        out.put(head).put(ids[hits.docs[i]]).put((byte) '\t').putLong(rank).put((byte) '\n');
      }
    }
  }

  /**
   * Pyserini's {@code --remove-duplicates} (keep a docid's first hit) and {@code --remove-query} (drop
   * the hit whose docid is its query's id): a new batch, the kept hits in their order.
   */
  public static BatchHits drop(BatchHits hits, IndexReader reader, String[] qids, boolean duplicates,
      boolean queryIds) throws IOException {
    checkQids(hits, qids);
    byte[][] ids = Docids.of(reader);
    BatchHits.Builder kept = new BatchHits.Builder(hits.queries(), hits.hits());
    for (int q = 0; q < hits.queries(); q++) {
      byte[] qid = qids[q].getBytes(StandardCharsets.UTF_8);
      Set<String> seen = duplicates ? new HashSet<>() : null;
      for (int i = hits.offsets[q]; i < hits.offsets[q + 1]; i++) {
        byte[] id = ids[hits.docs[i]];
        if (queryIds && Arrays.equals(id, qid)) {
          continue;
        }
        if (seen != null && !seen.add(new String(id, StandardCharsets.UTF_8))) {
          continue;
        }
        kept.add(hits.docs[i], hits.scores[i]);
      }
      kept.endQuery();
    }
    return kept.build();
  }

  /** A float's value in millionths, rounded half-even as Python's {@code f"{x:.6f}"} rounds it. */
  static long micros(float score) {
    // A float has 24 significant bits and 10^6 = 2^6 * 15625 needs 14 more: the product is exact in a double.
    return (long) Math.rint((double) score * 1e6);
  }

  /** The 32-bit float trec_eval reads from a 6-decimal score (strtod, then the cast to float). */
  static float asFloat(long micros) {
    // micros / 1e6 is the double nearest the decimal, as strtod gives it; both operands are exact.
    return (float) (micros / 1e6);
  }

  /** The millionths to write for {@code score} below a line written as {@code previous} (read as {@code previousFloat}). */
  static long writtenMicros(float score, long previous, float previousFloat) {
    long micros = micros(score);
    if (micros < previous && asFloat(micros) < previousFloat) {
      return micros;
    }
    long below = previous - 1;
    if (asFloat(below) < previousFloat) {
      return below;
    }
    // Floats are more than 1e-6 apart here (scores of 16 and more): take the largest decimal that
    // still reads as a float below, i.e. below the midpoint between the float above and the next one down.
    double midpoint = ((double) previousFloat + (double) Math.nextDown(previousFloat)) / 2;
    below = (long) Math.ceil(midpoint * 1e6); // at the midpoint itself, round-half-even may still read it as below
    while (asFloat(below) >= previousFloat) {
      below--;
    }
    return below;
  }

  /**
   * A byte buffer with ASCII number output (no per-line strings, no locks): growable in memory, or
   * of fixed size and emptied into {@code sink} when full.
   */
  private static final class Bytes {
    private final OutputStream sink;
    private byte[] buf;
    private int size;
    private long flushed;

    Bytes(int capacity, OutputStream sink) {
      this.buf = new byte[capacity];
      this.sink = sink;
    }

    /** Writes what is buffered to the sink; returns the bytes written to it so far. */
    long flush() throws IOException {
      sink.write(buf, 0, size);
      flushed += size;
      size = 0;
      return flushed;
    }

    private void room(int n) throws IOException {
      if (size + n > buf.length && sink != null) {
        flush();
      }
      if (size + n > buf.length) {
        long grown = Math.max((long) size + n, 2L * buf.length);
        if (grown > Integer.MAX_VALUE - 8) {
          if ((long) size + n > Integer.MAX_VALUE - 8) {
            throw new IllegalStateException("run text of a batch exceeds 2 GB; search smaller batches");
          }
          grown = Integer.MAX_VALUE - 8;
        }
        buf = Arrays.copyOf(buf, (int) grown);
      }
    }

    Bytes put(byte b) throws IOException {
      room(1);
      buf[size++] = b;
      return this;
    }

    Bytes put(byte[] b) throws IOException {
      room(b.length);
      System.arraycopy(b, 0, buf, size, b.length);
      size += b.length;
      return this;
    }

    /** A non-negative number in decimal. */
    Bytes putLong(long v) throws IOException {
      int digits = 1;
      for (long x = v; x >= 10; x /= 10) {
        digits++;
      }
      return putPadded(v, digits);
    }

    /** A non-negative number in exactly {@code digits} decimal digits, zero-padded. */
    Bytes putPadded(long v, int digits) throws IOException {
      room(digits);
      for (int i = size + digits - 1; i >= size; i--) {
        buf[i] = (byte) ('0' + (v % 10));
        v /= 10;
      }
      size += digits;
      return this;
    }

    byte[] toArray() {
      return Arrays.copyOf(buf, size);
    }
  }

  private static void checkQids(BatchHits hits, String[] qids) {
    if (qids == null || qids.length != hits.queries()) {
      throw new IllegalArgumentException((qids == null ? 0 : qids.length) + " qids for " + hits.queries() + " queries");
    }
  }
}
