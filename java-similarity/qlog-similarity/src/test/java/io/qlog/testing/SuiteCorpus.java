package io.qlog.testing;

import java.io.Closeable;
import java.io.IOException;
import java.util.Locale;
import org.junit.AssumptionViolatedException;

/**
 * What a cluster test suite (Solr, OpenSearch, Elasticsearch) holds of CSN-Ruby: the corpus and its single-index
 * reference, made on first need and closed after the suite, and a clock for its progress lines.
 */
public final class SuiteCorpus implements Closeable {
  private CsnRuby data;
  private ReferenceIndex reference;
  private long startNanos = System.nanoTime();

  /** Loads the corpus and builds its reference index once; skips the calling test when the data is absent. */
  public void require() throws IOException, InterruptedException {
    String why = CsnRuby.unavailable();
    if (why != null) {
      throw new AssumptionViolatedException(why);
    }
    if (data == null) {
      data = CsnRuby.load();
      reference = new ReferenceIndex(data);
    }
  }

  /** The corpus ({@link #require} first). */
  public CsnRuby data() {
    return data;
  }

  /** The single-index reference ({@link #require} first). */
  public ReferenceIndex reference() {
    return reference;
  }

  /** Starts the clock of {@link #log} and {@link #seconds} again. */
  public void restartClock() {
    startNanos = System.nanoTime();
  }

  /** Seconds since the clock started. */
  public double seconds() {
    return (System.nanoTime() - startNanos) / 1e9;
  }

  /** A progress line, {@code [seconds] what}. */
  public void log(String what) {
    System.out.printf(Locale.ROOT, "[%.1f s] %s%n", seconds(), what);
  }

  @Override
  public void close() throws IOException {
    if (reference != null) {
      reference.close();
    }
    reference = null;
    data = null;
  }
}
