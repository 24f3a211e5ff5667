package io.qlog.search;

import io.anserini.index.Constants;
import io.anserini.search.SimpleSearcher;
import io.anserini.search.query.QueryGenerator;
import java.lang.reflect.Field;
import java.util.function.Function;
import org.apache.lucene.analysis.Analyzer;
import org.apache.lucene.index.IndexReader;
import org.apache.lucene.search.IndexSearcher;
import org.apache.lucene.search.Query;
import org.apache.lucene.search.Sort;
import org.apache.lucene.search.similarities.Similarity;

/**
 * The one place that reaches into Anserini's {@link SimpleSearcher} past its public API, by
 * reflection. Its open reader, analyzer, query generator, feedback switches, installed similarity
 * and {@code IndexSearcher} are protected fields, reachable only from a subclass or Anserini's own
 * package, and a batch must search any {@code SimpleSearcher} (ours or Pyserini's) exactly as
 * Anserini would; the reader, the generator and the {@code IndexSearcher} have no public getter at
 * all. Only the tie-breaking {@code Sort} is private (static). A field renamed by a new Anserini
 * fails here, at class load, by name.
 */
public final class SimpleSearcherAccess {

  private static final Field READER = field("reader");
  private static final Field SIMILARITY = field("similarity");
  private static final Field SEARCHER = field("searcher");
  private static final Field ANALYZER = field("analyzer");
  private static final Field GENERATOR = field("generator");
  private static final Field USE_RM3 = field("useRM3");
  private static final Field USE_ROCCHIO = field("useRocchio");

  private static volatile Sort tieBreakingSort;

  private SimpleSearcherAccess() {}

  /** The open reader of {@code searcher}. */
  public static IndexReader reader(SimpleSearcher searcher) {
    return get(READER, searcher);
  }

  /** The similarity installed in {@code searcher} (what Anserini's own calls, explain and feedback use). */
  public static Similarity similarity(SimpleSearcher searcher) {
    synchronized (searcher) {
      return get(SIMILARITY, searcher);
    }
  }

  /** Whether RM3 or Rocchio is set on {@code searcher}: its searches then go through Anserini's reranker cascade. */
  public static boolean feedback(SimpleSearcher searcher) {
    return (boolean) get(USE_RM3, searcher) || (boolean) get(USE_ROCCHIO, searcher);
  }

  /** The Lucene query Anserini builds from a text with {@code searcher}'s analyzer and generator. */
  public static Function<String, Query> parser(SimpleSearcher searcher) {
    Analyzer analyzer = get(ANALYZER, searcher);
    QueryGenerator generator = get(GENERATOR, searcher);
    return text -> generator.buildQuery(Constants.CONTENTS, analyzer, text);
  }

  /**
   * Installs {@code model} into {@code searcher}: a fresh {@code IndexSearcher} over the same open
   * reader, as {@code set_bm25} does. Under the searcher's lock, so concurrent installs are
   * serialized and the last one wins whole.
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

  /** Anserini's own (private) score-then-docid Sort, read once so the two can never differ. */
  public static Sort tieBreakingSort() {
    Sort sort = tieBreakingSort;
    if (sort == null) {
      try {
        Field f = SimpleSearcher.class.getDeclaredField("BREAK_SCORE_TIES_BY_DOCID");
        f.setAccessible(true);
        sort = tieBreakingSort = (Sort) f.get(null);
      } catch (ReflectiveOperationException e) {
        throw new IllegalStateException("Anserini's SimpleSearcher has no BREAK_SCORE_TIES_BY_DOCID", e);
      }
    }
    return sort;
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
}
