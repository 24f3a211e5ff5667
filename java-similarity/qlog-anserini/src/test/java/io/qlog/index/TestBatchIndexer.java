package io.qlog.index;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.apache.lucene.index.DirectoryReader;
import org.apache.lucene.index.IndexReader;
import org.apache.lucene.index.Term;
import org.apache.lucene.store.FSDirectory;
import org.junit.Rule;
import org.junit.Test;
import org.junit.rules.TemporaryFolder;

/**
 * {@link BatchIndexer}: each job's index holds its own corpus (and only it), one {@code done} line per
 * finished job, and a job that cannot be built is a {@code failed} line that leaves the others whole.
 */
public class TestBatchIndexer {
  @Rule public final TemporaryFolder tmp = new TemporaryFolder();

  private Path corpus(String name, int docs, String word) throws Exception {
    Path folder = tmp.newFolder(name).toPath();
    List<String> lines = new ArrayList<>();
    for (int i = 0; i < docs; i++) {
      lines.add("{\"id\": \"" + name + "/f" + i + ".py\", \"contents\": \"" + word + " number" + i + "\"}");
    }
    Files.write(folder.resolve("c.jsonl"), lines, StandardCharsets.UTF_8);
    return folder;
  }

  @Test
  public void buildsEveryJobAndReportsEach() throws Exception {
    Path root = tmp.getRoot().toPath();
    Path jobs = root.resolve("jobs.tsv");
    Files.write(jobs, List.of(
        corpus("a", 30, "alpha") + "\t" + root.resolve("ia"),
        corpus("b", 7, "beta") + "\t" + root.resolve("ib"),
        root.resolve("nowhere") + "\t" + root.resolve("ic")), StandardCharsets.UTF_8);
    BatchIndexer.Args args = new BatchIndexer.Args();
    args.jobs = jobs.toString();
    args.threads = 2;
    PrintStream stdout = System.out;
    ByteArrayOutputStream captured = new ByteArrayOutputStream();
    System.setOut(new PrintStream(captured, true, StandardCharsets.UTF_8));
    int failed;
    try {
      failed = BatchIndexer.run(args);
    } finally {
      System.setOut(stdout);
    }
    assertEquals(1, failed);
    String out = captured.toString(StandardCharsets.UTF_8);
    assertTrue(out, out.contains("done\t" + root.resolve("ia") + "\t30\t"));
    assertTrue(out, out.contains("done\t" + root.resolve("ib") + "\t7\t"));
    assertTrue(out, out.contains("failed\t" + root.resolve("ic") + "\t"));
    assertEquals(3, out.lines().count()); // nothing but the job lines: AnalyzerIndexer runs quiet
    try (IndexReader a = DirectoryReader.open(FSDirectory.open(root.resolve("ia")));
         IndexReader b = DirectoryReader.open(FSDirectory.open(root.resolve("ib")))) {
      assertEquals(30, a.numDocs());
      assertEquals(30, a.docFreq(new Term("contents", "alpha")));
      assertEquals(0, a.docFreq(new Term("contents", "beta")));
      assertEquals(7, b.docFreq(new Term("contents", "beta")));
      assertEquals("default", AnalyzerIndexer.recordedAnalyzer(root.resolve("ia").toString()));
    }
  }

  @Test
  public void indexesTheFieldsNamedBesideContentsAndOnlyThose() throws Exception {
    Path folder = tmp.newFolder("p").toPath();
    Files.write(folder.resolve("c.jsonl"), List.of(
        "{\"id\": \"src/FooBar.java\", \"contents\": \"class FooBar\", \"path\": \"src Foo Bar java\","
            + " \"extra\": \"unseen\"}"), StandardCharsets.UTF_8);
    Path root = tmp.getRoot().toPath();
    Files.write(root.resolve("jobs.tsv"), List.of(folder + "\t" + root.resolve("ip")), StandardCharsets.UTF_8);
    BatchIndexer.Args args = new BatchIndexer.Args();
    args.jobs = root.resolve("jobs.tsv").toString();
    args.fields = new String[] {"path"};
    PrintStream stdout = System.out;
    System.setOut(new PrintStream(new ByteArrayOutputStream(), true, StandardCharsets.UTF_8));
    try {
      assertEquals(0, BatchIndexer.run(args));
    } finally {
      System.setOut(stdout);
    }
    try (IndexReader r = DirectoryReader.open(FSDirectory.open(root.resolve("ip")))) {
      assertEquals(1, r.docFreq(new Term("path", "foo")));
      assertEquals(1, r.docFreq(new Term("contents", "foobar")));
      assertEquals(0, r.docFreq(new Term("path", "foobar")));
      assertEquals(0, r.docFreq(new Term("extra", "unseen")));
    }
  }
}
