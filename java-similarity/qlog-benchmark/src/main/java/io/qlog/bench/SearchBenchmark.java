package io.qlog.bench;

import io.anserini.index.Constants;
import io.anserini.index.IndexCollection;
import io.anserini.search.query.BagOfWordsQueryGenerator;
import java.io.Closeable;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Locale;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Future;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.LongAdder;
import io.qlog.search.AnseriniTopK;
import io.qlog.search.Docids;
import io.qlog.search.EveryMatch;
import io.qlog.search.TopKRouter;
import io.qlog.similarities.ExhaustiveScoring;
import org.apache.lucene.analysis.Analyzer;
import org.apache.lucene.index.DirectoryReader;
import org.apache.lucene.index.IndexReader;
import org.apache.lucene.index.LeafReaderContext;
import org.apache.lucene.search.BooleanQuery;
import org.apache.lucene.search.Collector;
import org.apache.lucene.search.CollectorManager;
import org.apache.lucene.search.DocIdSetIterator;
import org.apache.lucene.search.IndexSearcher;
import org.apache.lucene.search.LeafCollector;
import org.apache.lucene.search.Query;
import org.apache.lucene.search.Scorable;
import org.apache.lucene.search.ScoreDoc;
import org.apache.lucene.search.ScoreMode;
import org.apache.lucene.search.Sort;
import org.apache.lucene.search.SortField;
import org.apache.lucene.search.TopDocs;
import org.apache.lucene.search.TopFieldCollectorManager;
import org.apache.lucene.search.TopScoreDocCollectorManager;
import org.apache.lucene.search.TotalHits;
import org.apache.lucene.search.Weight;
import org.apache.lucene.search.similarities.Similarity;
import org.apache.lucene.store.FSDirectory;

/**
 * Query-time cost of a {@link Similarity} on one open index, measured on the Java side so that no
 * Python (or JNI crossing) runs per query inside a timed region.
 *
 * <p>The queries are parsed once, up front, exactly as Anserini parses them (bag of words over the
 * {@code contents} field, {@link BagOfWordsQueryGenerator} with the index's analyzer); parsing does
 * not depend on the similarity, so it is left out of the timings. One {@link IndexSearcher} over the
 * open reader serves every pass; a pass installs its similarity with {@code setSimilarity} and runs
 * the whole query list. The query cache is off: it only ever caches non-scoring clauses, and leaving it
 * on would make a pass depend on which passes ran before it.
 *
 * <h2>Search paths</h2>
 * <ul>
 *   <li>{@link SearchPath#TOP_K}: Lucene's plain {@code IndexSearcher.search(query, k)}, i.e. a
 *       {@link TopScoreDocCollectorManager}{@code (k, null, 1000)}. Once 1000 hits have been counted
 *       (Lucene's {@value #LUCENE_TOTAL_HITS_THRESHOLD}), the collector raises the minimum competitive
 *       score and the scorer skips blocks whose maximum score (block-max WAND / MaxScore) cannot beat it.
 *   <li>{@link SearchPath#ANSERINI_SORT}: what Anserini's {@code SimpleSearcher} (and so {@code QLogSearcher})
 *       runs, {@code IndexSearcher.search(query, k, Sort(score desc, id asc), true)}: ties broken by the
 *       docid string, then scores filled in for the hits.
 *   <li>{@link SearchPath#ANSERINI_ORDER}: the same order in one pruned top-k pass
 *       ({@link AnseriniTopK}: ties compared by the place of their docids in id order, and only
 *       documents below the k-th score skipped); what {@code QLogSearcher}'s batch search runs below
 *       k = 100 ({@code TopKRouter.lucene}).
 *   <li>{@link SearchPath#TERM_AT_A_TIME}: the same order and scores, every bag-of-words query scored
 *       term at a time at any k and any number of postings ({@code TopKRouter.termAtATime} with
 *       no limit; other queries as {@code anserini-order}).
 *   <li>{@link SearchPath#ROUTED}: what {@code QLogSearcher}'s batch search runs at every k
 *       ({@code TopKRouter.routed}): term at a time where k &gt;= 100 and the query's terms hold
 *       at most 64 postings per hit wanted, else {@code anserini-order}. Timed next to the two routes it
 *       chooses between, it shows what each of its limits buys on an index.
 * </ul>
 *
 * <h2>Definitions</h2>
 * <pre>
 *   latency(query)   = System.nanoTime() after search returns - System.nanoTime() before it is called
 *   wall(pass)       = nanoTime after the last query of the pass - nanoTime before the first is submitted
 *   QPS(pass)        = queries / wall(pass)
 *   cpu(pass)        = sum over the search threads of their CPU time during the pass
 *                      (ThreadMXBean.getCurrentThreadCpuTime): unlike wall time, it does not grow when
 *                      other processes take the cores, so it is the steadier cost measure on a shared machine
 *   matches(query)   = IndexSearcher.count(query), documents matching at least one query term
 *   collected(query) = calls to LeafCollector.collect: documents the scorer scored and offered to the
 *                      collector; collected &lt; matches means blocks of documents were skipped unscored
 * </pre>
 *
 * A pass on several threads uses a fixed pool; the threads take the next query from a shared counter
 * until the list is done, so every query runs exactly once per pass.
 */
public final class SearchBenchmark implements Closeable {

  /** The ways of running a top-k query; see the class comment. */
  public enum SearchPath {
    TOP_K,
    ANSERINI_SORT,
    ANSERINI_ORDER,
    TERM_AT_A_TIME,
    ROUTED;

    /** Parses a path's name, e.g. {@code top-k} or {@code term-at-a-time} (case-insensitive, {@code _} or {@code -}). */
    public static SearchPath parse(String name) {
      if (name != null) {
        String n = name.trim().replace('-', '_').toUpperCase(Locale.ROOT);
        for (SearchPath p : values()) {
          if (p.name().equals(n)) {
            return p;
          }
        }
      }
      throw new IllegalArgumentException("illegal path: " + name
          + ", must be one of top-k, anserini-sort, anserini-order, term-at-a-time, routed");
    }

    @Override
    public String toString() {
      return name().toLowerCase(Locale.ROOT).replace('_', '-');
    }
  }

  /**
   * One pass over the query list: per-query latencies (in query order), the pass's wall time and the CPU
   * time its search threads used (-1 if the JVM cannot measure thread CPU time), all in ns, and the number
   * of hits returned (which also keeps the JIT from treating a search as dead code).
   */
  public record Pass(long[] latencyNanos, long wallNanos, long cpuNanos, long hitsReturned) {}

  /**
   * Pruning evidence, one entry per query: {@code matches}, Lucene's total hits ({@code totalHits} and
   * whether it is exact, {@code EQUAL_TO}, or a lower bound, {@code GREATER_THAN_OR_EQUAL_TO}, which
   * means the collector stopped counting and let the scorer skip), and {@code collected}.
   */
  public record Pruning(long[] matches, long[] totalHits, boolean[] totalHitsExact, long[] collected) {}

  /** Result of comparing pruned top-k with exhaustive scoring: queries checked, how many differ, the first. */
  public record Check(int checked, int mismatches, String firstMismatch) {
    public boolean passed() {
      return mismatches == 0;
    }
  }

  /** The total-hits threshold of {@code IndexSearcher.search(query, k)} (private in Lucene). */
  public static final int LUCENE_TOTAL_HITS_THRESHOLD = 1000;

  /** Anserini's {@code SimpleSearcher} order: score descending, ties by the docid string. */
  public static final Sort ANSERINI_SORT =
      new Sort(SortField.FIELD_SCORE, new SortField(Constants.ID, SortField.Type.STRING_VAL));

  private final IndexReader reader;
  private final boolean ownsReader;
  private final IndexSearcher searcher;
  private final Query[] queries;
  /** The reader's id order, read on the first search in Anserini's order (not by every timed query). */
  private volatile Docids.IdOrder ids;
  private final Map<Integer, ThreadPoolExecutor> pools = new HashMap<>();

  /**
   * @param reader an open index reader (not closed by {@link #close()})
   * @param analyzer the analyzer the index was built with (Anserini's default: {@link IndexCollection#DEFAULT_ANALYZER})
   * @param queryTexts the queries, in the order their latencies are reported
   */
  public SearchBenchmark(IndexReader reader, Analyzer analyzer, List<String> queryTexts) {
    this(reader, false, analyzer, queryTexts);
  }

  private SearchBenchmark(IndexReader reader, boolean ownsReader, Analyzer analyzer, List<String> queryTexts) {
    if (reader == null || analyzer == null || queryTexts == null) {
      throw new IllegalArgumentException("reader, analyzer and queries must not be null");
    }
    this.reader = reader;
    this.ownsReader = ownsReader;
    this.searcher = new IndexSearcher(reader);
    this.searcher.setQueryCache(null);
    BagOfWordsQueryGenerator generator = new BagOfWordsQueryGenerator();
    this.queries = new Query[queryTexts.size()];
    for (int i = 0; i < queries.length; i++) {
      queries[i] = generator.buildQuery(Constants.CONTENTS, analyzer, queryTexts.get(i));
    }
  }

  /** Opens the index at {@code indexDir} with Anserini's default analyzer; {@link #close()} closes it. */
  public static SearchBenchmark open(String indexDir, List<String> queryTexts) throws IOException {
    IndexReader reader = DirectoryReader.open(FSDirectory.open(Paths.get(indexDir)));
    return new SearchBenchmark(reader, true, IndexCollection.DEFAULT_ANALYZER, queryTexts);
  }

  /**
   * Lucene alone from a cold start, the yardstick of a verb started in a fresh process: {@code java
   * io.qlog.bench.SearchBenchmark INDEX TOPICS K THREADS PASSES K1 B Q} opens the index, parses the
   * queries of the TREC topics file {@code TOPICS} ({@code qid<TAB>text} lines), runs {@code PASSES}
   * top-k passes of q-log BM25 at {@code Q} and prints their total wall seconds; the process's own wall
   * time (JVM start, JIT warm-up and parsing included) is what the benchmark compares.
   */
  public static void main(String[] args) throws IOException {
    if (args.length != 8) {
      System.err.println("usage: SearchBenchmark INDEX TOPICS K THREADS PASSES K1 B Q");
      System.exit(2);
    }
    List<String> texts = new ArrayList<>();
    for (String line : java.nio.file.Files.readAllLines(Paths.get(args[1]), java.nio.charset.StandardCharsets.UTF_8)) {
      int tab = line.indexOf('\t');
      if (tab >= 0) {
        texts.add(line.substring(tab + 1));
      }
    }
    int k = Integer.parseInt(args[2]);
    int threads = Integer.parseInt(args[3]);
    int passes = Integer.parseInt(args[4]);
    Similarity model = new io.qlog.similarities.QLogBM25Similarity(
        Float.parseFloat(args[5]), Float.parseFloat(args[6]), Double.parseDouble(args[7]), "lucene");
    try (SearchBenchmark bench = open(args[0], texts)) {
      long total = 0;
      for (long wall : bench.sweep(java.util.Collections.nCopies(passes, model), k, threads, "top-k")) {
        total += wall;
      }
      System.out.printf(Locale.ROOT, "%d queries, %d passes: %.3f s%n", texts.size(), passes, total / 1e9);
    }
    System.exit(0); // the search pools' threads are not daemons
  }

  public int numQueries() {
    return queries.length;
  }

  public int numDocs() {
    return reader.numDocs();
  }

  /** Number of terms of each parsed query (a query whose text analyzes to nothing has 0 and matches nothing). */
  public int[] queryTermCounts() {
    int[] counts = new int[queries.length];
    for (int i = 0; i < queries.length; i++) {
      counts[i] = queries[i] instanceof BooleanQuery bq ? bq.clauses().size() : 1;
    }
    return counts;
  }

  /**
   * Runs every query once with {@code similarity} on {@code threads} threads and times it.
   *
   * @param k hits per query, at least 1
   * @param threads search threads, at least 1
   * @param path which search call is timed
   */
  public Pass run(Similarity similarity, int k, int threads, String path) throws IOException {
    SearchPath p = prepare(similarity, k, "threads", threads, path);
    long[] latency = new long[queries.length];
    AtomicInteger next = new AtomicInteger();
    LongAdder hits = new LongAdder();
    LongAdder cpu = new LongAdder();
    ThreadMXBean threadsBean = ManagementFactory.getThreadMXBean();
    boolean cpuTimed = threadsBean.isCurrentThreadCpuTimeSupported() && threadsBean.isThreadCpuTimeEnabled();
    Runnable worker = () -> {
      long cpu0 = cpuTimed ? threadsBean.getCurrentThreadCpuTime() : 0;
      for (int i = next.getAndIncrement(); i < queries.length; i = next.getAndIncrement()) {
        long t0 = System.nanoTime();
        TopDocs top = search(queries[i], k, p);
        latency[i] = System.nanoTime() - t0;
        hits.add(top.scoreDocs.length);
      }
      if (cpuTimed) {
        cpu.add(threadsBean.getCurrentThreadCpuTime() - cpu0);
      }
    };
    ExecutorService exec = pool(threads);
    long start = System.nanoTime();
    List<Future<?>> futures = new ArrayList<>(threads);
    for (int t = 0; t < threads; t++) {
      futures.add(exec.submit(worker));
    }
    await(futures);
    long wall = System.nanoTime() - start;
    return new Pass(latency, wall, cpuTimed ? cpu.sum() : -1, hits.sum());
  }

  /** Checks k and {@code count} (both at least 1) and the path's name, then installs {@code similarity}. */
  private SearchPath prepare(Similarity similarity, int k, String countName, int count, String path) {
    checkPositive("k", k);
    checkPositive(countName, count);
    SearchPath p = SearchPath.parse(path);
    searcher.setSimilarity(similarity);
    return p;
  }

  /**
   * Runs one pass per similarity (a parameter sweep), each on the same open index, and returns each
   * pass's wall time in ns: installing a similarity costs nothing beyond the pass itself.
   */
  public long[] sweep(List<Similarity> similarities, int k, int threads, String path) throws IOException {
    long[] wall = new long[similarities.size()];
    for (int i = 0; i < wall.length; i++) {
      long t0 = System.nanoTime();
      run(similarities.get(i), k, threads, path);
      wall[i] = System.nanoTime() - t0;
    }
    return wall;
  }

  /**
   * Pruning evidence at depth {@code k}: each query is run through the same collector the search path
   * uses, with total-hits threshold {@code totalHitsThreshold} ({@value #LUCENE_TOTAL_HITS_THRESHOLD} is
   * what {@code IndexSearcher.search(query, k)} uses; k is the most pruning Lucene allows), wrapped so that
   * every document offered to it is counted.
   */
  public Pruning pruning(Similarity similarity, int k, int totalHitsThreshold, String path) throws IOException {
    SearchPath p = prepare(similarity, k, "totalHitsThreshold", totalHitsThreshold, path);
    int n = queries.length;
    long[] matches = new long[n];
    long[] totalHits = new long[n];
    boolean[] exact = new boolean[n];
    long[] collected = new long[n];
    for (int i = 0; i < n; i++) {
      CollectorManager<?, ? extends TopDocs> inner = switch (p) {
        case TOP_K -> new TopScoreDocCollectorManager(k, null, totalHitsThreshold);
        case ANSERINI_SORT -> new TopFieldCollectorManager(ANSERINI_SORT, k, null, totalHitsThreshold);
        case ANSERINI_ORDER -> anseriniOrder(k);
        // scored without a collector: nothing to count documents offered to one
        case TERM_AT_A_TIME, ROUTED -> throw new IllegalArgumentException(
            "no pruning evidence for path " + p + ": it collects no documents, use top-k, anserini-sort or anserini-order");
      };
      CountingManager<?, ? extends TopDocs> counting = new CountingManager<>(inner);
      TopDocs top = searcher.search(queries[i], counting);
      matches[i] = searcher.count(queries[i]);
      totalHits[i] = top.totalHits.value();
      exact[i] = top.totalHits.relation() == TotalHits.Relation.EQUAL_TO;
      collected[i] = counting.collected;
    }
    return new Pruning(matches, totalHits, exact, collected);
  }

  /**
   * Checks, for the queries at {@code sample} (indexes into the query list), that the pruned top k of a
   * {@link TopScoreDocCollectorManager}{@code (k, null, totalHitsThreshold)} search is exactly the top k
   * of exhaustive scoring: every matching document scored (a collector with {@link ScoreMode#COMPLETE},
   * which rules out all skipping), sorted by score descending then Lucene doc id ascending. Same
   * documents, same order, same float scores. {@code totalHitsThreshold = k} prunes the most.
   *
   * <p>Skipping is only safe if each term's score is non-negative and bounded by the block maxima the
   * scorer computes from frequencies and norms; a similarity that changes only the IDF (a non-negative
   * constant per query term) keeps both, which is what this check confirms on real queries.
   */
  public Check exhaustiveCheck(Similarity similarity, int k, int totalHitsThreshold, int[] sample) throws IOException {
    checkPositive("k", k);
    checkPositive("totalHitsThreshold", totalHitsThreshold);
    searcher.setSimilarity(similarity);
    int mismatches = 0;
    String first = null;
    for (int i : sample) {
      if (i < 0 || i >= queries.length) {
        throw new IllegalArgumentException("illegal query index: " + i + ", must be in [0, " + queries.length + ")");
      }
      ScoreDoc[] pruned = searcher.search(queries[i], new TopScoreDocCollectorManager(k, null, totalHitsThreshold)).scoreDocs;
      ScoreDoc[] all = exhaustive(queries[i]);
      ScoreDoc[] expected = Arrays.copyOf(all, Math.min(k, all.length));
      String diff = firstDifference(pruned, expected);
      if (diff != null) {
        mismatches++;
        if (first == null) {
          first = "query " + i + " (" + all.length + " matches): " + diff;
        }
      }
    }
    return new Check(sample.length, mismatches, first);
  }

  /** Every matching document with its score, by score descending then doc id ascending. */
  private ScoreDoc[] exhaustive(Query query) throws IOException {
    List<ScoreDoc> all = searcher.search(query, new EveryMatch());
    ScoreDoc[] docs = all.toArray(new ScoreDoc[0]);
    Arrays.sort(docs, (a, b) -> a.score != b.score ? Float.compare(b.score, a.score) : Integer.compare(a.doc, b.doc));
    return docs;
  }

  private static String firstDifference(ScoreDoc[] got, ScoreDoc[] want) {
    if (got.length != want.length) {
      return "pruned search returned " + got.length + " hits, exhaustive " + want.length;
    }
    for (int r = 0; r < got.length; r++) {
      // Exact float equality: both paths sum the same per-term floats in double, then round once.
      if (got[r].doc != want[r].doc || Float.compare(got[r].score, want[r].score) != 0) {
        return "rank " + (r + 1) + ": pruned doc " + got[r].doc + " score " + got[r].score
            + ", exhaustive doc " + want[r].doc + " score " + want[r].score;
      }
    }
    return null;
  }

  private TopDocs search(Query query, int k, SearchPath path) {
    try {
      return switch (path) {
        case TOP_K -> searcher.search(query, k);
        case ANSERINI_SORT -> searcher.search(query, k, ANSERINI_SORT, true);
        case ANSERINI_ORDER -> searcher.search(query, anseriniOrder(k));
        case TERM_AT_A_TIME -> topDocs(TopKRouter.termAtATime(searcher, query, k, ids(), Long.MAX_VALUE));
        case ROUTED -> topDocs(TopKRouter.routed(searcher, query, k, ids()));
      };
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** The hits of a route that returns no TopDocs; only their number is read. */
  private static TopDocs topDocs(ScoreDoc[] hits) {
    return new TopDocs(new TotalHits(hits.length, TotalHits.Relation.GREATER_THAN_OR_EQUAL_TO), hits);
  }

  private Docids.IdOrder ids() throws IOException {
    Docids.IdOrder order = ids;
    if (order == null) {
      order = Docids.order(reader); // computed once per reader there too; a second thread only looks it up
      ids = order;
    }
    return order;
  }

  private AnseriniTopK anseriniOrder(int k) throws IOException {
    int n = Math.max(1, Math.min(k, reader.maxDoc()));
    return new AnseriniTopK(n, ids(), !(searcher.getSimilarity() instanceof ExhaustiveScoring));
  }

  private synchronized ExecutorService pool(int threads) {
    // One fixed pool per thread count, its threads started before any pass, so thread start-up is never timed.
    return pools.computeIfAbsent(threads, n -> {
      ThreadPoolExecutor exec = new ThreadPoolExecutor(n, n, 0L, TimeUnit.MILLISECONDS, new LinkedBlockingQueue<>(), r -> {
        Thread t = new Thread(r, "qlog-bench");
        t.setDaemon(true);
        return t;
      });
      exec.prestartAllCoreThreads();
      return exec;
    });
  }

  private static void await(List<Future<?>> futures) throws IOException {
    try {
      for (Future<?> f : futures) {
        f.get();
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IOException("benchmark interrupted", e);
    } catch (ExecutionException e) {
      if (e.getCause() instanceof UncheckedIOException u) {
        throw u.getCause();
      }
      throw new IOException("search failed: " + e.getCause(), e.getCause());
    }
  }

  private static void checkPositive(String name, int value) {
    if (value < 1) {
      throw new IllegalArgumentException("illegal " + name + " value: " + value + ", must be at least 1");
    }
  }

  @Override
  public synchronized void close() throws IOException {
    pools.values().forEach(ExecutorService::shutdownNow);
    pools.clear();
    if (ownsReader) {
      reader.close();
    }
  }

  /** Wraps a collector manager and counts the documents offered to its leaf collectors. */
  private static final class CountingManager<C extends Collector, T> implements CollectorManager<Collector, T> {
    private final CollectorManager<C, T> in;
    private final List<CountingCollector<C>> made = new ArrayList<>();
    long collected;

    CountingManager(CollectorManager<C, T> in) {
      this.in = in;
    }

    @Override
    public Collector newCollector() throws IOException {
      CountingCollector<C> c = new CountingCollector<>(in.newCollector());
      made.add(c);
      return c;
    }

    @Override
    public T reduce(Collection<Collector> collectors) throws IOException {
      List<C> inner = new ArrayList<>(made.size());
      for (CountingCollector<C> c : made) {
        inner.add(c.in);
        collected += c.count;
      }
      return in.reduce(inner);
    }
  }

  /** A collector that delegates everything (score mode, scorer, competitive iterator) and counts collect calls. */
  private static final class CountingCollector<C extends Collector> implements Collector {
    final C in;
    long count;

    CountingCollector(C in) {
      this.in = in;
    }

    @Override
    public ScoreMode scoreMode() {
      return in.scoreMode();
    }

    @Override
    public void setWeight(Weight weight) {
      in.setWeight(weight);
    }

    @Override
    public LeafCollector getLeafCollector(LeafReaderContext context) throws IOException {
      LeafCollector leaf = in.getLeafCollector(context);
      return new LeafCollector() {
        @Override
        public void setScorer(Scorable scorer) throws IOException {
          leaf.setScorer(scorer); // the delegate raises the scorer's minimum competitive score through it
        }

        @Override
        public void collect(int doc) throws IOException {
          count++;
          leaf.collect(doc);
        }

        @Override
        public DocIdSetIterator competitiveIterator() throws IOException {
          return leaf.competitiveIterator();
        }

        @Override
        public void finish() throws IOException {
          leaf.finish();
        }
      };
    }
  }
}
