package io.qlog.testing;

import io.qlog.similarities.QLogBM25Similarity;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
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

  /**
   * Runs the verb against {@code engine} at q = 1, 0.7, 0.3 for each odds form of {@code forms} (lucene, rsj) and
   * asserts that every query's top 10 is QLogBM25Similarity's (k1 = 0.9, b = 0.4) on the single {@code reference}
   * index, every score times {@code scale} (an engine whose BM25 keeps the (k1 + 1) numerator scores 1 + k1 times
   * Lucene's). Prints a line per setting.
   */
  public static void assertEqualsReference(String engine, String url, String index, CsnRuby data,
      ReferenceIndex reference, float scale, List<String> forms, Path out) throws IOException, InterruptedException {
    StringBuilder table = new StringBuilder();
    for (String form : forms) {
      for (double q : new double[] {1.0, 0.7, 0.3}) {
        Map<String, TopTen> runs = run(engine, url, index, CsnRuby.prepared().resolve("topics.tsv"), q, form, out);
        QLogBM25Similarity qlog = new QLogBM25Similarity(0.9f, 0.4f, q, QLogBM25Similarity.IdfForm.parse(form));
        int same = 0;
        List<String> failures = new ArrayList<>();
        for (Map.Entry<String, String> topic : data.topics.entrySet()) {
          TopTen single = reference.top(qlog, topic.getValue());
          TopTen want = new TopTen();
          for (int i = 0; i < single.ids.size(); i++) {
            want.add(single.ids.get(i), single.scores.get(i) * scale);
          }
          TopTen got = runs.getOrDefault(topic.getKey(), new TopTen());
          // the run prints 6 decimals and keeps its scores strictly decreasing (1e-6 steps)
          String why = TopTen.sameRanking(got, want, 2e-6, 2e-5);
          if (why == null) {
            same++;
          } else if (failures.size() < 5) {
            failures.add(topic.getKey() + ": " + why + "\n  rewrite " + got + "\n  qlog    " + want);
          }
        }
        table.append(String.format(Locale.ROOT, "q=%s %s: %d/%d same top 10%n", q, form, same, data.topics.size()));
        if (same != data.topics.size()) {
          throw new AssertionError("q=" + q + " " + form + ": " + same + "/" + data.topics.size() + " same top 10\n"
              + String.join("\n", failures));
        }
      }
    }
    System.out.print(table);
  }

  /**
   * Runs {@code python -m pytest FILE -n 0 -q} with {@code env} added to the environment (the project's Python and
   * its worktree on PYTHONPATH, as the verb), for the Python tests that need a live cluster; writes its output to
   * {@code out/<file name>.log} and fails, naming the failed tests and their assertion lines (a CI log may keep
   * only the failure's message), unless pytest passed.
   */
  public static void assertPytestPasses(String file, Map<String, String> env, Path out)
      throws IOException, InterruptedException {
    Files.createDirectories(out);
    Path log = out.resolve(Path.of(file).getFileName() + ".log");
    List<String> cmd = List.of(CsnRuby.python().toString(), "-m", "pytest", file, "-n", "0", "-q", "-p",
        "no:cacheprovider");
    ProcessBuilder pb = new ProcessBuilder(cmd).directory(CsnRuby.repoRoot().toFile()).redirectErrorStream(true)
        .redirectOutput(log.toFile());
    pb.environment().putAll(env);
    Process p = pb.start();
    if (!p.waitFor(30, TimeUnit.MINUTES)) {
      p.destroyForcibly();
      throw new AssertionError("pytest timed out: " + String.join(" ", cmd));
    }
    String output = Files.readString(log, StandardCharsets.UTF_8);
    System.out.print(output);
    if (p.exitValue() != 0) {
      String why = output.lines().filter(l -> l.startsWith("FAILED") || l.startsWith("ERROR") || l.startsWith("E "))
          .limit(40).collect(java.util.stream.Collectors.joining("\n"));
      throw new AssertionError(file + " failed (exit " + p.exitValue() + "):\n" + why);
    }
  }

  /** Runs the rewrite verb with {@code args} after {@code python -m qlog_pyserini.rewrite}; its exit code and output. */
  public static String[] exitAndOutput(List<String> args, Path out) throws IOException, InterruptedException {
    Files.createDirectories(out);
    Path log = Files.createTempFile(out, "rewrite", ".log");
    List<String> cmd = new ArrayList<>(List.of(CsnRuby.python().toString(), "-m", "qlog_pyserini.rewrite"));
    cmd.addAll(args);
    Process p = new ProcessBuilder(cmd).directory(CsnRuby.repoRoot().toFile()).redirectErrorStream(true)
        .redirectOutput(log.toFile()).start();
    if (!p.waitFor(10, TimeUnit.MINUTES)) {
      p.destroyForcibly();
      throw new AssertionError("rewrite verb timed out: " + String.join(" ", cmd));
    }
    return new String[] {Integer.toString(p.exitValue()), Files.readString(log, StandardCharsets.UTF_8)};
  }
}
