"""The ``issues`` stage: issue -> files retrieval on every Multi-SWE-bench set of ``--shared/issues``.

Each language folder of ``--shared/issues`` (one ``<org>__<repo>_dataset.jsonl`` per repository) becomes an
instance set (``prepare --format multi-swe-bench``, its repositories found under ``Config.repos``: clones or bare
mirrors, never fetched here), every corpus is indexed in one JVM (``index --instances``) and the set is swept
(``sweep --instances``: BM25, the engines' default, tuned BM25, q-log and the joint (b, q) choice, each chosen by
the same repository-grouped cross-validation, and the label-free q). ``issues.md`` holds each set's tables and
the commit of every repository read. Every step is cached under ``--work`` and reused while its inputs match.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Sequence

from qlog_pyserini.formats.instances import REPORT_FILE
from qlog_pyserini.instances.build import prepare_issue_set
from qlog_pyserini.instances.indexing import index_instance_set
from qlog_pyserini.instances.rules import FileRules
from qlog_pyserini.predict.rule import RuleSettings
from qlog_pyserini.reproduce.cache import Config, Prepared, cached, stamp
from qlog_pyserini.reproduce.report import footer, mode, shown_path
from qlog_pyserini.sweep.baselines import DEFAULT_B_GRID, DEFAULT_K1_GRID, TuningGrids
from qlog_pyserini.sweep.instances import InstanceSweepSettings, format_summary, run_instance_sweep
from qlog_pyserini.sweep.run import parse_grid
from qlog_pyserini.system.outputs import atomic_output
from qlog_pyserini.system.progress import info

FILES = ("issues.md", "issues.json")
# The languages each folder's instances are written in (the folders of Multi-SWE-bench's own split): a
# JavaScript repository's TypeScript sources are part of what an agent may have to edit, and the reverse.
FOLDER_LANGUAGES = {"java": ("java",), "js": ("javascript", "typescript"), "ts": ("typescript", "javascript"),
                    "c": ("c",), "cpp": ("cpp", "c"), "go": ("go",), "rust": ("rust",), "python": ("python",)}
QUICK_INSTANCES = 6  # per set with --quick


def issue_folders(cfg: Config) -> list[Path]:
    """The language folders of ``--shared/issues`` this stage knows, in name order."""
    root = cfg.shared / "issues"
    if not root.is_dir():
        return []
    return [p for p in sorted(root.iterdir()) if p.is_dir() and p.name in FOLDER_LANGUAGES and any(p.glob("*.jsonl"))]


def run(cfg: Config, corpora: Sequence[Prepared]) -> None:
    folders = issue_folders(cfg)
    if not folders:
        info(f"issues: no issue sets under {cfg.shared / 'issues'}; skipped")
        return None
    if not cfg.repos.is_dir():
        info(f"issues: no repositories at {cfg.repos} (clones or mirrors of the sets' repositories); skipped")
        return None
    summaries = [_sweep_set(folder, cfg) for folder in folders]
    sections = [f"# Issue -> files retrieval ({mode(cfg)})\n",
                "Each set: Multi-SWE-bench instances of `--shared/issues/<folder>`, one index per base commit "
                "(documents: every non-test source file of the asked languages, its path, a newline and its text; "
                "query: the issue's title and body; answers: the source files the merged fix modifies). "
                "Rules, measures and folds: docs/coding-agents.md and docs/cli.md#sweeping-an-instance-set.\n"]
    for summary in summaries:
        sections.append("#" + format_summary(summary).replace("\n# ", "\n## ").replace("\n## ", "\n### "))
        sections.append(_repositories(Path(summary["instance_set"]), cfg))
    with atomic_output(cfg.out / "issues.md") as f:
        f.write("\n".join(sections) + footer(cfg))
    with atomic_output(cfg.out / "issues.json") as f:
        json.dump([{k: s[k] for k in ("name", "instances", "repositories", "languages", "tables", "cv", "auto",
                                      "verdict") if k in s} for s in summaries], f, indent=1)
    return None


def _sweep_set(folder: Path, cfg: Config) -> dict:
    languages = FOLDER_LANGUAGES[folder.name]
    grid = tuple(g for g in cfg.grid if g <= 1.0)  # q > 1 saturates rare terms: never a candidate here
    limit = QUICK_INSTANCES if cfg.quick else None
    sets, indexes, sweeps = (cfg.work / name / folder.name for name in ("issue-sets", "issue-indexes", "issue-sweeps"))
    for parent in (sets.parent, indexes.parent, sweeps.parent):
        parent.mkdir(parents=True, exist_ok=True)
    inputs = sorted(folder.glob("*.jsonl"))
    set_key = {"inputs": [str(p) for p in inputs], "sizes": [p.stat().st_size for p in inputs],
               "repos": str(cfg.repos), "languages": list(languages), "max_instances": limit}
    if not cached(sets, set_key):
        prepare_issue_set("multi-swe-bench", [folder], cfg.repos, sets, FileRules(languages), max_instances=limit,
                          skip_missing=True, overwrite=True, command=cfg.command)
        stamp(sets, set_key)
    index_instance_set(sets, indexes, threads=cfg.threads)  # reuses every index whose corpus is unchanged
    grids = TuningGrids(q_grid=grid, k1_grid=tuple(parse_grid(DEFAULT_K1_GRID)), b_grid=tuple(parse_grid(DEFAULT_B_GRID)))
    sweep_key = {"set": set_key, "grid": list(grid), "resamples": cfg.resamples, "summary_version": 1}
    if cached(sweeps, sweep_key) and (sweeps / "summary.json").is_file():
        return json.loads((sweeps / "summary.json").read_text())
    settings = InstanceSweepSettings(grids=grids, threads=cfg.threads, resamples=cfg.resamples, auto=RuleSettings())
    summary = run_instance_sweep(sets, indexes, sweeps, settings, name=folder.name, overwrite=True)
    stamp(sweeps, sweep_key)
    return summary


def _repositories(instance_set: Path, cfg: Config) -> str:
    """The repositories a set read and the commit each mirror's HEAD stood at."""
    sources = json.loads((instance_set / REPORT_FILE).read_text())["sources"]["repositories"]
    rows = [f"| {name} | {shown_path(r['path'], cfg) if r['path'] else 'missing'} | {r['head'] or 'n/a'} |"
            for name, r in sorted(sources.items())]
    return "Repositories read (instances missing from a mirror are dropped and counted in the set's report.json):\n\n" \
           "| repository | mirror | HEAD |\n|---|---|---|\n" + "\n".join(rows) + "\n"
