"""Weighted multi-field search, as Pyserini's ``--fields contents=1 title=0.5``.

Each field is its own bag-of-words query, boosted by its weight; each is scored with that field's
own statistics (its N, n, average length), so under q-log BM25 a term rare in titles gets a large
title IDF. The search itself is Anserini's ``SimpleSearcher.batch_search_fields``, the call Pyserini's
``batch_search(fields=...)`` makes, so the run equals Pyserini's at q = 1.
"""

from __future__ import annotations

import math
from collections import Counter
from typing import Iterator, Mapping, Sequence

import numpy as np

from qlog_pyserini.errors import QLogError
from qlog_pyserini.formats.trec import Hit, format_run_columns
from qlog_pyserini.jvm.bridge import java_list, jclass
from qlog_pyserini.lucene.searcher import QLogSearcher

FIELD_SEARCH = "io.qlog.pyserini.FieldSearch"


def parse_fields(pairs: Sequence[str]) -> dict[str, float]:
    """``["contents=1", "title=0.5"]`` -> ``{"contents": 1.0, "title": 0.5}``; QLogError on a malformed pair."""
    fields: dict[str, float] = {}
    for pair in pairs:
        name, sep, weight = pair.partition("=")
        if not sep or not name.strip():
            raise QLogError(f"--fields takes FIELD=WEIGHT pairs (e.g. contents=1 title=0.5), got {pair!r}")
        try:
            value = float(weight)
        except ValueError:
            raise QLogError(f"--fields weight of {name!r} must be a number, got {weight!r}") from None
        if not (math.isfinite(value) and value >= 0):
            raise QLogError(f"--fields weight of {name!r} must be a finite number >= 0, got {weight!r}")
        if name in fields:
            raise QLogError(f"--fields names {name!r} twice")
        fields[name.strip()] = value
    return fields


def index_fields(searcher: QLogSearcher) -> list[str]:
    """The names of the fields ``searcher``'s index holds postings for."""
    infos = jclass("org.apache.lucene.index.FieldInfos").getMergedFieldInfos(searcher.java.reader)
    it = infos.iterator()
    names = []
    while it.hasNext():
        info = it.next()
        if str(info.getIndexOptions().toString()) != "NONE":
            names.append(str(info.name))
    return sorted(names)


def check_fields(searcher: QLogSearcher, fields: Mapping[str, float], option: str = "--fields") -> None:
    """QLogError naming the index's fields if ``fields`` asks for one the index does not have.

    Pyserini would search a missing field silently and find nothing there; a typo in a field name
    then looks like a bad model, so it is refused here. ``option`` names what asked for the fields.
    """
    known = index_fields(searcher)
    missing = [f for f in fields if f not in known]
    if missing:
        raise QLogError(f"{option}: the index has no field {missing[0]!r} (it has {', '.join(known) or 'none'})")


class FieldResults(Mapping[str, list]):
    """A multi-field batch as columns, a read-only mapping ``qid -> list[Hit]`` in query order (the Hits
    made on access): query ``i``'s hits are ``docids[offsets[i]:offsets[i + 1]]``, with float32 ``scores``
    and Lucene doc numbers ``lucene``."""

    def __init__(self, qids: Sequence[str], offsets: np.ndarray, docids: list[str], scores: np.ndarray,
                 lucene: np.ndarray) -> None:
        self.qids, self.offsets, self.docids, self.scores, self.lucene = list(qids), offsets, docids, scores, lucene
        self._at = {qid: i for i, qid in enumerate(self.qids)}

    def __len__(self) -> int:
        return len(self.qids)

    def __iter__(self) -> Iterator[str]:
        return iter(self.qids)

    def __getitem__(self, qid: str) -> list[Hit]:
        i = self._at[qid]
        lo, hi = int(self.offsets[i]), int(self.offsets[i + 1])
        return [Hit(d, s, n) for d, s, n in zip(self.docids[lo:hi], self.scores[lo:hi].tolist(),
                                                self.lucene[lo:hi].tolist())]

    def counts(self) -> np.ndarray:
        """Hits per query, in query order."""
        return np.diff(self.offsets)

    def run_text(self, tag: str, output_format: str = "trec") -> str:
        """The batch's run lines (:func:`qlog_pyserini.formats.trec.format_run_columns`)."""
        return format_run_columns(self.qids, self.offsets, self.docids, self.scores, tag, output_format)


def search_fields_columns(searcher: QLogSearcher, queries: Sequence[str], qids: Sequence[str],
                          fields: Mapping[str, float], k: int = 10, threads: int = 1) -> FieldResults:
    """Top ``k`` hits per query over the weighted ``fields``, as :class:`FieldResults` in ``qids`` order."""
    if len(queries) != len(qids):
        raise QLogError(f"{len(queries)} queries but {len(qids)} qids")
    if len(set(qids)) != len(qids):
        raise QLogError("qids must be unique")
    weights = jclass("java.util.HashMap")()
    for name, weight in fields.items():
        weights.put(name, jclass("java.lang.Float")(float(weight)))
    # through call_java: a failing Java search is one error line naming the index, not a Java stack
    text = searcher.call_java(jclass(FIELD_SEARCH).batch_search_fields_tsv, searcher.java, java_list(list(queries)),
                              java_list(list(qids)), int(k), int(threads), weights)
    # qid TAB docid TAB score TAB luceneDocid lines, queries in qids order: four cells a line
    cells = text.replace("\n", "\t").split("\t")[:-1] if text else []
    lines = text.count("\n")
    if len(cells) != 4 * lines:
        raise QLogError("the index holds a docid with a tab or newline, which the field search cannot report")
    qcol = cells[0::4]
    counts = Counter(qcol)
    offsets = np.cumsum([0] + [counts.get(qid, 0) for qid in qids])
    if qcol != np.repeat(np.array(list(qids), dtype=object), np.diff(offsets)).tolist():
        raise QLogError("the field search answered queries out of order")
    # Java sends the shortest decimal of a float; reading it and rounding to float32 recovers that exact float.
    scores = np.array(cells[2::4], dtype=np.float64).astype(np.float32)
    return FieldResults(qids, offsets, cells[1::4], scores, np.array(cells[3::4], dtype=np.int64))


def batch_search_fields(searcher: QLogSearcher, queries: Sequence[str], qids: Sequence[str],
                        fields: Mapping[str, float], k: int = 10, threads: int = 1) -> dict[str, list[Hit]]:
    """Top ``k`` hits per query over the weighted ``fields``; ``{qid: hits}`` in ``qids`` order."""
    return dict(search_fields_columns(searcher, queries, qids, fields, k, threads))
