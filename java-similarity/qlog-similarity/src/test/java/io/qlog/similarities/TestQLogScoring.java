package io.qlog.similarities;

import static org.junit.Assert.assertEquals;

import io.qlog.similarities.QLogBM25Similarity.IdfForm;
import java.util.HashMap;
import java.util.Map;
import org.apache.lucene.analysis.core.WhitespaceAnalyzer;
import org.apache.lucene.document.Document;
import org.apache.lucene.document.Field;
import org.apache.lucene.document.StringField;
import org.apache.lucene.document.TextField;
import org.apache.lucene.index.DirectoryReader;
import org.apache.lucene.index.IndexWriter;
import org.apache.lucene.index.IndexWriterConfig;
import org.apache.lucene.index.Term;
import org.apache.lucene.search.IndexSearcher;
import org.apache.lucene.search.ScoreDoc;
import org.apache.lucene.search.TermQuery;
import org.apache.lucene.search.TopDocs;
import org.apache.lucene.store.ByteBuffersDirectory;
import org.apache.lucene.store.Directory;
import org.junit.Test;

/**
 * End to end through a real index and IndexSearcher: each score equals the README's formula,
 * idf_q * f / (f + k1 * (1 - b + b * dl / avgdl)), evaluated here by hand from the documents' texts
 * (lengths below 40 tokens are stored exactly in Lucene's one-byte norm, so dl is exact).
 */
public class TestQLogScoring {
  private static final String[] DOCS = {
    "parse config file config", "read file", "parse json", "write file to disk now please", "handle web socket upgrade"
  };

  @Test
  public void scoresEqualTheFormulaOnARealIndex() throws Exception {
    try (Directory dir = new ByteBuffersDirectory()) {
      try (IndexWriter w = new IndexWriter(dir, new IndexWriterConfig(new WhitespaceAnalyzer()))) {
        for (int i = 0; i < DOCS.length; i++) {
          Document d = new Document();
          d.add(new StringField("id", "d" + i, Field.Store.YES));
          d.add(new TextField("body", DOCS[i], Field.Store.NO));
          w.addDocument(d);
        }
      }
      double avgdl = 0;
      for (String d : DOCS) {
        avgdl += d.split(" ").length;
      }
      avgdl /= DOCS.length;
      try (DirectoryReader reader = DirectoryReader.open(dir)) {
        for (double q : new double[] {0.05, 0.7, 1.0, 1.5}) {
          for (IdfForm form : IdfForm.values()) {
            IndexSearcher searcher = new IndexSearcher(reader);
            searcher.setSimilarity(new QLogBM25Similarity(0.9f, 0.4f, q, form));
            for (String term : new String[] {"file", "config", "parse", "upgrade"}) {
              TopDocs top = searcher.search(new TermQuery(new Term("body", term)), 10);
              Map<String, Double> expected = expected(term, q, form, avgdl);
              assertEquals(expected.size(), top.scoreDocs.length);
              for (ScoreDoc sd : top.scoreDocs) {
                String id = searcher.storedFields().document(sd.doc).get("id");
                double want = expected.get(id);
                assertEquals(term + " " + id + " q=" + q + " " + form, want, sd.score, Math.max(1e-6, want * 1e-5));
              }
            }
          }
        }
      }
    }
  }

  private static Map<String, Double> expected(String term, double q, IdfForm form, double avgdl) {
    int n = 0;
    for (String d : DOCS) {
      if ((" " + d + " ").contains(" " + term + " ")) {
        n++;
      }
    }
    double odds = (DOCS.length - n + 0.5) / (n + 0.5) + (form == IdfForm.LUCENE ? 1 : 0);
    double idf = Math.max(0, q == 1.0 ? Math.log(odds) : (Math.pow(odds, 1 - q) - 1) / (1 - q));
    Map<String, Double> out = new HashMap<>();
    for (int i = 0; i < DOCS.length; i++) {
      String[] tokens = DOCS[i].split(" ");
      int f = 0;
      for (String t : tokens) {
        f += t.equals(term) ? 1 : 0;
      }
      if (f > 0) {
        out.put("d" + i, idf * f / (f + 0.9 * (1 - 0.4 + 0.4 * tokens.length / avgdl)));
      }
    }
    return out;
  }
}
