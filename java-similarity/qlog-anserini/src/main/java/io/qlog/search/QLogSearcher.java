package io.qlog.search;

import io.anserini.index.Constants;
import io.anserini.search.ScoredDoc;
import io.anserini.search.SimpleSearcher;
import io.qlog.similarities.ExhaustiveScoring;
import io.qlog.similarities.QLogBM25Similarity;
import java.io.IOException;
import java.lang.reflect.Field;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.apache.lucene.analysis.Analyzer;
import io.anserini.search.query.QueryGenerator;
import org.apache.lucene.index.IndexReader;
import org.apache.lucene.search.ScoreDoc;
import org.apache.lucene.index.Term;
import org.apache.lucene.search.IndexSearcher;
import org.apache.lucene.search.Query;
import org.apache.lucene.search.TermQuery;
import org.apache.lucene.search.FieldDoc;
import org.apache.lucene.search.Sort;
import org.apache.lucene.search.TopDocs;
import org.apache.lucene.search.TopFieldCollector;
import org.apache.lucene.search.TopFieldCollectorManager;
import org.apache.lucene.search.TopFieldDocs;
import org.apache.lucene.util.BytesRef;
import org.apache.lucene.search.similarities.Similarity;

/**
 * Anserini's {@link SimpleSearcher} (its query parsing, analyzer and score-then-docid tie-breaking)
 * with a similarity that can be swapped at any time without reopening the index: the open
 * {@code IndexReader} is kept and only a new {@code IndexSearcher} view is made over it.
 *
 * <p>Python searches through the static entry points ({@link #search_batch} and its kin): each takes the
 * searcher and an immutable {@link Similarity} as arguments and returns a {@link BatchHits} of
 * primitive arrays, so no Java state is shared between calls. pyjnius keeps the Java instance of an
 * instance-method call on the class's shared method object, so two instances of one class used
 * from two Python threads can cross; static calls have no instance to cross. The model is never set
 * on a shared object either: each call searches through an {@code IndexSearcher} of its own over
 * the open reader, with the model given.
 *
 * <p>The older instance methods {@link #search_tsv} and {@link #batch_search_tsv} return one
 * tab-separated string, {@code qid TAB docid TAB score TAB luceneDocid} a line,
 * because crossing the JNI bridge once per hit is what makes large runs slow from Python. They are
 * made as Anserini makes them (the same Lucene search with the same {@code Sort}, then scores rounded
 * to 4 decimals and tied scores separated by 1e-6 steps, as its {@code ScoreTiesAdjusterReranker}
 * does) but without loading every hit's stored document: the docid is read from the sort values.
 */
public class QLogSearcher extends SimpleSearcher {

  /** The clause limit this searcher sets (Lucene's default is 1,024). */
  public static final int MAX_CLAUSES = 1 << 20;

  static {
    // Lucene refuses a query of more than 1,024 clauses (IndexSearcher.TooManyClauses), which a long
    // natural-language or code query reaches; that would fail the whole batch it is in. Every
    // distinct query term is one clause, so the limit is raised to what any real query needs.
    IndexSearcher.setMaxClauseCount(Math.max(IndexSearcher.getMaxClauseCount(), MAX_CLAUSES));
  }

  public QLogSearcher(String indexDir) throws IOException {
    super(indexDir);
  }

  public QLogSearcher(String indexDir, Analyzer analyzer) throws IOException {
    super(indexDir, analyzer);
  }

  /** Installs any similarity; the index stays open. A search already running keeps the model it started with. */
  public synchronized void set_similarity(Similarity sim) {
    if (sim == null) {
      throw new IllegalArgumentException("similarity must not be null");
    }
    this.similarity = sim;
    this.searcher = new IndexSearcher(reader);
    this.searcher.setSimilarity(sim);
  }

  /** Installs {@link QLogBM25Similarity}(k1, b, q, form). */
  public void set_qlog(float k1, float b, double q, String form) {
    set_similarity(new QLogBM25Similarity(k1, b, q, form));
  }

  /** The Lucene query Anserini builds for this text (bag of words over the analyzed contents). */
  public Query parse(String query) {
    return generator.buildQuery(Constants.CONTENTS, analyzer, query);
  }

  /** Lucene's explanation of the score of document {@code docid} for {@code query}, or null if no such docid. */
  public String explain(String query, String docid) throws IOException {
    IndexSearcher s = currentSearcher();
    TopDocs byId = s.search(new TermQuery(new Term(Constants.ID, docid)), 1);
    if (byId.scoreDocs.length == 0) {
      return null;
    }
    return s.explain(parse(query), byId.scoreDocs[0].doc).toString();
  }

  /** Top-k hits of one query as {@code docid TAB score TAB luceneDocid} lines, in Anserini's order. */
  public String search_tsv(String query, int k) throws IOException {
    StringBuilder out = new StringBuilder();
    appendHits(currentSearcher(), out, null, query, k);
    return out.toString();
  }

  /**
   * Top-k hits of a query built by the caller (a rewritten query, say) as {@code search_tsv} lines: the same
   * sorted search, rounding and tie steps, under the installed similarity.
   */
  public String search_query_tsv(Query query, int k) throws IOException {
    StringBuilder out = new StringBuilder();
    appendTop(currentSearcher(), out, null, query, k);
    return out.toString();
  }

  /** The number of documents with {@code field} (Lucene's docCount, the N of BM25's idf); 0 if none. */
  public int doc_count(String field) throws IOException {
    return Math.max(0, reader.getDocCount(field));
  }

  /** The number of documents holding {@code term} in {@code field} (the n of BM25's idf; deleted ones count). */
  public int doc_freq(String field, String term) throws IOException {
    return reader.docFreq(new Term(field, term));
  }

  /**
   * Top-k hits of many queries on {@code threads} threads as {@code qid TAB docid TAB score TAB luceneDocid} lines.
   *
   * <p>The whole batch runs under the similarity installed when it starts: the searcher is taken
   * once, so a {@link #set_similarity} from another thread during the batch applies to the next call.
   */
  public String batch_search_tsv(List<String> queries, List<String> qids, int k, int threads)
      throws IOException, InterruptedException, ExecutionException {
    if (queries.size() != qids.size()) {
      throw new IllegalArgumentException(queries.size() + " queries but " + qids.size() + " qids");
    }
    String[] parts = new String[qids.size()];
    final IndexSearcher snapshot = currentSearcher();
    ExecutorService pool = Executors.newFixedThreadPool(Math.max(1, threads));
    try {
      List<Future<?>> done = new ArrayList<>();
      for (int i = 0; i < parts.length; i++) {
        final int at = i;
        done.add(pool.submit(() -> {
          StringBuilder out = new StringBuilder();
          appendHits(snapshot, out, qids.get(at), queries.get(at), k);
          parts[at] = out.toString();
          return null;
        }));
      }
      for (Future<?> f : done) {
        f.get();
      }
    } finally {
      pool.shutdown();
    }
    return String.join("", parts);
  }

  private void appendHits(IndexSearcher searcher, StringBuilder out, String qid, String query, int k)
      throws IOException {
    if (useRM3 || useRocchio) { // feedback goes through Anserini's reranker cascade: take its path
      for (ScoredDoc hit : search(query, k)) {
        appendLine(out, qid, hit.docid, hit.score, hit.lucene_docid);
      }
      return;
    }
    appendTop(searcher, out, qid, parse(query), k);
  }

  private static void appendTop(IndexSearcher searcher, StringBuilder out, String qid, Query query, int k)
      throws IOException {
    TopFieldDocs top = searchSorted(searcher, query, k);
    float[] scores = new float[top.scoreDocs.length];
    for (int i = 0; i < scores.length; i++) {
      scores[i] = top.scoreDocs[i].score;
    }
    anseriniTies(scores); // as Anserini's runs have them (no strictly-decreasing step: the test oracle of today's runs)
    for (int i = 0; i < scores.length; i++) {
      FieldDoc hit = (FieldDoc) top.scoreDocs[i];
      appendLine(out, qid, ((BytesRef) hit.fields[1]).utf8ToString(), scores[i], hit.doc);
    }
  }

  /**
   * {@code searcher.search(query, k, tieBreakingSort(), true)}, Anserini's search, except under an
   * {@link ExhaustiveScoring} similarity (DPH), whose scores are not monotone in tf: there every match
   * is scored, since Lucene's block-max pruning would skip documents that belong in the top k.
   */
  private static TopFieldDocs searchSorted(IndexSearcher searcher, Query query, int k) throws IOException {
    if (!(searcher.getSimilarity() instanceof ExhaustiveScoring)) {
      return searcher.search(query, k, tieBreakingSort(), true);
    }
    int hits = Math.max(1, Math.min(k, searcher.getIndexReader().maxDoc())); // as IndexSearcher caps it
    int threshold = ExhaustiveScoring.totalHitsThreshold(searcher.getSimilarity(), hits);
    Sort sort = tieBreakingSort().rewrite(searcher);
    TopFieldDocs top = searcher.search(query, new TopFieldCollectorManager(sort, hits, null, threshold));
    TopFieldCollector.populateScores(top.scoreDocs, searcher, query);
    return top;
  }

  private static void appendLine(StringBuilder out, String qid, String docid, float score, int luceneDocid) {
    if (qid != null) {
      out.append(qid).append('\t');
    }
    // Float.toString is the shortest text that reads back to the same float. The Lucene docid comes
    // last, as Pyserini's hits carry it.
    out.append(docid).append('\t').append(Float.toString(score)).append('\t').append(luceneDocid).append('\n');
  }

  /** Anserini's own (private) score-then-docid Sort, read once so the two can never differ. */
  private static Sort tieBreakingSort() {
    Sort sort = TIE_BREAKING_SORT;
    if (sort == null) {
      try {
        Field f = SimpleSearcher.class.getDeclaredField("BREAK_SCORE_TIES_BY_DOCID");
        f.setAccessible(true);
        sort = TIE_BREAKING_SORT = (Sort) f.get(null);
      } catch (ReflectiveOperationException e) {
        throw new IllegalStateException("Anserini's SimpleSearcher has no BREAK_SCORE_TIES_BY_DOCID", e);
      }
    }
    return sort;
  }

  private static volatile Sort TIE_BREAKING_SORT;


  // ------------------------------------------------------------------ static entry points for Python

  /**
   * Top-k hits of {@code queries} under {@code model}, searched on {@code threads} threads, in
   * Anserini's order (see {@link #search_batch_models}).
   */
  public static BatchHits search_batch(SimpleSearcher searcher, Similarity model, String[] queries, int k,
      int threads) throws IOException, InterruptedException, ExecutionException {
    return search_batch_models(searcher, new Similarity[] {model}, new int[queries.length], queries, k, threads);
  }

  /**
   * Top-k hits with q-log BM25 at a q of its own per query ({@code qs[i]} for {@code queries[i]}), the
   * other parameters shared: one immutable {@link QLogBM25Similarity} and one {@code IndexSearcher} per
   * distinct q over the one open reader.
   */
  public static BatchHits search_batch_q(SimpleSearcher searcher, float k1, float b, String form, double[] qs,
      String[] queries, int k, int threads) throws IOException, InterruptedException, ExecutionException {
    if (qs == null || queries == null || qs.length != queries.length) {
      throw new IllegalArgumentException((qs == null ? 0 : qs.length) + " q values for "
          + (queries == null ? 0 : queries.length) + " queries");
    }
    Map<Double, Integer> index = new HashMap<>();
    List<Similarity> models = new ArrayList<>();
    int[] modelOf = new int[qs.length];
    for (int i = 0; i < qs.length; i++) {
      final int next = models.size();
      Integer at = index.computeIfAbsent(qs[i], q -> next);
      if (at == next) {
        models.add(new QLogBM25Similarity(k1, b, qs[i], form));
      }
      modelOf[i] = at;
    }
    return search_batch_models(searcher, models.toArray(new Similarity[0]), modelOf, queries, k, threads);
  }

  /**
   * Top-k hits of each query under the model {@code models[modelOf[i]]}, on {@code threads} threads.
   *
   * <p>The order is Anserini's (score descending, ties by docid ascending; scores rounded to 4
   * decimals and ties pushed apart by 1e-6 steps, as its {@code ScoreTiesAdjusterReranker} does) at
   * the cost of a plain top-k: one pruned pass keeps the top k by (score, docid) itself, comparing
   * docids only between equal scores ({@link AnseriniTopK}), so a tie split by the cut-off needs no
   * second search. Then each
   * score is made strictly smaller, as a float, than the one above it (the next float down where
   * Anserini's 1e-6 step is lost in float rounding, above a score of 16), so every consumer that
   * re-sorts by score keeps this order. With RM3 or Rocchio set on {@code searcher}, each query goes
   * through Anserini's own reranker cascade under that searcher's lock, with the model installed.
   */
  public static BatchHits search_batch_models(SimpleSearcher searcher, Similarity[] models, int[] modelOf,
      String[] queries, int k, int threads) throws IOException, InterruptedException, ExecutionException {
    if (searcher == null || models == null || modelOf == null || queries == null) {
      throw new IllegalArgumentException("searcher, models, model numbers and queries must not be null");
    }
    if (modelOf.length != queries.length) {
      throw new IllegalArgumentException(modelOf.length + " model numbers for " + queries.length + " queries");
    }
    if (k < 1) {
      throw new IllegalArgumentException("illegal k value: " + k + ", must be at least 1");
    }
    for (int m : modelOf) {
      if (m < 0 || m >= models.length || models[m] == null) {
        throw new IllegalArgumentException("no model number " + m + " among " + models.length);
      }
    }
    IndexReader reader = get(READER, searcher);
    IndexSearcher[] views = views(reader, models);
    int[][] docs = new int[queries.length][];
    float[][] scores = new float[queries.length][];
    if (feedback(searcher)) {
      synchronized (searcher) { // the reranker cascade reads the searcher's own similarity
        for (int i = 0; i < queries.length; i++) {
          install(searcher, models[modelOf[i]]);
          ScoredDoc[] hits = searcher.search(queries[i], k); // ties already adjusted by Anserini
          ScoreDoc[] top = new ScoreDoc[hits.length];
          for (int j = 0; j < hits.length; j++) {
            top[j] = new ScoreDoc(hits[j].lucene_docid, hits[j].score);
          }
          keep(top, i, docs, scores);
          strictlyDecreasing(scores[i]);
        }
      }
    } else {
      Docids.IdOrder ids = Docids.order(reader);
      Analyzer analyzer = get(ANALYZER, searcher);
      QueryGenerator generator = get(GENERATOR, searcher);
      List<Callable<Void>> tasks = new ArrayList<>(queries.length);
      for (int i = 0; i < queries.length; i++) {
        final int at = i;
        tasks.add(() -> {
          Query query = generator.buildQuery(Constants.CONTENTS, analyzer, queries[at]);
          keep(anseriniTopK(views[modelOf[at]], query, k, ids), at, docs, scores);
          adjustTies(scores[at]);
          return null;
        });
      }
      run(tasks, threads);
    }
    return BatchHits.of(docs, scores);
  }

  /**
   * One {@code IndexSearcher} per model over the open reader. The query cache is off: it only ever
   * caches non-scoring clauses, and these queries score every clause; left on, it would still record
   * every query's use under a lock the search threads share.
   */
  private static IndexSearcher[] views(IndexReader reader, Similarity[] models) {
    IndexSearcher[] views = new IndexSearcher[models.length];
    for (int m = 0; m < models.length; m++) {
      views[m] = new IndexSearcher(reader);
      views[m].setSimilarity(models[m]);
      views[m].setQueryCache(null);
    }
    return views;
  }

  /** Whether RM3 or Rocchio is set on {@code searcher}: its searches then go through Anserini's reranker cascade. */
  private static boolean feedback(SimpleSearcher searcher) {
    return (boolean) get(USE_RM3, searcher) || (boolean) get(USE_ROCCHIO, searcher);
  }

  /**
   * Top-k hits of every query under every model, one {@link BatchHits} per model (in {@code models}
   * order), each exactly what {@link #search_batch} gives for that model.
   *
   * <p>A sweep's grid in one pass: each query's postings are read once and scored by every model
   * ({@link ModelGridTopK}); a query or model that way cannot take (not a bag of words, or sums
   * whose order could matter) is searched by Lucene as {@link #search_batch} searches it. With RM3
   * or Rocchio set on {@code searcher}, every model is one {@link #search_batch_models} pass.
   */
  public static BatchHits[] search_batch_grid(SimpleSearcher searcher, Similarity[] models, String[] queries, int k,
      int threads) throws IOException, InterruptedException, ExecutionException {
    if (searcher == null || models == null || queries == null || models.length == 0) {
      throw new IllegalArgumentException("searcher, models (at least one) and queries must not be null");
    }
    for (Similarity model : models) {
      if (model == null) {
        throw new IllegalArgumentException("models must not hold null");
      }
    }
    if (k < 1) {
      throw new IllegalArgumentException("illegal k value: " + k + ", must be at least 1");
    }
    BatchHits[] out = new BatchHits[models.length];
    if (feedback(searcher)) {
      for (int m = 0; m < models.length; m++) {
        out[m] = search_batch_models(searcher, new Similarity[] {models[m]}, new int[queries.length], queries, k,
            threads);
      }
      return out;
    }
    IndexReader reader = get(READER, searcher);
    IndexSearcher[] views = views(reader, models);
    Docids.IdOrder ids = Docids.order(reader);
    Analyzer analyzer = get(ANALYZER, searcher);
    QueryGenerator generator = get(GENERATOR, searcher);
    int[][][] docs = new int[models.length][queries.length][];
    float[][][] scores = new float[models.length][queries.length][];
    List<Callable<Void>> tasks = new ArrayList<>(queries.length);
    for (int i = 0; i < queries.length; i++) {
      final int at = i;
      tasks.add(() -> {
        Query query = generator.buildQuery(Constants.CONTENTS, analyzer, queries[at]);
        long[][] grid = ModelGridTopK.search(views[0], query, models, k, ids);
        for (int m = 0; m < models.length; m++) {
          if (grid != null && grid[m] != null) {
            keep(grid[m], ids, at, docs[m], scores[m]);
          } else {
            keep(anseriniTopK(views[m], query, k, ids), at, docs[m], scores[m]);
          }
          adjustTies(scores[m][at]);
        }
        return null;
      });
    }
    run(tasks, threads);
    for (int m = 0; m < models.length; m++) {
      out[m] = BatchHits.of(docs[m], scores[m]);
    }
    return out;
  }

  /** {@link AnseriniTopK} codes (best first) as query {@code at}'s doc numbers and scores. */
  private static void keep(long[] codes, Docids.IdOrder ids, int at, int[][] docs, float[][] scores) {
    docs[at] = new int[codes.length];
    scores[at] = new float[codes.length];
    for (int j = 0; j < codes.length; j++) {
      docs[at][j] = ids.doc()[AnseriniTopK.rankOf(codes[j])];
      scores[at][j] = AnseriniTopK.scoreOf(codes[j]);
    }
  }

  private static void keep(ScoreDoc[] top, int at, int[][] docs, float[][] scores) {
    docs[at] = new int[top.length];
    scores[at] = new float[top.length];
    for (int j = 0; j < top.length; j++) {
      docs[at][j] = top[j].doc;
      scores[at][j] = top[j].score;
    }
  }

  /**
   * The top k of {@code query} in (score descending, docid ascending) order, scores as Lucene gives
   * them, by the route the search verb takes: term at a time ({@link #termAtATimeTopK}) where k is at
   * least {@link TermAtATimeTopK#MIN_K} and the query's terms hold at most
   * {@link TermAtATimeTopK#POSTINGS_PER_HIT} postings per hit wanted, else in one pruned pass of
   * Lucene's ({@link #luceneTopK}). Every route gives the same documents in the same order with the
   * same float scores; they are public so that the benchmark can time each on its own.
   */
  public static ScoreDoc[] anseriniTopK(IndexSearcher searcher, Query query, int k, Docids.IdOrder ids) throws IOException {
    int n = Math.max(1, Math.min(k, searcher.getIndexReader().maxDoc())); // as IndexSearcher caps it
    if (n >= TermAtATimeTopK.MIN_K) {
      return termAtATimeTopK(searcher, query, n, ids, TermAtATimeTopK.POSTINGS_PER_HIT * n);
    }
    return luceneTopK(searcher, query, n, ids);
  }

  /**
   * {@link #anseriniTopK}'s order and scores, scored term at a time ({@link TermAtATimeTopK}) at any k
   * when the query is a disjunction of term queries whose terms hold at most {@code maxPostings}
   * postings ({@code Long.MAX_VALUE}: any number), else by {@link #luceneTopK}.
   */
  public static ScoreDoc[] termAtATimeTopK(IndexSearcher searcher, Query query, int k, Docids.IdOrder ids,
      long maxPostings) throws IOException {
    int n = Math.max(1, Math.min(k, searcher.getIndexReader().maxDoc())); // as IndexSearcher caps it
    long[] codes = TermAtATimeTopK.search(searcher, query, n, ids, maxPostings);
    if (codes == null) {
      return luceneTopK(searcher, query, n, ids);
    }
    ScoreDoc[] top = new ScoreDoc[codes.length];
    for (int i = 0; i < codes.length; i++) {
      top[i] = new ScoreDoc(ids.doc()[AnseriniTopK.rankOf(codes[i])], AnseriniTopK.scoreOf(codes[i]));
    }
    return top;
  }

  /**
   * {@link #anseriniTopK}'s order and scores in one pruned pass of Lucene's ({@link AnseriniTopK}), at any k.
   */
  public static ScoreDoc[] luceneTopK(IndexSearcher searcher, Query query, int k, Docids.IdOrder ids) throws IOException {
    int n = Math.max(1, Math.min(k, searcher.getIndexReader().maxDoc())); // as IndexSearcher caps it
    boolean prune = !(searcher.getSimilarity() instanceof ExhaustiveScoring);
    return searcher.search(query, new AnseriniTopK(n, ids, prune)).scoreDocs;
  }

  /**
   * Anserini's tie steps ({@link #anseriniTies}), then each score strictly below the one above as a
   * float, which the 1e-6 step alone is not where floats are more than 1e-6 apart.
   */
  static void adjustTies(float[] scores) {
    anseriniTies(scores);
    strictlyDecreasing(scores);
  }

  /**
   * Anserini's {@code ScoreTiesAdjusterReranker} step for step: round to 4 decimals, then push each
   * score that ties (within 1e-4) with the one above it down by 1e-6 per tie.
   */
  static void anseriniTies(float[] scores) {
    float anserini = 0f;
    int tied = 0;
    for (int i = 0; i < scores.length; i++) {
      float score = (float) (Math.round(scores[i] * 10000d) / 10000d);
      if (i == 0 || anserini - score > 1e-4f) {
        tied = 0;
      } else {
        tied++;
        score -= 1e-6f * tied;
      }
      anserini = score;
      scores[i] = score;
    }
  }

  /** Each score strictly below the one above it, as a float: a score not below becomes the next float down. */
  static void strictlyDecreasing(float[] scores) {
    for (int i = 1; i < scores.length; i++) {
      if (!(scores[i] < scores[i - 1])) {
        scores[i] = Math.nextDown(scores[i - 1]);
      }
    }
  }

  /** The open reader of {@code searcher}. */
  public static IndexReader reader_of(SimpleSearcher searcher) {
    return get(READER, searcher);
  }

  /** The docid table of {@code searcher}'s reader (see {@link Docids#packed}). */
  public static byte[] docid_table(SimpleSearcher searcher) throws IOException {
    return Docids.packed(get(READER, searcher));
  }

  /** Number of documents of {@code searcher}'s reader. */
  public static int num_docs_of(SimpleSearcher searcher) {
    return ((IndexReader) get(READER, searcher)).numDocs();
  }

  /** The similarity installed in {@code searcher} (what Anserini's own calls, explain and feedback use). */
  public static Similarity similarity_of(SimpleSearcher searcher) {
    synchronized (searcher) {
      return get(SIMILARITY, searcher);
    }
  }

  /**
   * Installs {@code model} into {@code searcher} (any Anserini {@code SimpleSearcher}): a fresh
   * {@code IndexSearcher} over the same open reader, as {@code set_bm25} does. Under the searcher's
   * lock, so concurrent installs are serialized and the last one wins whole.
   */
  public static void install(SimpleSearcher searcher, Similarity model) {
    if (searcher == null || model == null) {
      throw new IllegalArgumentException("searcher and similarity must not be null");
    }
    synchronized (searcher) {
      if (get(SIMILARITY, searcher) == model) {
        return;
      }
      IndexSearcher fresh = new IndexSearcher((IndexReader) get(READER, searcher));
      fresh.setSimilarity(model);
      set(SIMILARITY, searcher, model);
      set(SEARCHER, searcher, fresh);
    }
  }

  /** A q-log BM25 model, its parameters checked once (QLogBM25Parameters), for the calls above. */
  public static Similarity qlog_model(float k1, float b, double q, String form) {
    return new QLogBM25Similarity(k1, b, q, form);
  }

  private static final Field READER = simpleSearcherField("reader");
  private static final Field SIMILARITY = simpleSearcherField("similarity");
  private static final Field SEARCHER = simpleSearcherField("searcher");
  private static final Field ANALYZER = simpleSearcherField("analyzer");
  private static final Field GENERATOR = simpleSearcherField("generator");
  private static final Field USE_RM3 = simpleSearcherField("useRM3");
  private static final Field USE_ROCCHIO = simpleSearcherField("useRocchio");
  private static final Map<Integer, ExecutorService> POOLS = new HashMap<>();

  private static Field simpleSearcherField(String name) {
    try {
      Field f = SimpleSearcher.class.getDeclaredField(name);
      f.setAccessible(true);
      return f;
    } catch (NoSuchFieldException e) {
      throw new IllegalStateException("Anserini's SimpleSearcher has no field " + name, e);
    }
  }

  @SuppressWarnings("unchecked")
  private static <T> T get(Field field, SimpleSearcher searcher) {
    try {
      return (T) field.get(searcher);
    } catch (IllegalAccessException e) {
      throw new IllegalStateException("cannot read SimpleSearcher." + field.getName(), e);
    }
  }

  private static void set(Field field, SimpleSearcher searcher, Object value) {
    try {
      field.set(searcher, value);
    } catch (IllegalAccessException e) {
      throw new IllegalStateException("cannot set SimpleSearcher." + field.getName(), e);
    }
  }

  /** Runs {@code tasks} on a shared pool of {@code threads} daemon threads (made once per size). */
  private static void run(List<Callable<Void>> tasks, int threads)
      throws InterruptedException, ExecutionException {
    if (threads <= 1 || tasks.size() <= 1) {
      for (Callable<Void> task : tasks) {
        try {
          task.call();
        } catch (Exception e) {
          throw new ExecutionException(e);
        }
      }
      return;
    }
    ExecutorService pool;
    synchronized (POOLS) {
      pool = POOLS.computeIfAbsent(threads, n -> Executors.newFixedThreadPool(n, r -> {
        Thread t = new Thread(r, "qlog-search");
        t.setDaemon(true); // never keeps the JVM (and so Python) from exiting
        return t;
      }));
    }
    for (Future<Void> f : pool.invokeAll(tasks)) {
      f.get();
    }
  }

  private synchronized IndexSearcher currentSearcher() {
    if (searcher == null) {
      searcher = new IndexSearcher(reader);
      searcher.setSimilarity(similarity);
    }
    return searcher;
  }
}
