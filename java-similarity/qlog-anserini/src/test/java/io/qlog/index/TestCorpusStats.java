package io.qlog.index;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertNotEquals;
import static org.junit.Assert.assertTrue;
import static org.junit.Assert.assertThrows;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.apache.lucene.analysis.core.WhitespaceAnalyzer;
import org.apache.lucene.document.BinaryDocValuesField;
import org.apache.lucene.document.Document;
import org.apache.lucene.document.Field;
import org.apache.lucene.document.FieldType;
import org.apache.lucene.document.StringField;
import org.apache.lucene.document.TextField;
import org.apache.lucene.index.DirectoryReader;
import org.apache.lucene.index.IndexOptions;
import org.apache.lucene.index.IndexWriter;
import org.apache.lucene.index.IndexWriterConfig;
import org.apache.lucene.index.NoMergePolicy;
import org.apache.lucene.store.ByteBuffersDirectory;
import org.apache.lucene.store.Directory;
import org.apache.lucene.util.BytesRef;
import org.junit.Test;

/**
 * {@link CorpusStats} against counts made by hand from the documents' tokens: the whole dictionary
 * merged over segments, and the seeded sample, which must depend on the documents and the seed only,
 * not on segmentation or indexing order.
 */
public class TestCorpusStats {
  private static final ObjectMapper JSON = new ObjectMapper();

  /** 500 documents of Zipf-like tokens: id -> tokens. */
  private static Map<String, List<String>> corpus() {
    Random random = new Random(7);
    Map<String, List<String>> docs = new HashMap<>();
    for (int i = 0; i < 500; i++) {
      List<String> tokens = new ArrayList<>();
      int length = 1 + random.nextInt(30);
      for (int j = 0; j < length; j++) {
        tokens.add("t" + (int) Math.floor(Math.pow(2000, random.nextDouble()))); // many rare, few common
      }
      docs.put("doc" + i, tokens);
    }
    return docs;
  }

  private static final FieldType CONTENTS = new FieldType(TextField.TYPE_NOT_STORED);

  static {
    CONTENTS.setIndexOptions(IndexOptions.DOCS_AND_FREQS_AND_POSITIONS);
    CONTENTS.setStoreTermVectors(true);
    CONTENTS.freeze();
  }

  /** The corpus indexed in {@code order}, a new segment every {@code perSegment} documents (none merged). */
  private static Directory index(Map<String, List<String>> docs, List<String> order, int perSegment, boolean vectors)
      throws IOException {
    Directory dir = new ByteBuffersDirectory();
    IndexWriterConfig config = new IndexWriterConfig(new WhitespaceAnalyzer()).setMergePolicy(NoMergePolicy.INSTANCE);
    try (IndexWriter writer = new IndexWriter(dir, config)) {
      int n = 0;
      for (String id : order) {
        Document doc = new Document();
        doc.add(new StringField("id", id, Field.Store.YES));
        doc.add(new BinaryDocValuesField("id", new BytesRef(id))); // as Anserini writes it
        doc.add(new Field("contents", String.join(" ", docs.get(id)), vectors ? CONTENTS : TextField.TYPE_NOT_STORED));
        writer.addDocument(doc);
        if (++n % perSegment == 0) {
          writer.commit();
        }
      }
    }
    return dir;
  }

  private static JsonNode stats(Directory dir, int sampleDocs, long seed) throws IOException {
    try (DirectoryReader reader = DirectoryReader.open(dir)) {
      return JSON.readTree(CorpusStats.fromReader(reader, "contents", sampleDocs, seed));
    }
  }

  /** The counts CorpusStats reports, made directly from the token lists of {@code ids}. */
  private static void assertCounts(Map<String, List<String>> docs, List<String> ids, JsonNode got) {
    Map<String, long[]> perTerm = new HashMap<>(); // term -> {df, cf}
    long tokens = 0;
    for (String id : ids) {
      for (String t : docs.get(id)) {
        perTerm.computeIfAbsent(t, k -> new long[2])[1]++;
        tokens++;
      }
      for (String t : new HashSet<>(docs.get(id))) {
        perTerm.get(t)[0]++;
      }
    }
    long df1Types = 0, df1Tokens = 0, hapax = 0;
    long[] histogram = new long[64];
    int top = 0;
    for (long[] dfCf : perTerm.values()) {
      if (dfCf[0] == 1) {
        df1Types++;
        df1Tokens += dfCf[1];
      }
      if (dfCf[1] == 1) {
        hapax++;
      }
      int bin = 0;
      while ((2L << bin) <= dfCf[0]) { // 2^bin <= df < 2^(bin+1)
        bin++;
      }
      histogram[bin]++;
      top = Math.max(top, bin + 1);
    }
    assertEquals(ids.size(), got.get("documents").asLong());
    assertEquals(perTerm.size(), got.get("vocabulary").asLong());
    assertEquals(tokens, got.get("tokens").asLong());
    assertEquals(df1Types, got.get("df1_types").asLong());
    assertEquals(df1Tokens, got.get("df1_tokens").asLong());
    assertEquals(hapax, got.get("hapax_types").asLong());
    assertEquals((double) tokens / ids.size(), got.get("mean_doc_length").asDouble(), 1e-12);
    List<Long> bins = new ArrayList<>();
    got.get("df_histogram").forEach(b -> bins.add(b.asLong()));
    List<Long> want = new ArrayList<>();
    for (int i = 0; i < top; i++) {
      want.add(histogram[i]);
    }
    assertEquals(want, bins);
  }

  @Test
  public void wholeIndexCountsEqualAHandCountAcrossSegments() throws IOException {
    Map<String, List<String>> docs = corpus();
    List<String> ids = new ArrayList<>(docs.keySet());
    Collections.sort(ids);
    try (Directory dir = index(docs, ids, 37, true)) { // 14 segments: df must be summed across them
      JsonNode got = stats(dir, 0, 0);
      assertEquals(500, got.get("max_doc").asInt());
      assertEquals(0, got.get("deleted_docs").asInt());
      assertCounts(docs, ids, got);
      assertTrue(got.get("sample").isNull()); // no sample asked for
    }
  }

  @Test
  public void sampleDependsOnTheDocumentsAndTheSeedOnly() throws IOException {
    Map<String, List<String>> docs = corpus();
    List<String> ids = new ArrayList<>(docs.keySet());
    Collections.sort(ids);
    List<String> shuffled = new ArrayList<>(ids);
    Collections.shuffle(shuffled, new Random(3));
    try (Directory a = index(docs, ids, 500, true); Directory b = index(docs, shuffled, 23, true)) {
      JsonNode sa = stats(a, 100, 11).get("sample");
      JsonNode sb = stats(b, 100, 11).get("sample");
      assertEquals(sa, sb); // same documents, same counts, whatever the order and segments
      assertEquals("id", sa.get("key").asText());
      List<String> sampled = new ArrayList<>();
      sa.get("docids").forEach(d -> sampled.add(d.asText()));
      assertEquals(100, sampled.size());
      assertCounts(docs, sampled, sa); // the counts are those of exactly the listed documents
      assertNotEquals(sa.get("docids"), stats(a, 100, 12).get("sample").get("docids"));
      // a sample as large as the corpus is the whole corpus
      JsonNode all = stats(a, 10_000, 5);
      assertCounts(docs, ids, all.get("sample"));
      // and a larger sample holds the smaller one (the n smallest keys of one order)
      List<String> bigger = new ArrayList<>();
      stats(a, 200, 11).get("sample").get("docids").forEach(d -> bigger.add(d.asText()));
      assertTrue(bigger.containsAll(sampled));
    }
  }

  @Test
  public void refusalsNameTheProblem() throws IOException {
    Map<String, List<String>> docs = corpus();
    List<String> ids = new ArrayList<>(docs.keySet());
    try (Directory plain = index(docs, ids, 500, false); DirectoryReader reader = DirectoryReader.open(plain)) {
      JsonNode got = JSON.readTree(CorpusStats.fromReader(reader, "contents", 10, 0));
      assertTrue(got.get("sample").isNull());
      assertEquals("the index stores no term vectors for field 'contents' (build it with Anserini's "
          + "-storeDocvectors, as qlog_pyserini.index does)", got.get("sample_error").asText());
      assertEquals("field 'title' has no indexed terms in this index",
          assertThrows(IllegalArgumentException.class, () -> CorpusStats.fromReader(reader, "title", 0, 0)).getMessage());
      assertEquals("illegal sampleDocs value: -1, must be >= 0",
          assertThrows(IllegalArgumentException.class, () -> CorpusStats.fromReader(reader, "contents", -1, 0)).getMessage());
    }
  }
}
