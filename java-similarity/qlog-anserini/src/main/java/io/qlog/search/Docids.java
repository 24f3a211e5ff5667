package io.qlog.search;

import io.anserini.index.Constants;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.Arrays;
import java.util.Map;
import java.util.Set;
import java.util.WeakHashMap;
import org.apache.lucene.document.Document;
import org.apache.lucene.index.BinaryDocValues;
import org.apache.lucene.index.IndexReader;
import org.apache.lucene.index.LeafReader;
import org.apache.lucene.index.LeafReaderContext;
import org.apache.lucene.index.SortedDocValues;
import org.apache.lucene.index.StoredFields;

/**
 * The external docid of every Lucene doc number of an open reader, as UTF-8 bytes, read once per
 * reader (from the {@code id} doc values Anserini sorts ties by, else the stored {@code id}) and
 * kept while the reader lives. Hits then cross to Python as doc numbers, never as strings.
 */
public final class Docids {

  private static final Map<IndexReader, byte[][]> TABLES = new WeakHashMap<>();
  private static final Map<IndexReader, IdOrder> ORDERS = new WeakHashMap<>();
  private static final Set<String> ID_ONLY = Set.of(Constants.ID);

  private Docids() {
  }

  /** The id bytes of each doc number of {@code reader} (null for a document without an id). */
  public static byte[][] of(IndexReader reader) throws IOException {
    synchronized (TABLES) {
      byte[][] table = TABLES.get(reader);
      if (table == null) {
        table = read(reader);
        TABLES.put(reader, table);
      }
      return table;
    }
  }

  /**
   * The doc numbers of a reader in ascending id order (Anserini's tie order: unsigned bytes, a
   * document without an id first, equal ids by doc number), and each doc number's place in it. Two
   * documents of equal score are then ordered by comparing two ints instead of two byte strings.
   *
   * @param rank {@code rank[doc]}, the place of {@code doc}'s id in id order
   * @param doc {@code doc[rank]}, the doc number at that place
   */
  public record IdOrder(int[] rank, int[] doc) {}

  /** The {@link IdOrder} of {@code reader}, sorted once per reader and kept while it lives. */
  public static IdOrder order(IndexReader reader) throws IOException {
    byte[][] table = of(reader);
    synchronized (ORDERS) {
      IdOrder order = ORDERS.get(reader);
      if (order == null) {
        Integer[] byId = new Integer[table.length];
        for (int i = 0; i < byId.length; i++) {
          byId[i] = i;
        }
        Arrays.parallelSort(byId, (a, b) -> {
          int c = compare(table[a], table[b]);
          return c != 0 ? c : Integer.compare(a, b);
        });
        int[] rank = new int[table.length];
        int[] doc = new int[table.length];
        for (int i = 0; i < byId.length; i++) {
          doc[i] = byId[i];
          rank[byId[i]] = i;
        }
        order = new IdOrder(rank, doc);
        ORDERS.put(reader, order);
      }
      return order;
    }
  }

  /**
   * The docid table of {@code reader} for Python: int32 (little-endian) number of doc numbers, then
   * every id in UTF-8 followed by one {@code '\n'} (ids cannot hold whitespace: TREC runs split on it).
   */
  public static byte[] packed(IndexReader reader) throws IOException {
    byte[][] table = of(reader);
    long size = 4;
    for (byte[] id : table) {
      size += (id == null ? 0 : id.length) + 1;
    }
    if (size > Integer.MAX_VALUE - 8) {
      throw new IllegalStateException("docid table of " + size + " bytes does not fit one Java array");
    }
    ByteArrayOutputStream out = new ByteArrayOutputStream((int) size);
    out.write(ByteBuffer.allocate(4).order(ByteOrder.LITTLE_ENDIAN).putInt(table.length).array(), 0, 4);
    for (byte[] id : table) {
      if (id != null) {
        out.write(id, 0, id.length);
      }
      out.write('\n');
    }
    return out.toByteArray();
  }

  /** Unsigned byte order of two ids, the order of Lucene's {@code BytesRef} and so of Anserini's tie sort. */
  static int compare(byte[] a, byte[] b) {
    if (a == null || b == null) { // a document without an id sorts first, as Lucene's missing value
      return a == null ? (b == null ? 0 : -1) : 1;
    }
    return Arrays.compareUnsigned(a, b);
  }

  private static byte[][] read(IndexReader reader) throws IOException {
    byte[][] table = new byte[reader.maxDoc()][];
    for (LeafReaderContext leaf : reader.leaves()) {
      LeafReader r = leaf.reader();
      int base = leaf.docBase;
      SortedDocValues sorted = r.getSortedDocValues(Constants.ID);
      BinaryDocValues binary = sorted == null ? r.getBinaryDocValues(Constants.ID) : null;
      StoredFields stored = null;
      for (int doc = 0; doc < r.maxDoc(); doc++) {
        if (sorted != null && sorted.advanceExact(doc)) {
          table[base + doc] = bytes(sorted.lookupOrd(sorted.ordValue()));
        } else if (binary != null && binary.advanceExact(doc)) {
          table[base + doc] = bytes(binary.binaryValue());
        } else {
          if (stored == null) {
            stored = r.storedFields();
          }
          Document d = stored.document(doc, ID_ONLY);
          String id = d.get(Constants.ID);
          table[base + doc] = id == null ? null : id.getBytes(java.nio.charset.StandardCharsets.UTF_8);
        }
      }
    }
    return table;
  }

  private static byte[] bytes(org.apache.lucene.util.BytesRef ref) {
    return Arrays.copyOfRange(ref.bytes, ref.offset, ref.offset + ref.length);
  }
}
