package io.qlog.search;

import io.anserini.search.ScoredDoc;
import io.anserini.search.SimpleSearcher;
import java.io.IOException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.function.Function;
import org.apache.lucene.index.IndexReader;
import org.apache.lucene.search.IndexSearcher;
import org.apache.lucene.search.Query;
import org.apache.lucene.search.ScoreDoc;
import org.apache.lucene.search.similarities.Similarity;

/**
 * Batches of queries searched on a shared thread pool, each query under a model given with the call
 * (never the one installed on a shared object), through an {@code IndexSearcher} per model over the
 * searcher's open reader. The hits come back as {@link BatchHits} columns in Anserini's order.
 */
final class BatchSearch {

  private static final Map<Integer, ExecutorService> POOLS = new HashMap<>();

  private BatchSearch() {}

  /**
   * Top-k hits of each query under the model {@code models[modelOf[i]]}, on {@code threads} threads.
   *
   * <p>The order is Anserini's (score descending, ties by docid ascending; scores rounded to 4
   * decimals and ties pushed apart by 1e-6 steps, as its {@code ScoreTiesAdjusterReranker} does) at
   * the cost of a plain top-k: one pruned pass keeps the top k by (score, docid) itself, comparing
   * docids only between equal scores ({@link TopKRouter}), so a tie split by the cut-off needs no
   * second search. Then each score is made strictly smaller, as a float, than the one above it
   * ({@link AnseriniTies#adjust}), so every consumer that re-sorts by score keeps this order. With
   * RM3 or Rocchio set on {@code searcher}, each query goes through Anserini's own reranker cascade
   * under that searcher's lock, with the model installed.
   */
  static BatchHits models(SimpleSearcher searcher, Similarity[] models, int[] modelOf, String[] queries, int k,
      int threads) throws IOException, InterruptedException, ExecutionException {
    if (searcher == null || models == null || modelOf == null || queries == null) {
      throw new IllegalArgumentException("searcher, models, model numbers and queries must not be null");
    }
    if (modelOf.length != queries.length) {
      throw new IllegalArgumentException(modelOf.length + " model numbers for " + queries.length + " queries");
    }
    checkK(k);
    for (int m : modelOf) {
      if (m < 0 || m >= models.length || models[m] == null) {
        throw new IllegalArgumentException("no model number " + m + " among " + models.length);
      }
    }
    IndexReader reader = SimpleSearcherAccess.reader(searcher);
    IndexSearcher[] views = views(reader, models);
    int[][] docs = new int[queries.length][];
    float[][] scores = new float[queries.length][];
    if (SimpleSearcherAccess.feedback(searcher)) {
      synchronized (searcher) { // the reranker cascade reads the searcher's own similarity
        for (int i = 0; i < queries.length; i++) {
          SimpleSearcherAccess.install(searcher, models[modelOf[i]]);
          ScoredDoc[] hits = searcher.search(queries[i], k); // ties already adjusted by Anserini
          ScoreDoc[] top = new ScoreDoc[hits.length];
          for (int j = 0; j < hits.length; j++) {
            top[j] = new ScoreDoc(hits[j].lucene_docid, hits[j].score);
          }
          keep(top, i, docs, scores);
          AnseriniTies.strictlyDecreasing(scores[i]);
        }
      }
    } else {
      Docids.IdOrder ids = Docids.order(reader);
      Function<String, Query> parser = SimpleSearcherAccess.parser(searcher);
      List<Callable<Void>> tasks = new ArrayList<>(queries.length);
      for (int i = 0; i < queries.length; i++) {
        final int at = i;
        tasks.add(() -> {
          keep(TopKRouter.routed(views[modelOf[at]], parser.apply(queries[at]), k, ids), at, docs, scores);
          AnseriniTies.adjust(scores[at]);
          return null;
        });
      }
      run(tasks, threads);
    }
    return BatchHits.of(docs, scores);
  }

  /**
   * Top-k hits of every query under every model, one {@link BatchHits} per model (in {@code models}
   * order), each exactly what {@link #models} gives for that model alone.
   *
   * <p>A sweep's grid in one pass: each query's postings are read once and scored by every model
   * ({@link ModelGridTopK}); a query or model that way cannot take (not a bag of words, or sums
   * whose order could matter) is searched by the {@link TopKRouter}. With RM3 or Rocchio set on
   * {@code searcher}, every model is one {@link #models} pass.
   */
  static BatchHits[] grid(SimpleSearcher searcher, Similarity[] models, String[] queries, int k, int threads)
      throws IOException, InterruptedException, ExecutionException {
    if (searcher == null || models == null || queries == null || models.length == 0) {
      throw new IllegalArgumentException("searcher, models (at least one) and queries must not be null");
    }
    for (Similarity model : models) {
      if (model == null) {
        throw new IllegalArgumentException("models must not hold null");
      }
    }
    checkK(k);
    BatchHits[] out = new BatchHits[models.length];
    if (SimpleSearcherAccess.feedback(searcher)) {
      for (int m = 0; m < models.length; m++) {
        out[m] = models(searcher, new Similarity[] {models[m]}, new int[queries.length], queries, k, threads);
      }
      return out;
    }
    IndexReader reader = SimpleSearcherAccess.reader(searcher);
    IndexSearcher[] views = views(reader, models);
    Docids.IdOrder ids = Docids.order(reader);
    Function<String, Query> parser = SimpleSearcherAccess.parser(searcher);
    int[][][] docs = new int[models.length][queries.length][];
    float[][][] scores = new float[models.length][queries.length][];
    List<Callable<Void>> tasks = new ArrayList<>(queries.length);
    for (int i = 0; i < queries.length; i++) {
      final int at = i;
      tasks.add(() -> {
        Query query = parser.apply(queries[at]);
        long[][] grid = ModelGridTopK.search(views[0], query, models, k, ids);
        for (int m = 0; m < models.length; m++) {
          if (grid != null && grid[m] != null) {
            keep(grid[m], ids, at, docs[m], scores[m]);
          } else {
            keep(TopKRouter.routed(views[m], query, k, ids), at, docs[m], scores[m]);
          }
          AnseriniTies.adjust(scores[m][at]);
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

  private static void checkK(int k) {
    if (k < 1) {
      throw new IllegalArgumentException("illegal k value: " + k + ", must be at least 1");
    }
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

  /** Runs {@code tasks} on a shared pool of {@code threads} daemon threads (made once per size). */
  private static void run(List<Callable<Void>> tasks, int threads) throws InterruptedException, ExecutionException {
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
}
