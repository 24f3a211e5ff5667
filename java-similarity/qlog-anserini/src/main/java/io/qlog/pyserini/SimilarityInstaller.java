package io.qlog.pyserini;

import io.anserini.search.SimpleSearcher;
import io.qlog.search.QLogSearcher;
import io.qlog.similarities.QLogBM25Similarity;
import java.lang.reflect.Field;
import org.apache.lucene.index.IndexReader;
import org.apache.lucene.search.IndexSearcher;
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

  private static final Field READER = field("reader");
  private static final Field SIMILARITY = field("similarity");
  private static final Field SEARCHER = field("searcher");

  private SimilarityInstaller() {
  }

  /** Installs {@code sim} into {@code searcher}; not to be called while that searcher is searching. */
  public static void install(SimpleSearcher searcher, Similarity sim) {
    if (searcher == null || sim == null) {
      throw new IllegalArgumentException("searcher and similarity must not be null");
    }
    if (searcher instanceof QLogSearcher own) {
      own.set_similarity(sim);
      return;
    }
    synchronized (searcher) {
      try {
        IndexSearcher fresh = new IndexSearcher((IndexReader) READER.get(searcher));
        fresh.setSimilarity(sim);
        SIMILARITY.set(searcher, sim);
        SEARCHER.set(searcher, fresh);
      } catch (IllegalAccessException e) {
        throw new IllegalStateException("cannot set SimpleSearcher's similarity", e);
      }
    }
  }

  /** Installs {@link QLogBM25Similarity}(k1, b, q, form) and returns it. */
  public static Similarity install_qlog(SimpleSearcher searcher, float k1, float b, double q, String form) {
    Similarity sim = new QLogBM25Similarity(k1, b, q, form);
    install(searcher, sim);
    return sim;
  }

  private static Field field(String name) {
    try {
      Field f = SimpleSearcher.class.getDeclaredField(name);
      f.setAccessible(true);
      return f;
    } catch (NoSuchFieldException e) {
      throw new IllegalStateException("Anserini's SimpleSearcher has no field " + name, e);
    }
  }
}
