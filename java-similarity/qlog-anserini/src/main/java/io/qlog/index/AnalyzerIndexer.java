package io.qlog.index;

import io.anserini.collection.FileSegment;
import io.anserini.collection.JsonCollection;
import io.anserini.index.IndexCollection;
import io.anserini.index.generator.DefaultLuceneDocumentGenerator;
import io.anserini.index.generator.EmptyDocumentException;
import io.anserini.index.generator.GeneratorException;
import io.anserini.index.generator.SkippedDocumentException;
import io.qlog.analysis.IdentifierAnalyzer;
import java.io.IOException;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.lucene.analysis.Analyzer;
import org.apache.lucene.document.Document;
import org.apache.lucene.index.ConcurrentMergeScheduler;
import org.apache.lucene.index.IndexWriter;
import org.apache.lucene.index.IndexWriterConfig;
import org.apache.lucene.index.SegmentInfos;
import org.apache.lucene.search.similarities.BM25Similarity;
import org.apache.lucene.store.Directory;
import org.apache.lucene.store.FSDirectory;
import org.kohsuke.args4j.CmdLineException;
import org.kohsuke.args4j.CmdLineParser;
import org.kohsuke.args4j.Option;

/**
 * Anserini's {@code IndexCollection -collection JsonCollection -generator
 * DefaultLuceneDocumentGenerator} with a choice of analyzer, which {@code IndexCollection} (a final
 * class) does not offer: {@code default} (Anserini's {@code DefaultEnglishAnalyzer}) or
 * {@code identifier} ({@link IdentifierAnalyzer}).
 *
 * <p>The index is the one {@code IndexCollection} builds: documents are read by Anserini's
 * {@code JsonCollection} and made by Anserini's {@code DefaultLuceneDocumentGenerator} (so the
 * fields are the same by construction: {@code id} as a stored {@code StringField} plus the
 * {@code BinaryDocValues} {@code SimpleSearcher} breaks score ties by, {@code contents} with
 * positions and, with {@code -storeDocvectors}, term vectors, {@code raw} stored), and the
 * {@code IndexWriterConfig} is {@code IndexCollection}'s ({@code BM25Similarity} for the length
 * norms, 4096 MB RAM buffer, no compound files, concurrent merges). With {@code -analyzer default}
 * a BM25 run on it equals one on {@code IndexCollection}'s index (docids, ranks and scores).
 *
 * <p>The analyzer's name is written into the commit's user data under {@value #ANALYZER_KEY}, so a
 * searcher can analyze queries the same way; see {@link #recordedAnalyzer(String)}. The output
 * mimics Anserini's: {@code N documents indexed} progress lines and the final counters
 * ({@code indexed:}, {@code unindexable:}, {@code empty:}, {@code skipped:}, {@code errors:}).
 */
public final class AnalyzerIndexer {

  /** Commit user-data key holding the analyzer's name. */
  public static final String ANALYZER_KEY = "qlog.analyzer";

  private static final int BATCH = 256;

  /**
   * Command-line options (the analyzer and buffer are {@link WriterOptions}); the storage flags are
   * {@code IndexCollection}'s.
   */
  public static final class Args extends WriterOptions {
    @Option(name = "-input", metaVar = "[path]", required = true,
        usage = "folder of Anserini JsonCollection files ({\"id\", \"contents\"} per line)")
    public String input;

    @Option(name = "-index", metaVar = "[path]", required = true, usage = "index folder to create")
    public String index;

    @Option(name = "-threads", metaVar = "[num]", usage = "indexing threads")
    public int threads = 4;

    @Option(name = "-storePositions", usage = "index term positions")
    public boolean storePositions = false;

    @Option(name = "-storeDocvectors", usage = "store term vectors")
    public boolean storeDocvectors = false;

    @Option(name = "-storeRaw", usage = "store the raw JSON document")
    public boolean storeRaw = false;

    @Option(name = "-quiet", usage = "no progress or counter lines (a caller building many indexes reports its own)")
    public boolean quiet = false;

    public Args() {
      super(IdentifierAnalyzer.NAME, 4096);
    }
  }

  private final Args args;
  private final AtomicLong indexed = new AtomicLong();
  private final AtomicLong unindexable = new AtomicLong();
  private final AtomicLong empty = new AtomicLong();
  private final AtomicLong skipped = new AtomicLong();
  private final AtomicLong errors = new AtomicLong();
  private final AtomicReference<Throwable> failure = new AtomicReference<>();

  public AnalyzerIndexer(Args args) {
    if (args.threads < 1) {
      throw new IllegalArgumentException("illegal threads value: " + args.threads + ", must be at least 1");
    }
    if (args.memoryBuffer < 1) {
      throw new IllegalArgumentException(
          "illegal memoryBuffer value: " + args.memoryBuffer + ", must be at least 1 (MB)");
    }
    IdentifierAnalyzer.forName(args.analyzer); // validates the name before any work
    this.args = args;
  }

  /** Indexes the collection; returns the number of documents indexed. */
  public long run() throws Exception {
    long start = System.nanoTime();
    JsonCollection collection = new JsonCollection(Paths.get(args.input));
    List<Path> segments = collection.getSegmentPaths();
    log(String.format("%,d %s found in %s", segments.size(), segments.size() == 1 ? "file" : "files", args.input));
    IndexCollection.Args generatorArgs = new IndexCollection.Args();
    generatorArgs.storePositions = args.storePositions;
    generatorArgs.storeDocvectors = args.storeDocvectors;
    generatorArgs.storeRaw = args.storeRaw;
    generatorArgs.fields = args.fields;
    DefaultLuceneDocumentGenerator<JsonCollection.Document> generator =
        new DefaultLuceneDocumentGenerator<>(generatorArgs);

    Analyzer analyzer = IdentifierAnalyzer.forName(args.analyzer);
    IndexWriterConfig config = new IndexWriterConfig(analyzer)
        .setSimilarity(new BM25Similarity())
        .setOpenMode(IndexWriterConfig.OpenMode.CREATE)
        .setRAMBufferSizeMB(args.memoryBuffer)
        .setUseCompoundFile(false)
        .setMergeScheduler(new ConcurrentMergeScheduler());
    // One reader (JSON parsing is cheap) feeds batches to the pool, where analysis happens inside
    // addDocument; a full queue makes the reader index a batch itself, which bounds memory.
    ThreadPoolExecutor pool = new ThreadPoolExecutor(args.threads, args.threads, 0L, TimeUnit.MILLISECONDS,
        new ArrayBlockingQueue<>(2 * args.threads), new ThreadPoolExecutor.CallerRunsPolicy());
    ScheduledExecutorService progress = Executors.newSingleThreadScheduledExecutor();
    try (Directory dir = FSDirectory.open(Paths.get(args.index));
         IndexWriter writer = new IndexWriter(dir, config)) {
      if (!args.quiet) {
        progress.scheduleAtFixedRate(
            () -> log(String.format("%,d documents indexed", indexed.get())), 5, 5, TimeUnit.SECONDS);
      }
      for (Path segment : segments) {
        read(collection, segment, generator, writer, pool);
      }
      pool.shutdown();
      pool.awaitTermination(Long.MAX_VALUE, TimeUnit.DAYS);
      if (failure.get() != null) {
        throw new IOException("indexing failed: " + failure.get(), failure.get());
      }
      writer.setLiveCommitData(Map.of(ANALYZER_KEY, args.analyzer).entrySet());
      writer.commit();
      int maxDoc = writer.getDocStats().maxDoc;
      if (maxDoc != indexed.get()) {
        throw new IllegalStateException("indexed " + indexed.get() + " documents but the index holds " + maxDoc);
      }
    } finally {
      pool.shutdownNow();
      progress.shutdownNow();
      analyzer.close();
    }
    long ms = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
    log(String.format("Indexing Complete! %,d documents indexed with the %s analyzer", indexed.get(), args.analyzer));
    log("============ Final Counter Values ============");
    log(String.format("indexed:     %,12d", indexed.get()));
    log(String.format("unindexable: %,12d", unindexable.get()));
    log(String.format("empty:       %,12d", empty.get()));
    log(String.format("skipped:     %,12d", skipped.get()));
    log(String.format("errors:      %,12d", errors.get()));
    log(String.format("Total %,d documents indexed in %.1f s", indexed.get(), ms / 1000.0));
    return indexed.get();
  }

  private void read(JsonCollection collection, Path segment,
                    DefaultLuceneDocumentGenerator<JsonCollection.Document> generator,
                    IndexWriter writer, ThreadPoolExecutor pool) throws IOException {
    try (FileSegment<JsonCollection.Document> docs = collection.createFileSegment(segment)) {
      List<JsonCollection.Document> batch = new ArrayList<>(BATCH);
      for (JsonCollection.Document doc : docs) {
        if (failure.get() != null) {
          return;
        }
        batch.add(doc);
        if (batch.size() == BATCH) {
          submit(batch, generator, writer, pool);
          batch = new ArrayList<>(BATCH);
        }
      }
      submit(batch, generator, writer, pool);
      skipped.addAndGet(docs.getSkippedCount());
      if (docs.getErrorStatus()) {
        errors.incrementAndGet();
        log("error reading " + segment);
      }
    }
  }

  private void submit(List<JsonCollection.Document> batch,
                      DefaultLuceneDocumentGenerator<JsonCollection.Document> generator,
                      IndexWriter writer, ThreadPoolExecutor pool) {
    if (!batch.isEmpty()) {
      pool.execute(() -> index(batch, generator, writer));
    }
  }

  /** Same bookkeeping as Anserini's {@code IndexerThread}, one batch at a time. */
  private void index(List<JsonCollection.Document> batch,
                     DefaultLuceneDocumentGenerator<JsonCollection.Document> generator, IndexWriter writer) {
    for (JsonCollection.Document doc : batch) {
      if (!doc.indexable()) {
        unindexable.incrementAndGet();
        continue;
      }
      Document luceneDoc;
      try {
        luceneDoc = generator.createDocument(doc);
      } catch (EmptyDocumentException e) {
        empty.incrementAndGet();
        continue;
      } catch (SkippedDocumentException e) {
        skipped.incrementAndGet();
        continue;
      } catch (GeneratorException e) {
        // InvalidDocumentException (no id or contents), as Anserini counts it.
        errors.incrementAndGet();
        continue;
      }
      try {
        writer.addDocument(luceneDoc);
        indexed.incrementAndGet();
      } catch (IOException | RuntimeException e) {
        failure.compareAndSet(null, e);
        return;
      }
    }
  }

  /**
   * The analyzer name recorded in the latest commit of {@code indexDir}, or {@code default} when
   * there is none: an index built by Anserini's {@code IndexCollection} (or Pyserini) records
   * nothing and was analyzed by its default English analyzer.
   */
  public static String recordedAnalyzer(String indexDir) throws IOException {
    try (Directory dir = FSDirectory.open(Paths.get(indexDir))) {
      String name = SegmentInfos.readLatestCommit(dir).getUserData().get(ANALYZER_KEY);
      return name == null ? IdentifierAnalyzer.DEFAULT_NAME : name;
    }
  }

  private void log(String message) {
    if (!args.quiet) {
      // One line per println, so concurrent progress lines never interleave mid-line.
      System.out.println("AnalyzerIndexer - " + message);
    }
  }

  public static void main(String[] argv) throws Exception {
    Args args = new Args();
    CmdLineParser parser = new CmdLineParser(args);
    AnalyzerIndexer indexer;
    try {
      parser.parseArgument(argv);
      indexer = new AnalyzerIndexer(args);
    } catch (CmdLineException | IllegalArgumentException e) {
      System.err.println("Error: " + e.getMessage());
      System.err.print("Example: " + AnalyzerIndexer.class.getSimpleName());
      parser.printSingleLineUsage(System.err);
      System.err.println();
      parser.printUsage(System.err);
      System.exit(2);
      return;
    }
    try {
      indexer.run();
    } catch (Exception e) {
      e.printStackTrace();
      System.exit(1);
    }
  }
}
