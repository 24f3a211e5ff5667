package io.qlog.similarities;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertNotEquals;
import static org.junit.Assert.assertTrue;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.apache.lucene.analysis.core.WhitespaceAnalyzer;
import org.apache.lucene.document.Document;
import org.apache.lucene.document.Field;
import org.apache.lucene.document.StringField;
import org.apache.lucene.document.TextField;
import org.apache.lucene.index.DirectoryReader;
import org.apache.lucene.index.IndexWriter;
import org.apache.lucene.index.IndexWriterConfig;
import org.apache.lucene.index.Term;
import org.apache.lucene.search.CollectionStatistics;
import org.apache.lucene.search.Explanation;
import org.apache.lucene.search.IndexSearcher;
import org.apache.lucene.search.ScoreDoc;
import org.apache.lucene.search.TermQuery;
import org.apache.lucene.search.TermStatistics;
import org.apache.lucene.search.TopScoreDocCollectorManager;
import org.apache.lucene.search.similarities.Similarity.SimScorer;
import org.apache.lucene.store.ByteBuffersDirectory;
import org.apache.lucene.store.Directory;
import org.apache.lucene.util.BytesRef;
import org.apache.lucene.util.SmallFloat;
import org.junit.Test;

/**
 * DPH against the parts of Lucene's similarity contract it meets (finite, non-negative scores that
 * {@code explain} repeats), the part it does not (monotone in tf), and why that forces exhaustive
 * scoring: on a real index, Lucene's pruning loses the best document and our threshold keeps it.
 * Lucene's {@code BaseSimilarityTestCase} cannot be used: it fails DPH on monotonicity by design.
 */
public class TestDPHSimilarity {

  private static final DPHSimilarity DPH = new DPHSimilarity();

  private static SimScorer scorer(long docs, long sumTotalTermFreq, long docFreq, long totalTermFreq) {
    CollectionStatistics field = new CollectionStatistics("f", docs, docs, sumTotalTermFreq, sumTotalTermFreq);
    TermStatistics term = new TermStatistics(new BytesRef("x"), docFreq, totalTermFreq);
    return DPH.scorer(1f, field, term);
  }

  private static long norm(int length) {
    return SmallFloat.intToByte4(length);
  }

  @Test
  public void scoresAreFiniteNonNegativeAndEqualTheirExplanation() {
    Random random = new Random(42);
    for (int i = 0; i < 20_000; i++) {
      long docs = 1 + random.nextInt(1_000_000);
      long docFreq = 1 + (long) (random.nextDouble() * docs);
      long totalTermFreq = docFreq + random.nextInt(1000);
      long sumTotalTermFreq = docs + totalTermFreq + (long) (random.nextDouble() * 1e8);
      SimScorer s = scorer(docs, sumTotalTermFreq, docFreq, totalTermFreq);
      float freq = 1 + random.nextInt(200);
      long norm = 1 + random.nextInt(255);
      float score = s.score(freq, norm);
      assertTrue("score " + score, Float.isFinite(score) && score >= 0);
      Explanation e = s.explain(Explanation.match(freq, "freq"), norm);
      assertEquals(score, e.getValue().floatValue(), 0f);
    }
  }

  @Test
  public void notMonotoneInTfSoItAsksForExhaustiveScoring() {
    SimScorer s = scorer(300, 3000, 132, 135);
    // in a 3-token document, a third occurrence makes the term fill it: DPH drops to 0
    assertTrue(s.score(2, norm(3)) > 0);
    assertEquals(0f, s.score(3, norm(3)), 0f);
    assertEquals(Integer.MAX_VALUE, ExhaustiveScoring.totalHitsThreshold(DPH, 10));
    assertEquals(10, ExhaustiveScoring.totalHitsThreshold(new QLogBM25Similarity(0.9f, 0.4f, 0.5, "lucene"), 10));
  }

  /**
   * 700 documents hold "x" once among 39 other tokens; among them, at postings 300 and 301 (inside
   * the second postings block of 256, or the third of 128 on Lucene 9), "x x x" and "x x y1 y2 y3 y4".
   * The second is DPH's best document, but its (freq 2, length 6) impact is dominated by "x x x"'s
   * (freq 3, length 3), whose score is 0, so that block's bound is 0: once the first block has given a
   * top-1 hit, a pruning search skips the block and never scores the best document.
   */
  @Test
  public void pruningLosesTheBestDocumentAndTheThresholdKeepsIt() throws IOException {
    try (Directory dir = new ByteBuffersDirectory()) {
      IndexWriterConfig config = new IndexWriterConfig(new WhitespaceAnalyzer()).setSimilarity(DPH);
      try (IndexWriter writer = new IndexWriter(dir, config)) {
        for (int i = 0; i < 700; i++) {
          String text;
          if (i == 300) {
            text = "x x x";
          } else if (i == 301) {
            text = "x x y1 y2 y3 y4";
          } else {
            List<String> tokens = new ArrayList<>(List.of("x"));
            for (int j = 0; j < 39; j++) {
              tokens.add("p" + i + "_" + j);
            }
            text = String.join(" ", tokens);
          }
          Document doc = new Document();
          doc.add(new StringField("id", Integer.toString(i), Field.Store.YES));
          doc.add(new TextField("f", text, Field.Store.NO));
          writer.addDocument(doc);
        }
        writer.forceMerge(1);
      }
      try (DirectoryReader reader = DirectoryReader.open(dir)) {
        IndexSearcher searcher = new IndexSearcher(reader);
        searcher.setSimilarity(DPH);
        TermQuery query = new TermQuery(new Term("f", "x"));
        ScoreDoc exhaustive = top1(searcher, query, Integer.MAX_VALUE);
        assertEquals("301", reader.storedFields().document(exhaustive.doc).get("id"));
        assertNotEquals("Lucene's pruning keeps the best DPH document here: the demonstration no longer holds",
            exhaustive.doc, top1(searcher, query, 1).doc);
        ScoreDoc safe = top1(searcher, query, ExhaustiveScoring.totalHitsThreshold(DPH, 1));
        assertEquals(exhaustive.doc, safe.doc);
        assertEquals(exhaustive.score, safe.score, 0f);
      }
    }
  }

  private static ScoreDoc top1(IndexSearcher searcher, TermQuery query, int totalHitsThreshold) throws IOException {
    return searcher.search(query, new TopScoreDocCollectorManager(1, null, totalHitsThreshold)).scoreDocs[0];
  }
}
