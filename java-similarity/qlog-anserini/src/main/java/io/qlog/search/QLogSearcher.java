package io.qlog.search;

import io.anserini.index.Constants;
import io.anserini.search.SimpleSearcher;
import io.qlog.similarities.QLogBM25Similarity;
import java.io.IOException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import org.apache.lucene.analysis.Analyzer;
import org.apache.lucene.index.IndexReader;
import org.apache.lucene.index.Term;
import org.apache.lucene.search.FieldDoc;
import org.apache.lucene.search.IndexSearcher;
import org.apache.lucene.search.Query;
import org.apache.lucene.search.TermQuery;
import org.apache.lucene.search.TopDocs;
import org.apache.lucene.search.TopFieldDocs;
import org.apache.lucene.search.similarities.Similarity;
import org.apache.lucene.util.BytesRef;

/**
 * Anserini's {@link SimpleSearcher} (its query parsing, analyzer and score-then-docid tie-breaking)
 * with a similarity that can be swapped at any time without reopening the index: the open
 * {@code IndexReader} is kept and only a new {@code IndexSearcher} view is made over it. This class
 * is what Python calls through pyjnius; the work is done by {@link BatchSearch} (batches on
 * threads), {@link TopKRouter} (the top-k engines), {@link AnseriniTies} (Anserini's score rounding
 * and tie steps) and {@link SimpleSearcherAccess} (Anserini's private fields).
 *
 * <p>Python searches through the static entry points ({@link #search_batch} and its kin): each takes the
 * searcher and an immutable {@link Similarity} as arguments and returns a {@link BatchHits} of
 * primitive arrays, so no Java state is shared between calls. pyjnius keeps the Java instance of an
 * instance-method call on the class's shared method object, so two instances of one class used
 * from two Python threads can cross; static calls have no instance to cross. The model is never set
 * on a shared object either: each call searches through an {@code IndexSearcher} of its own over
 * the open reader, with the model given.
 */
public class QLogSearcher extends SimpleSearcher {

  static {
    TopKRouter.allowLongQueries();
  }

  public QLogSearcher(String indexDir) throws IOException {
    super(indexDir);
  }

  public QLogSearcher(String indexDir, Analyzer analyzer) throws IOException {
    super(indexDir, analyzer);
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

  /**
   * Top-k hits of a query built by the caller (a rewritten query, say) as {@code docid TAB score TAB
   * luceneDocid} lines, under the installed similarity: made as Anserini makes them (its sorted
   * search, then {@link AnseriniTies#anserini}) but without loading every hit's stored document, the
   * docid being read from the sort values. One string, because crossing the JNI bridge once per hit
   * is what makes large runs slow from Python.
   */
  public String search_query_tsv(Query query, int k) throws IOException {
    TopFieldDocs top = TopKRouter.sorted(currentSearcher(), query, k);
    float[] scores = new float[top.scoreDocs.length];
    for (int i = 0; i < scores.length; i++) {
      scores[i] = top.scoreDocs[i].score;
    }
    AnseriniTies.anserini(scores);
    StringBuilder out = new StringBuilder();
    for (int i = 0; i < scores.length; i++) {
      FieldDoc hit = (FieldDoc) top.scoreDocs[i];
      // Float.toString is the shortest text that reads back to the same float. The Lucene docid comes
      // last, as Pyserini's hits carry it.
      out.append(((BytesRef) hit.fields[1]).utf8ToString()).append('\t').append(Float.toString(scores[i]))
          .append('\t').append(hit.doc).append('\n');
    }
    return out.toString();
  }

  /** The number of documents with {@code field} (Lucene's docCount, the N of BM25's idf); 0 if none. */
  public int doc_count(String field) throws IOException {
    return Math.max(0, reader.getDocCount(field));
  }

  /**
   * The mean length of {@code field} in tokens, as BM25 reads it (Lucene's avgdl: the field's total term
   * frequency over its docCount); 0 if no document has the field.
   */
  public double mean_length(String field) throws IOException {
    int docs = reader.getDocCount(field);
    return docs <= 0 ? 0.0 : (double) reader.getSumTotalTermFreq(field) / docs;
  }

  /** The number of documents holding {@code term} in {@code field} (the n of BM25's idf; deleted ones count). */
  public int doc_freq(String field, String term) throws IOException {
    return reader.docFreq(new Term(field, term));
  }

  /** The searcher of the installed similarity: a search already running keeps the model it started with. */
  private synchronized IndexSearcher currentSearcher() {
    if (searcher == null) {
      searcher = new IndexSearcher(reader);
      searcher.setSimilarity(similarity);
    }
    return searcher;
  }

  // ------------------------------------------------------------------ static entry points for Python

  /**
   * Top-k hits of {@code queries} under {@code model}, searched on {@code threads} threads, in
   * Anserini's order (see {@link BatchSearch#models}).
   */
  public static BatchHits search_batch(SimpleSearcher searcher, Similarity model, String[] queries, int k,
      int threads) throws IOException, InterruptedException, ExecutionException {
    return BatchSearch.models(searcher, new Similarity[] {model}, new int[queries.length], queries, k, threads);
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
    return BatchSearch.models(searcher, models.toArray(new Similarity[0]), modelOf, queries, k, threads);
  }

  /**
   * Top-k hits of every query under every model, one {@link BatchHits} per model (in {@code models}
   * order), each exactly what {@link #search_batch} gives for that model, in one pass over each
   * query's postings (see {@link BatchSearch#grid}).
   */
  public static BatchHits[] search_batch_grid(SimpleSearcher searcher, Similarity[] models, String[] queries, int k,
      int threads) throws IOException, InterruptedException, ExecutionException {
    return BatchSearch.grid(searcher, models, queries, k, threads);
  }

  /** The open reader of {@code searcher}. */
  public static IndexReader reader_of(SimpleSearcher searcher) {
    return SimpleSearcherAccess.reader(searcher);
  }

  /** The docid table of {@code searcher}'s reader (see {@link Docids#packed}). */
  public static byte[] docid_table(SimpleSearcher searcher) throws IOException {
    return Docids.packed(SimpleSearcherAccess.reader(searcher));
  }

  /** Number of documents of {@code searcher}'s reader. */
  public static int num_docs_of(SimpleSearcher searcher) {
    return SimpleSearcherAccess.reader(searcher).numDocs();
  }

  /** The similarity installed in {@code searcher} (what Anserini's own calls, explain and feedback use). */
  public static Similarity similarity_of(SimpleSearcher searcher) {
    return SimpleSearcherAccess.similarity(searcher);
  }

  /**
   * Installs {@code model} into {@code searcher} (any Anserini {@code SimpleSearcher}) without
   * reopening its index (see {@link SimpleSearcherAccess#install}).
   */
  public static void install(SimpleSearcher searcher, Similarity model) {
    SimpleSearcherAccess.install(searcher, model);
  }

  /** A q-log BM25 model, its parameters checked once (QLogBM25Parameters), for the calls above. */
  public static Similarity qlog_model(float k1, float b, double q, String form) {
    return new QLogBM25Similarity(k1, b, q, form);
  }
}
