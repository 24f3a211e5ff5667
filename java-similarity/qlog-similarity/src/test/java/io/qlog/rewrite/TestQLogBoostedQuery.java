package io.qlog.rewrite;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertNull;
import static org.junit.Assert.assertThrows;
import static org.junit.Assert.assertTrue;

import io.qlog.similarities.QLogBM25Similarity;
import io.qlog.similarities.QLogBM25Similarity.IdfForm;
import io.qlog.testing.CsnRuby;
import io.qlog.testing.ReferenceIndex;
import io.qlog.testing.TopTen;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import org.apache.lucene.analysis.core.WhitespaceAnalyzer;
import org.apache.lucene.document.Document;
import org.apache.lucene.document.Field;
import org.apache.lucene.document.TextField;
import org.apache.lucene.index.DirectoryReader;
import org.apache.lucene.index.IndexWriter;
import org.apache.lucene.index.IndexWriterConfig;
import org.apache.lucene.index.Term;
import org.apache.lucene.search.BooleanClause.Occur;
import org.apache.lucene.search.BooleanQuery;
import org.apache.lucene.search.BoostQuery;
import org.apache.lucene.search.IndexSearcher;
import org.apache.lucene.search.PhraseQuery;
import org.apache.lucene.search.Query;
import org.apache.lucene.search.TermQuery;
import org.apache.lucene.search.similarities.BM25Similarity;
import org.apache.lucene.store.ByteBuffersDirectory;
import org.junit.Assume;
import org.junit.Test;

/**
 * The rewritten query under plain BM25 against the original query under QLogBM25Similarity: the same scores
 * for every document of a small two-field index (repeated, absent and over-half terms), and the same top 10
 * on every CSN-Ruby query at q = 1, 0.7, 0.3 for both odds forms.
 */
public class TestQLogBoostedQuery {

  /** Relative score difference that one float multiplication per term and the float sum of clauses allow. */
  static final double TOLERANCE = 1e-6;

  private static boolean close(double a, double b) {
    return Math.abs(a - b) <= TOLERANCE * Math.max(Math.abs(a), Math.abs(b)) + 1e-12;
  }

  private static IndexSearcher smallIndex() throws IOException {
    // field a: "common" in 4 of 5 documents (over half: rsj idf_q = 0), "rare" in 1, "mid" in 2; field b other words
    String[][] docs = {
      {"common rare mid mid", "x y"}, {"common mid", "y"}, {"common", "x z z"}, {"common filler filler", "z"},
      {"other", "y y y"}};
    ByteBuffersDirectory dir = new ByteBuffersDirectory();
    try (IndexWriter w = new IndexWriter(dir, new IndexWriterConfig(new WhitespaceAnalyzer()))) {
      for (String[] d : docs) {
        Document doc = new Document();
        doc.add(new TextField("a", d[0], Field.Store.NO));
        doc.add(new TextField("b", d[1], Field.Store.NO));
        w.addDocument(doc);
      }
    }
    return new IndexSearcher(DirectoryReader.open(dir));
  }

  private static Query smallQuery() {
    return new BooleanQuery.Builder()
        .add(new TermQuery(new Term("a", "common")), Occur.SHOULD)
        .add(new BoostQuery(new TermQuery(new Term("a", "mid")), 2f), Occur.SHOULD) // a repeated query term
        .add(new TermQuery(new Term("a", "rare")), Occur.SHOULD)
        .add(new TermQuery(new Term("a", "absent")), Occur.SHOULD)
        .add(new TermQuery(new Term("b", "z")), Occur.SHOULD) // a second field: its own N and df
        .build();
  }

  @Test
  public void everyDocumentScoresAsUnderQLog() throws IOException {
    IndexSearcher searcher = smallIndex();
    int n = searcher.getIndexReader().maxDoc();
    for (IdfForm form : IdfForm.values()) {
      for (double q : new double[] {1.0, 0.7, 0.3, 1.5}) {
        QLogBM25Similarity qlog = new QLogBM25Similarity(0.9f, 0.4f, q, form);
        searcher.setSimilarity(qlog);
        Query query = smallQuery();
        float[] expected = scores(searcher, query, n);
        Query rewritten = QLogBoostedQuery.rewrite(query, searcher, qlog);
        searcher.setSimilarity(new BM25Similarity(0.9f, 0.4f));
        float[] actual = scores(searcher, rewritten, n);
        for (int d = 0; d < n; d++) {
          assertTrue(String.format(Locale.ROOT, "q=%s %s doc %d: %s vs %s", q, form, d, actual[d], expected[d]),
              close(actual[d], expected[d]) && (expected[d] < 0) == (actual[d] < 0));
        }
      }
    }
  }

  @Test
  public void boostsOfRepeatedAbsentAndOverHalfTerms() throws IOException {
    IndexSearcher searcher = smallIndex();
    QLogBM25Similarity rsj = new QLogBM25Similarity(0.9f, 0.4f, 0.5, IdfForm.RSJ);
    // "common" is in 4 of 5 documents: rsj odds (5 - 4 + 0.5) / 4.5 < 1, idf_q floored at 0, boost 0
    assertEquals(0f, QLogBoostedQuery.boost(searcher, new Term("a", "common"), rsj), 0f);
    assertNull(QLogBoostedQuery.boost(searcher, new Term("a", "absent"), rsj));
    // "rare": n = 1, N = 5; the expected ratio computed here from the formula, not from the similarity
    double x = (5 - 1 + 0.5) / 1.5;
    double expected = (Math.pow(x, 0.5) - 1) / 0.5 / Math.log(1 + x);
    assertEquals(expected, QLogBoostedQuery.boost(searcher, new Term("a", "rare"), rsj), 1e-6);
    // the query's text lists its SHOULD clauses separated by spaces, in order
    List<String> clauses = List.of(QLogBoostedQuery.rewrite(smallQuery(), searcher, rsj).toString().split(" "));
    float mid = QLogBoostedQuery.boost(searcher, new Term("a", "mid"), rsj);
    assertEquals(5, clauses.size());
    assertTrue(clauses.toString(), clauses.contains("(a:mid)^" + (mid * 2f)));
    assertTrue(clauses.toString(), clauses.contains("(a:common)^0.0"));
    assertTrue(clauses.toString(), clauses.contains("a:absent"));
  }

  @Test
  public void otherQueriesAreRefused() throws IOException {
    IndexSearcher searcher = smallIndex();
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
        () -> QLogBoostedQuery.rewrite(new PhraseQuery("a", "common", "mid"), searcher, new QLogBM25Similarity(0.7)));
    assertTrue(e.getMessage(), e.getMessage().contains("PhraseQuery"));
  }

  private static float[] scores(IndexSearcher searcher, Query query, int n) throws IOException {
    float[] out = new float[n];
    java.util.Arrays.fill(out, -1f); // -1: not matched
    for (org.apache.lucene.search.ScoreDoc sd : searcher.search(query, n).scoreDocs) {
      out[sd.doc] = sd.score;
    }
    return out;
  }

  @Test
  public void csnRubyTopTenAsUnderQLog() throws Exception {
    String why = CsnRuby.unavailable();
    Assume.assumeTrue(why, why == null);
    CsnRuby data = CsnRuby.load();
    StringBuilder table = new StringBuilder();
    try (ReferenceIndex reference = new ReferenceIndex(data)) {
      BM25Similarity bm25 = new BM25Similarity(0.9f, 0.4f);
      for (IdfForm form : IdfForm.values()) {
        for (double q : new double[] {1.0, 0.7, 0.3}) {
          QLogBM25Similarity qlog = new QLogBM25Similarity(0.9f, 0.4f, q, form);
          int same = 0;
          int idsEqual = 0;
          List<String> failures = new ArrayList<>();
          for (Map.Entry<String, String> topic : data.topics.entrySet()) {
            Query query = reference.query(topic.getValue());
            TopTen expected = reference.top(qlog, query);
            TopTen actual = reference.top(bm25,
                query == null ? null : QLogBoostedQuery.rewrite(query, reference.searcher(), qlog));
            String why2 = TopTen.sameRanking(actual, expected, TOLERANCE, 1e-12);
            if (why2 == null) {
              same++;
              idsEqual += actual.ids.equals(expected.ids) ? 1 : 0;
            } else if (failures.size() < 5) {
              failures.add(topic.getKey() + ": " + why2 + "\n  rewrite " + actual + "\n  qlog    " + expected);
            }
          }
          table.append(String.format(Locale.ROOT, "q=%s %s: %d/%d same ranking, %d with identical ids%n",
              q, form, same, data.topics.size(), idsEqual));
          assertEquals("q=" + q + " " + form + "\n" + String.join("\n", failures), data.topics.size(), same);
        }
      }
    }
    System.out.print(table);
  }
}
