package io.qlog.search;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertNotNull;
import static org.junit.Assert.assertNull;
import static org.junit.Assert.assertTrue;

import io.anserini.index.Constants;
import io.qlog.similarities.DPHSimilarity;
import io.qlog.similarities.IdfPowerBM25Similarity;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import org.apache.lucene.index.Term;
import org.apache.lucene.search.IndexSearcher;
import org.apache.lucene.search.Query;
import org.apache.lucene.search.ScoreDoc;
import org.apache.lucene.search.similarities.BM25Similarity;
import org.apache.lucene.search.similarities.Similarity;
import org.junit.Test;

/**
 * {@link TermAtATimeTopK} against Lucene: its top k must be what a pruned Lucene search with the
 * same model installed returns ({@link AnseriniTopK}, itself checked against scoring every match),
 * document for document and float for float, for every kind of model, k from 1 to every document,
 * on a {@link WindowedIndex} (several segments, deletions, a window boundary inside a segment, tie
 * groups split by the cut-off).
 */
public class TestTermAtATimeTopK extends WindowedIndex {

  private static final String[] QUERIES = {
    "common", "common rare1", "mid common pad", "rare2 mid x y z", "rare3", "absent", "x x y", "pad rare1 z common"};


  @Test
  public void everyModelsTopKIsLucenes() throws IOException {
    Docids.IdOrder ids = Docids.order(reader);
    int tiesAtTheCut = 0;
    for (Similarity model : TestModelGridTopK.grid()) {
      IndexSearcher searcher = searcher(model);
      for (String text : QUERIES) {
        for (int k : new int[] {1, 10, 100, 1000, 5000, DOCS}) {
          String what = model + " query=" + text + " k=" + k;
          Query query = TestModelGridTopK.parse(text);
          long[] got = TermAtATimeTopK.search(searcher, query, k, ids, Long.MAX_VALUE);
          if (got == null) {
            // left to Lucene: only where term scores lie too far apart for exact sums (idf^2 of a term in
            // every document next to a rare one); BM25 and q-log BM25 here never are
            assertTrue(what, model instanceof IdfPowerBM25Similarity || model instanceof DPHSimilarity);
            continue;
          }
          ScoreDoc[] want = TestModelGridTopK.lucene(model, query, k, ids);
          assertSame(what, want, got, ids);
          ScoreDoc[] next = TestModelGridTopK.lucene(model, query, k + 1, ids);
          if (next.length > k && next[k].score == next[k - 1].score) {
            tiesAtTheCut++; // the k-th and (k+1)-th tie: which enters is decided by docid
          }
        }
      }
    }
    assertTrue("no tie crossed a cut-off: the test would not see a wrong tie order", tiesAtTheCut > 10);
  }

  @Test
  public void theSearcherTakesEitherRouteWithTheSameResult() throws IOException {
    // what every batch search runs (term at a time where k is large next to the postings, else Lucene),
    // and term at a time with no limit, as the benchmark's term-at-a-time path times it
    Docids.IdOrder ids = Docids.order(reader);
    IndexSearcher searcher = searcher(new BM25Similarity(0.9f, 0.4f));
    List<Query> queries = new ArrayList<>(List.of(notBagsOfWords())); // these fall back to Lucene's pass on every route
    for (String text : QUERIES) {
      queries.add(TestModelGridTopK.parse(text));
    }
    for (Query query : queries) {
      for (int k : new int[] {1, 10, TermAtATimeTopK.MIN_K, 1000, DOCS}) {
        ScoreDoc[] want = TopKRouter.lucene(searcher, query, k, ids);
        assertSameHits(query + " k=" + k, want, TopKRouter.routed(searcher, query, k, ids));
        assertSameHits(query + " k=" + k, want, TopKRouter.termAtATime(searcher, query, k, ids, Long.MAX_VALUE));
      }
    }
  }

  private static void assertSameHits(String what, ScoreDoc[] want, ScoreDoc[] got) {
    assertEquals(what, want.length, got.length);
    for (int i = 0; i < want.length; i++) {
      assertEquals(what, want[i].doc, got[i].doc);
      assertEquals(what, want[i].score, got[i].score, 0f);
    }
  }

  @Test
  public void boostsAreScoredAsBoostQueryScoresThem() throws IOException {
    Docids.IdOrder ids = Docids.order(reader);
    Query query = boosted();
    for (Similarity model : new Similarity[] {new BM25Similarity(0.9f, 0.4f), TestModelGridTopK.grid()[0]}) {
      long[] got = TermAtATimeTopK.search(searcher(model), query, 500, ids, Long.MAX_VALUE);
      assertNotNull(got);
      assertSame(model.toString(), TestModelGridTopK.lucene(model, query, 500, ids), got, ids);
    }
  }

  @Test
  public void queriesWithMorePostingsThanAskedForAreLeftToLucene() throws IOException {
    IndexSearcher searcher = searcher(new BM25Similarity(0.9f, 0.4f));
    Query query = TestModelGridTopK.parse("common rare1");
    int postings = reader.docFreq(new Term(Constants.CONTENTS, "common"))
        + reader.docFreq(new Term(Constants.CONTENTS, "rare1"));
    Docids.IdOrder ids = Docids.order(reader);
    assertNull(TermAtATimeTopK.search(searcher, query, 10, ids, postings - 1));
    assertNotNull(TermAtATimeTopK.search(searcher, query, 10, ids, postings));
  }

  @Test
  public void otherQueriesAreLeftToLucene() throws IOException {
    IndexSearcher searcher = searcher(new BM25Similarity(0.9f, 0.4f));
    for (Query query : notBagsOfWords()) {
      assertNull(query.toString(), TermAtATimeTopK.search(searcher, query, 1000, Docids.order(reader),
          Long.MAX_VALUE));
    }
  }

  @Test
  public void theHistogramFindsTheBucketOfTheKthLargest() {
    java.util.Random random = new java.util.Random(5);
    TermAtATimeTopK.ScoreHistogram histogram = new TermAtATimeTopK.ScoreHistogram();
    for (int trial = 0; trial < 200; trial++) {
      int n = 1 + random.nextInt(500);
      float[] values = new float[n];
      for (int i = 0; i < n; i++) {
        values[i] = random.nextInt(4) == 0 ? 1f : (float) Math.scalb(random.nextFloat(), random.nextInt(20) - 10);
        histogram.add(values[i]);
      }
      float[] sorted = values.clone();
      java.util.Arrays.sort(sorted);
      int k = 1 + random.nextInt(n);
      int bucket = histogram.kthBucket(k);
      float kth = sorted[n - k];
      assertEquals(TermAtATimeTopK.ScoreHistogram.bucket(kth), bucket);
      assertTrue(TermAtATimeTopK.ScoreHistogram.lowest(bucket) <= kth);
    }
  }

  private static IndexSearcher searcher(Similarity model) {
    IndexSearcher searcher = new IndexSearcher(reader);
    searcher.setSimilarity(model);
    return searcher;
  }

  private static void assertSame(String what, ScoreDoc[] want, long[] got, Docids.IdOrder ids) {
    assertEquals(what, want.length, got.length);
    for (int i = 0; i < want.length; i++) {
      assertEquals(what + " rank " + i, want[i].doc, ids.doc()[AnseriniTopK.rankOf(got[i])]);
      assertEquals(what + " rank " + i, want[i].score, AnseriniTopK.scoreOf(got[i]), 0f);
    }
  }
}
