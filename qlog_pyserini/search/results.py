"""A batch of search results as columns: what crosses the JVM bridge, and what callers read.

Java returns a batch as one buffer of primitive arrays (Lucene doc numbers, float32 scores and
per-query offsets, ``io.qlog.search.BatchHits``); the index's external docids are read once per
open index (:class:`DocidTable`), never sent per hit. :class:`BatchResults` holds those columns and
is a read-only ``{qid: [Hit, ...]}`` mapping whose :class:`~qlog_pyserini.formats.trec.Hit` objects
are made only when a query's hits are read, so a caller that writes a run or computes metrics
never builds a million Python objects:

    >>> results = searcher.batch_search(queries, qids, k=1000)  # doctest: +SKIP
    >>> results["q1"][0]             # Hit(docid=..., score=...), made on access  # doctest: +SKIP
    >>> results.to_dict()            # {qid: {docid: score}} for ir_measures / ranx  # doctest: +SKIP
    >>> results.to_frame()           # pandas: qid, docno, rank, score (PyTerrier's columns)  # doctest: +SKIP
    >>> results.write_trec(f, "tag")  # run lines formatted in Java, no Python per hit  # doctest: +SKIP
"""

from __future__ import annotations

import os
import re
import threading
from typing import Any, BinaryIO, Iterator, Mapping, Sequence

import numpy as np

from qlog_pyserini.errors import QLogError
from qlog_pyserini.formats.trec import Hit, check_id
from qlog_pyserini.jvm.bridge import jclass

BATCH_HITS = "io.qlog.search.BatchHits"
RUN_LINES = "io.qlog.search.RunLines"
SEARCHER = "io.qlog.search.QLogSearcher"

# What a TREC id cannot hold besides the '\n' that separates the table's ids.
_UNWRITABLE = re.compile(r"[^\S\n]|\x00")


class DocidTable:
    """The external docid of every Lucene doc number of one open index, read from Java once, on first use.

    ``table[doc_numbers]`` gives an object array of docids. Ids that a TREC run cannot hold
    (whitespace, a NUL byte) are refused when the table is read, naming the first one.
    """

    def __init__(self, java_searcher: Any, where: str) -> None:
        self._java = java_searcher
        self._where = where
        self._ids: np.ndarray | None = None
        self._lock = threading.Lock()

    @property
    def ids(self) -> np.ndarray:
        """All docids, indexed by Lucene doc number (an object array of ``str``)."""
        if self._ids is None:
            with self._lock:
                if self._ids is None:
                    self._ids = self._read()
        return self._ids

    def _read(self) -> np.ndarray:
        blob = jclass(SEARCHER).docid_table(self._java).tostring()
        count = int(np.frombuffer(blob, "<i4", 1)[0])
        text = blob[4:].decode("utf-8")
        ids = text.split("\n")[:-1]
        bad = _UNWRITABLE.search(text)
        if len(ids) != count or bad:
            where = text.rfind("\n", 0, bad.start()) + 1 if bad else 0
            docid = text[where:text.find("\n", where + 1)] if bad else "(an id with a newline)"
            raise QLogError(f"the index {self._where} holds docid {docid!r}, with whitespace or a NUL byte, "
                            "which TREC runs cannot hold; rebuild the index from a corpus without such ids "
                            "(qlog_pyserini.index refuses them)")
        return np.array(ids, dtype=object)

    def __getitem__(self, doc_numbers: Any) -> Any:
        return self.ids[doc_numbers]


class BatchResults(Mapping[str, list]):
    """Top hits of a batch of queries as columns; a read-only mapping ``qid -> list[Hit]`` in query order.

    Attributes:
        qids: the queries' ids, in order.
        offsets: int64, ``len(qids) + 1``: query ``i``'s hits are ``[offsets[i], offsets[i + 1])``.
        docs: int32 Lucene doc numbers of the searched index.
        scores: float32 scores, strictly decreasing within each query (as floats).
        table: the index's :class:`DocidTable`.
    """

    def __init__(self, qids: Sequence[str], offsets: np.ndarray, docs: np.ndarray, scores: np.ndarray,
                 table: DocidTable, java: Any = None, java_searcher: Any = None) -> None:
        self.qids = list(qids)
        self.offsets, self.docs, self.scores, self.table = offsets, docs, scores, table
        self._java, self._searcher = java, java_searcher
        self._position: dict[str, int] | None = None

    @classmethod
    def from_java(cls, hits: Any, qids: Sequence[str], table: DocidTable, java_searcher: Any,
                  keep_java: bool = True) -> "BatchResults":
        """Read a Java ``BatchHits`` (one packed buffer: counts, offsets, doc numbers, scores). Without
        ``keep_java`` the Java object is let go at once (the JVM can free it before this batch is done with),
        and the run-writing methods, which format in Java, are refused."""
        blob = jclass(BATCH_HITS).packed(hits).tostring()
        n, m = (int(x) for x in np.frombuffer(blob, "<i4", 2))
        if n != len(qids):
            raise QLogError(f"Java answered {n} queries for {len(qids)} qids")
        offsets = np.frombuffer(blob, "<i4", n + 1, 8).astype(np.int64)
        docs = np.frombuffer(blob, "<i4", m, 8 + 4 * (n + 1))
        scores = np.frombuffer(blob, "<f4", m, 8 + 4 * (n + 1 + m))
        return cls(qids, offsets, docs, scores, table, hits if keep_java else None, java_searcher)

    # ----------------------------------------------------------------- the mapping

    def __len__(self) -> int:
        return len(self.qids)

    def __iter__(self) -> Iterator[str]:
        return iter(self.qids)

    def __contains__(self, qid: object) -> bool:
        return qid in self._positions()

    def __getitem__(self, qid: str) -> list[Hit]:
        at = self._positions().get(qid)
        if at is None:
            raise KeyError(qid)
        return self.hits_at(at)

    def _positions(self) -> dict[str, int]:
        if self._position is None:
            self._position = {qid: i for i, qid in enumerate(self.qids)}
        return self._position

    def hits_at(self, i: int) -> list[Hit]:
        """Query ``i``'s hits as :class:`Hit` objects (made now)."""
        lo, hi = int(self.offsets[i]), int(self.offsets[i + 1])
        docs = self.docs[lo:hi]
        ids = self.table[docs].tolist() if hi > lo else []
        return [Hit(d, s, n) for d, s, n in zip(ids, self.scores[lo:hi].tolist(), docs.tolist())]

    def counts(self) -> np.ndarray:
        """Hits per query, in query order."""
        return np.diff(self.offsets)

    @property
    def num_hits(self) -> int:
        return int(self.offsets[-1])

    # ----------------------------------------------------------------- other views

    def to_dict(self) -> dict[str, dict[str, float]]:
        """``{qid: {docid: score}}``, as :func:`qlog_pyserini.formats.trec.to_dict` makes it (a docid
        listed twice keeps its first score)."""
        ids = self.table[self.docs].tolist() if self.num_hits else []
        scores = self.scores.tolist()
        run: dict[str, dict[str, float]] = {}
        for i, qid in enumerate(self.qids):
            lo, hi = int(self.offsets[i]), int(self.offsets[i + 1])
            # reversed: the first (highest-ranked) score of a repeated docid is the one kept
            per = dict(zip(reversed(ids[lo:hi]), reversed(scores[lo:hi])))
            run.setdefault(qid, {}).update(per if len(per) == hi - lo else
                                           {d: per[d] for d in dict.fromkeys(ids[lo:hi])})
        return run

    def to_frame(self) -> Any:
        """A pandas DataFrame, one row per hit: ``qid``, ``docno``, ``rank`` (from 1), ``score`` (PyTerrier's names)."""
        import pandas as pd

        counts = self.counts()
        starts = np.repeat(self.offsets[:-1], counts)
        return pd.DataFrame({
            "qid": np.repeat(np.array(self.qids, dtype=object), counts),
            "docno": self.table[self.docs] if self.num_hits else np.array([], dtype=object),
            "rank": (np.arange(self.num_hits) - starts + 1).astype(np.int64),
            "score": self.scores.astype(np.float64),
        })

    # ----------------------------------------------------------------- runs

    def dropped(self, remove_duplicates: bool = False, remove_query: bool = False) -> "BatchResults":
        """Pyserini's ``--remove-duplicates`` / ``--remove-query`` applied (in Java): a new batch."""
        if not (remove_duplicates or remove_query):
            return self
        self._need_java()
        kept = jclass(RUN_LINES).drop(self._java, jclass(SEARCHER).reader_of(self._searcher), self.qids,
                                      bool(remove_duplicates), bool(remove_query))
        return BatchResults.from_java(kept, self.qids, self.table, self._searcher)

    def run_bytes(self, tag: str, output_format: str = "trec") -> bytes:
        """This batch's run lines, UTF-8, formatted in Java exactly as
        :func:`~qlog_pyserini.formats.trec.format_run_lines` formats them."""
        reader = self._run_inputs(tag, output_format)
        if output_format == "trec":
            return jclass(RUN_LINES).trec(self._java, reader, self.qids, tag).tostring()
        return jclass(RUN_LINES).msmarco(self._java, reader, self.qids).tostring()

    def write_run(self, f: BinaryIO, tag: str, output_format: str = "trec") -> int:
        """Append this batch's run lines to the binary file ``f``; returns the number of lines.

        A file with a descriptor is written by Java itself (through ``/dev/fd/N``, appending), so the
        run text never crosses the bridge; any other binary stream gets :meth:`run_bytes`.
        """
        reader = self._run_inputs(tag, output_format)
        try:
            fd = f.fileno()
        except (AttributeError, OSError, ValueError):
            fd = None
        if fd is None or not os.path.exists(f"/dev/fd/{fd}"):
            f.write(self.run_bytes(tag, output_format))
            return self.num_hits
        f.flush()
        jclass(RUN_LINES).append(self._java, reader, self.qids, tag, output_format, f"/dev/fd/{fd}")
        if f.seekable():  # a pipe or a FIFO has no position to move
            f.seek(0, os.SEEK_END)  # Java appended through a descriptor of its own
        return self.num_hits

    def _run_inputs(self, tag: str, output_format: str) -> Any:
        """The reader to format against, after every check a run file needs (tag, format, qids, docids)."""
        self._need_java()
        if output_format not in ("trec", "msmarco"):
            raise QLogError(f"unknown output format {output_format!r}; choose one of trec, msmarco")
        check_id(tag, "run tag")
        for qid in self.qids:
            check_id(qid, "qid")
        self.table.ids  # noqa: B018 (reading it) refuses an index with docids a run cannot hold before anything is written
        return jclass(SEARCHER).reader_of(self._searcher)

    def _need_java(self) -> None:
        if self._java is None:
            raise QLogError("these results were not made by a Java batch search")
