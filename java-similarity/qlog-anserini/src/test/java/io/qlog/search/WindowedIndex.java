package io.qlog.search;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertTrue;

import io.anserini.index.Constants;
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
import org.apache.lucene.search.PhraseQuery;
import org.apache.lucene.search.Query;
import org.apache.lucene.search.TermQuery;
import org.apache.lucene.store.ByteBuffersDirectory;
import org.apache.lucene.util.BytesRef;
import org.junit.AfterClass;
import org.junit.BeforeClass;
import org.junit.Test;

/**
 * The index the term-at-a-time scorers are tested on, opened once per test class: several segments, deleted documents, a
 * doc-number window boundary inside a segment, random texts with repeated terms and lengths, and
 * groups of equal scores that cut-offs split.
 */
abstract class WindowedIndex {

  /** Documents: one segment spans two windows of the term-at-a-time scorers. */
  static final int DOCS = ModelGridTopK.WINDOW + 4000;

  static ByteBuffersDirectory dir;
  static DirectoryReader reader;

  @BeforeClass
  public static void open() throws IOException {
    dir = build(DOCS);
    reader = DirectoryReader.open(dir);
  }

  @AfterClass
  public static void close() throws IOException {
    reader.close();
    dir.close();
  }

  @Test
  public void theIndexIsWhatTheTestNeeds() {
    assertEquals(ModelGridTopK.WINDOW, TermAtATimeTopK.WINDOW);
    assertTrue(reader.leaves().size() >= 3);
    assertTrue(reader.hasDeletions());
    assertTrue(reader.leaves().stream().anyMatch(l -> l.reader().maxDoc() > ModelGridTopK.WINDOW));
  }

  /** A disjunction with boosts, nested boosts and a clause given twice (BooleanQuery's rewrite adds their boosts). */
  static Query boosted() {
    return new BooleanQuery.Builder()
        .add(new BoostQuery(new TermQuery(new Term(Constants.CONTENTS, "mid")), 3f), BooleanClause.Occur.SHOULD)
        .add(new BoostQuery(new BoostQuery(new TermQuery(new Term(Constants.CONTENTS, "x")), 2f), 0.5f),
            BooleanClause.Occur.SHOULD)
        .add(new TermQuery(new Term(Constants.CONTENTS, "common")), BooleanClause.Occur.SHOULD)
        .add(new TermQuery(new Term(Constants.CONTENTS, "common")), BooleanClause.Occur.SHOULD)
        .build();
  }

  /** Queries that are not a disjunction of term queries: a required clause, a phrase, a minimum to match. */
  static Query[] notBagsOfWords() {
    Query must = new BooleanQuery.Builder()
        .add(new TermQuery(new Term(Constants.CONTENTS, "common")), BooleanClause.Occur.MUST)
        .add(new TermQuery(new Term(Constants.CONTENTS, "mid")), BooleanClause.Occur.SHOULD).build();
    Query phrase = new PhraseQuery(Constants.CONTENTS, "common", "pad");
    Query minimum = new BooleanQuery.Builder().setMinimumNumberShouldMatch(2)
        .add(new TermQuery(new Term(Constants.CONTENTS, "common")), BooleanClause.Occur.SHOULD)
        .add(new TermQuery(new Term(Constants.CONTENTS, "mid")), BooleanClause.Occur.SHOULD).build();
    return new Query[] {must, phrase, minimum};
  }

  private static final String[] VOCABULARY = {"common", "mid", "pad", "rare1", "rare2", "rare3", "x", "y", "z"};

  /** A directory of {@code docs} documents (ids in two scripts, shuffled). */
  static ByteBuffersDirectory build(int docs) throws IOException {
    ByteBuffersDirectory dir = new ByteBuffersDirectory();
    Random random = new Random(7);
    List<String> ids = new ArrayList<>();
    for (int i = 0; i < docs; i++) {
      ids.add(i % 2 == 0 ? "doc" + (i * 7919 % docs) : "é" + i);
    }
    Collections.shuffle(ids, random);
    IndexWriterConfig config = new IndexWriterConfig(new StandardAnalyzer()).setMergePolicy(NoMergePolicy.INSTANCE);
    try (IndexWriter writer = new IndexWriter(dir, config)) {
      for (int i = 0; i < docs; i++) {
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
        if (i == 2000 || i == docs - 1000) {
          writer.commit(); // a new segment; the middle one spans two windows
        }
      }
      for (int i = 0; i < docs; i += 37) {
        writer.deleteDocuments(new Term(Constants.ID, ids.get(i)));
      }
    }
    return dir;
  }
}
