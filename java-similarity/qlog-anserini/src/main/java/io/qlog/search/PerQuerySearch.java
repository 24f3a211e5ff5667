package io.qlog.search;

import io.anserini.search.SimpleSearcher;
import io.qlog.similarities.QLogBM25Similarity;
import java.io.IOException;
import java.lang.reflect.Field;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.apache.lucene.index.IndexReader;
import org.apache.lucene.index.Term;
import org.apache.lucene.search.IndexSearcher;
import org.apache.lucene.search.QueryVisitor;

/**
 * A batch whose queries each have their own q, and the term statistics a per-query q is chosen from.
 *
 * <p>Race-free by construction: nothing here installs a similarity on the {@link QLogSearcher} it is given.
 * Each distinct q of a batch gets its own {@link IndexSearcher} over the searcher's one open reader, with
 * an immutable {@link QLogBM25Similarity} of its own, so queries at different q can run on different
 * threads at once, and a {@code set_similarity} on the searcher during the batch changes nothing in it.
 * Hits are formatted by the searcher's own code (the same Lucene search, Sort and Anserini score
 * rounding and tie steps), so a query searched here at q gives the same lines as the searcher's
 * {@code batch_search_tsv} with q installed.
 *
 * <p>Entry points are static and take the searcher as an argument: pyjnius keeps a call's Java instance on
 * a class's shared method object, so a static call cannot reach another thread's instance.
 */
public final class PerQuerySearch {

  private PerQuerySearch() {}

  /**
   * The document frequency of every distinct term of each query, as the searcher parses it: one line per
   * query, the frequencies separated by spaces in the terms' order (empty for a query with no term).
   */
  public static String termDocFreqs(QLogSearcher searcher, List<String> queries) throws IOException {
    IndexReader reader = reader(searcher);
    StringBuilder out = new StringBuilder();
    for (String query : queries) {
      TreeSet<Term> terms = new TreeSet<>();
      searcher.parse(query).visit(QueryVisitor.termCollector(terms));
      boolean first = true;
      for (Term term : terms) {
        if (!first) {
          out.append(' ');
        }
        out.append(reader.docFreq(term));
        first = false;
      }
      out.append('\n');
    }
    return out.toString();
  }

  /**
   * Top-k hits of each query at its own q (q-log BM25 with k1, b and the odds form), on {@code threads}
   * threads, as {@code qid TAB docid TAB score TAB luceneDocid} lines in the queries' order.
   */
  public static String batchSearchTsv(QLogSearcher searcher, List<String> queries, List<String> qids,
      double[] qs, float k1, float b, String form, int k, int threads)
      throws IOException, InterruptedException, ExecutionException {
    if (queries.size() != qids.size() || queries.size() != qs.length) {
      throw new IllegalArgumentException(queries.size() + " queries, " + qids.size() + " qids and "
          + qs.length + " q values: one of each per query");
    }
    if (searcher.use_rm3() || searcher.use_rocchio()) {
      // feedback reruns the query through Anserini's reranker cascade under the installed similarity
      throw new IllegalStateException("a per-query q batch does not support RM3 or Rocchio feedback");
    }
    IndexReader reader = reader(searcher);
    Map<Double, IndexSearcher> byQ = new HashMap<>();
    for (double q : qs) {
      if (!byQ.containsKey(q)) {
        IndexSearcher view = new IndexSearcher(reader);
        view.setSimilarity(new QLogBM25Similarity(k1, b, q, form)); // checks q, k1, b and form
        byQ.put(q, view);
      }
    }
    List<Callable<String>> tasks = new ArrayList<>();
    for (int i = 0; i < qs.length; i++) {
      final int at = i;
      tasks.add(() -> {
        StringBuilder out = new StringBuilder();
        appendHits(searcher, byQ.get(qs[at]), out, qids.get(at), queries.get(at), k);
        return out.toString();
      });
    }
    ExecutorService pool = Executors.newFixedThreadPool(Math.max(1, threads));
    List<String> parts = new ArrayList<>(qs.length);
    try {
      for (Future<String> part : pool.invokeAll(tasks)) {
        parts.add(part.get());
      }
    } finally {
      pool.shutdown();
    }
    return String.join("", parts);
  }

  // The searcher's open reader and its hit formatting are not public; they are read, not copied, so this
  // class cannot drift from what the searcher does (the JVM tests compare both routes hit for hit).
  private static volatile Field readerField;
  private static volatile Method appendHitsMethod;

  private static IndexReader reader(QLogSearcher searcher) {
    try {
      if (readerField == null) {
        Field f = SimpleSearcher.class.getDeclaredField("reader");
        f.setAccessible(true);
        readerField = f;
      }
      return (IndexReader) readerField.get(searcher);
    } catch (ReflectiveOperationException e) {
      throw new IllegalStateException("Anserini's SimpleSearcher has no reader field", e);
    }
  }

  private static void appendHits(QLogSearcher searcher, IndexSearcher view, StringBuilder out, String qid,
      String query, int k) throws IOException {
    try {
      if (appendHitsMethod == null) {
        Method m = QLogSearcher.class.getDeclaredMethod("appendHits", IndexSearcher.class, StringBuilder.class,
            String.class, String.class, int.class);
        m.setAccessible(true);
        appendHitsMethod = m;
      }
      appendHitsMethod.invoke(searcher, view, out, qid, query, k);
    } catch (InvocationTargetException e) {
      if (e.getCause() instanceof IOException io) {
        throw io;
      }
      if (e.getCause() instanceof RuntimeException re) {
        throw re;
      }
      throw new IllegalStateException(e.getCause());
    } catch (ReflectiveOperationException e) {
      throw new IllegalStateException("QLogSearcher has no appendHits(IndexSearcher, StringBuilder, String, "
          + "String, int)", e);
    }
  }
}
