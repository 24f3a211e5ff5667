package io.qlog.search;

import io.anserini.index.Constants;
import io.anserini.search.ScoredDoc;
import io.anserini.search.SimpleSearcher;
import io.qlog.similarities.QLogBM25Similarity;
import java.io.IOException;
import java.lang.reflect.Field;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.apache.lucene.analysis.Analyzer;
import org.apache.lucene.index.Term;
import org.apache.lucene.search.IndexSearcher;
import org.apache.lucene.search.Query;
import org.apache.lucene.search.TermQuery;
import org.apache.lucene.search.FieldDoc;
import org.apache.lucene.search.Sort;
import org.apache.lucene.search.TopDocs;
import org.apache.lucene.search.TopFieldDocs;
import org.apache.lucene.util.BytesRef;
import org.apache.lucene.search.similarities.Similarity;

/**
 * Anserini's {@link SimpleSearcher} (its query parsing, analyzer and score-then-docid tie-breaking)
 * with a similarity that can be swapped at any time without reopening the index: the open
 * {@code IndexReader} is kept and only a new {@code IndexSearcher} view is made over it.
 *
 * <p>Results also come back as one tab-separated string, {@code qid TAB docid TAB score TAB luceneDocid} a line,
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

  /** Installs any similarity; the index stays open. Not to be called while a search is running. */
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
    TopFieldDocs top = searcher.search(parse(query), k, tieBreakingSort(), true);
    float previous = 0f;
    int tied = 0;
    for (int i = 0; i < top.scoreDocs.length; i++) {
      FieldDoc hit = (FieldDoc) top.scoreDocs[i];
      // ScoreTiesAdjusterReranker, step for step: round to 4 decimals, then push each score that ties
      // (within 1e-4) with the one above it down by 1e-6 per tie, so trec_eval keeps this order.
      float score = (float) (Math.round(hit.score * 10000d) / 10000d);
      if (i == 0 || previous - score > 1e-4f) {
        tied = 0;
      } else {
        tied++;
        score -= 1e-6f * tied;
      }
      previous = score;
      appendLine(out, qid, ((BytesRef) hit.fields[1]).utf8ToString(), score, hit.doc);
    }
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

  private synchronized IndexSearcher currentSearcher() {
    if (searcher == null) {
      searcher = new IndexSearcher(reader);
      searcher.setSimilarity(similarity);
    }
    return searcher;
  }
}
