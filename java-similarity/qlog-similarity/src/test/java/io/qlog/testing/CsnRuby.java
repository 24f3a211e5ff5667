package io.qlog.testing;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.BufferedReader;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

/**
 * CodeSearchNet Ruby as this project prepares it ({@code python -m qlog_pyserini.prepare --format csn}):
 * corpus/*.jsonl of {"id","contents"}, topics.tsv (qid TAB text), qrels.txt (TREC). The prepared folder is
 * -Dqlog.csn=DIR, or made here into java-similarity/target/csn-ruby with the project's .venv from ../shared/data. Null when
 * neither is possible, and the caller skips. Shared by the engine tests (Solr, OpenSearch) through this
 * module's test jar.
 */
public final class CsnRuby {
  /** {id, contents} in file order. */
  public final List<String[]> docs = new ArrayList<>();
  /** qid to query text, in file order. */
  public final Map<String, String> topics = new LinkedHashMap<>();
  /** qid to docid to grade. */
  public final Map<String, Map<String, Integer>> qrels = new HashMap<>();

  /** Why the data is unavailable, or null when {@link #load()} can work. */
  public static String unavailable() {
    if (System.getProperty("qlog.csn") != null) {
      return Files.isRegularFile(Paths.get(System.getProperty("qlog.csn"), "topics.tsv"))
          ? null : "-Dqlog.csn=" + System.getProperty("qlog.csn") + " has no topics.tsv";
    }
    Path raw = rawDir();
    if (!Files.isRegularFile(raw.resolve("test.jsonl"))) {
      return "CSN-Ruby data not found at " + raw + " (set -Dqlog.data or -Dqlog.csn)";
    }
    if (!Files.isExecutable(python())) {
      return "no " + python() + " to run qlog_pyserini.prepare (run scripts/setup.sh, or set -Dqlog.csn)";
    }
    return null;
  }

  /** The project's root (the folder holding java-similarity/ and .venv/). */
  public static Path repoRoot() {
    return Paths.get(System.getProperty("basedir", ".")).toAbsolutePath().resolve("../..").normalize();
  }

  static Path rawDir() {
    return Paths.get(System.getProperty("qlog.data", repoRoot().resolve("../shared/data").toString())).resolve("csn-ruby");
  }

  /** The project's Python (-Dqlog.python, else .venv/bin/python), which runs the qlog_pyserini verbs. */
  public static Path python() {
    return Paths.get(System.getProperty("qlog.python", repoRoot().resolve(".venv/bin/python").toString()));
  }

  /** The prepared folder (corpus/, topics.tsv, qrels.txt), made on first use. */
  public static Path prepared() throws IOException, InterruptedException {
    if (System.getProperty("qlog.csn") != null) {
      return Paths.get(System.getProperty("qlog.csn"));
    }
    // java-similarity/target/csn-ruby: prepared once per build, whichever engine module's test comes first
    Path out = repoRoot().resolve("java-similarity/target/csn-ruby");
    if (!Files.isRegularFile(out.resolve("topics.tsv"))) {
      Files.createDirectories(out.getParent());
      Process p = new ProcessBuilder(python().toString(), "-m", "qlog_pyserini.prepare", "--format", "csn",
              "--input", rawDir().resolve("test.jsonl").toString(), rawDir().resolve("valid.jsonl").toString(),
              "--out", out.toString())
          .directory(repoRoot().toFile()).inheritIO().start();
      if (!p.waitFor(10, TimeUnit.MINUTES) || p.exitValue() != 0) {
        throw new IOException("qlog_pyserini.prepare failed for " + rawDir());
      }
    }
    return out;
  }

  public static CsnRuby load() throws IOException, InterruptedException {
    Path dir = prepared();
    CsnRuby data = new CsnRuby();
    ObjectMapper json = new ObjectMapper();
    List<Path> files;
    try (Stream<Path> s = Files.list(dir.resolve("corpus"))) {
      files = s.filter(f -> f.toString().endsWith(".jsonl")).sorted().collect(java.util.stream.Collectors.toList());
    }
    for (Path f : files) {
      try (BufferedReader r = Files.newBufferedReader(f, StandardCharsets.UTF_8)) {
        for (String line; (line = r.readLine()) != null; ) {
          if (!line.isBlank()) {
            JsonNode node = json.readTree(line);
            data.docs.add(new String[] {node.get("id").asText(), node.get("contents").asText()});
          }
        }
      }
    }
    for (String line : Files.readAllLines(dir.resolve("topics.tsv"), StandardCharsets.UTF_8)) {
      int tab = line.indexOf('\t');
      if (tab > 0) {
        data.topics.put(line.substring(0, tab), line.substring(tab + 1));
      }
    }
    for (String line : Files.readAllLines(dir.resolve("qrels.txt"), StandardCharsets.UTF_8)) {
      String[] f = line.trim().split("\\s+");
      if (f.length == 4) {
        data.qrels.computeIfAbsent(f[0], k -> new HashMap<>()).put(f[2], Integer.parseInt(f[3]));
      }
    }
    return data;
  }

  /** trec_eval's ndcg_cut.10: gain = grade, discount log2(rank + 1), ideal from the query's qrels; 0 if unjudged. */
  public double ndcg10(String qid, List<String> ranked) {
    Map<String, Integer> rel = qrels.getOrDefault(qid, Map.of());
    double dcg = 0;
    for (int i = 0; i < Math.min(10, ranked.size()); i++) {
      dcg += rel.getOrDefault(ranked.get(i), 0) / (Math.log(i + 2) / Math.log(2));
    }
    List<Integer> grades = new ArrayList<>(rel.values());
    grades.sort((a, b) -> b - a);
    double ideal = 0;
    for (int i = 0; i < Math.min(10, grades.size()); i++) {
      ideal += grades.get(i) / (Math.log(i + 2) / Math.log(2));
    }
    return ideal > 0 ? dcg / ideal : 0;
  }
}
