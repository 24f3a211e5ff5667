package io.qlog.index;

import io.qlog.analysis.IdentifierAnalyzer;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.kohsuke.args4j.CmdLineException;
import org.kohsuke.args4j.CmdLineParser;
import org.kohsuke.args4j.Option;

/**
 * Many small indexes in one JVM: each job is one {@link AnalyzerIndexer} run (Anserini's {@code
 * JsonCollection} and {@code DefaultLuceneDocumentGenerator}, positions, doc vectors and raw documents
 * stored), so every index is the one {@code AnalyzerIndexer} alone would build from the same folder.
 *
 * <p>A JVM start costs seconds; a corpus of a thousand source files indexes in a fraction of that. Jobs
 * run {@code -threads} at a time, each single-threaded (small corpora gain nothing from several writer
 * threads, and one thread per index keeps both cores busy on different indexes). The jobs file holds one
 * job a line, {@code <collection folder> TAB <index folder>}; for each finished job one line {@code
 * done TAB <index folder> TAB <documents> TAB <milliseconds>} is printed (or {@code failed TAB <index
 * folder> TAB <message>}), so the caller can publish each index as soon as it is complete. Exit code 1
 * when any job failed.
 */
public final class BatchIndexer {

  /** Command-line options (the analyzer and buffer are {@link WriterOptions}). */
  public static final class Args extends WriterOptions {
    @Option(name = "-jobs", metaVar = "[file]", required = true,
        usage = "one job a line: collection folder, a tab, index folder")
    public String jobs;

    @Option(name = "-threads", metaVar = "[num]", usage = "indexes built at the same time")
    public int threads = 1;

    public Args() {
      super(IdentifierAnalyzer.DEFAULT_NAME, 256);
    }
  }

  private BatchIndexer() {}

  /** Builds every job's index; returns how many failed. */
  public static int run(Args args) throws IOException, InterruptedException {
    if (args.threads < 1) {
      throw new IllegalArgumentException("illegal threads value: " + args.threads + ", must be at least 1");
    }
    IdentifierAnalyzer.forName(args.analyzer); // validates the name before any work
    List<String[]> jobs = new ArrayList<>();
    for (String line : Files.readAllLines(Paths.get(args.jobs), StandardCharsets.UTF_8)) {
      if (line.isEmpty()) {
        continue;
      }
      String[] job = line.split("\t", -1);
      if (job.length != 2) {
        throw new IllegalArgumentException("bad job line (want <collection>TAB<index>): " + line);
      }
      jobs.add(job);
    }
    AtomicInteger failed = new AtomicInteger();
    ExecutorService pool = Executors.newFixedThreadPool(args.threads);
    for (String[] job : jobs) {
      pool.execute(() -> {
        long start = System.nanoTime();
        try {
          if (!Files.isDirectory(Paths.get(job[0]))) {
            // JsonCollection would read an absent folder as an empty collection and make an empty index
            throw new IOException("no collection folder " + job[0]);
          }
          AnalyzerIndexer.Args one = new AnalyzerIndexer.Args();
          one.input = job[0];
          one.index = job[1];
          one.analyzer = args.analyzer;
          one.threads = 1;
          one.memoryBuffer = args.memoryBuffer;
          one.fields = args.fields;
          one.storePositions = true;
          one.storeDocvectors = true;
          one.storeRaw = true;
          one.quiet = true;
          long docs = new AnalyzerIndexer(one).run();
          report("done\t" + job[1] + "\t" + docs + "\t" + TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start));
        } catch (Exception | OutOfMemoryError e) {
          failed.incrementAndGet();
          report("failed\t" + job[1] + "\t" + String.valueOf(e).replace('\n', ' ').replace('\t', ' '));
        }
      });
    }
    pool.shutdown();
    pool.awaitTermination(Long.MAX_VALUE, TimeUnit.DAYS);
    return failed.get();
  }

  private static synchronized void report(String line) {
    System.out.println(line);
    System.out.flush();
  }

  public static void main(String[] argv) throws Exception {
    Args args = new Args();
    CmdLineParser parser = new CmdLineParser(args);
    try {
      parser.parseArgument(argv);
    } catch (CmdLineException e) {
      System.err.println("Error: " + e.getMessage());
      parser.printUsage(System.err);
      System.exit(2);
      return;
    }
    System.exit(run(args) == 0 ? 0 : 1);
  }
}
