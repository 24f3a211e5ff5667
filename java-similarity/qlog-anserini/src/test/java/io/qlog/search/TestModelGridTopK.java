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
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Random;
import org.apache.lucene.analysis.standard.StandardAnalyzer;
import org.apache.lucene.document.BinaryDocValuesField;
import org.apache.lucene.document.Document;
import org.apache.lucene.document.Field;
import org.apache.lucene.document.StringField;
import org.apache.lucene.document.TextField;
import org.apache.lucene.index.DirectoryReader;
import org.apache.lucene.index.IndexWriter;
import org.apache.lucene.index.IndexWriterConfig;
import org.apache.lucene.index.NoMergePolicy;
import org.apache.lucene.index.Term;
import org.apache.lucene.search.BooleanClause;
import org.apache.lucene.search.BooleanQuery;
import org.apache.lucene.search.BoostQuery;
import org.apache.lucene.search.IndexSearcher;
import org.apache.lucene.search.PhraseQuery;
import org.apache.lucene.search.Query;
import org.apache.lucene.search.ScoreDoc;
import org.apache.lucene.search.TermQuery;
import org.apache.lucene.search.similarities.BM25Similarity;
import org.apache.lucene.search.similarities.Similarity;
import org.apache.lucene.store.ByteBuffersDirectory;
import org.apache.lucene.util.BytesRef;
import org.junit.AfterClass;
import org.junit.BeforeClass;
import org.junit.Test;

/**
 * {@link ModelGridTopK} against Lucene: for every model of a grid, its top k must be what a pruned
 * Lucene search with that model installed returns ({@link AnseriniTopK}, itself checked against
 * scoring every match), document for document and float for float. The index has several segments,
 * deleted documents, a doc-number window boundary inside a segment, random texts with repeated
 * terms and lengths, and groups of equal scores that cut-offs split.
 */
public class TestModelGridTopK {

  private static ByteBuffersDirectory dir;
  private static DirectoryReader reader;
  private static final int DOCS = ModelGridTopK.WINDOW + 4000; // one segment spans two windows
  private static final String[] VOCABULARY = {"common", "mid", "pad", "rare1", "rare2", "rare3", "x", "y", "z"};

  @BeforeClass
  public static void build() throws IOException {
    dir = new ByteBuffersDirectory();
    Random random = new Random(7);
    List<String> ids = new ArrayList<>();
    for (int i = 0; i < DOCS; i++) {
      ids.add(i % 2 == 0 ? "doc" + (i * 7919 % DOCS) : "é" + i);
    }
    Collections.shuffle(ids, random);
    IndexWriterConfig config = new IndexWriterConfig(new StandardAnalyzer()).setMergePolicy(NoMergePolicy.INSTANCE);
    try (IndexWriter writer = new IndexWriter(dir, config)) {
      for (int i = 0; i < DOCS; i++) {
        Document doc = new Document();
        doc.add(new StringField(Constants.ID, ids.get(i), Field.Store.YES));
        doc.add(new BinaryDocValuesField(Constants.ID, new BytesRef(ids.get(i))));
        StringBuilder text = new StringBuilder("common");
        if (i % 3 == 0) {
          text.append(" pad".repeat(i % 4)); // few distinct (tf, length) pairs: many equal scores
        } else {
          for (int w = random.nextInt(12); w > 0; w--) {
            String word = VOCABULARY[Math.min(VOCABULARY.length - 1, (int) (random.nextDouble() * random.nextDouble() * 12))];
            text.append(' ').append(word);
          }
        }
        if (i % 97 == 0) {
          text.append(" rare1");
        }
        doc.add(new TextField(Constants.CONTENTS, text.toString(), Field.Store.NO));
        writer.addDocument(doc);
        if (i == 2000 || i == DOCS - 1000) {
          writer.commit(); // a new segment; the middle one spans two windows
        }
      }
      for (int i = 0; i < DOCS; i += 37) {
        writer.deleteDocuments(new Term(Constants.ID, ids.get(i)));
      }
    }
    reader = DirectoryReader.open(dir);
  }

  @AfterClass
  public static void close() throws IOException {
    reader.close();
    dir.close();
  }

  private static Similarity[] grid() {
    return new Similarity[] {
      new QLogBM25Similarity(0.9f, 0.4f, 0.05, "lucene"), new QLogBM25Similarity(0.9f, 0.4f, 0.5, "lucene"),
      new QLogBM25Similarity(0.9f, 0.4f, 1.0, "lucene"), new QLogBM25Similarity(1.2f, 0.75f, 0.3, "rsj"),
      new QLogBM25Similarity(0.9f, 0.4f, 1.5, "lucene"), new BM25Similarity(0.9f, 0.4f),
      new IdfPowerBM25Similarity(0.9f, 0.4f, 2.0f), new DPHSimilarity(),
    };
  }

  @Test
  public void theIndexIsWhatTheTestNeeds() {
    assertTrue(reader.leaves().size() >= 3);
    assertTrue(reader.hasDeletions());
    assertTrue(reader.leaves().stream().anyMatch(l -> l.reader().maxDoc() > ModelGridTopK.WINDOW));
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
    Query query = new BooleanQuery.Builder()
        .add(new BoostQuery(new TermQuery(new Term(Constants.CONTENTS, "mid")), 3f), BooleanClause.Occur.SHOULD)
        .add(new BoostQuery(new BoostQuery(new TermQuery(new Term(Constants.CONTENTS, "x")), 2f), 0.5f),
            BooleanClause.Occur.SHOULD)
        .add(new TermQuery(new Term(Constants.CONTENTS, "common")), BooleanClause.Occur.SHOULD)
        .build();
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
    Query must = new BooleanQuery.Builder()
        .add(new TermQuery(new Term(Constants.CONTENTS, "common")), BooleanClause.Occur.MUST)
        .add(new TermQuery(new Term(Constants.CONTENTS, "mid")), BooleanClause.Occur.SHOULD).build();
    Query phrase = new PhraseQuery(Constants.CONTENTS, "common", "pad");
    Query minimum = new BooleanQuery.Builder().setMinimumNumberShouldMatch(2)
        .add(new TermQuery(new Term(Constants.CONTENTS, "common")), BooleanClause.Occur.SHOULD)
        .add(new TermQuery(new Term(Constants.CONTENTS, "mid")), BooleanClause.Occur.SHOULD).build();
    for (Query query : new Query[] {must, phrase, minimum}) {
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
  private static ScoreDoc[] lucene(Similarity model, Query query, int k, Docids.IdOrder ids) throws IOException {
    IndexSearcher searcher = new IndexSearcher(reader);
    searcher.setSimilarity(model);
    return QLogSearcher.anseriniTopK(searcher, query, k, ids);
  }

  private static Query parse(String text) {
    BooleanQuery.Builder b = new BooleanQuery.Builder();
    for (String t : text.split(" ")) {
      b.add(new TermQuery(new Term(Constants.CONTENTS, t)), BooleanClause.Occur.SHOULD);
    }
    return b.build();
  }

  private static float[] scores(ScoreDoc[] docs) {
    float[] out = new float[docs.length];
    for (int i = 0; i < docs.length; i++) {
      out[i] = docs[i].score;
    }
    return out;
  }

  private static float[] scoresOf(long[] codes) {
    float[] out = new float[codes.length];
    for (int i = 0; i < codes.length; i++) {
      out[i] = AnseriniTopK.scoreOf(codes[i]);
    }
    return out;
  }
}
