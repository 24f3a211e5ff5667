"""Topics (queries) in, as ``{qid: text}``: TSV, BEIR/CoIR ``queries.jsonl``, and TREC SGML.

:func:`read_topics` detects the format from the first non-blank line:

- ``{...}``: JSON lines, ``{"_id": ..., "text": ...}`` (BEIR, CoIR) or ``{"id": ..., "text": ...}``;
- ``<top>``: TREC ad hoc topics (``<num> Number: 51``, ``<title> ...``); the query is the title;
- ``<DOC>``: the CACM form (``<DOC> <DOCNO> 1 </DOCNO> text </DOC>``); the query is the body;
- anything else: TSV, ``qid<TAB>text`` one a line (Pyserini's and Anserini's TSV topics).

Empty query text is kept, not dropped: dropping it would silently shrink the topic set and
change averages. The searcher returns no hits for an empty query, so the run has no lines for
it and trec_eval scores it 0 if it is judged. A warning logs how many topics are empty.
"""

from __future__ import annotations

import itertools
import os
import re
from array import array
from typing import Iterator, Mapping, Union

import numpy as np

from qlog_pyserini.errors import QLogError
from qlog_pyserini.formats.documents import json_lines
from qlog_pyserini.formats.lines import is_stream, numbered_lines
from qlog_pyserini.formats.trec import check_id
from qlog_pyserini.system.outputs import atomic_output
from qlog_pyserini.system.progress import warn

FORMATS = ("tsv", "jsonl", "trec")

_TREC_TOP = re.compile(r"<top(\s|>|$)", re.IGNORECASE)
_TREC_DOC = re.compile(r"<doc(\s|>|$)", re.IGNORECASE)
_DOCNO = re.compile(r"<DOCNO>\s*(.*?)\s*</DOCNO>", re.IGNORECASE)
# Anserini keeps what follows the first ':' of the <title> line ("<title> Topic: Airbus
# Subsidies"); that also cuts titles that contain a colon, so only known labels are stripped.
_TITLE_LABEL = re.compile(r"^\s*(topic|title)\s*:\s*", re.IGNORECASE)


def read_topics(path: str | os.PathLike, fmt: str | None = None) -> dict[str, str]:
    """Read topics into ``{qid: text}``, in file order.

    ``fmt`` is one of ``tsv``, ``jsonl``, ``trec`` (both TREC forms), or ``None`` to detect it.
    Every qid must be a non-empty string without whitespace and unique in the file; a
    violation, a malformed line or an unreadable file raises :class:`QLogError` naming the file
    and line. Query text is returned as written (TREC titles and bodies whitespace-collapsed);
    empty text is kept and counted in a logged warning (see the module docstring).
    """
    out = _Topics(path)
    for qid, text, lineno in topic_entries(path, fmt):
        out.add(qid, text, lineno)
    topics = out.topics
    empty = empty_count(topics)
    if empty:
        warn(f"{path}: {empty} of {len(topics)} topics have empty query text; they are kept and retrieve nothing")
    return topics


def topic_entries(path: str | os.PathLike, fmt: str | None = None) -> Iterator[tuple[str, str, int]]:
    """``(qid, text, line)`` for each topic of the file, in file order, read as a stream (the file is
    never held in memory whole). Malformed lines raise :class:`QLogError` naming file and line, as in
    :func:`read_topics`; qids are not checked here (see :class:`TopicStream` and :func:`read_topics`).
    """
    if is_stream(path):
        # A pipe is read once: the format is detected from the same lines that are then parsed.
        kept = list(numbered_lines(path, "topics"))
        return _parse(path, _checked_format(fmt) or _detect(path, iter(kept)), iter(kept))
    fmt = topic_format(path, fmt)
    return _parse(path, fmt, None if fmt == "jsonl" else numbered_lines(path, "topics"))


def _parse(path: str | os.PathLike, fmt: str, lines: Iterator[tuple[int, str]] | None) -> Iterator[tuple[str, str, int]]:
    if fmt == "jsonl":
        return _parse_jsonl(path, lines)
    return _parse_trec(path, lines) if fmt == "trec" else _parse_tsv(path, lines)


def topic_format(path: str | os.PathLike, fmt: str | None = None) -> str:
    """``fmt`` checked, or the format detected from the file's first non-blank line when it is None."""
    return _checked_format(fmt) or _detect(path, numbered_lines(path, "topics"))


def _checked_format(fmt: str | None) -> str | None:
    if fmt is not None and fmt not in FORMATS:
        raise ValueError(f"illegal topic format: {fmt!r}, must be one of {', '.join(FORMATS)}")
    return fmt


class TopicStream:
    """The topics of a file, checked in one streaming pass and read again from the file at each pass.

    For runs whose memory must not grow with the number of queries (``search`` over 100,000 queries
    holds one batch, not a dict of every query). Construction reads the whole file once: every qid is
    checked and must be unique (:class:`QLogError` naming file and lines, as :func:`read_topics`), and
    the topics are counted; only one 8-byte hash per qid is kept. Iterating (:meth:`items`) reads the
    file again and raises :class:`QLogError` if it changed since the check. A file that can be read once
    only (a pipe, ``-``: see :func:`~qlog_pyserini.formats.lines.is_stream`) is read once, and checked and
    iterated from memory.
    """

    def __init__(self, path: str | os.PathLike, fmt: str | None = None):
        self.path = path
        self._kept = list(topic_entries(path, fmt)) if is_stream(path) else None
        self.fmt = fmt = fmt if self._kept is not None else topic_format(path, fmt)  # detected once, not at every pass
        hashes = array("q")
        self.empty = 0
        for qid, text, lineno in self._entries():
            check_id(qid, "qid", f" at {path}:{lineno}")
            hashes.append(hash(qid))
            self.empty += not text.strip()
        self._count = len(hashes)
        # after the scan, which reports a missing or unreadable file itself
        self._stamp = _file_stamp(path) if self._kept is None else None
        ordered = np.sort(np.frombuffer(hashes, dtype=np.int64))
        clashes = ordered[1:][ordered[1:] == ordered[:-1]]
        if clashes.size:  # a repeated hash: find the repeated qid itself (or a harmless hash collision)
            _Topics(path).check_unique(self._entries(), set(clashes.tolist()))

    def __len__(self) -> int:
        return self._count

    def _entries(self) -> Iterator[tuple[str, str, int]]:
        return iter(self._kept) if self._kept is not None else topic_entries(self.path, self.fmt)

    def items(self) -> Iterator[tuple[str, str]]:
        """``(qid, text)`` in file order, read again from the file (from memory for a pipe)."""
        if self._kept is None and _file_stamp(self.path) != self._stamp:
            raise QLogError(f"topics file {str(self.path)!r} changed after it was checked")
        return ((qid, text) for qid, text, _ in self._entries())


Topics = Union[Mapping[str, str], TopicStream]  # what a search reads its queries from


def empty_count(topics: Topics) -> int:
    """How many of ``topics`` have no query text (counted when a :class:`TopicStream` was checked)."""
    if isinstance(topics, TopicStream):
        return topics.empty
    return sum(1 for text in topics.values() if not text.strip())


def _file_stamp(path: str | os.PathLike) -> tuple[int, int]:
    try:
        st = os.stat(path)
    except OSError as e:
        raise QLogError(f"cannot read topics file {str(path)!r}: {e}") from None
    return st.st_size, st.st_mtime_ns


def write_topics_tsv(path: str | os.PathLike, topics: Mapping[str, str]) -> None:
    """Write ``qid<TAB>text`` lines atomically, in ``topics`` order.

    Whitespace runs in the text (tabs and newlines included) become one space, since either
    would break the one-query-a-line format.
    """
    with atomic_output(path) as f:
        for qid, text in topics.items():
            check_id(qid, "qid")
            f.write(f"{qid}\t{' '.join(text.split())}\n")


def _detect(path: str | os.PathLike, lines: Iterator[tuple[int, str]]) -> str:
    # Lines end at \n only (not at a form feed or U+2028 inside a query); a BOM is dropped;
    # a non-UTF-8 byte is reported with its line (formats.lines).
    first = next((line.strip() for _, line in lines if line.strip()), None)
    if first is None:
        raise QLogError(f"topics file {str(path)!r} is empty")
    if first.startswith("{"):
        return "jsonl"
    if _TREC_TOP.match(first) or _TREC_DOC.match(first):
        return "trec"
    if first.startswith("<") and "\t" not in first:
        raise QLogError(f"{path}: not a recognized topic format (expected TSV, JSON lines, "
                        f"or TREC <top>/<DOC> topics), first line {first[:60]!r}")
    return "tsv"


class _Topics:
    """Collects topics, rejecting bad and duplicate qids with the line where each was seen."""

    def __init__(self, path: str | os.PathLike):
        self.path = path
        self.topics: dict[str, str] = {}
        self.first_line: dict[str, int] = {}

    def add(self, qid: str, text: str, lineno: int) -> None:
        check_id(qid, "qid", f" at {self.path}:{lineno}")
        if qid in self.first_line:
            raise QLogError(f"{self.path}:{lineno}: duplicate qid {qid!r} "
                            f"(first at line {self.first_line[qid]})")
        self.first_line[qid] = lineno
        self.topics[qid] = text

    def check_unique(self, entries: Iterator[tuple[str, str, int]], hashes: set[int]) -> None:
        """Raise on the first repeated qid among ``entries`` whose hash is in ``hashes`` (others are skipped)."""
        for qid, _, lineno in entries:
            if hash(qid) in hashes:
                self.add(qid, "", lineno)


def _parse_tsv(path: str | os.PathLike, lines: Iterator[tuple[int, str]]) -> Iterator[tuple[str, str, int]]:
    for lineno, line in lines:
        if not line.strip():
            continue
        if "\t" not in line:
            raise QLogError(f"{path}:{lineno}: a TSV topic line needs qid<TAB>text, found no tab")
        qid, text = line.split("\t", 1)
        yield qid, text.strip(), lineno


def _parse_jsonl(path: str | os.PathLike, lines: Iterator[tuple[int, str]] | None) -> Iterator[tuple[str, str, int]]:
    for lineno, obj in json_lines(path, what="topics", lines=lines):  # same JSON-lines checks as corpora
        qid = obj.get("_id", obj.get("id"))
        text = obj.get("text")
        if qid is None or text is None:
            raise QLogError(f"{path}:{lineno}: a query needs \"_id\" (or \"id\") and \"text\", "
                            f"found keys {sorted(obj)}")
        # BEIR writes ids as strings, but some exports write integer ids.
        if isinstance(qid, int) and not isinstance(qid, bool):
            qid = str(qid)
        if not isinstance(qid, str) or not isinstance(text, str):
            raise QLogError(f"{path}:{lineno}: \"_id\" and \"text\" must be strings")
        yield qid, text, lineno


def _parse_trec(path: str | os.PathLike, lines: Iterator[tuple[int, str]]) -> Iterator[tuple[str, str, int]]:
    it = iter(lines)
    for lineno, line in it:
        stripped = line.strip()
        if _TREC_TOP.match(stripped):
            yield _parse_top(path, lineno, it)
        elif _TREC_DOC.match(stripped):
            yield _parse_doc(path, lineno, it, rest=re.sub(r"^<doc[^>]*>", "", stripped, flags=re.IGNORECASE))
        elif stripped:
            raise QLogError(f"{path}:{lineno}: expected <top> or <DOC>, found {stripped[:60]!r}")


def _parse_top(path: str | os.PathLike, start: int, it: Iterator[tuple[int, str]]) -> tuple[str, str, int]:
    """One ``<top> ... </top>`` topic; the query is the title, which may span lines."""
    qid: str | None = None
    qid_line = start
    title: list[str] | None = None
    in_title = False
    for lineno, line in it:
        stripped = line.strip()
        low = stripped.lower()
        if in_title and low.startswith("<") and not low.startswith("</title>"):
            in_title = False
        if _TREC_TOP.match(low):
            raise QLogError(f"{path}:{lineno}: <top> opened before the <top> at line {start} was closed")
        if low.startswith("</top>"):
            if qid is None:
                raise QLogError(f"{path}:{start}: topic has no <num>")
            if title is None:
                raise QLogError(f"{path}:{start}: topic {qid} has no <title>")
            return qid, " ".join(" ".join(title).split()), qid_line
        if low.startswith("<num>"):
            body = re.sub(r"</num>", "", stripped[5:], flags=re.IGNORECASE)
            # '<num> Number: 301' (TREC) or '<num>176</num>' (FIRE)
            qid = body.split(":", 1)[1].strip() if ":" in body else body.strip()
            qid_line = lineno
        elif low.startswith("<title>"):
            in_title = True
            title = [_TITLE_LABEL.sub("", stripped[7:])]
        elif in_title:
            title.append(stripped)
        if in_title and title and "</title>" in title[-1].lower():
            title[-1] = re.sub(r"</title>.*", "", title[-1], flags=re.IGNORECASE)
            in_title = False
    raise QLogError(f"{path}:{start}: <top> is never closed by </top>")


def _parse_doc(path: str | os.PathLike, start: int, it: Iterator[tuple[int, str]],
               rest: str) -> tuple[str, str, int]:
    """One CACM-style ``<DOC> <DOCNO> id </DOCNO> body </DOC>`` topic; the query is the body."""
    qid: str | None = None
    qid_line = start
    body: list[str] = []
    pending = [(start, rest)] if rest.strip() else []
    for lineno, line in itertools.chain(pending, it):
        if qid is None:
            m = _DOCNO.search(line)
            if m:
                qid, qid_line = m.group(1), lineno
                line = line[m.end():]
            elif line.strip():
                raise QLogError(f"{path}:{lineno}: expected <DOCNO> id </DOCNO>, found {line.strip()[:60]!r}")
        end = line.lower().find("</doc>")
        if end >= 0:
            if qid is None:
                raise QLogError(f"{path}:{start}: <DOC> has no <DOCNO>")
            body.append(line[:end])
            return qid, " ".join(" ".join(body).split()), qid_line
        body.append(line)
    raise QLogError(f"{path}:{start}: <DOC> is never closed by </DOC>")

