package io.qlog.pyserini;

import io.anserini.search.SimpleSearcher;
import io.qlog.search.QLogSearcher;
import io.qlog.similarities.QLogBM25Similarity;
import org.apache.lucene.search.similarities.Similarity;

/**
 * Installs a Lucene {@link Similarity} into an Anserini {@link SimpleSearcher} that someone else made,
 * typically the {@code object} of a Pyserini {@code LuceneSearcher}.
 *
 * <p>{@code SimpleSearcher} keeps its similarity in protected fields and offers public setters only for
 * BM25 and QLD; pyjnius cannot assign Java fields, so Python calls this instead. It does what
 * {@code SimpleSearcher.set_bm25} does: store the similarity and make a fresh {@code IndexSearcher} over
 * the same open reader. Everything else the searcher holds (analyzer, language, RM3 or Rocchio
 * reranker) is untouched, so feedback then runs on top of the installed similarity.
 */
public final class SimilarityInstaller {

  private SimilarityInstaller() {
  }

  /**
   * Installs {@code sim} into {@code searcher} ({@link QLogSearcher#install}: under the searcher's lock,
   * a fresh {@code IndexSearcher} over the same reader); a search already running keeps its model.
   */
  public static void install(SimpleSearcher searcher, Similarity sim) {
    QLogSearcher.install(searcher, sim);
  }

  /** Installs {@link QLogBM25Similarity}(k1, b, q, form) and returns it. */
  public static Similarity install_qlog(SimpleSearcher searcher, float k1, float b, double q, String form) {
    Similarity sim = new QLogBM25Similarity(k1, b, q, form);
    install(searcher, sim);
    return sim;
  }
}
