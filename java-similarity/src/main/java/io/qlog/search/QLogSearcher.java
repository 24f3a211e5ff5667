package io.qlog.search;

import io.anserini.index.Constants;
import io.anserini.search.ScoredDoc;
import io.anserini.search.SimpleSearcher;
import io.qlog.similarities.QLogBM25Similarity;
import java.io.IOException;
import java.util.List;
import java.util.Map;
import org.apache.lucene.analysis.Analyzer;
import org.apache.lucene.index.Term;
import org.apache.lucene.search.IndexSearcher;
import org.apache.lucene.search.Query;
import org.apache.lucene.search.TermQuery;
import org.apache.lucene.search.TopDocs;
import org.apache.lucene.search.similarities.Similarity;

/**
 * Anserini's {@link SimpleSearcher} (its query parsing, analyzer and score-then-docid tie-breaking)
 * with a similarity that can be swapped at any time without reopening the index: the open
 * {@code IndexReader} is kept and only a new {@code IndexSearcher} view is made over it.
 *
 * <p>Results also come back as one tab-separated string, {@code qid TAB docid TAB score} a line,
 * because crossing the JNI bridge once per hit is what makes large runs slow from Python.
 */
public class QLogSearcher extends SimpleSearcher {

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

  /** Top-k hits of one query as {@code docid TAB score} lines, in Anserini's order. */
  public String search_tsv(String query, int k) throws IOException {
    StringBuilder out = new StringBuilder();
    append(out, null, search(query, k));
    return out.toString();
  }

  /** Top-k hits of many queries on {@code threads} threads as {@code qid TAB docid TAB score} lines. */
  public String batch_search_tsv(List<String> queries, List<String> qids, int k, int threads) {
    Map<String, ScoredDoc[]> results = batch_search(queries, qids, k, threads);
    StringBuilder out = new StringBuilder();
    for (String qid : qids) {
      ScoredDoc[] hits = results.get(qid);
      if (hits != null) {
        append(out, qid, hits);
      }
    }
    return out.toString();
  }

  private static void append(StringBuilder out, String qid, ScoredDoc[] hits) {
    for (ScoredDoc hit : hits) {
      if (qid != null) {
        out.append(qid).append('\t');
      }
      // Float.toString is the shortest text that reads back to the same float.
      out.append(hit.docid).append('\t').append(Float.toString(hit.score)).append('\n');
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
