"""The ``python-issues`` stage: issue reports of Python repositories outside SWE-bench (``results/python-issues.md``).

The shared issue sets are Java, JavaScript, TypeScript and C, and our Python sets are commit messages, so the
issue-text rules written for Python reports (tracebacks, dotted modules, the members a package exports) had no
measurement. This set gives them one. Its repositories were named in results/selection-ledger.md before any was
fetched; ``scripts/python_issue_set.py`` makes one SWE-bench-format file per repository (the issue's title and
report as the query, the closing commit's parent as the base, the source files it modifies as the answers) into
``Config.python_issues``, which this stage reads; the files stay out of the repository, so the stage skips, with
one line, where they are absent. The set is swept once per analyzer, folds dealt by repository, and reported per
repository and pooled exactly as results/localization.md reports its sets.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Mapping, Sequence

import pandas as pd

from qlog_pyserini.formats.instances import read_instance_set
from qlog_pyserini.reproduce.cache import Config, PreparedCorpus
from qlog_pyserini.reproduce.held_out import language_section, lever_section
from qlog_pyserini.reproduce.issues import ANALYZERS, analyzer_folder, sweep_issue_set
from qlog_pyserini.reproduce.localization import read_frames
from qlog_pyserini.reproduce.localization import section as localization_section
from qlog_pyserini.reproduce.report import footer, mode
from qlog_pyserini.system.outputs import atomic_output
from qlog_pyserini.system.progress import info

FILES = ("python-issues.md", "python-issues.json")
NAME = "python-issues"
SAMPLE = ("**Development data:** Python issue reports from repositories outside SWE-bench, registered in "
          "results/selection-ledger.md before they were fetched and measured with `auto` as it stood; a change "
          "decided after these figures is measured on the second held-out round as well. Each row below is one "
          "repository of the one set (tuned BM25's folds are dealt by repository over all of them).")


def dataset_files(cfg: Config) -> list[Path]:
    """The SWE-bench-format files of ``Config.python_issues`` (``<org>__<repo>_dataset.jsonl``), in name order."""
    folder = cfg.python_issues
    return sorted(folder.glob("*_dataset.jsonl")) if folder.is_dir() else []


def run(cfg: Config, corpora: Sequence[PreparedCorpus]) -> None:
    inputs = dataset_files(cfg)
    if not inputs:
        info(f"python-issues: no *_dataset.jsonl under {cfg.python_issues} (scripts/python_issue_set.py makes them); "
             "skipped")
        return None
    summaries = {analyzer: sweep_issue_set(NAME, inputs, "swebench", ("python",), cfg, analyzer)
                 for analyzer in ANALYZERS}
    frames = read_frames({a: {NAME: cfg.work / analyzer_folder("issue-sweeps", a) / NAME} for a in ANALYZERS})
    repositories = read_instance_set(cfg.work / "issue-sets" / NAME).repositories()
    by_repository = {a: split_by_repository(f[NAME], repositories) for a, f in frames.items()}
    body, record = localization_section(by_repository, cfg.resamples, sample=SAMPLE)
    table, per_language = language_section(by_repository, dict.fromkeys(set(repositories.values()), "python"),
                                           cfg.resamples, pools="Every repository pooled")
    summary = summaries["default"]
    text = (f"# Issue -> files on Python issue reports ({mode(cfg)})\n\n"
            f"{summary['instances']} instances from {len(set(repositories.values()))} repositories (query: the "
            "issue's title and report; answers: the non-test source files of the commit that closed it; corpus: "
            "that commit's parent's tree). Each instance's issue, base commit and closing commit are in "
            "python-issues.json.\n\n" + table + "\n" + body + "\n" + lever_section(by_repository))
    with atomic_output(cfg.out / FILES[0]) as f:
        f.write(text + footer(cfg))
    with atomic_output(cfg.out / FILES[1]) as f:
        json.dump({**record, "languages": per_language, "inputs": [p.name for p in inputs],
                   "instances": _instance_commits(inputs)}, f, indent=1)
    return None


def split_by_repository(frame: pd.DataFrame, repositories: Mapping[str, str]) -> dict[str, pd.DataFrame]:
    """``frame``'s instances grouped by their repository (``{instance_id: repo}``), repositories in first-seen order."""
    groups: dict[str, list[str]] = {}
    for instance in frame.index:
        groups.setdefault(repositories[instance], []).append(instance)
    return {repo: frame.loc[ids] for repo, ids in groups.items()}


def _instance_commits(inputs: Sequence[Path]) -> list[dict]:
    """Each instance's id (its issue's number), repository, base commit and the commit that closed the issue: what a
    reader needs to rebuild it."""
    rows = []
    for path in inputs:
        for line in path.read_text(encoding="utf-8").splitlines():
            if line.strip():
                record = json.loads(line)
                rows.append({k: record.get(k) for k in ("instance_id", "repo", "base_commit", "fix_commit")})
    return rows
