package io.qlog.index;

import org.kohsuke.args4j.Option;
import org.kohsuke.args4j.spi.StringArrayOptionHandler;

/**
 * The options of every command that builds indexes: the analyzer and each IndexWriter's RAM buffer. A command's
 * own options class extends it and gives the defaults that suit it (args4j reads the options of superclasses).
 */
public class WriterOptions {
  @Option(name = "-analyzer", metaVar = "[name]", usage = "default or identifier")
  public String analyzer;

  /**
   * JSON fields indexed beside {@code contents}, as {@code IndexCollection -fields} (Anserini's document
   * generator indexes a document's other fields only when named here), with the contents' analyzer and options.
   */
  @Option(name = "-fields", handler = StringArrayOptionHandler.class, metaVar = "[field...]",
      usage = "JSON fields indexed beside contents")
  public String[] fields = new String[0];

  @Option(name = "-memoryBuffer", metaVar = "[mb]", usage = "each IndexWriter's RAM buffer, in MB")
  public int memoryBuffer;

  protected WriterOptions(String analyzer, int memoryBuffer) {
    this.analyzer = analyzer;
    this.memoryBuffer = memoryBuffer;
  }
}
