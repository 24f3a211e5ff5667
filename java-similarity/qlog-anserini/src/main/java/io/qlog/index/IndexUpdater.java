package io.qlog.index;

import io.anserini.collection.JsonCollection;
import io.anserini.index.Constants;
import io.anserini.index.IndexCollection;
import io.anserini.index.generator.DefaultLuceneDocumentGenerator;
import io.anserini.index.generator.GeneratorException;
import io.qlog.analysis.IdentifierAnalyzer;
import java.io.IOException;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.apache.lucene.analysis.Analyzer;
import org.apache.lucene.document.Document;
import org.apache.lucene.document.Field;
import org.apache.lucene.document.StringField;
import org.apache.lucene.index.ConcurrentMergeScheduler;
import org.apache.lucene.index.IndexWriter;
import org.apache.lucene.index.IndexWriterConfig;
import org.apache.lucene.index.Term;
import org.apache.lucene.index.TieredMergePolicy;
import org.apache.lucene.search.similarities.BM25Similarity;
import org.apache.lucene.store.Directory;
import org.apache.lucene.store.FSDirectory;
import org.apache.lucene.store.FilterDirectory;

/**
 * Changes an index in place: each given document replaces the one with its id (or is added), each
 * given id is deleted, and the result is one commit.
 *
 * <p>A document is what {@link AnalyzerIndexer} makes of the same JSON line: Anserini's {@code
 * JsonCollection.Document.fromString} and {@code DefaultLuceneDocumentGenerator} with positions, doc
 * vectors and the raw document stored, so an index built by {@link BatchIndexer} and one kept
 * current here hold the same fields. The writer's configuration is {@link AnalyzerIndexer}'s
 * ({@code BM25Similarity} norms, no compound files), and the analyzer's name is recorded in the
 * commit under {@link AnalyzerIndexer#ANALYZER_KEY}.
 *
 * <p>Until Lucene merges them away, a replaced or deleted document still counts in the term
 * statistics (document frequencies, average length), as in any Lucene index that is updated; the
 * merge policy reclaims them as segments merge.
 *
 * <p>The index is a cache (see {@link #unsynced}): commits are not synced to the device.
 *
 * <p>One static call opens the writer, applies every change, commits and closes: a caller through a
 * JNI bridge never holds a writer object between calls, and no other process is locked out between
 * updates.
 */
public final class IndexUpdater {

  /** Each writer's RAM buffer, in MB: {@link BatchIndexer}'s default; a repository's files rarely fill it. */
  public static final int RAM_BUFFER_MB = 256;

  /** The merge policy's floor segment size, in MB (see {@link #mergePolicy()}). */
  public static final double FLOOR_SEGMENT_MB = 0.25;

  private IndexUpdater() {}

  /**
   * Applies {@code documents} (JSON lines {@code {"id": ..., "contents": ...}}) and deletes {@code
   * deletedIds} in the index at {@code indexDir}: {@link #apply(String, String, boolean, String[], String[],
   * String[], String, int)} with no other field and the deletions by id.
   */
  public static int apply(String indexDir, String analyzer, boolean create, String[] documents,
                          String[] deletedIds, int threads) throws IOException {
    return apply(indexDir, analyzer, create, documents, deletedIds, new String[0], Constants.ID, threads);
  }

  /**
   * Deletes every document whose {@code key} field holds one of {@code deleted}, then applies {@code
   * documents} (JSON lines {@code {"id": ..., "contents": ...}}, each replacing the document with its id, or
   * added) in the index at {@code indexDir}, created when {@code create} is true (an existing index there is
   * replaced), the documents analyzed on {@code threads} threads (the writer is shared, as Lucene's writers are
   * made to be). Returns the live documents after the commit.
   *
   * <p>{@code fields} names the documents' other JSON fields indexed as text beside {@code contents}, as
   * {@link AnalyzerIndexer}'s {@code -fields} does. {@code key} is {@code id}, or the name of a JSON field
   * every document carries, indexed as one untokenized term: the documents that share it (the units of one
   * file) are deleted together, however their ids changed. A deletion applies to the documents indexed before
   * it only, so a group deleted and given again in one call holds what was given.
   *
   * @throws IllegalArgumentException for an unknown analyzer, a document with no id or contents, or with no
   *     {@code key} field, or fewer than one thread
   */
  public static int apply(String indexDir, String analyzer, boolean create, String[] documents,
                          String[] deleted, String[] fields, String key, int threads) throws IOException {
    if (threads < 1) {
      throw new IllegalArgumentException("illegal threads value: " + threads + ", must be at least 1");
    }
    Analyzer luceneAnalyzer = IdentifierAnalyzer.forName(analyzer); // validates the name before any change
    IndexCollection.Args generatorArgs = new IndexCollection.Args();
    generatorArgs.storePositions = true;
    generatorArgs.storeDocvectors = true;
    generatorArgs.storeRaw = true;
    generatorArgs.fields = fields;
    DefaultLuceneDocumentGenerator<JsonCollection.Document> generator =
        new DefaultLuceneDocumentGenerator<>(generatorArgs);
    IndexWriterConfig config = new IndexWriterConfig(luceneAnalyzer)
        .setSimilarity(new BM25Similarity())
        .setOpenMode(create ? IndexWriterConfig.OpenMode.CREATE : IndexWriterConfig.OpenMode.APPEND)
        .setRAMBufferSizeMB(RAM_BUFFER_MB)
        // a build writes AnalyzerIndexer's separate files; an update's small segment is one compound file, so
        // a commit syncs three files, not twenty
        .setUseCompoundFile(!create)
        .setMergePolicy(mergePolicy())
        .setMergeScheduler(new ConcurrentMergeScheduler());
    ExecutorService pool = Executors.newFixedThreadPool(threads);
    try (Directory dir = unsynced(FSDirectory.open(Paths.get(indexDir)));
         IndexWriter writer = new IndexWriter(dir, config)) {
      for (String value : deleted) {
        writer.deleteDocuments(new Term(key, value));
      }
      List<Future<?>> done = new ArrayList<>();
      int slice = (documents.length + threads - 1) / threads;
      for (int from = 0; from < documents.length; from += slice) {
        int start = from;
        int end = Math.min(documents.length, from + slice);
        done.add(pool.submit(() -> {
          for (int i = start; i < end; i++) {
            update(writer, generator, documents[i], key);
          }
          return null;
        }));
      }
      for (Future<?> f : done) {
        try {
          f.get();
        } catch (ExecutionException e) {
          Throwable cause = e.getCause();
          if (cause instanceof IOException io) {
            throw io;
          }
          if (cause instanceof RuntimeException re) {
            throw re;
          }
          throw new IOException(cause);
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
          throw new IOException("interrupted while indexing", e);
        }
      }
      writer.setLiveCommitData(Map.of(AnalyzerIndexer.ANALYZER_KEY, analyzer).entrySet());
      writer.commit();
      return writer.getDocStats().numDocs;
    } finally {
      pool.shutdownNow();
      luceneAnalyzer.close();
    }
  }

  /**
   * {@code dir} without {@code fsync}: a commit is on disk for every later reader at once (the page cache), and
   * only an operating-system crash could tear it. The index is a cache its caller rebuilds when it cannot be
   * opened; a sync per file of every commit cost more than the rest of a one-file update.
   */
  static Directory unsynced(Directory dir) {
    return new FilterDirectory(dir) {
      @Override
      public void sync(Collection<String> names) {}

      @Override
      public void syncMetaData() {}
    };
  }

  /**
   * Lucene's tiered policy with a small floor: the segments of small updates merge among themselves, never
   * into the segments a build wrote (the default floor, megabytes, counts a whole repository's index as small
   * and rewrites it every few commits).
   */
  static TieredMergePolicy mergePolicy() {
    TieredMergePolicy policy = new TieredMergePolicy();
    policy.setFloorSegmentMB(FLOOR_SEGMENT_MB);
    return policy;
  }

  private static void update(IndexWriter writer, DefaultLuceneDocumentGenerator<JsonCollection.Document> generator,
                             String line, String key) throws IOException {
    JsonCollection.Document source = JsonCollection.Document.fromString(line);
    Document doc;
    try {
      doc = generator.createDocument(source);
    } catch (GeneratorException e) {
      throw new IllegalArgumentException("cannot index document " + source.id() + ": " + e, e);
    }
    if (!Constants.ID.equals(key)) {
      String value = source.fields().get(key);
      if (value == null) {
        throw new IllegalArgumentException("document " + source.id() + " has no " + key + " field");
      }
      doc.add(new StringField(key, value, Field.Store.NO));
    }
    writer.updateDocument(new Term(Constants.ID, source.id()), doc);
  }
}
