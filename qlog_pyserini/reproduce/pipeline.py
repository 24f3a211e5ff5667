"""Reproduce the paper's comparisons on real code: one command from sources to result tables and plots.

    scripts/reproduce            # full: Debian-packaged source in six languages + ../shared/data sets
    scripts/reproduce --quick    # minutes: small slices of local code (stdlib, JDK src.zip) + ../shared/data

For each corpus: documents, queries, BM25 NDCG@10, the 5-fold cross-validated q and its NDCG@10,
gain and two-sided p, q_opt (the oracle), NDCG@10 at q_opt, gain and two-sided p, q_auto (label-free)
and its NDCG@10, Recall@8K
tokens of BM25 and of q-log at q_opt, for both IDF odds forms. Then the scaling curve (gain
against corpus size on the largest code corpus, the same queries' own functions always kept),
the tokenizer ablation (Anserini's generic analyzer against the identifier-aware one, each at
q = 1 and at its q_opt), and the label-free-q evidence (:mod:`qlog_pyserini.reproduce.evidence`:
cross-validated tables, nested subsamples, the other models, leave-one-family-out), the per-query
label-free q (:mod:`qlog_pyserini.reproduce.auto_query`), the query-time benchmark
(:mod:`qlog_pyserini.reproduce.query_cost`) and the engine tests' tables
(:mod:`qlog_pyserini.reproduce.engines`). :data:`STAGES` is the one table of them: each row names the
files its stage writes, whether it sweeps the corpora and its module's ``run``; ``Config.stages`` picks
some. Every step is cached under ``--work`` (:mod:`qlog_pyserini.reproduce.cache`) and reused when its
inputs match; tables and plots go to ``--out`` with the command, versions and date that produced them.

Sweeps retrieve 100 hits per query: NDCG@10, recall.100 and Recall@8K-tokens never look deeper
(MAP is then truncated at 100, which these one-relevant-document benchmarks barely notice).
"""

from __future__ import annotations

import json
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Callable, Sequence

import pandas as pd

from qlog_pyserini.errors import QLogError
from qlog_pyserini.eval.grid import DEFAULT_GRID
from qlog_pyserini.jvm.provenance import provenance
from qlog_pyserini.reproduce import (
    ablation,
    auto_query,
    decisions,
    engines,
    evidence,
    held_out,
    issue_reports,
    issue_timing,
    issues,
    libraries,
    locate_bench,
    main_table,
    query_cost,
    scaling,
)
from qlog_pyserini.reproduce.cache import Config, PreparedCorpus
from qlog_pyserini.reproduce.corpora import code_corpora, labelled_corpora
from qlog_pyserini.system.outputs import atomic_output, check_results_dir, mark_results

FULL_GRID = DEFAULT_GRID
QUICK_GRID = "0.1,0.3,0.5,0.7,1.0,1.5"
CODE_LANGUAGES = ("go", "java", "ruby", "php", "javascript", "python")
FULL_SCALING = (1_000, 5_000, 20_000, 50_000, 100_000, None)  # None = the full corpus
QUICK_SCALING = (1_000, 3_000, None)
# the label-free-q evidence: nested subsamples (corpus -> sizes) and the other models' grids
FULL_SUBSAMPLES = {"java-code": (2_000, 10_000), "python-code": (500, 2_000, 10_000), "ruby-code": (2_000,),
                   "csn-ruby": (500,), "cosqa": (500, 2_000)}
QUICK_SUBSAMPLES = {"python-code": (500,), "csn-ruby": (500,)}
FULL_MODELS = {"idf-gamma": "0.6,0.8,1.0,1.2,1.5,2.0", "qld": "100,300,1000,3000"}
QUICK_MODELS = {"idf-gamma": "0.8,1.0,1.5", "qld": "300,1000"}


@dataclass(frozen=True)
class Stage:
    """One stage: what it makes, the files of ``--out`` it writes (reproduce writes these and provenance.json,
    nothing else: system.outputs.check_results_dir), whether it sweeps the corpora (they are then built, or read
    from the cache, before it runs) and its ``run(cfg, corpora)``, which returns a table for the caller or None."""

    about: str
    files: tuple[str, ...]
    run: Callable[[Config, Sequence[PreparedCorpus]], pd.DataFrame | None]
    sweeps: bool = False


# The stages, in the order they run.
STAGES: dict[str, Stage] = {
    "main": Stage("every corpus swept for both odds forms", ("main.md", "main.csv", "ndcg_vs_q.png"),
                  main_table.run, sweeps=True),
    "scaling": Stage("the gain against corpus size", ("scaling.md", "scaling.csv", "scaling.png"),
                     scaling.run, sweeps=True),
    "ablation": Stage("generic against identifier-aware analysis", ("ablation.md", "ablation.csv"),
                      ablation.run, sweeps=True),
    "evidence": Stage("cross-validated tables, nested subsamples, the other models, leave-one-family-out",
                      ("sweeps-cv.md", "sweeps-cv.csv", "sweeps-subsamples.md", "sweeps-subsamples.csv",
                       "sweeps-models.md", "sweeps-models.csv", "lolo.md", "lolo.json"), evidence.run, sweeps=True),
    "auto-query": Stage("the per-query label-free q", ("auto-query-sweeps.md", "auto-query-sweeps.csv",
                                                       "auto-query.md", "auto-query.json"), auto_query.run, sweeps=True),
    "issues": Stage("issue -> files on the Multi-SWE-bench sets of --shared/issues and pinned histories in --repos",
                    issues.FILES, issues.run),
    "held-out": Stage("the label-free issue -> files configuration on repositories no rule was designed on "
                      "(rounds of two each in Python, Go, Rust and C++, in --repos)", held_out.FILES, held_out.run),
    "issue-reports": Stage("the label-free issue -> files configuration on issue reports of repositories outside the "
                           "benchmarks (scripts/issue_report_set.py's files, --issue-reports)", issue_reports.FILES,
                           issue_reports.run),
    "decisions": Stage("each registered decision's pooled comparison, remade from the issues and held-out stages' "
                       "sweeps (results/selection-ledger.md states each rule)", decisions.FILES, decisions.run),
    "issue-timing": Stage("prepare and index of every shared issue set, cold (scripts/time_issue_sets.py)",
                          issue_timing.FILES, issue_timing.run),
    "libraries": Stage("q-log through bm25s and rank_bm25: latency, the rescale's cost, NDCG@10 beside Lucene "
                       "(scripts/bench_rag_libraries.py)", libraries.FILES, libraries.run),
    "locate": Stage("locate beside bm25s: cold index, warm query, one-file update, Acc@1/5 and MRR on the issue sets "
                    "(scripts/bench_locate.py)", locate_bench.FILES, locate_bench.run),
    "bench": Stage("query-time cost on the JDK benchmark (wants an idle machine)", ("bench.md", "bench.json"),
                   query_cost.run),
    "engines": Stage("the engine tables: Maven tests, the Tantivy benchmark program", engines.ENGINE_FILES, engines.run),
}
PROVENANCE = "provenance.json"
PROVENANCE_ABOUT = ("each stage's last run: its command, date, versions, machine and seconds; every file the stage "
                    "wrote names the same commit at its foot")
RESULT_FILES = (*(name for stage in STAGES.values() for name in stage.files), PROVENANCE)


def describe(name: str) -> str:
    """``name (files: what)``, as the command line's help lists a stage."""
    stage = STAGES[name]
    return f"{name} ({', '.join(stage.files)}: {stage.about})"


def select_stages(stages: str | None = None, skip: str | None = None) -> tuple[str, ...]:
    """The stages named by ``stages`` (comma-separated; default all) less those named by ``skip``, in run order."""
    def names(text: str, option: str) -> set[str]:
        chosen = {n.strip() for n in text.split(",") if n.strip()}
        bad = sorted(chosen - set(STAGES))
        if bad:
            raise QLogError(f"{option}: unknown stage(s) {', '.join(bad)}; choose from {', '.join(STAGES)}")
        return chosen

    chosen = names(stages, "--stages") if stages else set(STAGES)
    dropped = names(skip, "--skip") if skip else set()
    selected = tuple(n for n in STAGES if n in chosen and n not in dropped)
    if not selected:
        raise QLogError("no stage left to run (--stages and --skip leave none)")
    return selected


def _timed(cfg: Config, stage: str, started: float) -> None:
    cfg.timings[stage] = time.perf_counter() - started


def reproduce(cfg: Config) -> dict[str, pd.DataFrame]:
    """Run the stages ``cfg.stages`` (all when empty) and write their tables to ``cfg.out``; returns the
    tables the stages that ran return (main, scaling, ablation; keys absent otherwise)."""
    check_results_dir(cfg.out, RESULT_FILES, inputs=[cfg.work, cfg.cache, cfg.shared])
    cfg.out.mkdir(exist_ok=True)
    try:
        return _run_stages(cfg)
    finally:
        # also after a failed stage: the tables written so far are ours (none of RESULT_FILES was someone
        # else's, check_results_dir saw to it), so the next run may replace them
        mark_results(cfg.out, RESULT_FILES)


def _run_stages(cfg: Config) -> dict[str, pd.DataFrame]:
    started = time.perf_counter()
    stages = cfg.stages or tuple(STAGES)
    (cfg.work / "runs").mkdir(parents=True, exist_ok=True)
    corpora: list[PreparedCorpus] = []
    if any(STAGES[name].sweeps for name in stages):
        corpora = code_corpora(cfg) + labelled_corpora(cfg)
        if not corpora:
            raise QLogError("no corpus available: no source code was found and ../shared/data is absent")
        _timed(cfg, "corpora", started)
    tables: dict[str, pd.DataFrame] = {}
    for name in stages:
        table = STAGES[name].run(cfg, corpora)
        if table is not None:
            tables[name] = table
        _timed(cfg, name, started)
    _timed(cfg, "total", started)
    write_provenance(cfg, stages)
    return tables


def write_provenance(cfg: Config, stages: Sequence[str]) -> None:
    """``provenance.json``: each stage's last run, this run's for the stages in ``stages`` (with the seconds each
    took, from ``cfg.timings``) and the file's earlier record for the others, so that remaking one stage leaves the
    file true of every table."""
    path = cfg.out / PROVENANCE
    run = {**provenance(cfg.command), "grid": cfg.grid}
    records = _stage_records(path)
    previous = cfg.timings.get("corpora", 0.0)
    for name in stages:
        records[name] = {**run, "seconds": round(cfg.timings[name] - previous, 1)}
        previous = cfg.timings[name]
    with atomic_output(path) as f:
        json.dump({"about": PROVENANCE_ABOUT, "stages": {name: records[name] for name in STAGES if name in records}},
                  f, indent=2)


def _stage_records(path: Path) -> dict[str, dict]:
    """The per-stage records of an earlier ``provenance.json`` (none when it is absent or of another form)."""
    try:
        stages = json.loads(path.read_text(encoding="utf-8")).get("stages")
    except (OSError, ValueError, AttributeError):
        return {}
    if not isinstance(stages, dict):
        return {}
    return {name: record for name, record in stages.items() if name in STAGES and isinstance(record, dict)}
