package io.qlog.testing;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.nio.file.StandardCopyOption;
import java.util.Arrays;
import java.util.List;
import java.util.function.Supplier;
import org.junit.runner.Description;
import org.junit.runner.JUnitCore;
import org.junit.runner.Request;
import org.junit.runner.Result;
import org.junit.runner.manipulation.Filter;
import org.junit.runner.notification.Failure;

/**
 * What the engines' benchmark programs share: their command line ({@code BENCH OUT}), the table written whole
 * or not at all, and hosting a benchmark inside an engine's test framework, whose in-process clusters (SolrCloud,
 * OpenSearch, Elasticsearch) exist only while its JUnit runner runs a suite. The tests assert; these programs
 * measure and write the tables of results/ (run by {@code python -m qlog_pyserini.reproduce}'s engines stage).
 */
public final class Benchmarks {
  private Benchmarks() {}

  /** A program's output file: the last argument, after {@code names.size()} choices when there are any. */
  public static Path output(String program, String[] args, List<String> names) {
    String usage = "usage: " + program + (names.isEmpty() ? "" : " {" + String.join("|", names) + "}") + " OUT.md";
    int expected = names.isEmpty() ? 1 : 2;
    if (args.length != expected || (!names.isEmpty() && !names.contains(args[0]))) {
      System.err.println("error: " + usage + " (got " + Arrays.toString(args) + ")");
      System.exit(2);
    }
    Path out = Paths.get(args[args.length - 1]).toAbsolutePath();
    if (!Files.isDirectory(out.getParent())) {
      System.err.println("error: the folder of " + out + " does not exist");
      System.exit(2);
    }
    return out;
  }

  /**
   * The main of an engine's benchmark suite, {@code SUITE {drift|cost} OUT.md}: runs its method {@code drift} or
   * {@code queryCost} ({@link #runInFramework}) and exits with its status.
   */
  public static void main(Class<?> suite, String[] args, Supplier<String> table) throws IOException {
    Path out = output(suite.getSimpleName(), args, List.of("drift", "cost"));
    System.exit(runInFramework(suite, args[0].equals("drift") ? "drift" : "queryCost", table, out));
  }

  /** Writes {@code markdown} to {@code out} through a temporary file beside it, so a reader never sees half. */
  public static void write(Path out, String markdown) throws IOException {
    Path tmp = Files.createTempFile(out.getParent(), "." + out.getFileName(), ".tmp");
    try {
      Files.writeString(tmp, markdown, StandardCharsets.UTF_8);
      Files.move(tmp, out, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
    } finally {
      Files.deleteIfExists(tmp);
    }
  }

  /**
   * Runs the one method {@code method} of {@code suite} through JUnit (the suite's framework starts and stops its
   * cluster around it), then writes what {@code table} holds to {@code out}. Returns the exit status: 0 written,
   * 1 the benchmark failed, 2 it could not run (data absent).
   */
  public static int runInFramework(Class<?> suite, String method, Supplier<String> table, Path out) throws IOException {
    Request request = Request.aClass(suite).filterWith(new Filter() {
      @Override
      public boolean shouldRun(Description d) {
        return d.getMethodName() == null ? d.getChildren().isEmpty() || d.getChildren().stream().anyMatch(this::shouldRun)
            : d.getMethodName().equals(method) || d.getMethodName().startsWith(method + " ");
      }

      @Override
      public String describe() {
        return "method " + method;
      }
    });
    Result result = new JUnitCore().run(request);
    for (Failure f : result.getFailures()) {
      System.err.println(f.getTestHeader() + ": " + f.getTrace());
    }
    if (!result.wasSuccessful()) {
      return 1;
    }
    if (result.getAssumptionFailureCount() > 0 || result.getRunCount() == 0 || table.get() == null) {
      System.err.println("error: " + suite.getSimpleName() + "." + method + " did not run (is the CSN-Ruby data there?)");
      return 2;
    }
    write(out, table.get());
    System.out.println(table.get());
    return 0;
  }
}
