"""TREC formats in and out: run files, qrels, identifiers, and atomic writes.

A run line is ``qid Q0 docid rank score tag``; a qrels line is ``qid 0 docid grade``.
Identifiers may hold any character but whitespace (trec_eval splits on it), so
``<dbpedia:Foo>`` and ``a/b.go:12`` are fine and ``my doc`` is rejected.
"""

from __future__ import annotations

import contextlib
import os
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Iterable, Iterator, Mapping, Sequence

from qlog_pyserini.errors import QLogError
from qlog_pyserini.safety import check_output_file, sweep_stale, temp_prefix


@dataclass(frozen=True)
class Hit:
    """One retrieved document: its external id and its score."""

    docid: str
    score: float


def check_id(value: str, kind: str, where: str = "") -> str:
    """Return ``value`` if it is a usable TREC identifier, else raise :class:`QLogError`."""
    if not isinstance(value, str) or value == "":
        raise QLogError(f"empty {kind}{where}")
    if any(c.isspace() for c in value):
        raise QLogError(f"{kind} {value!r}{where} contains whitespace, which TREC files cannot hold")
    return value


@contextlib.contextmanager
def atomic_output(path: str | os.PathLike, mode: str = "w") -> Iterator[IO]:
    """Write to a temporary file beside ``path`` and rename it into place only on success.

    A crash or an exception leaves no partial file behind. The parent folder must exist:
    a missing folder is a user error, not something to create silently.
    """
    path = check_output_file(path, "output")
    parent = path.parent if str(path.parent) else Path(".")
    # The temporary's name carries our pid, so a later run can tell a killed run's leftover from
    # a live one's and remove it (safety.sweep_stale).
    sweep_stale(parent, path.name)
    fd, tmp = tempfile.mkstemp(prefix=temp_prefix(path), suffix=".tmp", dir=parent)
    os.chmod(tmp, 0o666 & ~_umask())  # mkstemp makes 0600; give the file the mode open() would
    try:
        with os.fdopen(fd, mode, encoding=None if "b" in mode else "utf-8") as f:
            yield f
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(tmp)
        raise


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask


def format_run_lines(qid: str, hits: Sequence[Hit], tag: str) -> Iterator[str]:
    """TREC run lines for one query, ranks from 1, scores with 6 decimals as Pyserini writes them."""
    for rank, hit in enumerate(hits, start=1):
        yield f"{qid} Q0 {hit.docid} {rank} {hit.score:.6f} {tag}\n"


def write_run(path: str | os.PathLike, results: Mapping[str, Sequence[Hit]], tag: str,
              qids: Iterable[str] | None = None) -> None:
    """Write a TREC run atomically, queries in ``qids`` order (default: ``results`` order)."""
    check_id(tag, "run tag")
    with atomic_output(path) as f:
        for qid in (qids if qids is not None else results.keys()):
            f.writelines(format_run_lines(qid, results.get(qid, ()), tag))


def read_run(path: str | os.PathLike) -> dict[str, list[Hit]]:
    """Read a TREC run into ``{qid: [Hit, ...]}``, each list in the file's rank order."""
    run: dict[str, list[tuple[int, Hit]]] = {}
    for lineno, parts in _rows(path, "run"):
        if len(parts) != 6:
            raise QLogError(f"{path}:{lineno}: a run line needs 6 columns (qid Q0 docid rank score tag), got {len(parts)}")
        qid, _, docid, rank, score, _ = parts
        try:
            run.setdefault(qid, []).append((int(rank), Hit(docid, float(score))))
        except ValueError:
            raise QLogError(f"{path}:{lineno}: rank {rank!r} or score {score!r} is not a number") from None
    return {qid: [h for _, h in sorted(rows, key=lambda r: r[0])] for qid, rows in run.items()}


def read_qrels(path: str | os.PathLike) -> dict[str, dict[str, int]]:
    """Read TREC qrels into ``{qid: {docid: grade}}`` (grade 0 or less means not relevant)."""
    qrels: dict[str, dict[str, int]] = {}
    for lineno, parts in _rows(path, "qrels"):
        if len(parts) != 4:
            raise QLogError(f"{path}:{lineno}: a qrels line needs 4 columns (qid iter docid grade), got {len(parts)}")
        qid, _, docid, grade = parts
        try:
            qrels.setdefault(qid, {})[docid] = int(grade)
        except ValueError:
            raise QLogError(f"{path}:{lineno}: grade {grade!r} is not an integer") from None
    return qrels


def write_qrels(path: str | os.PathLike, qrels: Mapping[str, Mapping[str, int]]) -> None:
    """Write TREC qrels atomically (``qid 0 docid grade``)."""
    with atomic_output(path) as f:
        for qid, docs in qrels.items():
            check_id(qid, "qid")
            for docid, grade in docs.items():
                f.write(f"{qid} 0 {check_id(docid, 'docid')} {int(grade)}\n")


def _rows(path: str | os.PathLike, what: str) -> Iterator[tuple[int, list[str]]]:
    try:
        with open(path, encoding="utf-8") as f:
            for lineno, line in enumerate(f, start=1):
                parts = line.split()
                if parts:
                    yield lineno, parts
    except FileNotFoundError:
        raise QLogError(f"{what} file {str(path)!r} not found") from None
    except (OSError, UnicodeDecodeError) as e:
        raise QLogError(f"cannot read {what} file {str(path)!r}: {e}") from None
