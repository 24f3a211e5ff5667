package io.qlog.search;

import io.qlog.similarities.ExhaustiveScoring;
import java.io.IOException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.WeakHashMap;
import org.apache.lucene.index.LeafReader;
import org.apache.lucene.index.LeafReaderContext;
import org.apache.lucene.index.NumericDocValues;
import org.apache.lucene.index.PostingsEnum;
import org.apache.lucene.index.Term;
import org.apache.lucene.index.TermState;
import org.apache.lucene.index.TermStates;
import org.apache.lucene.index.Terms;
import org.apache.lucene.index.TermsEnum;
import org.apache.lucene.search.CollectionStatistics;
import org.apache.lucene.search.DocAndFloatFeatureBuffer;
import org.apache.lucene.search.DocIdSetIterator;
import org.apache.lucene.search.IndexSearcher;
import org.apache.lucene.search.Query;
import org.apache.lucene.search.TermStatistics;
import org.apache.lucene.search.similarities.Similarity;
import org.apache.lucene.util.Bits;
import org.apache.lucene.util.FixedBitSet;
import org.apache.lucene.util.IOSupplier;
import org.apache.lucene.util.NumericUtils;
import org.apache.lucene.util.TernaryLongHeap;

/**
 * The top k of a bag-of-words query in Anserini's order, scored term at a time: what a large k
 * costs less this way than document at a time.
 *
 * <p>Lucene's disjunction scorers go document at a time and prune with block-max bounds. With a
 * small k the k-th score soon rises above what most documents can reach and few are scored; with a
 * large k (a run of 1000 hits) it stays low, most matches are scored anyway, and each costs
 * per-document bookkeeping (which clause is on which document, a heap update per competitive one).
 * Here each clause's postings are read and scored in bulk and added into a window of doc numbers,
 * and the window's best are picked in one go at the end:
 *
 * <ul>
 *   <li><b>Scores.</b> A clause is scored with the {@code SimScorer} its {@code TermQuery} has in
 *       Lucene's {@code BooleanQuery} (the same similarity, boost, collection and term statistics),
 *       through the scorer's bulk form, as Lucene's own {@code TermScorer} scores a block; norms
 *       are read from a copy made once per segment ({@link #norms}).
 *   <li><b>Pruning.</b> The clauses go in decreasing order of the largest score each can give
 *       ({@code score(maxFreq, smallest norm)}: Lucene requires scores not to fall as freq rises or
 *       to rise as the norm does, the bound its own pruning relies on). Partial sums only grow, so the
 *       k-th best partial sum is a lower bound of the final k-th score; once the clauses still to
 *       come cannot together lift a document no earlier clause matched up to it, they only add to
 *       documents already in. A similarity without that order ({@link ExhaustiveScoring}) is not pruned.
 *   <li><b>Selection.</b> The k-th best score of a window is found with a histogram of the scores'
 *       top bits ({@link ScoreHistogram}), then quickselect among the few in and above its bucket;
 *       only documents at or above it (ties included: a tie may have the smaller docid) meet the
 *       heap of {@link AnseriniTopK} codes.
 * </ul>
 *
 * <p>The scores are Lucene's exactly, under the condition {@link ModelGridTopK} states: a document's
 * score is its term scores summed in double and rounded to float, which is exact in any order when
 * the query's term scores do not spread over more than {@value ModelGridTopK#EXACT_SPAN} binary
 * orders of magnitude. A query whose scores spread wider gets null, as does a query that is not a
 * disjunction of (boosted) term queries: the caller searches those with Lucene.
 */
final class TermAtATimeTopK {

  /** Doc numbers per window: the accumulator a search thread keeps is this many doubles. */
  static final int WINDOW = 1 << 16;

  /**
   * The smallest k tried this way: below it Lucene's pruning skips most matches, and its top k was
   * the faster one in every measurement (docs/performance.md).
   */
  static final int MIN_K = 100;

  /**
   * The most postings per hit wanted that a query may have to be scored this way: one whose terms'
   * document frequencies add up to more, next to k, is left to Lucene, whose block-max pruning skips
   * more of long postings lists the smaller the share of their documents that can enter. Measured
   * at k = 1000 (docs/performance.md): scoring every query this way took 0.84x Lucene's time on the
   * JDK benchmark and 0.58x on CoSQA, but 1.19x on the Go corpus (182K functions); with this limit,
   * 0.84x, 0.54x and 1.00x.
   */
  static final long POSTINGS_PER_HIT = 64;

  private TermAtATimeTopK() {}

  /**
   * The top k of {@code query} as {@link AnseriniTopK} codes, best first, or null (see the class comment).
   *
   * @param searcher its reader, rewrite, statistics and similarity are those searched with
   * @param k the number of hits wanted, at least 1 (capped at maxDoc, as {@code IndexSearcher} caps it)
   * @param ids the id order of the searcher's reader ({@link Docids#order})
   * @param maxPostings null is returned, before any posting is read, when the query's terms hold more
   *     postings than this in all ({@link #POSTINGS_PER_HIT} times k, say; Long.MAX_VALUE: no limit)
   */
  static long[] search(IndexSearcher searcher, Query query, int k, Docids.IdOrder ids, long maxPostings)
      throws IOException {
    List<ModelGridTopK.Boosted> flat = new ArrayList<>();
    if (!ModelGridTopK.flatten(searcher.rewrite(query), 1f, flat)) {
      return null;
    }
    Similarity similarity = searcher.getSimilarity();
    boolean bounded = !(similarity instanceof ExhaustiveScoring);
    List<Clause> clauses = new ArrayList<>();
    long postings = 0;
    for (ModelGridTopK.Boosted b : flat) {
      // as TermQuery's weight: statistics of the whole reader; a term in no document scores nothing
      TermStates states = TermStates.build(searcher, b.term(), true);
      if (states.docFreq() == 0) {
        continue;
      }
      postings += states.docFreq();
      if (postings > maxPostings) {
        return null;
      }
      CollectionStatistics collection = searcher.collectionStatistics(b.term().field());
      TermStatistics stats = searcher.termStatistics(b.term(), states.docFreq(), states.totalTermFreq());
      Similarity.SimScorer scorer = similarity.scorer(b.boost(), collection, stats);
      float bound = Float.POSITIVE_INFINITY;
      if (bounded && states.totalTermFreq() > 0) {
        // every other document holding the term holds it at least once
        long maxFreq = states.totalTermFreq() - states.docFreq() + 1;
        bound = scorer.score((float) maxFreq, 0L); // norm 0: the smallest, unsigned, as Lucene orders norms
      }
      clauses.add(new Clause(b.term(), states, scorer, bound));
    }
    // the clauses by decreasing bound: the rare terms, which can lift a document into the top k
    // alone, first; the common ones, which cannot, last
    clauses.sort((x, y) -> Float.compare(y.bound, x.bound));
    int n = Math.max(1, Math.min(k, searcher.getIndexReader().maxDoc()));
    Window window = WINDOWS.get();
    window.reset(n, clauses, bounded);
    for (LeafReaderContext leaf : searcher.getIndexReader().leaves()) {
      window.scoreLeaf(leaf, clauses, ids.rank());
    }
    return window.exact() ? AnseriniTopK.bestCodes(window.heap) : null;
  }

  /** A query term: its statistics, its scorer and the largest score it can give. */
  private record Clause(Term term, TermStates states, Similarity.SimScorer scorer, float bound) {}

  /** Each search thread's window, its buffers made once and reused query after query. */
  private static final ThreadLocal<Window> WINDOWS = ThreadLocal.withInitial(Window::new);

  /**
   * The norms of a segment's field as one array, read once per segment and kept while it lives; null
   * when a norm does not fit a byte (then they are read from the index as Lucene reads them). A
   * document without a norm gets 1, as {@code TermScorer} gives it.
   */
  static byte[] norms(LeafReader reader, String field) throws IOException {
    synchronized (NORMS) {
      Map<String, byte[]> byField = NORMS.computeIfAbsent(reader, r -> new HashMap<>());
      if (byField.containsKey(field)) {
        return byField.get(field);
      }
      byte[] norms = null;
      NumericDocValues values = reader.getNormValues(field);
      if (values != null) {
        norms = new byte[reader.maxDoc()];
        Arrays.fill(norms, (byte) 1);
        for (int doc = values.nextDoc(); doc != DocIdSetIterator.NO_MORE_DOCS; doc = values.nextDoc()) {
          long norm = values.longValue();
          if (norm != (byte) norm) {
            norms = null;
            break;
          }
          norms[doc] = (byte) norm;
        }
      }
      byField.put(field, norms);
      return norms;
    }
  }

  private static final Map<LeafReader, Map<String, byte[]>> NORMS = new WeakHashMap<>();

  /** One query's heap and exactness bounds, and a thread's window buffers. */
  private static final class Window {
    final double[] acc = new double[WINDOW];
    final FixedBitSet seen = new FixedBitSet(WINDOW);
    final DocAndFloatFeatureBuffer postings = new DocAndFloatFeatureBuffer(); // doc numbers and freqs
    long[] normBuffer = new long[128];
    float[] scoreBuffer = new float[128];
    int[] docs = new int[1024];
    float[] scores = new float[1024];
    float[] spare = new float[1024];
    final ScoreHistogram histogram = new ScoreHistogram();
    TernaryLongHeap heap;
    int k;
    boolean bounded;
    double[] rest = new double[1]; // rest[j]: the most clauses j, j + 1, ... can add to a document
    double[] largest = new double[0]; // [clause]: the largest score the clause gave
    int clauses;
    float smallest; // the smallest positive term score

    void reset(int k, List<Clause> query, boolean bounded) {
      if (heap == null || this.k != k) {
        heap = new TernaryLongHeap(k);
        this.k = k;
      } else {
        heap.clear();
      }
      this.bounded = bounded;
      clauses = query.size();
      if (largest.length < clauses) {
        largest = new double[clauses];
        rest = new double[clauses + 1];
      }
      Arrays.fill(largest, 0, clauses, 0d);
      rest[clauses] = 0;
      for (int j = clauses - 1; j >= 0; j--) {
        rest[j] = rest[j + 1] + query.get(j).bound;
      }
      smallest = Float.POSITIVE_INFINITY;
    }

    /** Whether every sum was exact whatever its order (see the class comment). */
    boolean exact() {
      if (smallest == Float.POSITIVE_INFINITY) {
        return true;
      }
      double bound = 0;
      for (int i = 0; i < clauses; i++) {
        bound += largest[i];
      }
      return Math.getExponent(bound) - Math.getExponent(smallest) <= ModelGridTopK.EXACT_SPAN;
    }

    /** Scores the leaf's matches into the heap, window by window. */
    void scoreLeaf(LeafReaderContext leaf, List<Clause> query, int[] rank) throws IOException {
      PostingsEnum[] postingsOf = new PostingsEnum[clauses];
      boolean any = false;
      for (int j = 0; j < clauses; j++) {
        Clause clause = query.get(j);
        IOSupplier<TermState> supplier = clause.states().get(leaf);
        TermState state = supplier == null ? null : supplier.get();
        if (state == null) {
          continue; // the term is not in this segment
        }
        Terms terms = leaf.reader().terms(clause.term().field());
        TermsEnum termsEnum = terms.iterator();
        termsEnum.seekExact(clause.term().bytes(), state);
        postingsOf[j] = termsEnum.postings(null, PostingsEnum.FREQS);
        postingsOf[j].nextDoc();
        any = true;
      }
      if (!any) {
        return;
      }
      Bits live = leaf.reader().getLiveDocs();
      int maxDoc = leaf.reader().maxDoc();
      for (int start = 0; start < maxDoc; start += WINDOW) {
        int end = (int) Math.min((long) start + WINDOW, maxDoc);
        boolean open = true; // whether a clause may still bring in documents no earlier clause matched
        for (int j = 0; j < clauses; j++) {
          if (postingsOf[j] == null) {
            continue;
          }
          if (bounded && open && j > 0 && (heap.size() == k || seen.cardinality() >= k)) {
            // a document no clause so far matched scores at most rest[j]; below the floor (a lower
            // bound of the final k-th score) it cannot enter, so from here on the clauses only add
            // to documents already in
            if (Math.nextUp((float) rest[j]) < floor(end - start)) {
              open = false;
            }
          }
          Clause clause = query.get(j);
          byte[] norms = norms(leaf.reader(), clause.term().field());
          NumericDocValues normValues = norms == null ? leaf.reader().getNormValues(clause.term().field()) : null;
          scoreClause(j, postingsOf[j], clause.scorer().asBulkSimScorer(), norms, normValues, start, end, live,
              open);
        }
        collect(leaf.docBase + start, end - start, rank);
      }
    }

    /**
     * A lower bound of the final k-th score: the heap's k-th when it is full, and the k-th of the
     * window's partial sums (scores only grow) when it has k, taken at the bottom of its bucket.
     */
    private float floor(int length) {
      float floor = heap.size() == k ? AnseriniTopK.scoreOf(heap.top()) : Float.NEGATIVE_INFINITY;
      if (seen.cardinality() < k) {
        return floor;
      }
      long[] words = seen.getBits();
      int wordCount = (length + 63) >>> 6;
      for (int w = 0; w < wordCount; w++) {
        long word = words[w];
        while (word != 0) {
          int doc = (w << 6) | Long.numberOfTrailingZeros(word);
          word &= word - 1;
          histogram.add((float) acc[doc]);
        }
      }
      return Math.max(floor, ScoreHistogram.lowest(histogram.kthBucket(k)));
    }

    /**
     * Adds clause {@code j}'s scores of [start, end) into the window: to every document it holds when
     * {@code open}, else only to documents already in. Read and scored a block at a time, as
     * {@code TermScorer.nextDocsAndScores} does it.
     */
    private void scoreClause(int j, PostingsEnum postingsEnum, Similarity.BulkSimScorer scorer, byte[] norms,
        NumericDocValues normValues, int start, int end, Bits live, boolean open) throws IOException {
      float low = smallest;
      float high = 0f;
      while (postingsEnum.docID() < end) {
        postingsEnum.nextPostings(end, postings);
        if (live != null) {
          postings.apply(live);
        }
        int size = postings.size;
        if (size == 0) {
          continue;
        }
        if (normBuffer.length < size) {
          normBuffer = new long[size];
          scoreBuffer = new float[size];
        }
        int[] d = postings.docs;
        for (int i = 0; i < size; i++) {
          if (norms != null) {
            normBuffer[i] = norms[d[i]];
          } else {
            normBuffer[i] = normValues != null && normValues.advanceExact(d[i]) ? normValues.longValue() : 1L;
          }
        }
        scorer.score(size, postings.features, normBuffer, scoreBuffer);
        for (int i = 0; i < size; i++) {
          int doc = d[i] - start;
          if (!open && !seen.get(doc)) {
            continue;
          }
          float score = scoreBuffer[i];
          seen.set(doc); // (read back and cleared a word at a time by collect)
          acc[doc] += score;
          if (score > 0f && score < low) {
            low = score;
          }
          if (score > high) {
            high = score;
          }
        }
      }
      smallest = low;
      largest[j] = Math.max(largest[j], high);
    }

    /**
     * Moves the window's documents into the heap: the k best of them, ties at the k-th included.
     * While the accumulators are read (and cleared, a word of the bit set at a time) the scores are
     * counted in the histogram; only the documents in and above the bucket of the k-th best (k and
     * a bucket's worth, not every match) go on to an exact quickselect of the k-th score, and only
     * those at or above it to the heap.
     */
    private void collect(int base, int length, int[] rank) {
      long[] words = seen.getBits();
      int count = 0;
      int wordCount = (length + 63) >>> 6;
      for (int w = 0; w < wordCount; w++) {
        long word = words[w];
        if (word == 0) {
          continue;
        }
        words[w] = 0;
        int need = count + Long.bitCount(word);
        if (need > docs.length) {
          int size = Math.max(need, 2 * docs.length);
          docs = Arrays.copyOf(docs, size);
          scores = Arrays.copyOf(scores, size);
          spare = new float[size];
        }
        do {
          int doc = (w << 6) | Long.numberOfTrailingZeros(word);
          word &= word - 1;
          float score = (float) acc[doc];
          acc[doc] = 0;
          docs[count] = doc;
          scores[count] = score;
          histogram.add(score);
          count++;
        } while (word != 0);
      }
      boolean full = heap.size() == k;
      float floor = full ? AnseriniTopK.scoreOf(heap.top()) : Float.NEGATIVE_INFINITY;
      int low = histogram.kthBucket(k); // the lowest bucket that can hold one of the window's k best
      int kept = 0;
      for (int j = 0; j < count; j++) {
        float score = scores[j];
        if (score >= floor && ScoreHistogram.bucket(score) >= low) {
          docs[kept] = docs[j];
          scores[kept] = score;
          kept++;
        }
      }
      if (kept > 2 * k) {
        // the k-th best of this window is at most the k-th best overall: nothing below it can enter
        // (worth finding first only when many more than k are left: else the heap sorts them out)
        System.arraycopy(scores, 0, spare, 0, kept);
        floor = Math.max(floor, ModelGridTopK.kthLargest(spare, kept, k));
      }
      for (int j = 0; j < kept; j++) {
        float score = scores[j];
        if (score >= floor) { // a tie with the k-th score can still enter: its docid may be smaller
          long code = AnseriniTopK.code(score, rank[base + docs[j]]);
          if (!full) {
            heap.push(code);
            full = heap.size() == k;
          } else if (code > heap.top()) {
            heap.updateTop(code);
          }
        }
      }
    }
  }

  /**
   * Counts of scores by bucket, for finding the k-th best without sorting: a bucket is a float's top
   * 14 bits (sign, exponent and 5 bits of mantissa) in sortable order, so higher buckets hold higher
   * scores and each spans 1/32 of a binary order of magnitude.
   */
  static final class ScoreHistogram {
    private static final int SHIFT = 18;
    private final int[] counts = new int[1 << (32 - SHIFT)];
    private int low = Integer.MAX_VALUE; // the range of buckets counted in, cleared by kthBucket
    private int high = -1;

    static int bucket(float score) {
      return (NumericUtils.floatToSortableInt(score) ^ Integer.MIN_VALUE) >>> SHIFT;
    }

    /** The smallest float of bucket {@code b}. */
    static float lowest(int b) {
      return NumericUtils.sortableIntToFloat((b << SHIFT) ^ Integer.MIN_VALUE);
    }

    void add(float score) {
      int b = bucket(score);
      counts[b]++;
      low = Math.min(low, b);
      high = Math.max(high, b);
    }

    /**
     * The bucket holding the k-th largest score counted (the lowest bucket counted in when fewer than
     * k were), then clears the counts.
     */
    int kthBucket(int k) {
      int at = Math.max(low, 0);
      int above = 0;
      for (int b = high; b >= low; b--) {
        above += counts[b];
        if (above >= k) {
          at = b;
          break;
        }
      }
      if (high >= low) {
        Arrays.fill(counts, low, high + 1, 0);
      }
      low = Integer.MAX_VALUE;
      high = -1;
      return at;
    }
  }
}
