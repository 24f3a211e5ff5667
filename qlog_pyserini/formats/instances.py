"""An instance set (issue -> files) as the search side reads it, and its folder of per-corpus indexes.

An instance set is a folder ``SET`` written by ``prepare --format swebench|multi-swe-bench|git-history``:

- ``instances.jsonl``: one object per instance: ``instance_id``, ``repo`` ("org/repo"), ``language``,
  ``base_commit``, ``corpus`` (the key of its corpus: instances whose base trees and file rules agree share
  one), ``answers`` (repository paths of the non-test source files the fix modifies) and, optionally,
  ``activity`` (``{path: commits}``: how many of the base commit's recent commits touched each corpus file,
  :mod:`qlog_pyserini.localize.activity`; a set prepared without it has none);
- ``topics.tsv`` (qid = instance id, the issue text on one line) and ``qrels.txt`` (``instance_id 0 path 1``);
- ``corpora/<key>.jsonl``: one Anserini JsonCollection per corpus (``{"id": path, "contents": path + "\\n" + text}``);
- ``corpora/<key>.assembled.json``, when the tree has files left out as generated (an amalgamation...):
  ``{path: {"starts": [...], "parts": [...], "lines": n} or null}``, which corpus files each was assembled from
  (:mod:`qlog_pyserini.localize.assembly`).

Its indexes are a folder ``DIR`` with one standard Lucene index per corpus, ``DIR/<key>/`` (written by
``index --instances``, or by the ``index`` verb from ``corpora/<key>.jsonl``). ``report.json`` (what ``prepare`` dropped and why) is written beside them. This module is the one reader of the folder.
"""

from __future__ import annotations

import json
import os
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path

from qlog_pyserini.errors import QLogError
from qlog_pyserini.formats.topics import read_topics
from qlog_pyserini.formats.trec import check_id, read_qrels
from qlog_pyserini.system.digests import file_sha256
from qlog_pyserini.system.outputs import MARKER, WRITE_LOCK

INSTANCES_FILE, TOPICS_FILE, QRELS_FILE = "instances.jsonl", "topics.tsv", "qrels.txt"
CORPORA_DIR, CORPUS_SUFFIX, REPORT_FILE = "corpora", ".jsonl", "report.json"
ASSEMBLED_SUFFIX = ".assembled.json"
#: ``DIR/instances.json``: per corpus key, what ``index --instances`` built ``DIR/<key>/`` from and the files it holds
INDEX_RECORD = "instances.json"
FIELDS = ("instance_id", "repo", "language", "base_commit", "corpus", "answers")


@dataclass(frozen=True)
class Instance:
    """One issue: where it is (repository, commit, corpus key) and which files its fix modifies."""

    instance_id: str
    repo: str
    language: str
    base_commit: str
    corpus: str
    answers: tuple[str, ...]
    activity: Mapping[str, int] = field(default_factory=dict, compare=False)


@dataclass(frozen=True)
class InstanceSet:
    """An instance set's instances (file order), their queries and judgments."""

    folder: Path
    instances: tuple[Instance, ...]
    topics: dict[str, str]
    qrels: dict[str, dict[str, int]]

    @property
    def qrels_path(self) -> Path:
        return self.folder / QRELS_FILE

    def by_corpus(self) -> dict[str, list[Instance]]:
        """Instances grouped by corpus key, corpora in the order their first instance comes."""
        groups: dict[str, list[Instance]] = {}
        for instance in self.instances:
            groups.setdefault(instance.corpus, []).append(instance)
        return groups

    def repositories(self) -> dict[str, str]:
        """``{instance_id: repo}`` with one spelling per repository, the first the set writes: GitHub names are
        case-insensitive, so 'JQLANG/jq' and 'jqlang/jq' are one repository (one fold, counted once)."""
        spelling: dict[str, str] = {}
        return {i.instance_id: spelling.setdefault(i.repo.lower(), i.repo) for i in self.instances}

    def attribute(self, name: str) -> dict[str, str]:
        """``{instance_id: value}`` of ``repo`` or ``language``."""
        return {i.instance_id: getattr(i, name) for i in self.instances}


def file_text(contents: str) -> str:
    """The file's text of a corpus document (its ``contents`` are the path, a newline and the text)."""
    return contents.partition("\n")[2]


def corpus_path(instance_set: str | os.PathLike, key: str) -> Path:
    """The corpus file of ``key`` in ``instance_set``."""
    return Path(instance_set) / CORPORA_DIR / f"{key}{CORPUS_SUFFIX}"


def assembled_path(instance_set: str | os.PathLike, key: str) -> Path:
    """The file of ``key`` in ``instance_set`` listing what its generated files were assembled from."""
    return Path(instance_set) / CORPORA_DIR / f"{key}{ASSEMBLED_SUFFIX}"


def read_assembled(instance_set: str | os.PathLike, key: str) -> dict[str, dict | None]:
    """``{path: assembly record or None}`` of the corpus ``key`` (empty when its tree left no generated file out)."""
    path = assembled_path(instance_set, key)
    if not path.is_file():
        return {}
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as e:
        raise QLogError(f"cannot read {str(path)!r}: {e}") from e
    if not isinstance(data, dict):
        raise QLogError(f"{str(path)!r} is not an object of generated files")
    return data


def read_instances(folder: str | os.PathLike) -> list[Instance]:
    """The instances of the set folder ``folder``, in file order; :class:`QLogError` if it is not one."""
    path = Path(folder) / INSTANCES_FILE
    if not path.is_file():
        raise QLogError(f"{str(folder)!r} is not an instance set: it has no {INSTANCES_FILE} "
                        "(make one with python -m qlog_pyserini.prepare --format swebench|multi-swe-bench|git-history)")
    instances = list(_read_instances(path))
    if not instances:
        raise QLogError(f"{str(path)!r} holds no instance")
    return instances


def read_instance_set(folder: str | os.PathLike) -> InstanceSet:
    """The instance set in ``folder``; :class:`QLogError` naming the file and line of anything malformed."""
    root = Path(folder)
    if not root.is_dir():
        raise QLogError(f"instance set {str(root)!r} is not a folder")
    for name in (INSTANCES_FILE, TOPICS_FILE, QRELS_FILE):
        if not (root / name).is_file():
            raise QLogError(f"instance set {str(root)!r} has no {name}")
    instances = tuple(_read_instances(root / INSTANCES_FILE))
    if not instances:
        raise QLogError(f"{str(root / INSTANCES_FILE)!r} holds no instance")
    topics = read_topics(root / TOPICS_FILE)
    qrels = read_qrels(root / QRELS_FILE)
    for instance in instances:
        where = f" in {str(root)!r}"
        if instance.instance_id not in topics:
            raise QLogError(f"instance {instance.instance_id!r} has no query in {TOPICS_FILE}{where}")
        judged = {d for d, g in qrels.get(instance.instance_id, {}).items() if g > 0}
        if judged != set(instance.answers):
            raise QLogError(f"instance {instance.instance_id!r}: {QRELS_FILE} and the answers of {INSTANCES_FILE} "
                            f"disagree{where}")
    ids = {i.instance_id for i in instances}
    return InstanceSet(root, instances, {q: t for q, t in topics.items() if q in ids},
                       {q: j for q, j in qrels.items() if q in ids})


def _read_instances(path: Path):
    seen: set[str] = set()
    with open(path, encoding="utf-8") as f:
        for number, line in enumerate(f, 1):
            if not line.strip():
                continue
            where = f" ({path}:{number})"
            try:
                record = json.loads(line)
            except json.JSONDecodeError as e:
                raise QLogError(f"not a JSON object{where}: {e.msg}") from None
            if not isinstance(record, dict):
                raise QLogError(f"not a JSON object{where}")
            missing = [k for k in FIELDS if k not in record]
            if missing:
                raise QLogError(f"instance lacks {', '.join(missing)}{where}")
            iid = check_id(str(record["instance_id"]), "instance id", where)
            if iid in seen:
                raise QLogError(f"instance {iid!r} is listed twice{where}")
            seen.add(iid)
            corpus = str(record["corpus"])
            if not corpus or corpus in (".", "..") or "/" in corpus or os.sep in corpus:
                raise QLogError(f"corpus key {corpus!r} is not a folder name{where}")
            answers = record["answers"]
            if not isinstance(answers, list) or not answers:
                raise QLogError(f"instance {iid!r} has no answers (a non-empty list of paths){where}")
            yield Instance(iid, str(record["repo"]), str(record["language"]), str(record["base_commit"]), corpus,
                           tuple(check_id(str(a), "answer path", where) for a in answers),
                           _activity(record.get("activity", {}), iid, where))


def _activity(value: object, iid: str, where: str) -> dict[str, int]:
    if not isinstance(value, dict) or not all(isinstance(n, int) and not isinstance(n, bool) and n >= 0
                                              for n in value.values()):
        raise QLogError(f"instance {iid!r}: activity is not an object of paths and commit counts{where}")
    return {str(p): n for p, n in value.items()}


def read_index_record(index_dir: str | os.PathLike) -> dict[str, dict]:
    """``{corpus key: record}`` of the indexes ``index --instances`` built in ``index_dir`` (empty if none)."""
    try:
        data = json.loads((Path(index_dir) / INDEX_RECORD).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    corpora = data.get("corpora") if isinstance(data, dict) else None
    return {k: v for k, v in corpora.items() if isinstance(v, dict)} if isinstance(corpora, dict) else {}


def index_files(index: str | os.PathLike) -> dict[str, int]:
    """``{file name: size}`` of the Lucene files of the index folder ``index`` (not the marker or a write.lock):
    what an index's record keeps, so a file deleted or truncated since is seen before the index is used."""
    return {p.name: p.stat().st_size for p in sorted(Path(index).iterdir())
            if p.is_file() and p.name not in (MARKER, WRITE_LOCK)}


def index_problem(instance_set: str | os.PathLike, index_dir: str | os.PathLike, key: str, record: dict,
                  digest: str | None = None) -> str | None:
    """Why the recorded index ``index_dir/key`` may not serve the corpus ``key`` of ``instance_set`` (its corpus
    changed since it was built, or its files did), or None when it may; ``digest`` is the corpus's SHA-256 when
    the caller has it."""
    corpus = corpus_path(instance_set, key)
    if digest is None and corpus.is_file():
        digest = file_sha256(corpus)
    if record.get("sha256") != digest:
        return f"corpora/{key}.jsonl changed since the index was built"
    files = record.get("files")
    if files is None:  # recorded before records listed files: its corpus is all that can be compared
        return None
    if not isinstance(files, dict):
        return "its record does not list its files"
    found = index_files(Path(index_dir) / key)
    if found != files:
        changed = sorted(set(files) ^ set(found) | {n for n in files if found.get(n, files[n]) != files[n]})
        return f"its files changed since it was built (first: {changed[0]!r})"
    return None
