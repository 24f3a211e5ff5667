"""The instance-set folder: its file names and readers, the one contract between ``prepare`` and the verbs
that search an instance set.

``SET/instances.jsonl``
    one object per kept instance: ``instance_id``, ``repo`` ("org/name"), ``language``, ``base_commit``,
    ``corpus`` (its corpus key), ``answers`` (the repository paths of the non-test source files the fix
    modifies); and, beside them, ``tree`` (the base tree's id) and ``dropped_answers`` (modified files
    the rules left out, with the reason).
``SET/topics.tsv``, ``SET/qrels.txt``
    qid = instance id; the query flattened to one line; TREC qrels ``instance_id 0 path 1``.
``SET/corpora/<key>.jsonl``
    Anserini JsonCollection, ``{"id": path, "contents": path + "\\n" + text}`` a line.
``SET/report.json``
    counts and reasons for every dropped instance, answer and file, the rules, and provenance.
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass
from pathlib import Path

from qlog_pyserini.errors import QLogError

INSTANCES_FILE = "instances.jsonl"
TOPICS_FILE = "topics.tsv"
QRELS_FILE = "qrels.txt"
CORPORA_DIR = "corpora"
REPORT_FILE = "report.json"
CORPUS_SUFFIX = ".jsonl"
FIELDS = ("instance_id", "repo", "language", "base_commit", "corpus", "answers")


@dataclass(frozen=True)
class Instance:
    """One kept instance of a set (the contract's fields)."""

    instance_id: str
    repo: str
    language: str
    base_commit: str
    corpus: str
    answers: tuple[str, ...]


def corpus_path(instance_set: str | os.PathLike, key: str) -> Path:
    """The corpus file of ``key`` in ``instance_set``."""
    return Path(instance_set) / CORPORA_DIR / f"{key}{CORPUS_SUFFIX}"


def read_instances(instance_set: str | os.PathLike) -> list[Instance]:
    """The instances of the set folder ``instance_set``, in file order; :class:`QLogError` if it is not one."""
    path = Path(instance_set) / INSTANCES_FILE
    if not path.is_file():
        raise QLogError(f"{str(instance_set)!r} is not an instance set: it has no {INSTANCES_FILE} "
                        "(make one with python -m qlog_pyserini.prepare --format swebench|multi-swe-bench|git-history)")
    found = []
    with open(path, encoding="utf-8") as f:
        for lineno, line in enumerate(f, 1):
            try:
                row = json.loads(line)
                found.append(Instance(*(row[name] for name in FIELDS[:-1]), tuple(row["answers"])))
            except (ValueError, KeyError, TypeError) as e:
                raise QLogError(f"{path}:{lineno}: not an instance record ({e})") from None
    return found
