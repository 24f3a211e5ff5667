"""The engine stage of ``reproduce``: the engines' tables, each made by a benchmark program.

Each table of ``results/`` about an engine (Solr, OpenSearch, Elasticsearch, the Lucene rewrite, Tantivy) is
written by a program run here as a child process (:mod:`qlog_pyserini.system.processes`) over CSN-Ruby as the
main stage prepares it, its output pointed into ``--work``: a Java ``main`` of the Maven build's test sources
(:mod:`qlog_pyserini.reproduce.java_bench`; the tests of those modules assert and write nothing) or a Python
program (Tantivy: :mod:`qlog_pyserini.bench.tantivy_rewrite`). The table is then written to ``--out`` with its
provenance appended: each command run (paths relative to the project root), the date, the commit (``+dirty``
when the tree had changes), the versions.

A table is the whole file: the reading of its numbers lives in ``results/README.md``. Results are
cached under ``--work/engines`` by command and commit. The Java programs need ``mvn``; Maven fetches
what ``~/.m2`` lacks from Maven Central (a fresh clone's first run has plugins to fetch, so no ``-o``);
without ``mvn`` their tables are skipped with one line.
``--quick`` runs only the Lucene rewrite benchmark, at one round.
"""

from __future__ import annotations

import dataclasses
import importlib.util
import json
import shutil
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Sequence

from qlog_pyserini.errors import QLogError
from qlog_pyserini.jvm.provenance import provenance
from qlog_pyserini.reproduce.cache import Config, PreparedCorpus, cached, stamp
from qlog_pyserini.reproduce.corpora import prepared_labelled
from qlog_pyserini.reproduce.java_bench import JavaBench
from qlog_pyserini.reproduce.report import shown_command, shown_path
from qlog_pyserini.system import processes
from qlog_pyserini.system.outputs import write_json, write_text
from qlog_pyserini.system.progress import info
from qlog_pyserini.system.project import PROJECT_ROOT
from qlog_pyserini.system.provenance import git_commit, provenance_markdown


@dataclass(frozen=True)
class EngineRun:
    """One run of a benchmark program writing a table: a Java program of the Maven build, or a Python module run
    with ``-m`` (its command-line words in ``options``, the output after ``--output``)."""

    program: JavaBench | str
    options: tuple[str, ...] = ()
    rounds: int = 0  # the timed rounds (one at --quick); 0: the program has none

    def java(self, quick: bool) -> JavaBench:
        """The Java program with its rounds as the property it reads."""
        assert isinstance(self.program, JavaBench)
        rounds = (f"qlog.bench.rounds={1 if quick else self.rounds}",) if self.rounds else ()
        return dataclasses.replace(self.program, properties=(*self.program.properties, *rounds))

    def python_command(self, out: Path, data: Path, quick: bool) -> list[str]:
        """The Python program's command line over the prepared corpus ``data`` (corpus/, topics.tsv)."""
        rounds = ["--rounds", str(1 if quick else self.rounds)] if self.rounds else []
        return [sys.executable, "-m", str(self.program), "--corpus", str(data / "corpus"),
                "--topics", str(data / "topics.tsv"), *self.options, *rounds, "--output", str(out), "--quiet"]

    def shown(self, out: Path, data: Path, cfg: Config) -> str:
        """The command(s) as typed from the project root, paths shown relative (:func:`shown_path`)."""
        if isinstance(self.program, JavaBench):
            return self.java(cfg.quick).shown(shown_path(out, cfg), shown_path(data, cfg), _java_home())
        return shown_command(self.python_command(out, data, cfg.quick), {}, cfg)

    def run(self, out: Path, data: Path, cfg: Config, log: Path) -> None:
        """Runs the program writing ``out``; its output goes to ``log``. A failure raises QLogError."""
        if isinstance(self.program, JavaBench):
            self.java(cfg.quick).run(out, data, _java_home(), log)
            return
        proc = processes.run(self.python_command(out, data, cfg.quick), cwd=PROJECT_ROOT, text=True)
        write_text(log, proc.stdout + proc.stderr)
        if proc.returncode != 0 or not out.is_file():
            tail = "\n".join((proc.stdout + proc.stderr).strip().splitlines()[-15:])
            raise QLogError(f"{self.program} {'failed' if proc.returncode else 'wrote no table'} "
                            f"(exit {proc.returncode}; log {shown_path(log, cfg)}):\n{tail}")


@dataclass(frozen=True)
class EngineTable:
    """A results file made by one or more runs, their outputs joined in order under ``title``."""

    name: str
    title: str
    runs: tuple[EngineRun, ...]
    quick: bool = False  # also run by --quick


DRIFT_QS = "qlog.drift.qs=1,0.7,0.5,0.3"
SOLR = "io.qlog.solr.SolrCloudBench"
OPENSEARCH = "io.qlog.opensearch.OpenSearchBench"
ELASTICSEARCH = "io.qlog.elasticsearch.ElasticsearchBench"
ENGINE_TABLES = (
    EngineTable("rewrite-bench.md", "Query cost of the boosted-query rewrite on Lucene (CodeSearchNet Ruby)", (
        EngineRun(JavaBench("qlog-similarity", "io.qlog.rewrite.RewriteBench"), rounds=9),), quick=True),
    EngineTable("solr-drift.md", "q-log BM25 in SolrCloud: global vs shard-local statistics (CodeSearchNet Ruby)", (
        EngineRun(JavaBench("qlog-solr", SOLR, ("drift",), (DRIFT_QS,))),)),
    EngineTable("solr-bench.md", "Query cost in SolrCloud: q-log BM25 and the boosted-query rewrite against BM25", (
        EngineRun(JavaBench("qlog-solr", SOLR, ("cost",)), rounds=9),)),
    EngineTable("opensearch-drift.md", "q-log BM25 in OpenSearch: dfs_query_then_fetch vs query_then_fetch "
                "(CodeSearchNet Ruby)", (
        EngineRun(JavaBench("qlog-opensearch", OPENSEARCH, ("drift",), (DRIFT_QS,))),)),
    EngineTable("opensearch-bench.md", "OpenSearch: query cost of the q-log plugin, built-in BM25, the scripted "
                "similarity and the rewrite (CodeSearchNet Ruby; then ten copies, hits not counted)", (
        EngineRun(JavaBench("qlog-opensearch", OPENSEARCH, ("cost",)), rounds=9),
        EngineRun(JavaBench("qlog-opensearch", OPENSEARCH, ("cost",), ("qlog.bench.copies=10", "qlog.bench.prune=true")),
                  rounds=9))),
    EngineTable("elasticsearch-drift.md", "q-log BM25 in Elasticsearch: dfs_query_then_fetch vs query_then_fetch "
                "(CodeSearchNet Ruby)", (
        EngineRun(JavaBench("qlog-elasticsearch", ELASTICSEARCH, ("drift",), (DRIFT_QS,))),)),
    EngineTable("elasticsearch-bench.md", "Elasticsearch: query cost of the q-log plugin and of the boosted-query "
                "rewrite against built-in BM25", (
        EngineRun(JavaBench("qlog-elasticsearch", ELASTICSEARCH, ("cost",)), rounds=5),)),
    EngineTable("tantivy-rewrite-bench.md", "Tantivy: query cost of the boosted-query rewrite against Tantivy's "
                "own BM25", (
        EngineRun("qlog_pyserini.bench.tantivy_rewrite", ("--name", "CSN-Ruby"), rounds=15),)),
)
ENGINE_FILES = tuple(t.name for t in ENGINE_TABLES)


def _java_home() -> Path:
    from qlog_pyserini.jvm.toolchain import find_jdk

    return find_jdk().home


def engine_table(table: EngineTable, cfg: Config) -> Path:
    """Run ``table``'s programs (cached by command and commit under ``--work/engines``), write it to ``--out``."""
    folder = cfg.work / "engines" / table.name.removesuffix(".md")
    data = prepared_labelled("csn-ruby", cfg)  # CSN-Ruby prepared as the main stage prepares it, in the same cache
    if data is None:
        raise QLogError(f"engines: {table.name} needs CSN-Ruby under {shown_path(cfg.shared, cfg)}")
    commit = git_commit()
    commands = [r.shown(folder / f"run-{i}.md", data, cfg) for i, r in enumerate(table.runs)]
    key = {"runs": commands, "commit": commit}
    dirty = commit is None or commit.endswith("+dirty")
    if dirty or not cached(folder, key):  # a dirty tree is not a version: always run again
        if folder.exists():
            shutil.rmtree(folder)
        folder.mkdir(parents=True)
        for i, (r, shown) in enumerate(zip(table.runs, commands)):
            info(f"[engines] {shown}")
            r.run(folder / f"run-{i}.md", data, cfg, folder / f"run-{i}.log")
        write_json(folder / "commands.json", {"commands": commands, "provenance": provenance(cfg.command)})
        stamp(folder, key)
    made = json.loads((folder / "commands.json").read_text())
    parts = [f"# {table.title}\n"]
    for i, command in enumerate(made["commands"]):
        parts.append(f"\n{(folder / f'run-{i}.md').read_text().strip()}\n\nCommand (from the project root; "
                     f"WORK and SHARED are reproduce's --work and --shared folders): `{command}`\n")
    parts.append("\n" + provenance_markdown(made["provenance"]))
    write_text(cfg.out / table.name, "".join(parts))
    return cfg.out / table.name


def run(cfg: Config, corpora: Sequence[PreparedCorpus] = (), tables: Sequence[EngineTable] = ENGINE_TABLES) -> None:
    """The engine tables ``cfg`` asks for (``--quick``: those marked quick); Maven's skipped when ``mvn`` is absent."""
    for table in tables:
        if cfg.quick and not table.quick:
            continue
        if not (cfg.shared / "csn-ruby" / "test.jsonl").is_file():  # every engine benchmark reads CSN-Ruby
            info(f"[engines] {table.name} skipped: {cfg.shared / 'csn-ruby'} is absent")
            continue
        if any(isinstance(r.program, JavaBench) for r in table.runs) and shutil.which("mvn") is None:
            info(f"[engines] {table.name} skipped: Maven (mvn) is not on PATH")
            continue
        if any(isinstance(r.program, str) for r in table.runs) and importlib.util.find_spec("tantivy") is None:
            info(f"[engines] {table.name} skipped: the tantivy package is not installed (extra: rewrite)")
            continue
        engine_table(table, cfg)
