"""The ``issue-timing`` stage: prepare and index of every shared issue set, cold, and the pipeline (prepare, index,
sweep) at the target's size on a repository's history (``scripts/time_issue_sets.py``)."""

from __future__ import annotations

import shutil
from typing import Sequence

from qlog_pyserini.reproduce.cache import Config, PreparedCorpus
from qlog_pyserini.reproduce.programs import run_script
from qlog_pyserini.system.progress import info

FILES = ("issue-sets-timing.json", "issue-sets-timing.md")


def run(cfg: Config, corpora: Sequence[PreparedCorpus]) -> None:
    if not (cfg.shared / "issues").is_dir() or not cfg.repos.is_dir():
        info("[issue-timing] skipped: no issue sets or no repositories")
        return None
    timing = cfg.work / "issue-timing"
    shutil.rmtree(timing / "indexes", ignore_errors=True)  # ours (under --work): the index builds must be cold
    timing.mkdir(parents=True, exist_ok=True)
    run_script("time_issue_sets.py", "--issues", cfg.shared / "issues", "--repos", cfg.repos, "--sets", timing / "sets",
             "--indexes", timing / "indexes", "--sweeps", timing / "sweeps", "--threads", str(cfg.threads), "--results", cfg.out)
    return None
