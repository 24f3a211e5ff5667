"""Where instances come from: SWE-bench and Multi-SWE-bench records, or a repository's own history.

Every source yields :class:`IssueRecord` values: an instance id, the repository (``org/name``), the
base commit, the query text and the file changes of the fix. Records are read and checked whole
before any repository is touched, so a malformed file fails in a second with ``file:line``.

- ``swebench``: ``instance_id``, ``repo`` ("org/name"), ``base_commit``, ``problem_statement`` (the
  query), ``patch`` (the fix; ``test_patch`` is not read);
- ``multi-swe-bench``: ``org``, ``repo``, ``base.sha``, ``resolved_issues`` (the query: each issue's
  title and body, in order), ``fix_patch``; ``instance_id`` when present, else ``org__repo-number``;
- ``git-history``: each non-merge commit of a repository (newest first) is an instance: its message
  the query, its parent the base commit, the files it changed (git's rename detection) the fix.

A file is JSON lines, or one JSON array of records (the shape a dataset export writes); a folder
stands for the ``*.jsonl`` and ``*.json`` files in it, in name order.
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Iterator, Sequence

from qlog_pyserini.errors import QLogError
from qlog_pyserini.formats.trec import check_id
from qlog_pyserini.instances.diffs import FileChange, parse_diff
from qlog_pyserini.instances.git import Commit

FORMATS = ("swebench", "multi-swe-bench", "git-history")


@dataclass(frozen=True)
class IssueRecord:
    """One instance as its source gives it, before any rule is applied."""

    instance_id: str
    repo: str
    base_commit: str
    query: str
    changes: tuple[FileChange, ...]
    where: str  # file:line, or the commit it came from


def input_files(paths: Sequence[str | os.PathLike]) -> list[Path]:
    """The record files ``paths`` name: files as given, folders as their ``*.jsonl``/``*.json`` files."""
    files: list[Path] = []
    for given in paths:
        path = Path(given)
        if path.is_dir():
            found = sorted(p for p in path.iterdir() if p.is_file() and p.suffix in (".jsonl", ".json")
                           and not p.name.startswith("."))
            if not found:
                raise QLogError(f"--input folder {str(path)!r} holds no *.jsonl or *.json files")
            files += found
        elif path.is_file():
            files.append(path)
        else:
            raise QLogError(f"--input {str(path)!r} does not exist")
    return files


def _objects(file: Path) -> Iterator[tuple[str, dict]]:
    try:
        text = file.read_text(encoding="utf-8-sig")
    except (OSError, UnicodeDecodeError) as e:
        raise QLogError(f"cannot read {str(file)!r}: {e}") from None
    if text.lstrip().startswith("["):
        try:
            rows = json.loads(text)
        except ValueError as e:
            raise QLogError(f"{file}: not valid JSON: {e}") from None
        for i, row in enumerate(rows):
            yield f"{file}: record {i + 1}", row
        return
    for lineno, line in enumerate(text.splitlines(), 1):
        if not line.strip():
            continue
        try:
            yield f"{file}:{lineno}", json.loads(line)
        except ValueError as e:
            raise QLogError(f"{file}:{lineno}: not valid JSON: {e}") from None


def _field(row: Any, name: str, where: str) -> Any:
    value = row
    for part in name.split("."):
        if not isinstance(value, dict) or part not in value:
            raise QLogError(f"{where}: no {name!r} field (is this the right --format?)")
        value = value[part]
    return value


def _text(row: Any, name: str, where: str) -> str:
    value = _field(row, name, where)
    if not isinstance(value, str):
        raise QLogError(f"{where}: field {name!r} is {type(value).__name__}, not a string")
    return value


def _changes(patch: str, where: str) -> tuple[FileChange, ...]:
    try:
        return tuple(parse_diff(patch))
    except QLogError as e:
        raise QLogError(f"{where}: {e}") from None


def swebench_record(row: Any, where: str) -> IssueRecord:
    repo = _text(row, "repo", where)
    if repo.count("/") != 1:
        raise QLogError(f"{where}: repo {repo!r} is not 'org/name'")
    return IssueRecord(check_id(_text(row, "instance_id", where), "instance_id", f" ({where})"), repo,
                       _text(row, "base_commit", where), _text(row, "problem_statement", where),
                       _changes(_text(row, "patch", where), where), where)


def multi_swe_bench_record(row: Any, where: str) -> IssueRecord:
    org, name = _text(row, "org", where), _text(row, "repo", where)
    issues = _field(row, "resolved_issues", where)
    if not isinstance(issues, list):
        raise QLogError(f"{where}: field 'resolved_issues' is not a list")
    parts = []
    for issue in issues:
        if not isinstance(issue, dict):
            raise QLogError(f"{where}: a resolved issue is not an object")
        parts += [str(issue.get(key) or "") for key in ("title", "body")]
    instance_id = row.get("instance_id") if isinstance(row, dict) else None
    if not isinstance(instance_id, str):
        instance_id = f"{org}__{name}-{_field(row, 'number', where)}"
    return IssueRecord(check_id(instance_id, "instance_id", f" ({where})"), f"{org}/{name}",
                       _text(row, "base.sha", where), "\n".join(p for p in parts if p.strip()),
                       _changes(_text(row, "fix_patch", where), where), where)


_READERS = {"swebench": swebench_record, "multi-swe-bench": multi_swe_bench_record}


def record_format(paths: Sequence[str | os.PathLike]) -> str:
    """The record format of the files ``paths`` name, read off each file's first record: ``multi-swe-bench`` (its
    ``fix_patch``) or ``swebench`` (its ``patch`` and ``problem_statement``); QLogError when a file is neither or
    the files disagree."""
    found: dict[str, Path] = {}
    for file in input_files(paths):
        first = next((row for _, row in _objects(file)), None)
        keys = set(first) if isinstance(first, dict) else set()
        fmt = ("multi-swe-bench" if "fix_patch" in keys
               else "swebench" if {"patch", "problem_statement"} <= keys else None)
        if fmt is None:
            raise QLogError(f"{file}: its first record is neither SWE-bench's (patch, problem_statement) nor "
                            "Multi-SWE-bench's (fix_patch)")
        found.setdefault(fmt, file)
    if len(found) > 1:
        raise QLogError("the record files mix formats: " + ", ".join(f"{f} ({p})" for f, p in found.items()))
    if not found:
        raise QLogError(f"no records in {', '.join(map(str, paths))}")
    return next(iter(found))


def read_records(fmt: str, paths: Sequence[str | os.PathLike]) -> list[IssueRecord]:
    """Every record of the ``fmt`` files ``paths``, checked (fields, patches, unique instance ids)."""
    if fmt not in _READERS:
        raise QLogError(f"unknown record format {fmt!r}; choose from {', '.join(_READERS)}")
    records: list[IssueRecord] = []
    seen: dict[str, str] = {}
    for file in input_files(paths):
        for where, row in _objects(file):
            record = _READERS[fmt](row, where)
            if record.instance_id in seen:
                raise QLogError(f"{where}: instance_id {record.instance_id!r} repeats {seen[record.instance_id]}")
            seen[record.instance_id] = where
            records.append(record)
    if not records:
        raise QLogError(f"no records in {', '.join(map(str, paths))}")
    return records


def history_record(commit: Commit, repo: str, message: str) -> IssueRecord:
    """The instance a commit makes: its message asks for the files it modified, on its parent's tree."""
    assert commit.parent is not None
    org, name = repo.split("/")
    return IssueRecord(check_id(f"{org}__{name}-{commit.sha[:12]}", "instance_id"), repo, commit.parent, message,
                       commit.changes, f"commit {commit.sha}")


def repo_label(path: Path) -> str:
    """``org/name`` for a repository folder named ``org__name[.git]`` (or holding such a ``.git``), else
    ``local/<folder>``. The folder is named as typed, before links are resolved (a link ``org__name`` to a mirror
    is ``org/name``), and as resolved when only that name says it."""
    def folder_name(folder: Path) -> str:
        name = folder.name
        if name == ".git":
            name = folder.parent.name
        return name[:-4] if name.endswith(".git") and len(name) > 4 else name

    names = [folder_name(Path(os.path.abspath(path))), folder_name(path.resolve())]
    for name in names:
        if "__" in name:
            org, _, rest = name.partition("__")
            return f"{org}/{rest}"
    return f"local/{names[0]}"
