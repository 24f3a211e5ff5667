package io.qlog.testing;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * Runs {@code python -m qlog_pyserini.rewrite} against a live engine over HTTP, exactly as a user with only the
 * Python package and a stock cluster would (the project's .venv, plain HTTP to the node), and reads its TREC run
 * back as one {@link TopTen} per query. The engine tests hold these lists against the single-index reference.
 */
public final class RewriteVerb {
  private RewriteVerb() {}

  /**
   * @param engine elasticsearch, opensearch or solr
   * @param url the node's HTTP address, e.g. http://127.0.0.1:9200
   * @param index the index or collection to search (its field "contents" under the engine's plain BM25)
   * @param topics the topics file
   * @param out a folder for the run and the verb's log
   * @return qid to the top 10 the verb wrote (queries without hits absent)
   */
  public static Map<String, TopTen> run(String engine, String url, String index, Path topics, double q, String form,
      Path out) throws IOException, InterruptedException {
    Files.createDirectories(out);
    Path runFile = out.resolve("rewrite-" + engine + "-q" + q + "-" + form + ".txt");
    Path log = out.resolve(runFile.getFileName() + ".log");
    List<String> cmd = List.of(CsnRuby.python().toString(), "-m", "qlog_pyserini.rewrite", "--engine", engine,
        "--url", url, "--collection", index, "--topics", topics.toString(), "--q", Double.toString(q),
        "--idf-form", form, "--hits", "10", "--output", runFile.toString(), "--quiet");
    Process p = new ProcessBuilder(cmd).directory(CsnRuby.repoRoot().toFile()).redirectErrorStream(true)
        .redirectOutput(log.toFile()).start();
    if (!p.waitFor(30, TimeUnit.MINUTES) || p.exitValue() != 0) {
      p.destroyForcibly();
      throw new AssertionError("rewrite verb failed: " + String.join(" ", cmd) + "\n"
          + Files.readString(log, StandardCharsets.UTF_8));
    }
    Map<String, TopTen> tops = new LinkedHashMap<>();
    for (String line : Files.readAllLines(runFile, StandardCharsets.UTF_8)) {
      String[] f = line.split(" ");
      tops.computeIfAbsent(f[0], k -> new TopTen()).add(f[2], Float.parseFloat(f[4]));
    }
    return tops;
  }
}
