package io.qlog.search;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertThrows;

import io.anserini.index.Constants;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.apache.lucene.analysis.standard.StandardAnalyzer;
import org.apache.lucene.document.Document;
import org.apache.lucene.document.Field;
import org.apache.lucene.document.StoredField;
import org.apache.lucene.document.StringField;
import org.apache.lucene.document.TextField;
import org.apache.lucene.index.DirectoryReader;
import org.apache.lucene.index.IndexReader;
import org.apache.lucene.index.IndexWriter;
import org.apache.lucene.index.IndexWriterConfig;
import org.apache.lucene.store.FSDirectory;
import org.junit.Test;

/**
 * {@link StoredTexts#packed} against the documents as written: the stored raw document when there is
 * one, else the stored {@code contents}, else the "none" kind; any order of doc numbers across several
 * segments; text outside the basic plane intact.
 */
public class TestStoredTexts {

  /** Decodes {@link StoredTexts#packed}'s layout into "kind:text" strings. */
  private static List<String> unpack(byte[] blob) {
    ByteBuffer in = ByteBuffer.wrap(blob).order(ByteOrder.LITTLE_ENDIAN);
    List<String> out = new ArrayList<>();
    while (in.hasRemaining()) {
      char kind = (char) in.get();
      byte[] text = new byte[in.getInt()];
      in.get(text);
      out.add(kind + ":" + new String(text, StandardCharsets.UTF_8));
    }
    return out;
  }

  @Test
  public void textsComeBackAsStoredInTheOrderAsked() throws IOException {
    Path dir = Files.createTempDirectory("qlog-stored");
    List<String> expected = new ArrayList<>();
    IndexWriterConfig config = new IndexWriterConfig(new StandardAnalyzer());
    config.setMaxBufferedDocs(4); // several segments
    try (IndexWriter writer = new IndexWriter(FSDirectory.open(dir), config)) {
      for (int i = 0; i < 15; i++) {
        Document doc = new Document();
        doc.add(new StringField(Constants.ID, "d" + i, Field.Store.YES));
        String contents = "doc " + i + (i % 5 == 0 ? " emoji \uD83D\uDE00 caf\u00e9" : "");
        if (i % 3 == 0) {
          String raw = "{\"id\": \"d" + i + "\", \"contents\": \"" + contents + "\"}";
          doc.add(new StoredField(Constants.RAW, raw));
          doc.add(new TextField(Constants.CONTENTS, contents, Field.Store.NO));
          expected.add("r:" + raw);
        } else if (i % 3 == 1) {
          doc.add(new TextField(Constants.CONTENTS, contents, Field.Store.YES));
          expected.add("c:" + contents);
        } else {
          doc.add(new TextField(Constants.CONTENTS, contents, Field.Store.NO));
          expected.add("-:");
        }
        writer.addDocument(doc);
      }
    }
    try (IndexReader reader = DirectoryReader.open(FSDirectory.open(dir))) {
      assertEquals(4, reader.leaves().size());
      int[] docs = {14, 0, 7, 3, 3, 10, 5};
      List<String> got = unpack(StoredTexts.packed(reader, docs));
      List<String> want = new ArrayList<>();
      for (int d : docs) {
        want.add(expected.get(d)); // a single writer thread adds documents in doc-number order
      }
      assertEquals(want, got);
      assertEquals(List.of(), unpack(StoredTexts.packed(reader, new int[0])));
      assertThrows(IndexOutOfBoundsException.class, () -> StoredTexts.packed(reader, new int[] {15}));
      assertThrows(IndexOutOfBoundsException.class, () -> StoredTexts.packed(reader, new int[] {-1}));
    } finally {
      try (var files = Files.walk(dir)) {
        files.sorted((x, y) -> y.compareTo(x)).forEach(f -> f.toFile().delete());
      }
    }
  }
}
