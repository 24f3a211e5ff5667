package io.qlog.search;

import static org.junit.Assert.assertArrayEquals;
import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertTrue;

import io.anserini.analysis.DefaultEnglishAnalyzer;
import io.anserini.index.Constants;
import io.anserini.search.ScoredDoc;
import io.anserini.search.SimpleSearcher;
import io.qlog.similarities.QLogBM25Similarity;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.lucene.document.BinaryDocValuesField;
import org.apache.lucene.document.Document;
import org.apache.lucene.document.Field;
import org.apache.lucene.document.StringField;
import org.apache.lucene.document.TextField;
import org.apache.lucene.index.IndexWriter;
import org.apache.lucene.index.IndexWriterConfig;
import org.apache.lucene.search.similarities.Similarity;
import org.apache.lucene.store.FSDirectory;
import org.apache.lucene.util.BytesRef;
import org.junit.AfterClass;
import org.junit.BeforeClass;
import org.junit.Test;

/**
 * The static batch entry points against Anserini's own {@link SimpleSearcher#search(String, int)} (its
 * full (score, docid) sort and its {@code ScoreTiesAdjusterReranker}), on an index laid out as
 * Anserini writes one ({@code id} stored with binary doc values, {@code contents} analyzed by its
 * English analyzer), built with ties in every group and docids in the reverse of Lucene's doc order.
 */
public class TestQLogSearcher {

  private static Path indexA;
  private static Path indexB;
  private static final String[] QUERIES = {"alpha beta", "beta", "alpha gamma2", "pad beta gamma1", "nothing", "gamma3"};

  @BeforeClass
  public static void buildIndexes() throws IOException {
    indexA = build("a", 80, 4);
    indexB = build("b", 50, 3);
  }

  @AfterClass
  public static void removeIndexes() throws IOException {
    for (Path p : new Path[] {indexA, indexB}) {
      try (var files = Files.walk(p)) {
        files.sorted((x, y) -> y.compareTo(x)).forEach(f -> f.toFile().delete());
      }
    }
  }

  private static Path build(String prefix, int docs, int groups) throws IOException {
    Path dir = Files.createTempDirectory("qlog-searcher-" + prefix);
    IndexWriterConfig config = new IndexWriterConfig(DefaultEnglishAnalyzer.newDefaultInstance());
    config.setMaxBufferedDocs(17); // several segments, so doc numbers span leaves
    try (IndexWriter writer = new IndexWriter(FSDirectory.open(dir), config)) {
      for (int i = 0; i < docs; i++) {
        int g = i % groups;
        String id = String.format(Locale.ROOT, "%s%03d", prefix, 999 - i);
        String text = "alpha ".repeat(1 + g) + "beta gamma" + g + (i % 2 == 0 ? " pad" : "");
        Document doc = new Document();
        doc.add(new StringField(Constants.ID, id, Field.Store.YES));
        doc.add(new BinaryDocValuesField(Constants.ID, new BytesRef(id)));
        doc.add(new TextField(Constants.CONTENTS, text, Field.Store.YES));
        writer.addDocument(doc);
      }
    }
    return dir;
  }

  /** Anserini's hits, each score strictly below the one above as a float (the next float down where not). */
  private static float[] anseriniScores(ScoredDoc[] hits) {
    float[] scores = new float[hits.length];
    for (int i = 0; i < hits.length; i++) {
      scores[i] = hits[i].score;
    }
    AnseriniTies.strictlyDecreasing(scores);
    return scores;
  }

  private static void assertSameAsAnserini(SimpleSearcher anserini, BatchHits got, int k, byte[][] ids, String what)
      throws IOException {
    for (int i = 0; i < QUERIES.length; i++) {
      ScoredDoc[] want = anserini.search(QUERIES[i], k);
      int[] docs = got.docs(i);
      String[] gotIds = new String[docs.length];
      String[] wantIds = new String[want.length];
      for (int j = 0; j < docs.length; j++) {
        gotIds[j] = new String(ids[docs[j]], StandardCharsets.UTF_8);
      }
      for (int j = 0; j < want.length; j++) {
        wantIds[j] = want[j].docid;
      }
      assertArrayEquals(what + ", query " + QUERIES[i], wantIds, gotIds);
      assertArrayEquals(what + ", query " + QUERIES[i], anseriniScores(want), got.scores(i), 0f);
    }
  }

  @Test
  public void batchesEqualAnserinisSortedSearchAtEveryCutOff() throws Exception {
    for (double q : new double[] {1.0, 0.5, 0.1}) {
      Similarity model = new QLogBM25Similarity(0.9f, 0.4f, q, "lucene");
      try (QLogSearcher ours = new QLogSearcher(indexA.toString());
           SimpleSearcher anserini = new SimpleSearcher(indexA.toString())) {
        QLogSearcher.install(anserini, model);
        byte[][] ids = Docids.of(QLogSearcher.reader_of(ours));
        for (int k : new int[] {1, 2, 5, 19, 20, 21, 40, 79, 80, 1000}) {
          BatchHits got = QLogSearcher.search_batch(ours, model, QUERIES, k, 2);
          assertSameAsAnserini(anserini, got, k, ids, "q=" + q + " k=" + k);
        }
      }
    }
  }

  @Test
  public void perQueryModelsEqualOneModelAtATime() throws Exception {
    double[] qs = {0.3, 1.0, 0.3, 0.7, 1.0, 0.7};
    try (QLogSearcher ours = new QLogSearcher(indexA.toString())) {
      BatchHits mixed = QLogSearcher.search_batch_q(ours, 0.9f, 0.4f, "lucene", qs, QUERIES, 30, 2);
      for (int i = 0; i < QUERIES.length; i++) {
        BatchHits alone = QLogSearcher.search_batch(ours, new QLogBM25Similarity(0.9f, 0.4f, qs[i], "lucene"),
            new String[] {QUERIES[i]}, 30, 1);
        assertArrayEquals(QUERIES[i], alone.docs(0), mixed.docs(i));
        assertArrayEquals(QUERIES[i], alone.scores(0), mixed.scores(i), 0f);
      }
    }
  }

  @Test
  public void concurrentBatchesKeepTheirIndexAndModelWhileModelsAreInstalled() throws Exception {
    try (QLogSearcher a = new QLogSearcher(indexA.toString()); QLogSearcher b = new QLogSearcher(indexB.toString())) {
      QLogSearcher[] searchers = {a, b};
      Similarity[] models = {new QLogBM25Similarity(0.9f, 0.4f, 1.0, "lucene"),
          new QLogBM25Similarity(0.9f, 0.4f, 0.3, "lucene")};
      BatchHits[][] expected = new BatchHits[2][2];
      for (int s = 0; s < 2; s++) {
        for (int m = 0; m < 2; m++) {
          expected[s][m] = QLogSearcher.search_batch(searchers[s], models[m], QUERIES, 25, 1);
        }
      }
      AtomicInteger crossed = new AtomicInteger();
      List<Thread> threads = new ArrayList<>();
      for (int t = 0; t < 4; t++) {
        final int s = t / 2;
        final int m = t % 2;
        threads.add(new Thread(() -> {
          for (int round = 0; round < 50; round++) {
            try {
              BatchHits got = QLogSearcher.search_batch(searchers[s], models[m], QUERIES, 25, 2);
              if (!java.util.Arrays.equals(got.docs, expected[s][m].docs)
                  || !java.util.Arrays.equals(got.scores, expected[s][m].scores)) {
                crossed.incrementAndGet();
              }
              QLogSearcher.install(searchers[s], models[1 - m]); // the installed model never leaks into a batch
            } catch (Exception e) {
              crossed.incrementAndGet();
            }
          }
        }));
      }
      threads.forEach(Thread::start);
      for (Thread t : threads) {
        t.join();
      }
      assertEquals(0, crossed.get());
    }
  }

  @Test
  public void writtenScoresDecreaseAsFloatsAndKeepPyserinisTextWhereItDoes() {
    // Below 16 a 1e-6 step is always a smaller float: one micro below the line above.
    assertEquals(8_019_999L, RunLines.writtenMicros(8.0199995f, 8_020_000L, RunLines.asFloat(8_020_000L)));
    // A score already below as text and as float is written as Pyserini writes it.
    assertEquals(RunLines.micros(3.25f), RunLines.writtenMicros(3.25f, 4_000_000L, 4f));
    for (float start : new float[] {0.5f, 12.3456f, 20f, 5000f, 1.5e6f}) {
      long previous = RunLines.micros(start);
      float previousFloat = RunLines.asFloat(previous);
      for (int i = 0; i < 200; i++) { // 200 ties in a row
        long micros = RunLines.writtenMicros(start, previous, previousFloat);
        assertTrue(start + ": " + micros + " < " + previous, micros < previous);
        assertTrue(start + ": float", RunLines.asFloat(micros) < previousFloat);
        // the largest such text: one micro more would not read as a smaller float, or is the line above
        assertTrue(start + ": largest", micros + 1 == previous || RunLines.asFloat(micros + 1) >= previousFloat);
        previous = micros;
        previousFloat = RunLines.asFloat(micros);
      }
    }
  }
}
