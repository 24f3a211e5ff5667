package io.qlog.testing;

import java.io.Closeable;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Collection;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * The project's read-only reverse proxy (tests/rewrite/readonly_proxy.py, run by the project's Python) in front of
 * an Elasticsearch or OpenSearch node: it forwards only {@code _search}, {@code _msearch} and {@code _field_caps}
 * on the named indexes (what the {@code read} index privilege allows) and records anything else, which
 * {@link #refused()} returns. Forwarded requests carry {@code X-Opaque-Id: }{@link #OPAQUE_ID}, so a test can
 * collect the engine actions they ran.
 */
public final class ReadOnlyProxy implements Closeable {
  public static final String OPAQUE_ID = "qlog-readonly-proxy";
  /** The request header that carries {@link #OPAQUE_ID}, as the engines' tasks keep it. */
  public static final String OPAQUE_ID_HEADER = "X-Opaque-Id";
  /** The mapping of {@link #checkRoute}'s analyzer index: f indexed by anserini and searched by whitespace, g anserini. */
  public static final String ANALYZER_INDEX_MAPPING = "{\"properties\": {\"id\": {\"type\": \"keyword\"},"
      + " \"f\": {\"type\": \"text\", \"analyzer\": \"anserini\", \"search_analyzer\": \"whitespace\"},"
      + " \"g\": {\"type\": \"text\", \"analyzer\": \"anserini\"}}}";

  private final Process process;
  private final String upstream;
  private final Path log;
  public final String url;

  public ReadOnlyProxy(String upstream, String indexes, Path dir) throws IOException, InterruptedException {
    this.upstream = upstream;
    Files.createDirectories(dir);
    Path portFile = dir.resolve("proxy.port");
    log = dir.resolve("proxy-refused.log");
    Files.deleteIfExists(portFile);
    Files.write(log, new byte[0]);
    Path script = CsnRuby.repoRoot().resolve("tests/rewrite/readonly_proxy.py");
    process = new ProcessBuilder(CsnRuby.python().toString(), script.toString(), upstream, indexes,
        portFile.toString(), log.toString()).redirectErrorStream(true)
        .redirectOutput(dir.resolve("proxy.out").toFile()).start();
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
    while (!Files.exists(portFile)) {
      if (!process.isAlive() || System.nanoTime() > deadline) {
        process.destroyForcibly();
        throw new IOException("the read-only proxy did not start: "
            + Files.readString(dir.resolve("proxy.out"), StandardCharsets.UTF_8));
      }
      Thread.sleep(50);
    }
    url = "http://127.0.0.1:" + Files.readString(portFile, StandardCharsets.UTF_8).trim();
  }

  /** The requests the proxy refused ("METHOD PATH: why"), in order. */
  public List<String> refused() throws IOException {
    return Files.readAllLines(log, StandardCharsets.UTF_8);
  }

  /**
   * The checks of the read-only route beyond the runs, through this proxy: a {@code --field} the index lacks is one
   * error line and exit 2; tests/rewrite/test_client_route.py passes with {@code engine}'s Python client on
   * {@code index} (CSN-Ruby under the engine's BM25) and {@code analyzerIndex} (field f: analyzer anserini,
   * search_analyzer whitespace; g: anserini); and the proxy refused nothing. Throws AssertionError otherwise.
   */
  public void checkRoute(String engine, String index, String analyzerIndex, Path topics, Path dir)
      throws IOException, InterruptedException {
    String[] absent = RewriteVerb.exitAndOutput(List.of("--engine", engine, "--url", url, "--collection", index,
        "--field", "nosuch", "--topics", topics.toString(), "--q", "0.7", "--output",
        dir.resolve("absent-field-run.txt").toString()), dir);
    if (!absent[0].equals("2") || !absent[1].startsWith("error: ") || !absent[1].contains("'nosuch'")) {
      throw new AssertionError("a --field the index lacks: exit " + absent[0] + "\n" + absent[1]);
    }
    // QLOG_ENGINE_UPSTREAM (the cluster itself, not the proxy) only tells the test the server's version
    RewriteVerb.assertPytestPasses("tests/rewrite/test_client_route.py", java.util.Map.of("QLOG_ENGINE", engine,
        "QLOG_ENGINE_URL", url, "QLOG_ENGINE_UPSTREAM", upstream, "QLOG_ENGINE_INDEX", index,
        "QLOG_ANALYZER_INDEX", analyzerIndex, "QLOG_TOPICS", topics.toString()), dir);
    if (!refused().isEmpty()) {
      throw new AssertionError("requests a read-only role may not send: " + refused());
    }
  }

  /**
   * Every action a node ran for this proxy's requests ({@code actions}, as a recorder on the node saw them) must be
   * one a read-only role is granted: its name starts with {@code readPrefix} ({@code grant} names that privilege in
   * the failure). Prints them; none recorded is a failure too (the recorder saw nothing).
   */
  public static void assertReadOnlyActions(Collection<String> actions, String readPrefix, String grant) {
    System.out.println("actions run for the read-only proxy's requests: " + actions);
    if (actions.isEmpty()) {
      throw new AssertionError("no action recorded for the proxy's requests");
    }
    for (String action : actions) {
      if (!action.startsWith(readPrefix)) {
        throw new AssertionError(action + " is not granted by " + grant);
      }
    }
  }

  @Override
  public void close() {
    process.destroy();
    try {
      process.waitFor(10, TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    process.destroyForcibly();
  }
}
