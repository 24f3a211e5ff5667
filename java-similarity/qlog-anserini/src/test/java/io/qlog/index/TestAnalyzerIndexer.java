package io.qlog.index;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertFalse;
import static org.junit.Assert.assertNotEquals;
import static org.junit.Assert.assertThrows;
import static org.junit.Assert.assertTrue;

import io.anserini.index.IndexCollection;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.apache.lucene.index.DirectoryReader;
import org.apache.lucene.index.IndexReader;
import org.apache.lucene.index.LeafReaderContext;
import org.apache.lucene.index.MultiTerms;
import org.apache.lucene.index.NumericDocValues;
import org.apache.lucene.index.Terms;
import org.apache.lucene.index.TermsEnum;
import org.apache.lucene.store.Directory;
import org.apache.lucene.store.FSDirectory;
import org.apache.lucene.util.BytesRef;
import org.junit.BeforeClass;
import org.junit.ClassRule;
import org.junit.Test;
import org.junit.rules.TemporaryFolder;

/**
 * {@link AnalyzerIndexer} against Anserini's own {@code IndexCollection} on the same JsonCollection:
 * with the default analyzer the two indexes hold the same documents, terms, frequencies, term vectors,
 * raw text and length norms; with the identifier analyzer the terms are the split identifiers; and the
 * analyzer is recorded where the searcher reads it.
 */
public class TestAnalyzerIndexer {
  @ClassRule public static final TemporaryFolder TMP = new TemporaryFolder();

  private static Path corpus;
  private static Path anserini;
  private static Path ours;

  @BeforeClass
  public static void buildBoth() throws Exception {
    corpus = TMP.newFolder("corpus").toPath();
    List<String> lines = new ArrayList<>();
    for (int i = 0; i < 300; i++) {
      String text = "def handleWebSocketUpgrade" + (i % 7) + "(request): parse the request's JSON body, " + "word" + i
          + " appears once, shared" + (i % 3) + " in a third; the running mean is " + i + ".5";
      lines.add("{\"id\": \"doc" + i + "\", \"contents\": \"" + text + "\"}");
    }
    lines.add("{\"id\": \"empty\", \"contents\": \"\"}"); // Anserini skips it as empty: both must
    Files.write(corpus.resolve("part1.jsonl"), lines.subList(0, 150), StandardCharsets.UTF_8);
    Files.write(corpus.resolve("part2.jsonl"), lines.subList(150, lines.size()), StandardCharsets.UTF_8);

    anserini = TMP.getRoot().toPath().resolve("anserini");
    IndexCollection.Args a = new IndexCollection.Args();
    a.collectionClass = "JsonCollection";
    a.generatorClass = "DefaultLuceneDocumentGenerator";
    a.input = corpus.toString();
    a.index = anserini.toString();
    a.threads = 1;
    a.storePositions = a.storeDocvectors = a.storeRaw = true;
    a.quiet = true;
    new IndexCollection(a).run();

    ours = TMP.getRoot().toPath().resolve("ours");
    assertEquals(300, new AnalyzerIndexer(args(ours, "default")).run());
  }

  private static AnalyzerIndexer.Args args(Path index, String analyzer) {
    AnalyzerIndexer.Args a = new AnalyzerIndexer.Args();
    a.input = corpus.toString();
    a.index = index.toString();
    a.analyzer = analyzer;
    a.threads = 2; // Anserini's index was built on one thread: document order may differ, content may not
    a.storePositions = a.storeDocvectors = a.storeRaw = true;
    return a;
  }

  /** External id -> raw text, length norm and term vector (term -> frequency), whatever the Lucene docids. */
  private static Map<String, String> documents(Path index) throws IOException {
    Map<String, String> out = new TreeMap<>();
    try (Directory dir = FSDirectory.open(index); DirectoryReader reader = DirectoryReader.open(dir)) {
      for (LeafReaderContext ctx : reader.leaves()) {
        NumericDocValues norms = ctx.reader().getNormValues("contents");
        for (int doc = 0; doc < ctx.reader().maxDoc(); doc++) {
          var stored = ctx.reader().storedFields().document(doc);
          assertTrue(norms.advanceExact(doc));
          Map<String, Long> vector = new TreeMap<>();
          TermsEnum te = ctx.reader().termVectors().get(doc, "contents").iterator();
          for (BytesRef t = te.next(); t != null; t = te.next()) {
            vector.put(t.utf8ToString(), te.totalTermFreq());
          }
          out.put(stored.get("id"), stored.get("raw") + " | norm " + norms.longValue() + " | " + vector);
        }
      }
    }
    return out;
  }

  /** Every term of the field with its document and collection frequency, and the field's statistics. */
  private static String dictionary(Path index) throws IOException {
    StringBuilder out = new StringBuilder();
    try (Directory dir = FSDirectory.open(index); IndexReader reader = DirectoryReader.open(dir)) {
      Terms terms = MultiTerms.getTerms(reader, "contents");
      out.append(terms.getDocCount()).append(' ').append(terms.getSumTotalTermFreq()).append(' ')
          .append(terms.getSumDocFreq()).append('\n');
      TermsEnum te = terms.iterator();
      for (BytesRef t = te.next(); t != null; t = te.next()) {
        out.append(t.utf8ToString()).append(' ').append(te.docFreq()).append(' ').append(te.totalTermFreq()).append('\n');
      }
    }
    return out.toString();
  }

  @Test
  public void defaultAnalyzerBuildsAnserinisIndex() throws IOException {
    Map<String, String> expected = documents(anserini);
    assertEquals(300, expected.size());
    assertEquals(expected, documents(ours));
    assertEquals(dictionary(anserini), dictionary(ours));
  }

  @Test
  public void analyzerIsRecordedForTheSearcher() throws IOException {
    assertEquals("default", AnalyzerIndexer.recordedAnalyzer(ours.toString()));
    assertEquals("default", AnalyzerIndexer.recordedAnalyzer(anserini.toString())); // IndexCollection records none
  }

  @Test
  public void identifierAnalyzerSplitsIdentifiers() throws Exception {
    Path index = TMP.getRoot().toPath().resolve("identifier");
    assertEquals(300, new AnalyzerIndexer(args(index, "identifier")).run());
    assertEquals("identifier", AnalyzerIndexer.recordedAnalyzer(index.toString()));
    String doc = documents(index).get("doc3");
    // the README's example: handleWebSocketUpgrade keeps its whole form and gains its parts
    for (String term : List.of("handlewebsocketupgrade3", "handl", "web", "socket", "upgrad")) {
      assertTrue(term + " in " + doc, doc.contains(term + "="));
    }
    assertTrue(documents(ours).get("doc3").contains("handlewebsocketupgrade3="));
    assertFalse(documents(ours).get("doc3").contains("socket="));
    assertNotEquals(dictionary(ours), dictionary(index));
  }

  @Test
  public void badArgumentsAreRefusedBeforeAnyWork() {
    AnalyzerIndexer.Args a = args(TMP.getRoot().toPath().resolve("never"), "default");
    a.threads = 0;
    assertEquals("illegal threads value: 0, must be at least 1",
        assertThrows(IllegalArgumentException.class, () -> new AnalyzerIndexer(a)).getMessage());
    AnalyzerIndexer.Args b = args(TMP.getRoot().toPath().resolve("never"), "cobol");
    assertThrows(IllegalArgumentException.class, () -> new AnalyzerIndexer(b));
    assertFalse(Files.exists(TMP.getRoot().toPath().resolve("never")));
  }
}
