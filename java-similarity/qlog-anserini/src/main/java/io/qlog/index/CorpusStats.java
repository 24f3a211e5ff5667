package io.qlog.index;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.PriorityQueue;
import org.apache.lucene.index.BinaryDocValues;
import org.apache.lucene.index.DirectoryReader;
import org.apache.lucene.index.FieldInfo;
import org.apache.lucene.index.FieldInfos;
import org.apache.lucene.index.IndexReader;
import org.apache.lucene.index.LeafReader;
import org.apache.lucene.index.LeafReaderContext;
import org.apache.lucene.index.MultiTerms;
import org.apache.lucene.index.NumericDocValues;
import org.apache.lucene.index.SortedDocValues;
import org.apache.lucene.index.TermVectors;
import org.apache.lucene.index.Terms;
import org.apache.lucene.index.TermsEnum;
import org.apache.lucene.search.DocIdSetIterator;
import org.apache.lucene.store.Directory;
import org.apache.lucene.store.FSDirectory;
import org.apache.lucene.util.Bits;
import org.apache.lucene.util.BytesRef;

/**
 * Term-distribution statistics of one indexed field, returned as one JSON text so Python crosses the
 * JNI bridge once.
 *
 * <p><b>Whole index</b>: one pass over the field's term dictionary merged across segments
 * ({@link MultiTerms}), reading each term's document frequency df and collection frequency cf:
 *
 * <pre>
 *   documents    N  = documents with at least one term in the field (BM25's N)
 *   vocabulary   V  = distinct terms
 *   tokens       T  = sum of cf over all terms
 *   df1_types       = terms with df = 1;  df1_tokens = sum of their cf
 *   hapax_types     = terms with cf = 1 (true hapax legomena; each is also df = 1)
 *   df_histogram[k] = terms with 2^k &lt;= df &lt; 2^(k+1)
 * </pre>
 *
 * <p><b>Sample</b>: the same counts over a fixed number of documents, df counted within the sample,
 * read from the stored term vectors (Anserini's {@code -storeDocvectors}). Counts of this kind grow
 * with corpus size, so only a same-size sample compares corpora of different sizes. The sample is the
 * {@code sampleDocs} documents with the smallest seeded hash of their external id (the {@code id}
 * doc values Anserini writes), so it depends on the corpus and the seed, not on how many threads
 * built the index or in which order documents landed in segments. The hash, reproducible elsewhere:
 *
 * <pre>
 *   h = FNV-1a-64 over the id's UTF-8 bytes, starting from 0xcbf29ce484222325 XOR mix64(seed)
 *   key = mix64(h), compared as unsigned 64-bit, ties by id bytes;  mix64 = SplitMix64's finalizer
 * </pre>
 *
 * <p>Deleted documents still count in df and cf until their segment merges (as in BM25's own
 * statistics); {@code deleted_docs} reports how many there are.
 */
public final class CorpusStats {
  static final String ID_FIELD = "id";
  private static final long FNV_OFFSET = 0xcbf29ce484222325L;
  private static final long FNV_PRIME = 0x100000001b3L;
  private static final ObjectMapper JSON = new ObjectMapper();

  private CorpusStats() {}

  /** Statistics of {@code field} in the index at {@code indexDir}, as JSON (see the class comment). */
  public static String compute(String indexDir, String field, int sampleDocs, long seed) throws IOException {
    try (Directory dir = FSDirectory.open(Paths.get(indexDir));
        DirectoryReader reader = DirectoryReader.open(dir)) {
      return fromReader(reader, field, sampleDocs, seed);
    }
  }

  /**
   * Statistics of {@code field} in an open index, as JSON.
   *
   * @param sampleDocs size of the document sample, &gt;= 0 (0: no sample)
   * @throws IllegalArgumentException if the field has no indexed terms or sampleDocs is negative
   */
  public static String fromReader(IndexReader reader, String field, int sampleDocs, long seed) throws IOException {
    if (field == null || field.isEmpty()) {
      throw new IllegalArgumentException("illegal field: must be a non-empty field name");
    }
    if (sampleDocs < 0) {
      throw new IllegalArgumentException("illegal sampleDocs value: " + sampleDocs + ", must be >= 0");
    }
    Terms terms = MultiTerms.getTerms(reader, field);
    if (terms == null) {
      throw new IllegalArgumentException("field '" + field + "' has no indexed terms in this index");
    }
    Map<String, Object> out = new LinkedHashMap<>();
    out.put("field", field);
    out.put("max_doc", reader.maxDoc());
    out.put("deleted_docs", reader.numDeletedDocs());

    long start = System.nanoTime();
    Counts full = new Counts();
    full.documents = terms.getDocCount();
    TermsEnum te = terms.iterator();
    // The merged enum sums df and cf over segments, so a term that is df = 1 in two segments is df = 2.
    while (te.next() != null) {
      full.add(te.docFreq(), te.totalTermFreq());
    }
    double termsSeconds = (System.nanoTime() - start) / 1e9;
    out.putAll(full.toMap());

    start = System.nanoTime();
    Map<String, Object> sample = null;
    String sampleError = null;
    if (sampleDocs > 0) {
      FieldInfo info = FieldInfos.getMergedFieldInfos(reader).fieldInfo(field);
      if (info == null || !info.hasTermVectors()) {
        sampleError = "the index stores no term vectors for field '" + field
            + "' (build it with Anserini's -storeDocvectors, as qlog_pyserini.index does)";
      } else {
        sample = sample(reader, field, sampleDocs, seed);
      }
    }
    double sampleSeconds = (System.nanoTime() - start) / 1e9;
    out.put("sample", sample);
    if (sampleError != null) {
      out.put("sample_error", sampleError);
    }
    Map<String, Object> seconds = new LinkedHashMap<>();
    seconds.put("terms", termsSeconds);
    seconds.put("sample", sampleSeconds);
    out.put("seconds", seconds);
    try {
      return JSON.writeValueAsString(out);
    } catch (JsonProcessingException e) {
      throw new IOException(e);
    }
  }

  /**
   * The mean, over the seeded sample of {@code n} documents (the sample of the class comment: live documents with
   * terms in {@code field}, chosen by the hash of their ids), of each document's verboseness in {@code field}: its
   * length over its distinct terms, read from the stored term vectors. The documents are summed in the sample's key
   * order, so the value is the same to the last bit however the index was built (threads, segments, updates).
   *
   * @return the mean, or NaN when no chosen document has a term vector of {@code field}
   * @throws IllegalArgumentException if {@code n} is not positive
   */
  public static double meanVerboseness(IndexReader reader, String field, int n, long seed) throws IOException {
    if (n < 1) {
      throw new IllegalArgumentException("illegal sample size: " + n + ", must be >= 1");
    }
    List<Candidate> docs = new ArrayList<>(choose(reader, field, n, seed).docs());
    docs.sort(ORDER);
    TermVectors vectors = reader.termVectors();
    double total = 0;
    int used = 0;
    for (Candidate c : docs) {
      Terms tv = vectors.get(c.doc, field);
      if (tv == null || tv.size() <= 0) {
        continue;
      }
      total += (double) tv.getSumTotalTermFreq() / tv.size();
      used++;
    }
    return used == 0 ? Double.NaN : total / used;
  }

  /** Counts over one set of (df, cf) pairs: the whole dictionary or a sample. */
  static final class Counts {
    long documents;
    long types;
    long tokens;
    long df1Types;
    long df1Tokens;
    long hapaxTypes;
    final long[] dfHistogram = new long[64];

    void add(long df, long cf) {
      types++;
      tokens += cf;
      if (df == 1) {
        df1Types++;
        df1Tokens += cf;
      }
      if (cf == 1) {
        hapaxTypes++;
      }
      dfHistogram[63 - Long.numberOfLeadingZeros(df)]++;
    }

    Map<String, Object> toMap() {
      Map<String, Object> m = new LinkedHashMap<>();
      m.put("documents", documents);
      m.put("vocabulary", types);
      m.put("tokens", tokens);
      m.put("df1_types", df1Types);
      m.put("df1_tokens", df1Tokens);
      m.put("hapax_types", hapaxTypes);
      m.put("mean_doc_length", documents == 0 ? 0.0 : (double) tokens / documents);
      int last = dfHistogram.length;
      while (last > 0 && dfHistogram[last - 1] == 0) {
        last--;
      }
      m.put("df_histogram", Arrays.copyOf(dfHistogram, last));
      return m;
    }
  }

  /** A candidate document for the sample: its hash key, external id and global Lucene doc id. */
  private record Candidate(long key, byte[] id, int doc) {}

  private static final Comparator<Candidate> ORDER =
      Comparator.<Candidate>comparingLong(c -> c.key ^ Long.MIN_VALUE) // unsigned order
          .thenComparing(Candidate::id, Arrays::compareUnsigned);

  /** The chosen documents of a sample, and what their keys were computed from ("id", "lucene-docid" or "mixed"). */
  private record Chosen(List<Candidate> docs, String keyKind) {}

  private static Map<String, Object> sample(IndexReader reader, String field, int n, long seed) throws IOException {
    Chosen chosen = choose(reader, field, n, seed);
    Counts counts = new Counts();
    List<Candidate> used = new ArrayList<>();
    Map<BytesRef, long[]> perTerm = countTerms(reader, field, chosen.docs(), used);
    counts.documents = used.size();
    for (long[] dfCf : perTerm.values()) {
      counts.add(dfCf[0], dfCf[1]);
    }
    Map<String, Object> m = new LinkedHashMap<>();
    m.put("requested", n);
    m.put("seed", seed);
    m.put("key", chosen.keyKind() == null ? "id" : chosen.keyKind());
    m.putAll(counts.toMap());
    used.sort(ORDER);
    List<String> ids = new ArrayList<>(used.size());
    for (Candidate c : used) {
      ids.add(new String(c.id, StandardCharsets.UTF_8));
    }
    m.put("docids", ids);
    return m;
  }

  /** The n documents with the smallest seeded keys, among those with terms in {@code field}, in index order. */
  private static Chosen choose(IndexReader reader, String field, int n, long seed) throws IOException {
    // A max-heap of the n smallest keys seen so far: one pass over the documents, O(N log n).
    PriorityQueue<Candidate> heap = new PriorityQueue<>(n + 1, ORDER.reversed());
    String keyKind = null;
    for (LeafReaderContext ctx : reader.leaves()) {
      LeafReader leaf = ctx.reader();
      Bits live = leaf.getLiveDocs();
      BinaryDocValues binaryIds = leaf.getBinaryDocValues(ID_FIELD);
      SortedDocValues sortedIds = binaryIds == null ? leaf.getSortedDocValues(ID_FIELD) : null;
      String kind = binaryIds != null || sortedIds != null ? "id" : "lucene-docid";
      keyKind = keyKind == null || keyKind.equals(kind) ? kind : "mixed";
      // Lucene stores norm 0 exactly for a field with no terms (a non-empty one must get a non-zero norm),
      // so documents with a non-zero norm are the N documents above.
      NumericDocValues norms = leaf.getNormValues(field);
      DocIdSetIterator docs = norms != null ? norms : DocIdSetIterator.all(leaf.maxDoc());
      for (int doc = docs.nextDoc(); doc != DocIdSetIterator.NO_MORE_DOCS; doc = docs.nextDoc()) {
        if ((live != null && !live.get(doc)) || (norms != null && norms.longValue() == 0)) {
          continue;
        }
        BytesRef id;
        if (binaryIds != null && binaryIds.advanceExact(doc)) {
          id = binaryIds.binaryValue();
        } else if (sortedIds != null && sortedIds.advanceExact(doc)) {
          id = sortedIds.lookupOrd(sortedIds.ordValue());
        } else {
          id = new BytesRef(Integer.toString(ctx.docBase + doc));
        }
        long key = key(id, seed);
        if (heap.size() == n) {
          Candidate top = heap.peek();
          int c = Long.compareUnsigned(key, top.key);
          if (c > 0 || (c == 0 && Arrays.compareUnsigned(id.bytes, id.offset, id.offset + id.length,
              top.id, 0, top.id.length) >= 0)) {
            continue;
          }
        }
        heap.add(new Candidate(key, BytesRef.deepCopyOf(id).bytes, ctx.docBase + doc));
        if (heap.size() > n) {
          heap.poll();
        }
      }
    }
    List<Candidate> chosen = new ArrayList<>(heap);
    chosen.sort(Comparator.comparingInt(Candidate::doc)); // term vectors read in index order
    return new Chosen(chosen, keyKind);
  }

  /**
   * Document and collection frequency within the sample of every term in the chosen documents' term
   * vectors; the documents that had a term vector are added to {@code used}.
   */
  private static Map<BytesRef, long[]> countTerms(IndexReader reader, String field, List<Candidate> chosen,
      List<Candidate> used) throws IOException {
    Map<BytesRef, long[]> perTerm = new HashMap<>(); // term -> {df in sample, cf in sample}
    TermVectors vectors = reader.termVectors();
    for (Candidate c : chosen) {
      Terms tv = vectors.get(c.doc, field);
      if (tv == null) {
        continue; // no terms in the field (only possible when the field has no norms)
      }
      used.add(c);
      TermsEnum te = tv.iterator();
      for (BytesRef term = te.next(); term != null; term = te.next()) {
        long freq = te.totalTermFreq(); // in a term vector: the term's frequency in this document
        long[] dfCf = perTerm.get(term);
        if (dfCf == null) {
          perTerm.put(BytesRef.deepCopyOf(term), new long[] {1, freq});
        } else {
          dfCf[0]++;
          dfCf[1] += freq;
        }
      }
    }
    return perTerm;
  }

  /** The sample key of an external id: mix64(FNV-1a-64 of its bytes, seeded). */
  static long key(BytesRef id, long seed) {
    long h = FNV_OFFSET ^ mix64(seed);
    for (int i = id.offset; i < id.offset + id.length; i++) {
      h ^= id.bytes[i] & 0xff;
      h *= FNV_PRIME;
    }
    return mix64(h);
  }

  /** SplitMix64's finalizer: spreads FNV's weak low bits over all 64. */
  static long mix64(long z) {
    z = (z ^ (z >>> 30)) * 0xbf58476d1ce4e5b9L;
    z = (z ^ (z >>> 27)) * 0x94d049bb133111ebL;
    return z ^ (z >>> 31);
  }
}
