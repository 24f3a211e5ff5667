"""The ``locate`` stage: ``locate`` beside bm25s's pure-Python route (``scripts/bench_locate.py``): cold index, warm
query, the update after one changed file and bm25s's build and query on one mirror of ``--repos``, and both
routes' Acc@1, Acc@5 and MRR on the shared issue sets and, where ``Config.issue_reports`` holds them, the
issue-report sets."""

from __future__ import annotations

from typing import Sequence

from qlog_pyserini.reproduce.cache import Config, PreparedCorpus
from qlog_pyserini.reproduce.programs import run_script
from qlog_pyserini.system.progress import info

FILES = ("locate-bench.md", "locate-bench.json")
REPOSITORY = "apache__dubbo"  # about 4,700 files, 2,300 of them Java sources after the rules
QUICK_INSTANCES = 6  # per set with --quick


def run(cfg: Config, corpora: Sequence[PreparedCorpus]) -> None:
    if not (cfg.repos / REPOSITORY).is_dir() or not (cfg.shared / "issues").is_dir():
        info(f"[locate] skipped: needs {cfg.repos / REPOSITORY} and {cfg.shared / 'issues'}")
        return None
    limit = ["--max-instances", str(QUICK_INSTANCES)] if cfg.quick else []
    reports = ["--issue-reports", cfg.issue_reports] if cfg.issue_reports.is_dir() else []
    run_script("bench_locate.py", "--repos", cfg.repos, "--repo", REPOSITORY, "--shared", cfg.shared,
               "--work", cfg.work / "locate-bench", *reports, *limit, "--output", cfg.out / FILES[0])
    return None
