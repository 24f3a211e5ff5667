package io.qlog.search;

import static org.junit.Assert.assertArrayEquals;
import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertNotNull;
import static org.junit.Assert.assertNull;
import static org.junit.Assert.assertTrue;

import io.anserini.index.Constants;
import io.qlog.similarities.DPHSimilarity;
import io.qlog.similarities.IdfPowerBM25Similarity;
import io.qlog.similarities.QLogBM25Similarity;
import java.io.IOException;
import java.util.Random;
import org.apache.lucene.index.Term;
import org.apache.lucene.search.BooleanClause;
import org.apache.lucene.search.BooleanQuery;
import org.apache.lucene.search.BoostQuery;
import org.apache.lucene.search.IndexSearcher;
import org.apache.lucene.search.Query;
import org.apache.lucene.search.ScoreDoc;
import org.apache.lucene.search.TermQuery;
import org.apache.lucene.search.similarities.BM25Similarity;
import org.apache.lucene.search.similarities.Similarity;
import org.junit.Test;

/**
 * {@link ModelGridTopK} against Lucene: for every model of a grid, its top k must be what a pruned
 * Lucene search with that model installed returns ({@link AnseriniTopK}, itself checked against
 * scoring every match), document for document and float for float, on a {@link WindowedIndex}.
 */
public class TestModelGridTopK extends WindowedIndex {


  /** Models of every kind: q-log BM25 at several q and forms, BM25, idf-power BM25, DPH (not monotone in tf). */
  static Similarity[] grid() {
    return new Similarity[] {
      new QLogBM25Similarity(0.9f, 0.4f, 0.05, "lucene"), new QLogBM25Similarity(0.9f, 0.4f, 0.5, "lucene"),
      new QLogBM25Similarity(0.9f, 0.4f, 1.0, "lucene"), new QLogBM25Similarity(1.2f, 0.75f, 0.3, "rsj"),
      new QLogBM25Similarity(0.9f, 0.4f, 1.5, "lucene"), new BM25Similarity(0.9f, 0.4f),
      new IdfPowerBM25Similarity(0.9f, 0.4f, 2.0f), new DPHSimilarity(),
    };
  }

  @Test
  public void everyModelsTopKIsLucenes() throws IOException {
    Docids.IdOrder ids = Docids.order(reader);
    Similarity[] models = grid();
    String[] queries = {"common", "common rare1", "mid common pad", "rare2 mid x y z", "rare3", "absent", "x x y"};
    for (String text : queries) {
      for (int k : new int[] {1, 10, 100, 1000, DOCS}) {
        long[][] got = ModelGridTopK.search(new IndexSearcher(reader), parse(text), models, k, ids);
        assertNotNull(got);
        for (int m = 0; m < models.length; m++) {
          String what = models[m] + " query=" + text + " k=" + k;
          if (got[m] == null) {
            // left to Lucene: only where term scores lie too far apart for exact sums (idf^2 of a term in
            // every document next to a rare one); BM25 and q-log BM25 here never are
            assertTrue(what, models[m] instanceof IdfPowerBM25Similarity || models[m] instanceof DPHSimilarity);
            continue;
          }
          ScoreDoc[] want = lucene(models[m], parse(text), k, ids);
          assertEquals(what, want.length, got[m].length);
          for (int i = 0; i < want.length; i++) {
            assertEquals(what + " rank " + i, want[i].doc, ids.doc()[AnseriniTopK.rankOf(got[m][i])]);
            assertEquals(what + " rank " + i, want[i].score, AnseriniTopK.scoreOf(got[m][i]), 0f);
          }
        }
      }
    }
  }

  @Test
  public void boostsAreScoredAsBoostQueryScoresThem() throws IOException {
    Docids.IdOrder ids = Docids.order(reader);
    Query query = boosted();
    Similarity[] models = {new QLogBM25Similarity(0.9f, 0.4f, 0.3, "lucene"), new BM25Similarity(0.9f, 0.4f)};
    long[][] got = ModelGridTopK.search(new IndexSearcher(reader), query, models, 500, ids);
    for (int m = 0; m < models.length; m++) {
      assertNotNull(got[m]);
      ScoreDoc[] want = lucene(models[m], query, 500, ids);
      assertArrayEquals(scores(want), scoresOf(got[m]), 0f);
    }
  }

  @Test
  public void termScoresTooFarApartAreLeftToLucene() throws IOException {
    // a sum of a 1e-7 and a 1e4 term score is not exact in double for every order: no grid answer
    Query query = new BooleanQuery.Builder()
        .add(new BoostQuery(new TermQuery(new Term(Constants.CONTENTS, "common")), 1e-7f), BooleanClause.Occur.SHOULD)
        .add(new BoostQuery(new TermQuery(new Term(Constants.CONTENTS, "rare1")), 1e4f), BooleanClause.Occur.SHOULD)
        .build();
    Similarity[] models = {new BM25Similarity(0.9f, 0.4f)};
    long[][] got = ModelGridTopK.search(new IndexSearcher(reader), query, models, 10, Docids.order(reader));
    assertNull(got[0]);
  }

  @Test
  public void otherQueriesAreLeftToLucene() throws IOException {
    for (Query query : notBagsOfWords()) {
      assertNull(query.toString(), ModelGridTopK.search(new IndexSearcher(reader), query, grid(), 10,
          Docids.order(reader)));
    }
  }

  @Test
  public void kthLargestIsTheKthOfTheSortedValues() {
    Random random = new Random(3);
    for (int trial = 0; trial < 200; trial++) {
      int n = 1 + random.nextInt(300);
      float[] values = new float[n];
      for (int i = 0; i < n; i++) {
        values[i] = random.nextInt(4) == 0 ? 1f : random.nextInt(50) / 7f; // many ties
      }
      float[] sorted = values.clone();
      java.util.Arrays.sort(sorted);
      int k = 1 + random.nextInt(n);
      assertEquals(sorted[n - k], ModelGridTopK.kthLargest(values.clone(), n, k), 0f);
    }
  }

  /** A pruned Lucene search with {@code model} installed, in Anserini's order (checked in TestAnseriniTopK). */
  static ScoreDoc[] lucene(Similarity model, Query query, int k, Docids.IdOrder ids) throws IOException {
    IndexSearcher searcher = new IndexSearcher(reader);
    searcher.setSimilarity(model);
    return TopKRouter.lucene(searcher, query, k, ids);
  }

  static Query parse(String text) {
    BooleanQuery.Builder b = new BooleanQuery.Builder();
    for (String t : text.split(" ")) {
      b.add(new TermQuery(new Term(Constants.CONTENTS, t)), BooleanClause.Occur.SHOULD);
    }
    return b.build();
  }

  static float[] scores(ScoreDoc[] docs) {
    float[] out = new float[docs.length];
    for (int i = 0; i < docs.length; i++) {
      out[i] = docs[i].score;
    }
    return out;
  }

  static float[] scoresOf(long[] codes) {
    float[] out = new float[codes.length];
    for (int i = 0; i < codes.length; i++) {
      out[i] = AnseriniTopK.scoreOf(codes[i]);
    }
    return out;
  }
}
