package io.qlog.search;

import static org.junit.Assert.assertArrayEquals;
import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertTrue;

import io.anserini.index.Constants;
import io.qlog.similarities.QLogBM25Similarity;
import java.io.IOException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.Random;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import org.apache.lucene.analysis.standard.StandardAnalyzer;
import org.apache.lucene.document.BinaryDocValuesField;
import org.apache.lucene.document.Document;
import org.apache.lucene.document.Field;
import org.apache.lucene.document.StringField;
import org.apache.lucene.document.TextField;
import org.apache.lucene.index.DirectoryReader;
import org.apache.lucene.index.IndexWriter;
import org.apache.lucene.index.IndexWriterConfig;
import org.apache.lucene.index.LeafReaderContext;
import org.apache.lucene.index.NoMergePolicy;
import org.apache.lucene.index.Term;
import org.apache.lucene.search.BooleanClause;
import org.apache.lucene.search.BooleanQuery;
import org.apache.lucene.search.IndexSearcher;
import org.apache.lucene.search.Query;
import org.apache.lucene.search.ScoreDoc;
import org.apache.lucene.search.TermQuery;
import org.apache.lucene.store.ByteBuffersDirectory;
import org.apache.lucene.util.BytesRef;
import org.junit.AfterClass;
import org.junit.BeforeClass;
import org.junit.Test;

/**
 * {@link AnseriniTopK} against the definition of Anserini's order computed the slow way: every
 * matching document scored (no pruning), then sorted by score descending and docid ascending as
 * unsigned bytes. The index has several segments, docids in an order unrelated to doc numbers
 * (shuffled, some sharing long prefixes, some non-ASCII), and large groups of equal scores, so that
 * most cut-offs split a tie.
 */
public class TestAnseriniTopK {

  private static ByteBuffersDirectory dir;
  private static DirectoryReader reader;
  private static ExecutorService pool;
  private static final String[] QUERIES = {"common", "common rare1", "mid common", "rare2 mid", "rare3", "absent"};

  @BeforeClass
  public static void build() throws IOException {
    dir = new ByteBuffersDirectory();
    Random random = new Random(42);
    List<String> ids = new ArrayList<>();
    for (int i = 0; i < 3000; i++) {
      // Long shared prefixes, numbers that sort differently as text and as numbers, non-ASCII bytes.
      ids.add(switch (i % 3) {
        case 0 -> "src/pkg/module/File.java:Method" + i;
        case 1 -> "d" + (i * 7919 % 3000);
        default -> "é" + i;
      });
    }
    java.util.Collections.shuffle(ids, random);
    IndexWriterConfig config = new IndexWriterConfig(new StandardAnalyzer()).setMergePolicy(NoMergePolicy.INSTANCE);
    try (IndexWriter writer = new IndexWriter(dir, config)) {
      for (int i = 0; i < ids.size(); i++) {
        Document doc = new Document();
        doc.add(new StringField(Constants.ID, ids.get(i), Field.Store.YES));
        doc.add(new BinaryDocValuesField(Constants.ID, new BytesRef(ids.get(i))));
        // Few distinct (tf, length) pairs: hundreds of documents share each score.
        StringBuilder text = new StringBuilder("common");
        text.append(" pad".repeat(i % 4));
        if (i % 5 == 0) {
          text.append(" mid");
        }
        if (i % 97 == 0) {
          text.append(" rare1");
        }
        if (i % 31 == 0) {
          text.append(" rare2 rare2");
        }
        if (i % 13 == 0) {
          text.append(" rare3");
        }
        doc.add(new TextField(Constants.CONTENTS, text.toString(), Field.Store.NO));
        writer.addDocument(doc);
        if (i % 700 == 699) {
          writer.commit(); // a new segment
        }
      }
    }
    reader = DirectoryReader.open(dir);
    pool = Executors.newFixedThreadPool(3);
  }

  @AfterClass
  public static void close() throws IOException {
    pool.shutdown();
    reader.close();
    dir.close();
  }

  @Test
  public void theIndexHasSeveralSegmentsAndSplitTies() throws IOException {
    assertTrue(reader.leaves().size() >= 4);
    IndexSearcher searcher = searcher(null, 1.0);
    ScoreDoc[] all = everyMatchInAnseriniOrder(searcher, parse("common"));
    assertEquals(3000, all.length);
    assertEquals("a cut-off at 100 splits a tie", all[99].score, all[100].score, 0f);
  }

  @Test
  public void prunedTopKIsAnserinisOrderAtEveryCutOff() throws IOException {
    Docids.IdOrder order = Docids.order(reader);
    for (double q : new double[] {1.0, 0.5, 0.1}) {
      for (ExecutorService executor : new ExecutorService[] {null, pool}) { // one slice, then several
        IndexSearcher searcher = searcher(executor, q);
        for (String text : QUERIES) {
          Query query = parse(text);
          ScoreDoc[] want = everyMatchInAnseriniOrder(searcher, query);
          for (int k : new int[] {1, 2, 7, 10, 99, 100, 101, 599, 1000, 2999, 3000, 5000}) {
            for (boolean prune : new boolean[] {true, false}) {
              ScoreDoc[] got = searcher.search(query, new AnseriniTopK(Math.min(k, 3000), order, prune)).scoreDocs;
              String what = "q=" + q + " query=" + text + " k=" + k + " prune=" + prune
                  + " slices=" + searcher.getSlices().length;
              ScoreDoc[] expected = Arrays.copyOf(want, Math.min(k, want.length));
              assertArrayEquals(what, docs(expected), docs(got));
              assertArrayEquals(what, scores(expected), scores(got), 0f);
            }
          }
        }
      }
    }
  }

  @Test
  public void idOrderIsUnsignedByteOrder() throws IOException {
    Docids.IdOrder order = Docids.order(reader);
    byte[][] ids = Docids.of(reader);
    for (int r = 1; r < order.doc().length; r++) {
      int a = order.doc()[r - 1];
      int b = order.doc()[r];
      assertTrue(Arrays.compareUnsigned(ids[a], ids[b]) < 0);
      assertEquals(r, order.rank()[b]);
    }
  }

  private static IndexSearcher searcher(ExecutorService executor, double q) {
    IndexSearcher searcher = executor == null ? new IndexSearcher(reader) : new IndexSearcher(reader, executor) {
      @Override
      protected LeafSlice[] slices(List<LeafReaderContext> leaves) {
        return slices(leaves, 1, 1, false); // a slice per segment, so the slices are merged
      }
    };
    searcher.setSimilarity(new QLogBM25Similarity(0.9f, 0.4f, q, "lucene"));
    return searcher;
  }

  private static Query parse(String text) {
    BooleanQuery.Builder b = new BooleanQuery.Builder();
    for (String t : text.split(" ")) {
      b.add(new TermQuery(new Term(Constants.CONTENTS, t)), BooleanClause.Occur.SHOULD);
    }
    return b.build();
  }

  /** Every match, scored without skipping, sorted by score descending then docid bytes ascending. */
  private static ScoreDoc[] everyMatchInAnseriniOrder(IndexSearcher searcher, Query query) throws IOException {
    byte[][] ids = Docids.of(reader);
    List<ScoreDoc> all = searcher.search(query, new EveryMatch());
    ScoreDoc[] docs = all.toArray(new ScoreDoc[0]);
    Arrays.sort(docs, Comparator.<ScoreDoc>comparingDouble(d -> -d.score)
        .thenComparing((x, y) -> Arrays.compareUnsigned(ids[x.doc], ids[y.doc])));
    return docs;
  }

  private static int[] docs(ScoreDoc[] hits) {
    return Arrays.stream(hits).mapToInt(h -> h.doc).toArray();
  }

  private static float[] scores(ScoreDoc[] hits) {
    float[] out = new float[hits.length];
    for (int i = 0; i < hits.length; i++) {
      out[i] = hits[i].score;
    }
    return out;
  }
}
