package io.qlog.search;

import java.io.IOException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.apache.lucene.index.LeafReaderContext;
import org.apache.lucene.index.NumericDocValues;
import org.apache.lucene.index.PostingsEnum;
import org.apache.lucene.index.TermState;
import org.apache.lucene.index.TermStates;
import org.apache.lucene.index.Terms;
import org.apache.lucene.index.TermsEnum;
import org.apache.lucene.index.Term;
import org.apache.lucene.search.BooleanClause;
import org.apache.lucene.search.BooleanQuery;
import org.apache.lucene.search.BoostQuery;
import org.apache.lucene.search.CollectionStatistics;
import org.apache.lucene.search.IndexSearcher;
import org.apache.lucene.search.MatchNoDocsQuery;
import org.apache.lucene.search.Query;
import org.apache.lucene.search.TermQuery;
import org.apache.lucene.search.similarities.Similarity;
import org.apache.lucene.util.Bits;
import org.apache.lucene.util.IOSupplier;
import org.apache.lucene.util.TernaryLongHeap;

/**
 * The top k of one query under several similarities at once (a sweep's grid of q values, say), each
 * term's postings read once for all of them.
 *
 * <p>Models that differ only in how they score a (freq, norm) pair would each make Lucene read and
 * decode every posting of the query again. Here the postings are read once, a window of doc numbers
 * at a time, and every model scores them with the very {@code SimScorer} Lucene's {@code TermQuery}
 * would use (same boost, same collection and term statistics).
 * A document's score is the sum of its term scores taken in double and rounded to float, as Lucene's
 * disjunction scorers take it; its place is Anserini's (score descending, ties by docid, the key of
 * {@link AnseriniTopK}).
 *
 * <p>Lucene's scores exactly, not nearly. Lucene adds the term scores in an order of its own
 * (essential clauses first, then the rest), and float sums depend on order unless every partial sum
 * is exact. Every term score is a float, so a multiple of 2^(e - 23) where e is the exponent of the
 * smallest positive term score; every partial sum is at most the sum of each term's largest score,
 * of exponent E. When E - e &lt;= {@value #EXACT_SPAN}, every partial sum is a multiple of 2^(e - 23)
 * below 2^(E + 1), an integer of at most 53 bits times a power of two: exact in double, in any order.
 * A model for which a query's term scores are spread wider (a term in nearly every document next to a
 * very rare one, at a small q) gets null for that query, and the caller searches it with Lucene.
 * With exact scores the top k is the one of scoring every match, which Lucene's block-max pruning
 * gives too: it skips only documents that cannot enter.
 *
 * <p>Only a disjunction of term queries (Anserini's bag of words, each term optionally boosted) is
 * read this way; {@link #search} returns null for any other query.
 */
final class ModelGridTopK {

  /** Doc numbers per window: the postings buffered at once are at most this many per term. */
  static final int WINDOW = 1 << 16;

  /** The widest spread of exponents (largest possible sum over smallest term score) that keeps sums exact. */
  static final int EXACT_SPAN = 28;

  private ModelGridTopK() {}

  /** One query's term with the boost its {@code TermQuery} is scored with. */
  record Boosted(TermQuery query, float boost) {
    Term term() {
      return query.getTerm();
    }
  }

  /**
   * The top k of {@code query} under each of {@code models}, best first, as {@link AnseriniTopK}
   * codes (score and place in id order; {@link AnseriniTopK#scoreOf}, {@link AnseriniTopK#rankOf}),
   * or null when {@code query} is not a disjunction of term queries. Entry {@code m} is null when model {@code m}'s sums could depend on their order
   * for this query (see the class comment): search that one with Lucene.
   *
   * @param searcher gives the reader, the rewrite and the statistics; its similarity is not used
   * @param k the number of hits wanted, at least 1 (capped at maxDoc, as {@code IndexSearcher} caps it)
   * @param ids the id order of the searcher's reader ({@link Docids#order})
   */
  static long[][] search(IndexSearcher searcher, Query query, Similarity[] models, int k, Docids.IdOrder ids)
      throws IOException {
    List<Boosted> clauses = new ArrayList<>();
    if (!flatten(searcher.rewrite(query), 1f, clauses)) {
      return null;
    }
    int n = Math.max(1, Math.min(k, searcher.getIndexReader().maxDoc()));
    List<Boosted> terms = new ArrayList<>();
    List<TermStates> states = new ArrayList<>();
    List<Similarity.SimScorer[]> scorers = new ArrayList<>();
    for (Boosted clause : clauses) {
      // as TermQuery's weight: statistics of the whole reader; a term in no document scores nothing
      TermStates state = TermStates.build(searcher, clause.term(), true);
      if (state.docFreq() == 0) {
        continue;
      }
      CollectionStatistics collection = searcher.collectionStatistics(clause.term().field());
      var stats = searcher.termStatistics(clause.term(), state.docFreq(), state.totalTermFreq());
      Similarity.SimScorer[] byModel = new Similarity.SimScorer[models.length];
      for (int m = 0; m < models.length; m++) {
        byModel[m] = models[m].scorer(clause.boost(), collection, stats);
      }
      terms.add(clause);
      states.add(state);
      scorers.add(byModel);
    }
    Grid grid = GRIDS.get();
    grid.reset(models.length, terms.size(), n);
    for (LeafReaderContext leaf : searcher.getIndexReader().leaves()) {
      grid.scoreLeaf(leaf, terms, states, scorers, ids.rank());
    }
    long[][] out = new long[models.length][];
    for (int m = 0; m < models.length; m++) {
      out[m] = grid.exact(m) ? AnseriniTopK.bestCodes(grid.heaps[m]) : null;
    }
    return out;
  }

  /**
   * Adds {@code query}'s terms, with the boost each is scored with, to {@code out}; false unless the
   * query is a term query, a boosted one, or a pure disjunction of those (as
   * {@code BoostQuery.createWeight} does, boosts multiply down the tree).
   */
  static boolean flatten(Query query, float boost, List<Boosted> out) {
    if (query instanceof TermQuery tq) {
      out.add(new Boosted(tq, boost));
      return true;
    }
    if (query instanceof BoostQuery bq) {
      return flatten(bq.getQuery(), boost * bq.getBoost(), out);
    }
    if (query instanceof MatchNoDocsQuery) {
      return true;
    }
    if (query instanceof BooleanQuery bool && bool.getMinimumNumberShouldMatch() == 0) {
      for (BooleanClause clause : bool.clauses()) {
        if (clause.occur() != BooleanClause.Occur.SHOULD || !flatten(clause.query(), boost, out)) {
          return false;
        }
      }
      return true;
    }
    return false;
  }

  /**
   * The {@code k}-th largest of {@code a[0, n)} (1 &lt;= k &lt;= n; no NaN), by quickselect; reorders
   * {@code a}.
   */
  static float kthLargest(float[] a, int n, int k) {
    int lo = 0;
    int hi = n - 1;
    int target = k - 1; // its place in descending order
    while (lo < hi) {
      // median of three as the pivot, then Hoare's partition into >= pivot and <= pivot
      int mid = (lo + hi) >>> 1;
      float x = a[lo];
      float y = a[mid];
      float z = a[hi];
      float pivot = Math.max(Math.min(x, y), Math.min(Math.max(x, y), z));
      int i = lo;
      int j = hi;
      while (i <= j) {
        while (a[i] > pivot) {
          i++;
        }
        while (a[j] < pivot) {
          j--;
        }
        if (i <= j) {
          float swap = a[i];
          a[i] = a[j];
          a[j] = swap;
          i++;
          j--;
        }
      }
      if (target <= j) {
        hi = j;
      } else if (target >= i) {
        lo = i;
      } else {
        return a[target]; // between the two parts: equal to the pivot
      }
    }
    return a[target];
  }

  /** Each search thread's grid, its window buffers made once and reused query after query. */
  private static final ThreadLocal<Grid> GRIDS = ThreadLocal.withInitial(Grid::new);

  /**
   * One query's scoring state (the models' heaps and the bounds of the exactness check, set by
   * {@link #reset}) and a thread's window buffers.
   */
  private static final class Grid {
    TernaryLongHeap[] heaps;
    int k;
    double[][] largest; // [model][term]: the largest score the term gave
    float[] smallest; // [model]: the smallest positive term score
    final double[] acc = new double[WINDOW];
    final int[] touched = new int[WINDOW];
    final boolean[] seen = new boolean[WINDOW];
    final int[] candidates = new int[WINDOW]; // the window's documents (places in touched) the last model kept
    int previous; // how many
    float[] scores = new float[16];
    float[] spare = new float[16];

    int[][] docs = new int[0][];
    float[][] freqs = new float[0][];
    long[][] norms = new long[0][];

    /** Starts a query of {@code terms} terms under {@code models} models, top {@code k}. */
    void reset(int models, int terms, int k) {
      if (heaps == null || heaps.length != models || this.k != k) {
        heaps = new TernaryLongHeap[models];
        for (int m = 0; m < models; m++) {
          heaps[m] = new TernaryLongHeap(k); // empty: filled by push, then by replacing the top
        }
      } else {
        for (TernaryLongHeap heap : heaps) {
          heap.clear(); // a thread's next query of the same grid reuses them
        }
      }
      this.k = k;
      largest = new double[models][terms];
      smallest = new float[models];
      Arrays.fill(smallest, Float.POSITIVE_INFINITY);
      if (docs.length < terms) {
        int had = docs.length;
        docs = Arrays.copyOf(docs, terms);
        freqs = Arrays.copyOf(freqs, terms);
        norms = Arrays.copyOf(norms, terms);
        for (int i = had; i < terms; i++) {
          docs[i] = new int[64];
          freqs[i] = new float[64];
          norms[i] = new long[64];
        }
      }
    }

    boolean exact(int m) {
      if (smallest[m] == Float.POSITIVE_INFINITY) {
        return true; // every term score 0: nothing to add
      }
      double bound = 0;
      for (double x : largest[m]) {
        bound += x;
      }
      return Math.getExponent(bound) - Math.getExponent(smallest[m]) <= EXACT_SPAN;
    }

    void scoreLeaf(LeafReaderContext leaf, List<Boosted> terms, List<TermStates> states,
        List<Similarity.SimScorer[]> scorers, int[] rank) throws IOException {
      int t = terms.size();
      PostingsEnum[] postings = new PostingsEnum[t];
      NumericDocValues[] normValues = new NumericDocValues[t];
      boolean any = false;
      for (int i = 0; i < t; i++) {
        IOSupplier<TermState> supplier = states.get(i).get(leaf);
        TermState state = supplier == null ? null : supplier.get();
        if (state == null) {
          continue; // the term is not in this segment
        }
        String field = terms.get(i).term().field();
        Terms fieldTerms = leaf.reader().terms(field);
        TermsEnum termsEnum = fieldTerms.iterator();
        termsEnum.seekExact(terms.get(i).term().bytes(), state);
        postings[i] = termsEnum.postings(null, PostingsEnum.FREQS);
        postings[i].nextDoc();
        normValues[i] = leaf.reader().getNormValues(field);
        any = true;
      }
      if (!any) {
        return;
      }
      Bits live = leaf.reader().getLiveDocs();
      int maxDoc = leaf.reader().maxDoc();
      int[] counts = new int[t];
      for (int start = 0; start < maxDoc; start += WINDOW) {
        int end = (int) Math.min((long) start + WINDOW, maxDoc);
        int distinct = 0;
        for (int i = 0; i < t; i++) {
          counts[i] = postings[i] == null ? 0 : fill(i, postings[i], normValues[i], live, start, end);
          for (int j = 0; j < counts[i]; j++) {
            int d = docs[i][j];
            if (!seen[d]) {
              seen[d] = true;
              touched[distinct++] = d;
            }
          }
        }
        if (distinct == 0) {
          continue;
        }
        // (in no particular order: the top k by (score, docid) does not depend on the order documents come in)
        for (int m = 0; m < heaps.length; m++) {
          scoreWindow(m, counts, scorers, leaf.docBase + start, distinct, rank);
        }
        for (int j = 0; j < distinct; j++) {
          seen[touched[j]] = false;
        }
      }
    }

    /** Buffers the term's postings in [start, end) (live documents only); returns how many. */
    private int fill(int i, PostingsEnum postings, NumericDocValues normValues, Bits live, int start, int end)
        throws IOException {
      int c = 0;
      // a postings list ends at NO_MORE_DOCS (Integer.MAX_VALUE), past every window's end
      for (int doc = postings.docID(); doc < end; doc = postings.nextDoc()) {
        if (live != null && !live.get(doc)) {
          continue;
        }
        if (c == docs[i].length) {
          docs[i] = Arrays.copyOf(docs[i], 2 * c);
          freqs[i] = Arrays.copyOf(freqs[i], 2 * c);
          norms[i] = Arrays.copyOf(norms[i], 2 * c);
        }
        docs[i][c] = doc - start;
        freqs[i][c] = postings.freq();
        // as TermScorer reads it: a document without a norm counts as norm 1
        norms[i][c] = normValues != null && normValues.advanceExact(doc) ? normValues.longValue() : 1L;
        c++;
      }
      return c;
    }

    private void scoreWindow(int m, int[] counts, List<Similarity.SimScorer[]> scorers, int base, int distinct,
        int[] rank) throws IOException {
      for (int i = 0; i < counts.length; i++) {
        int c = counts[i];
        if (c == 0) {
          continue;
        }
        // score(freq, norm) one by one: the bulk form computes the same, but allocates a buffer per scorer
        Similarity.SimScorer scorer = scorers.get(i)[m];
        int[] d = docs[i];
        float[] f = freqs[i];
        long[] nv = norms[i];
        float low = smallest[m];
        float high = 0f;
        for (int j = 0; j < c; j++) {
          float x = scorer.score(f[j], nv[j]);
          acc[d[j]] += x;
          if (x > 0f && x < low) {
            low = x;
          }
          if (x > high) {
            high = x;
          }
        }
        smallest[m] = low;
        largest[m][i] = Math.max(largest[m][i], high);
      }
      TernaryLongHeap heap = heaps[m];
      boolean full = heap.size() == k;
      float floor = full ? AnseriniTopK.scoreOf(heap.top()) : Float.NEGATIVE_INFINITY;
      if (scores.length < distinct) {
        scores = new float[Math.max(distinct, 2 * scores.length)];
        spare = new float[scores.length];
      }
      for (int j = 0; j < distinct; j++) {
        int d = touched[j];
        scores[j] = (float) acc[d];
        acc[d] = 0;
      }
      if (distinct > k) {
        // The k-th best score of any k documents of this window is at most the k-th best overall: a
        // document below it cannot enter. Taken first, it leaves about k documents for the heap
        // instead of all. The previous model's candidates are nearly this model's best (a grid's
        // neighbours rank alike), so the k-th best of them is selected among a few k, not all.
        boolean seeded = m > 0 && previous >= k;
        int from = seeded ? previous : distinct;
        for (int j = 0; j < from; j++) {
          spare[j] = scores[seeded ? candidates[j] : j];
        }
        floor = Math.max(floor, kthLargest(spare, from, k));
      }
      int kept = 0;
      for (int j = 0; j < distinct; j++) {
        float score = scores[j];
        if (score >= floor) { // a tie with the k-th score can still enter: its docid may be smaller
          candidates[kept++] = j;
          long code = AnseriniTopK.code(score, rank[base + touched[j]]);
          if (!full) {
            heap.push(code);
            full = heap.size() == k;
          } else if (code > heap.top()) {
            heap.updateTop(code);
          }
        }
      }
      previous = kept;
    }
  }
}
