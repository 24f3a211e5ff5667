package io.qlog.testing;

import java.io.Closeable;
import java.io.IOException;
import org.apache.lucene.analysis.Analyzer;
import org.apache.lucene.document.Document;
import org.apache.lucene.document.Field;
import org.apache.lucene.document.SortedDocValuesField;
import org.apache.lucene.document.StringField;
import org.apache.lucene.document.TextField;
import org.apache.lucene.index.DirectoryReader;
import org.apache.lucene.index.IndexWriter;
import org.apache.lucene.index.IndexWriterConfig;
import org.apache.lucene.search.BooleanClause;
import org.apache.lucene.search.FieldDoc;
import org.apache.lucene.search.IndexSearcher;
import org.apache.lucene.search.Query;
import org.apache.lucene.search.ScoreDoc;
import org.apache.lucene.search.Sort;
import org.apache.lucene.search.SortField;
import org.apache.lucene.search.TopFieldDocs;
import org.apache.lucene.search.similarities.BM25Similarity;
import org.apache.lucene.search.similarities.Similarity;
import org.apache.lucene.store.ByteBuffersDirectory;
import org.apache.lucene.util.BytesRef;
import org.apache.lucene.util.QueryBuilder;

/**
 * The single-index reference a distributed engine is compared with: every document of a corpus in one
 * in-memory Lucene index ({@code id}, {@code contents}), analyzed by {@link AnseriniEnglishAnalyzer}.
 * Queries are Anserini's bag of words, one SHOULD clause per analyzed term as Lucene's QueryBuilder makes
 * it (the class Solr's standard parser and OpenSearch's match query extend). The top 10 is ordered by
 * score, ties by id, which the engine side must ask for too, so a tie cannot reorder the lists.
 */
public final class ReferenceIndex implements Closeable {
  private final Analyzer analyzer = new AnseriniEnglishAnalyzer();
  private final ByteBuffersDirectory dir = new ByteBuffersDirectory();
  private final DirectoryReader reader;
  private final IndexSearcher searcher;
  private final QueryBuilder queries = new QueryBuilder(analyzer);

  public ReferenceIndex(CsnRuby data) throws IOException {
    IndexWriterConfig iwc = new IndexWriterConfig(analyzer);
    iwc.setSimilarity(new BM25Similarity()); // the norm encoding is the same for every BM25 variant
    try (IndexWriter w = new IndexWriter(dir, iwc)) {
      for (String[] d : data.docs) {
        Document doc = new Document();
        doc.add(new StringField("id", d[0], Field.Store.YES));
        doc.add(new SortedDocValuesField("id", new BytesRef(d[0])));
        doc.add(new TextField("contents", d[1], Field.Store.NO));
        w.addDocument(doc);
      }
    }
    reader = DirectoryReader.open(dir);
    searcher = new IndexSearcher(reader);
  }

  /**
   * The top 10 for {@code text} under {@code similarity}; empty when every token is a stopword. One caller at a
   * time: the similarity is set on the shared searcher.
   */
  public synchronized TopTen top(Similarity similarity, String text) throws IOException {
    return top(similarity, query(text));
  }

  /** The bag-of-words query of {@code text}, as {@link #top(Similarity, String)} searches it; null for no terms. */
  public Query query(String text) {
    return queries.createBooleanQuery("contents", text, BooleanClause.Occur.SHOULD);
  }

  /** The searcher over the index (its similarity is whatever the last {@code top} call set). */
  public IndexSearcher searcher() {
    return searcher;
  }

  /** The top 10 for {@code query} (null: no terms, no hits) under {@code similarity}, ordered as above. */
  public synchronized TopTen top(Similarity similarity, Query query) throws IOException {
    TopTen top = new TopTen();
    if (query == null) {
      return top; // the engines' parsers make an empty query too
    }
    searcher.setSimilarity(similarity);
    TopFieldDocs docs = searcher.search(query, 10, new Sort(SortField.FIELD_SCORE, new SortField("id", SortField.Type.STRING)), true);
    for (ScoreDoc sd : docs.scoreDocs) {
      top.add(searcher.storedFields().document(sd.doc).get("id"), ((FieldDoc) sd).score);
    }
    return top;
  }

  @Override
  public void close() throws IOException {
    reader.close();
    dir.close();
    analyzer.close();
  }
}
