"""The engine stage of ``reproduce``: the engines' tables, made by their benchmark programs and tests.

Each table of ``results/`` that a Maven test writes (Solr, OpenSearch, Elasticsearch, the Lucene
rewrite) or a benchmark program writes (Tantivy: :mod:`qlog_pyserini.bench.tantivy_rewrite`) is made
here by running it as a child process (:mod:`qlog_pyserini.system.processes`) with its output pointed
into ``--work``; the table is then copied to ``--out`` with its provenance appended: each command run
(paths relative to the project root), the date, the commit (``+dirty`` when the tree had changes), the versions.

A table is the whole file: the reading of its numbers lives in ``results/README.md``. Results are
cached under ``--work/engines`` by command and commit. The Maven runs need ``mvn``; Maven fetches
what ``~/.m2`` lacks from Maven Central (a fresh clone's first run has plugins to fetch, so no ``-o``);
without ``mvn`` the Maven tables are skipped with one line.
``--quick`` runs only the Lucene rewrite benchmark, at one round.
"""

from __future__ import annotations

import json
import os
import shutil
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Sequence

from qlog_pyserini.errors import QLogError
from qlog_pyserini.reproduce.cache import Config, Prepared, cached, stamp
from qlog_pyserini.reproduce.corpora import prepared_labelled
from qlog_pyserini.reproduce.report import shown_command, shown_path
from qlog_pyserini.system.outputs import atomic_output
from qlog_pyserini.system import processes
from qlog_pyserini.system.progress import info
from qlog_pyserini.system.project import PROJECT_ROOT
from qlog_pyserini.system.provenance import git_commit, provenance, provenance_markdown

# Skips the module's integration tests (failsafe) and tolerates a -Dtest pattern that matches no test of
# the upstream modules -am builds.
MAVEN_FLAGS = ("-Dsurefire.failIfNoSpecifiedTests=false", "-Dit.test=NONE", "-Dfailsafe.failIfNoSpecifiedTests=false")


@dataclass(frozen=True)
class EngineRun:
    """One run writing a table: a Maven module's test selector (``-Dtest``), or, when ``module`` is empty, a
    Python benchmark program (``python -m target``) over the prepared CSN-Ruby corpus."""

    module: str
    target: str  # Maven: the -Dtest selector; Python: the module run with -m
    out_property: str  # the system property (Maven) or the option (Python) naming the output file
    properties: tuple[str, ...] = ()  # further -Dname=value (Maven) or command-line words (Python)
    rounds_property: str = ""  # the property or option giving the benchmark's rounds, when it has some
    rounds: int = 0
    also_make: bool = True  # -am: build the modules it depends on first

    def command(self, out: Path, shared: Path, quick: bool,
                data: Path | None = None) -> tuple[list[str], dict[str, str]]:
        """The command line and extra environment of this run writing to ``out``; a Python program reads the
        prepared corpus ``data`` (corpus/, topics.tsv), a Maven test the raw CSN-Ruby under ``shared``."""
        rounds = 1 if quick else self.rounds
        if not self.module:
            if data is None:
                raise ValueError(f"{self.target} reads a prepared corpus: data is required")
            return [sys.executable, "-m", self.target, "--corpus", str(data / "corpus"),
                    "--topics", str(data / "topics.tsv"), *self.properties,
                    *([self.rounds_property, str(rounds)] if self.rounds_property else []),
                    self.out_property, str(out), "--quiet"], {}
        cmd = ["mvn", "-B", "-q", "-pl", self.module, *(["-am"] if self.also_make else []), "verify",
               f"-Dtest={self.target}", *MAVEN_FLAGS, *(f"-D{p}" for p in self.properties),
               *([f"-D{self.rounds_property}={rounds}"] if self.rounds_property else []),
               f"-Dqlog.data={shared}", f"-D{self.out_property}={out}"]
        return cmd, {}


@dataclass(frozen=True)
class EngineTable:
    """A results file made by one or more runs, their outputs joined in order under ``title``."""

    name: str
    title: str
    runs: tuple[EngineRun, ...]
    quick: bool = False  # also run by --quick


BENCH = ("qlog.bench=true",)
ENGINE_TABLES = (
    EngineTable("rewrite-bench.md", "Query cost of the boosted-query rewrite on Lucene (CodeSearchNet Ruby)", (
        EngineRun("qlog-similarity", "TestQLogBoostedQuery#benchmark*", "qlog.bench.out", BENCH,
                  "qlog.bench.rounds", 9, also_make=False),), quick=True),
    EngineTable("solr-drift.md", "q-log BM25 in SolrCloud: global vs shard-local statistics (CodeSearchNet Ruby)", (
        EngineRun("qlog-solr", "TestSolrCloudCsnRuby", "qlog.drift.out", ("qlog.drift.qs=1,0.7,0.5,0.3",)),)),
    EngineTable("solr-bench.md", "Query cost in SolrCloud: q-log BM25 and the boosted-query rewrite against BM25", (
        EngineRun("qlog-solr", "TestSolrCloudCsnRuby#throughput*", "qlog.bench.out", BENCH, "qlog.bench.rounds", 9),)),
    EngineTable("opensearch-drift.md", "q-log BM25 in OpenSearch: dfs_query_then_fetch vs query_then_fetch "
                "(CodeSearchNet Ruby)", (
        EngineRun("qlog-opensearch", "TestOpenSearchCsnRuby", "qlog.drift.out", ("qlog.drift.qs=1,0.7,0.5,0.3",)),)),
    EngineTable("opensearch-bench.md", "OpenSearch: query cost of the q-log plugin, built-in BM25, the scripted "
                "similarity and the rewrite (CodeSearchNet Ruby; then ten copies, hits not counted)", (
        EngineRun("qlog-opensearch", "TestOpenSearchCsnRuby#testScripted*+testQueryCost*", "qlog.bench.out", BENCH,
                  "qlog.bench.rounds", 9),
        EngineRun("qlog-opensearch", "TestOpenSearchCsnRuby#testQueryCost*", "qlog.bench.out",
                  (*BENCH, "qlog.bench.copies=10", "qlog.bench.prune=true"), "qlog.bench.rounds", 9))),
    EngineTable("elasticsearch-drift.md", "q-log BM25 in Elasticsearch: dfs_query_then_fetch vs query_then_fetch "
                "(CodeSearchNet Ruby)", (
        EngineRun("qlog-elasticsearch", "TestElasticsearchCsnRuby", "qlog.drift.out",
                  ("qlog.drift.qs=1,0.7,0.5,0.3",)),)),
    EngineTable("elasticsearch-bench.md", "Elasticsearch: query cost of the q-log plugin and of the boosted-query "
                "rewrite against built-in BM25", (
        EngineRun("qlog-elasticsearch", "TestElasticsearchCsnRuby#testQueryCost*", "qlog.bench.out", BENCH,
                  "qlog.bench.rounds", 5),)),
    EngineTable("tantivy-rewrite-bench.md", "Tantivy: query cost of the boosted-query rewrite against Tantivy's "
                "own BM25", (
        EngineRun("", "qlog_pyserini.bench.tantivy_rewrite", "--output", ("--name", "CSN-Ruby"), "--rounds", 15),)),
)
ENGINE_FILES = tuple(t.name for t in ENGINE_TABLES)


def _run_one(run_spec: EngineRun, out: Path, cfg: Config, log: Path, data: Path | None) -> str:
    """Run one program or test writing ``out``; returns the command as shown. A failure raises QLogError with its
    log's tail."""
    cmd, env = run_spec.command(out, cfg.shared, cfg.quick, data)
    shown = shown_command(cmd, env, cfg)
    info(f"[engines] {shown}")
    cwd = PROJECT_ROOT / "java-similarity" if run_spec.module else PROJECT_ROOT
    extra = {"JAVA_HOME": str(_java_home())} if run_spec.module else {}
    proc = processes.run(cmd, cwd=cwd, env={**os.environ, **extra, **env}, text=True)
    with atomic_output(log) as f:
        f.write(proc.stdout + proc.stderr)
    if proc.returncode != 0 or not out.is_file():
        tail = "\n".join((proc.stdout + proc.stderr).strip().splitlines()[-15:])
        raise QLogError(f"engines: `{shown}` {'failed' if proc.returncode else 'wrote no table'} "
                        f"(exit {proc.returncode}; log {shown_path(log, cfg)}):\n{tail}")
    return shown


def _java_home() -> Path:
    from qlog_pyserini.jvm.toolchain import find_jdk

    return find_jdk().home


def engine_table(table: EngineTable, cfg: Config) -> Path:
    """Run ``table``'s programs and tests (cached by command and commit under ``--work/engines``), write it to
    ``--out``."""
    folder = cfg.work / "engines" / table.name.removesuffix(".md")
    # the Python programs read CSN-Ruby prepared (as the main stage prepares it, in the same cache)
    data = prepared_labelled("csn-ruby", cfg) if any(not r.module for r in table.runs) else None
    commit = git_commit()
    key = {"runs": [r.command(folder / f"run-{i}.md", cfg.shared, cfg.quick, data) for i, r in enumerate(table.runs)],
           "commit": commit}
    key = json.loads(json.dumps(key))  # tuples as lists, as the stamp reads back
    dirty = commit is None or commit.endswith("+dirty")
    if dirty or not cached(folder, key):  # a dirty tree is not a version: always run again
        if folder.exists():
            shutil.rmtree(folder)
        folder.mkdir(parents=True)
        commands = [_run_one(r, folder / f"run-{i}.md", cfg, folder / f"run-{i}.log", data)
                    for i, r in enumerate(table.runs)]
        with atomic_output(folder / "commands.json") as f:
            json.dump({"commands": commands, "provenance": provenance(cfg.command)}, f, indent=2)
        stamp(folder, key)
    made = json.loads((folder / "commands.json").read_text())
    parts = [f"# {table.title}\n"]
    for i, command in enumerate(made["commands"]):
        parts.append(f"\n{(folder / f'run-{i}.md').read_text().strip()}\n\nCommand (from the project root; "
                     f"WORK and SHARED are reproduce's --work and --shared folders): `{command}`\n")
    parts.append("\n" + provenance_markdown(made["provenance"]))
    with atomic_output(cfg.out / table.name) as f:
        f.write("".join(parts))
    return cfg.out / table.name


def run(cfg: Config, corpora: Sequence[Prepared] = (), tables: Sequence[EngineTable] = ENGINE_TABLES) -> None:
    """The engine tables ``cfg`` asks for (``--quick``: those marked quick); Maven's skipped when ``mvn`` is absent."""
    import importlib.util

    for table in tables:
        if cfg.quick and not table.quick:
            continue
        if not (cfg.shared / "csn-ruby" / "test.jsonl").is_file():  # every engine test reads CSN-Ruby
            info(f"[engines] {table.name} skipped: {cfg.shared / 'csn-ruby'} is absent")
            continue
        if any(r.module for r in table.runs) and shutil.which("mvn") is None:
            info(f"[engines] {table.name} skipped: Maven (mvn) is not on PATH")
            continue
        if any(not r.module for r in table.runs) and importlib.util.find_spec("tantivy") is None:
            info(f"[engines] {table.name} skipped: the tantivy package is not installed (extra: rewrite)")
            continue
        engine_table(table, cfg)
