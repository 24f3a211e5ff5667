"""Corpora in and out: BEIR/CoIR ``corpus.jsonl`` and Anserini JsonCollection folders.

A corpus is a JSON-lines file, or a folder of them (``*.jsonl``, ``*.json``, ``*.jsonl.gz``,
read in name order, not recursively; hidden files such as our own marker are never read). A BEIR/CoIR
folder (``corpus.jsonl`` beside ``queries.jsonl`` or ``qrels/``) contributes its ``corpus.jsonl``
only: its queries are not documents. Each line is one document in either form:

- BEIR/CoIR: ``{"_id": ..., "title": ..., "text": ...}``; the contents are
  ``title + "\\n" + text`` when the title is non-empty, else ``text``;
- Anserini JsonCollection: ``{"id": ..., "contents": ...}``.

Docids may hold any character but whitespace (see :func:`qlog_pyserini.formats.trec.check_id`) and must be
unique across the whole corpus: a duplicate would make one of the two documents unreachable
by docid, and trec_eval would credit whichever the index happened to keep.
"""

from __future__ import annotations

import gzip
import itertools
import json
import os
import re
from pathlib import Path
from typing import IO, Iterable, Iterator, Sequence

from qlog_pyserini.errors import QLogError
from qlog_pyserini.formats.lines import numbered_lines
from qlog_pyserini.system.outputs import atomic_output
from qlog_pyserini.formats.trec import check_id

CORPUS_SUFFIXES = (".jsonl", ".json", ".jsonl.gz")
SHARD_PREFIX = "docs"
BEIR_CORPUS = ("corpus.jsonl", "corpus.jsonl.gz")


def corpus_files(path: str | os.PathLike) -> list[Path]:
    """The files a corpus path names: the file itself, or the corpus files in a folder, sorted."""
    path = Path(path)
    if path.is_file():
        return [path]
    if path.is_dir():
        beir = [path / n for n in BEIR_CORPUS if (path / n).is_file()]
        if beir and ((path / "queries.jsonl").is_file() or (path / "qrels").is_dir()):
            return beir[:1]
        files = sorted(p for p in path.iterdir()
                       if p.is_file() and not p.name.startswith(".") and p.name.endswith(CORPUS_SUFFIXES))
        if not files:
            raise QLogError(f"corpus folder {str(path)!r} holds no {', '.join('*' + s for s in CORPUS_SUFFIXES)} files")
        return files
    raise QLogError(f"corpus {str(path)!r} not found")


def iter_documents(path: str | os.PathLike) -> Iterator[tuple[str, str]]:
    """Yield ``(docid, contents)`` for every document of a corpus file or folder, in order.

    Raises :class:`QLogError` with ``file:line`` for bad JSON, a line without an id or text, a
    docid with whitespace, or a docid seen before (naming where it was first seen).
    """
    for _, docid, contents, _ in scan_documents(corpus_files(path)):
        yield docid, contents


def scan_documents(files: Sequence[Path]) -> Iterator[tuple[Path, str, str, bool]]:
    """``(file, docid, contents, as_is)`` for every document of the corpus ``files``, checked as
    :func:`iter_documents` checks them; ``as_is`` says the line is already an Anserini JsonCollection
    document (``{"id": <string>, "contents": <string>}`` and nothing else), which Anserini can read in place.
    """
    # docid -> (file index, line): a few dozen bytes a document, fine up to tens of millions.
    seen: dict[str, tuple[int, int]] = {}
    for index, file in enumerate(files):
        for lineno, obj in json_lines(file):
            docid, contents = _document(obj, file, lineno)
            check_id(docid, "docid", f" at {file}:{lineno}")
            first = seen.setdefault(docid, (index, lineno))
            if first != (index, lineno):
                raise QLogError(f"{file}:{lineno}: duplicate docid {docid!r} "
                                f"(first at {files[first[0]]}:{first[1]})")
            yield file, docid, contents, len(obj) == 2 and isinstance(obj.get("id"), str) and "contents" in obj


def count_documents(path: str | os.PathLike) -> int:
    """Number of non-blank lines in a corpus: the document count of a well-formed corpus.

    Meant for progress bars: it does not parse JSON, so it is cheap but does not validate.
    """
    return count_documents_in(corpus_files(path))


def count_documents_in(files: Iterable[Path]) -> int:
    """:func:`count_documents` of a list of corpus files."""
    n = 0
    for file in files:
        with _open(file, binary=True) as f:
            n += sum(1 for line in f if line.strip())
    return n


def write_json_collection(docs: Iterable[tuple[str, str]], out_dir: str | os.PathLike,
                          shard_size: int = 100_000) -> int:
    """Write ``(docid, contents)`` pairs as an Anserini JsonCollection; return the document count.

    Files are ``docs00.jsonl``, ``docs01.jsonl``, ... of at most ``shard_size`` documents, each
    written atomically. ``out_dir`` is created if needed but must not already hold ``docs*``
    shards, which an indexer would mix with the new ones. Docids are validated and must be
    unique, as in :func:`iter_documents`.
    """
    if not isinstance(shard_size, int) or shard_size < 1:
        raise ValueError(f"illegal shard_size: {shard_size!r}, must be an integer of at least 1")
    out_dir = Path(out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    stale = sorted(p.name for p in out_dir.glob(f"{SHARD_PREFIX}*.jsonl"))
    if stale:
        raise QLogError(f"{str(out_dir)!r} already holds collection shards ({stale[0]}, ...); "
                        f"write into an empty folder")
    seen: set[str] = set()
    count = 0
    it = iter(docs)
    for shard in itertools.count():
        first = next(it, None)
        if first is None:
            break
        with atomic_output(out_dir / f"{SHARD_PREFIX}{shard:02d}.jsonl") as f:
            for docid, contents in itertools.chain([first], itertools.islice(it, shard_size - 1)):
                count += 1
                check_id(docid, "docid", f" (document {count})")
                if docid in seen:
                    raise QLogError(f"duplicate docid {docid!r} (document {count})")
                if not isinstance(contents, str):
                    raise QLogError(f"contents of docid {docid!r} is {type(contents).__name__}, not a string")
                seen.add(docid)
                f.write(json.dumps({"id": docid, "contents": contents}, ensure_ascii=False) + "\n")
    return count


def json_lines(file: str | os.PathLike, what: str = "corpus",
               lines: Iterable[tuple[int, str]] | None = None) -> Iterator[tuple[int, dict]]:
    """Yield ``(line number, object)`` for each non-blank line of a JSON-lines file (``.gz`` too).

    Bad JSON, a line that is not an object, or an unreadable file raise :class:`QLogError`
    naming ``what`` file and the line. ``lines``: the file's numbered lines already read (a pipe's).
    """
    file = Path(file)
    # numbered_lines: a non-UTF-8 byte is reported with its line and column, not a buffer offset.
    for lineno, line in numbered_lines(file, what) if lines is None else lines:
        if not line.strip():
            continue
        try:
            obj = json.loads(line)
        except json.JSONDecodeError as e:
            hint = (" (a JSON array; write one object a line instead)"
                    if lineno == 1 and line.lstrip().startswith("[") else "")
            raise QLogError(f"{file}:{lineno}: bad JSON: {e.msg} (column {e.colno}){hint}") from None
        if not isinstance(obj, dict):
            raise QLogError(f"{file}:{lineno}: expected a JSON object, got {type(obj).__name__}")
        # JSON may escape half of a surrogate pair ("\\ud800"), which decodes to no character at all:
        # Lucene, pyjnius and every UTF-8 writer would fail on it later, far from this line.
        if ("\\ud" in line or "\\uD" in line) and _has_lone_surrogate(obj):
            raise QLogError(f"{file}:{lineno}: a string holds a lone surrogate (an escaped half of a "
                            "UTF-16 pair such as \\ud800), which is not Unicode text")
        yield lineno, obj


_SURROGATE = re.compile("[\ud800-\udfff]")


def _has_lone_surrogate(value: object) -> bool:
    if isinstance(value, str):
        return _SURROGATE.search(value) is not None
    if isinstance(value, dict):
        return any(_has_lone_surrogate(k) or _has_lone_surrogate(v) for k, v in value.items())
    if isinstance(value, list):
        return any(_has_lone_surrogate(v) for v in value)
    return False


def _open(file: Path, binary: bool = False) -> IO:
    if file.name.endswith(".gz"):
        return gzip.open(file, "rb") if binary else gzip.open(file, "rt", encoding="utf-8")
    return open(file, "rb") if binary else open(file, encoding="utf-8")


def _document(obj: dict, file: Path, lineno: int) -> tuple[str, str]:
    docid = obj.get("_id", obj.get("id"))
    # Some exports write integer ids; bool is an int subclass and never a real id.
    if isinstance(docid, int) and not isinstance(docid, bool):
        docid = str(docid)
    if not isinstance(docid, str):
        raise QLogError(f"{file}:{lineno}: a document needs a string \"_id\" or \"id\", found keys {sorted(obj)}")
    if "contents" in obj:
        contents = obj["contents"]
    elif "text" in obj:
        title, text = obj.get("title") or "", obj["text"]
        if not isinstance(title, str) or not isinstance(text, str):
            raise QLogError(f"{file}:{lineno}: \"title\" and \"text\" must be strings")
        contents = f"{title}\n{text}" if title.strip() else text
    else:
        raise QLogError(f"{file}:{lineno}: document {docid!r} needs \"contents\" (Anserini) "
                        f"or \"text\" (BEIR), found keys {sorted(obj)}")
    if not isinstance(contents, str):
        raise QLogError(f"{file}:{lineno}: \"contents\" of {docid!r} must be a string")
    return docid, contents
