package io.qlog.index;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertNotNull;

import io.anserini.index.Constants;
import io.qlog.analysis.IdentifierAnalyzer;
import io.qlog.analysis.TextTerms;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.apache.lucene.index.DirectoryReader;
import org.apache.lucene.index.FieldInfo;
import org.apache.lucene.index.IndexReader;
import org.apache.lucene.index.MultiTerms;
import org.apache.lucene.index.Term;
import org.apache.lucene.index.Terms;
import org.apache.lucene.index.TermsEnum;
import org.apache.lucene.search.IndexSearcher;
import org.apache.lucene.search.TermQuery;
import org.apache.lucene.store.FSDirectory;
import org.junit.Rule;
import org.junit.Test;
import org.junit.rules.TemporaryFolder;

/**
 * {@link IndexUpdater}: a document it adds has the fields {@link BatchIndexer} gives the same line, a
 * replaced document is found by its new text only, a deleted one is gone, and the analyzer is
 * recorded; {@link TextTerms} analyzes as {@link IdentifierAnalyzer#analyze} does.
 */
public class TestIndexUpdater {
  @Rule public final TemporaryFolder tmp = new TemporaryFolder();

  private static String line(String id, String contents) {
    return "{\"id\": \"" + id + "\", \"contents\": \"" + contents + "\"}";
  }

  private static long hits(IndexReader reader, String term) throws Exception {
    return new IndexSearcher(reader).count(new TermQuery(new Term(Constants.CONTENTS, term)));
  }

  private static long termCount(Terms terms) throws Exception {
    TermsEnum e = terms.iterator();
    long n = 0;
    while (e.next() != null) {
      n++;
    }
    return n;
  }

  @Test
  public void updatesInPlaceWithTheBatchIndexersFields() throws Exception {
    Path root = tmp.getRoot().toPath();
    String[] docs = {line("a.py", "alpha parsing"), line("b.py", "beta parsing"), line("c.py", "gamma")};
    Path corpus = Files.createDirectory(root.resolve("json"));
    Files.write(corpus.resolve("c.jsonl"), List.of(docs), StandardCharsets.UTF_8);
    Files.write(root.resolve("jobs.tsv"), List.of(corpus + "\t" + root.resolve("batch")), StandardCharsets.UTF_8);
    BatchIndexer.Args args = new BatchIndexer.Args();
    args.jobs = root.resolve("jobs.tsv").toString();
    assertEquals(0, BatchIndexer.run(args));

    String dir = root.resolve("updated").toString();
    assertEquals(3, IndexUpdater.apply(dir, "default", true, docs, new String[0], 2));
    try (IndexReader batch = DirectoryReader.open(FSDirectory.open(root.resolve("batch")));
         IndexReader updated = DirectoryReader.open(FSDirectory.open(Path.of(dir)))) {
      for (String field : new String[] {Constants.ID, Constants.CONTENTS, Constants.RAW}) {
        FieldInfo a = batch.leaves().get(0).reader().getFieldInfos().fieldInfo(field);
        FieldInfo b = updated.leaves().get(0).reader().getFieldInfos().fieldInfo(field);
        assertNotNull(field, b);
        assertEquals(field, a.getIndexOptions(), b.getIndexOptions());
        assertEquals(field, a.hasTermVectors(), b.hasTermVectors());
        assertEquals(field, a.getDocValuesType(), b.getDocValuesType());
      }
      Terms a = MultiTerms.getTerms(batch, Constants.CONTENTS);
      Terms b = MultiTerms.getTerms(updated, Constants.CONTENTS);
      assertEquals(a.getSumTotalTermFreq(), b.getSumTotalTermFreq());
      assertEquals(termCount(a), termCount(b)); // size() is -1 over several segments: count them
    }

    assertEquals(2, IndexUpdater.apply(dir, "default", false,
        new String[] {line("b.py", "delta")}, new String[] {"c.py"}, 1));
    try (IndexReader reader = DirectoryReader.open(FSDirectory.open(Path.of(dir)))) {
      assertEquals(2, reader.numDocs());
      assertEquals(1, hits(reader, "pars")); // Porter's stem of parsing: a.py only
      assertEquals(1, hits(reader, "delta"));
      assertEquals(0, hits(reader, "beta"));
      assertEquals(0, hits(reader, "gamma"));
      assertEquals("default", AnalyzerIndexer.recordedAnalyzer(dir));
    }
  }

  @Test(expected = IllegalArgumentException.class)
  public void refusesAnUnknownAnalyzerBeforeWriting() throws Exception {
    IndexUpdater.apply(tmp.getRoot().toPath().resolve("x").toString(), "nope", true, new String[0], new String[0], 1);
  }

  @Test
  public void analyzesManyTextsAsOne() {
    String[] texts = {"Parsing the JSON body", "", "def upgrade_websocket(request):"};
    String[] terms = TextTerms.analyzeAll("default", texts);
    for (int i = 0; i < texts.length; i++) {
      assertEquals(String.join(" ", IdentifierAnalyzer.analyze("default", texts[i])), terms[i]);
    }
  }
}
