"""The ``issue-reports`` stage: issue reports of repositories outside the benchmarks (``results/issue-reports.md``).

The shared issue sets are Java, JavaScript, TypeScript and C, and our Python, Go, Rust and C++ sets are commit
messages, so the issue-text rules written for reports (tracebacks, panics, dotted modules, the members a package
exports) had no measurement in those languages. These sets give them one. Their repositories were named in
results/selection-ledger.md before any was fetched; ``scripts/issue_report_set.py`` makes, per language, one
SWE-bench-format file per repository (the issue's title and report as the query, the closing commit's parent as
the base, the source files it modifies as the answers) into ``Config.issue_reports/<language>/``, which this stage
reads (Multi-SWE-bench's format is read as well); the files stay out of the repository, so the stage skips, with
one line, where they are absent. Each language is one set, swept once per analyzer with folds dealt by repository, and reported per repository, per
language and pooled as results/localization.md and the held-out rounds report theirs.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Mapping, Sequence

import pandas as pd

from qlog_pyserini.eval.report import markdown_table
from qlog_pyserini.formats.instances import read_instance_set
from qlog_pyserini.instances.sources import record_format
from qlog_pyserini.reproduce.cache import Config, PreparedCorpus
from qlog_pyserini.reproduce.held_out import language_section, lever_section
from qlog_pyserini.reproduce.issues import ANALYZERS, FOLDER_LANGUAGES, analyzer_folder, sweep_issue_set
from qlog_pyserini.reproduce.localization import per_query
from qlog_pyserini.reproduce.localization import section as localization_section
from qlog_pyserini.reproduce.report import footer, mode
from qlog_pyserini.system.outputs import atomic_output
from qlog_pyserini.system.progress import info

FILES = ("issue-reports.md", "issue-reports.json")
PREFIX = "reports-"  # a language's set is reports-<language> under the work folder's issue-sets
SAMPLE = ("**Development data:** issue reports of repositories outside SWE-bench, Multi-SWE-bench and SWE-bench "
          "Multilingual, registered in results/selection-ledger.md before they were fetched and measured with "
          "`auto` as it stood; a change decided after these figures is measured on a held-out round registered after "
          "it as well (the evidence's votes in proportion to its weight, on the third). Each row below is one repository of its language's set (tuned BM25's folds are dealt by repository "
          "within a language).")


def language_folders(root: Path) -> list[Path]:
    """The language folders of ``root`` (``Config.issue_reports``) holding ``*_dataset.jsonl`` files, in name order."""
    if not root.is_dir():
        return []
    return [p for p in sorted(root.iterdir())
            if p.is_dir() and p.name in FOLDER_LANGUAGES and any(p.glob("*_dataset.jsonl"))]


def run(cfg: Config, corpora: Sequence[PreparedCorpus]) -> None:
    folders = language_folders(cfg.issue_reports)
    if not folders:
        info(f"issue-reports: no <language>/*_dataset.jsonl under {cfg.issue_reports} (scripts/issue_report_set.py "
             "makes them); skipped")
        return None
    if not cfg.repos.is_dir():
        info(f"issue-reports: no repositories at {cfg.repos} (clones or mirrors of the sets' repositories); skipped")
        return None
    frames: dict[str, dict[str, pd.DataFrame]] = {a: {} for a in ANALYZERS}
    languages: dict[str, str] = {}
    instances: list[dict] = []
    for folder in folders:
        name, inputs = PREFIX + folder.name, sorted(folder.glob("*_dataset.jsonl"))
        for analyzer in ANALYZERS:
            sweep_issue_set(name, inputs, record_format(inputs), FOLDER_LANGUAGES[folder.name], cfg, analyzer)
        instance_set = read_instance_set(cfg.work / "issue-sets" / name)
        repositories = instance_set.repositories()
        for analyzer in ANALYZERS:
            frame = per_query(cfg.work / analyzer_folder("issue-sweeps", analyzer) / name)
            frames[analyzer].update(split_by_repository(frame, repositories))
        languages.update(dict.fromkeys(repositories.values(), folder.name))
        fixes = _fix_commits(inputs)
        instances += [{"instance_id": i.instance_id, "language": folder.name, "repo": i.repo,
                       "base_commit": i.base_commit, "fix_commit": fixes.get(i.instance_id)}
                      for i in instance_set.instances]
    table, per_language = language_section(frames, languages, cfg.resamples,
                                           pools="Each language's repositories pooled")
    body, record = localization_section(frames, cfg.resamples, sample=SAMPLE)
    counts = frames["default"]
    listing = markdown_table([[repo, languages[repo], len(frame)] for repo, frame in counts.items()],
                             ["repository", "language", "instances"])
    text = (f"# Issue -> files on issue reports outside the benchmarks ({mode(cfg)})\n\n"
            "Each set: a language's issue reports (query: the issue's title and report; answers: the non-test source "
            "files of the commit that closed it; corpus: that commit's parent's tree). Each instance's issue, base "
            "commit and closing commit are in issue-reports.json.\n\n" + listing + "\n" + table + "\n" + body + "\n"
            + lever_section(frames))
    with atomic_output(cfg.out / FILES[0]) as f:
        f.write(text + footer(cfg))
    with atomic_output(cfg.out / FILES[1]) as f:
        json.dump({**record, "languages": per_language, "instances": instances}, f, indent=1)
    return None


def split_by_repository(frame: pd.DataFrame, repositories: Mapping[str, str]) -> dict[str, pd.DataFrame]:
    """``frame``'s instances grouped by their repository (``{instance_id: repo}``), repositories in first-seen order."""
    groups: dict[str, list[str]] = {}
    for instance in frame.index:
        groups.setdefault(repositories[instance], []).append(instance)
    return {repo: frame.loc[ids] for repo, ids in groups.items()}


def _fix_commits(inputs: Sequence[Path]) -> dict[str, str]:
    """``{instance_id: the commit that closed the issue}`` of the records that carry one (scripts/issue_report_set.py
    writes it beside SWE-bench's fields): with the base commit, what a reader needs to rebuild an instance."""
    fixes = {}
    for path in inputs:
        for line in path.read_text(encoding="utf-8").splitlines():
            record = json.loads(line) if line.strip() else {}
            if isinstance(record, dict) and "instance_id" in record and "fix_commit" in record:
                fixes[record["instance_id"]] = record["fix_commit"]
    return fixes
