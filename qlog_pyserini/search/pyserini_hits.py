"""Batch results as Pyserini's ``LuceneSearcher`` hands them out, made from the array bridge.

Pyserini's ``batch_search`` calls Anserini's ``SimpleSearcher.batch_search``, which builds one Java
``ScoredDoc`` per hit and loads each hit's stored document (about 49 ms a query at k = 1000). Here a batch
goes through :func:`io.qlog.search.QLogSearcher.search_batch` (primitive arrays, one buffer per batch) and
each hit is a :class:`PyseriniHit`: ``docid``, ``score`` and ``lucene_docid`` at once, the stored document
(``lucene_document``, ``contents``, ``raw``) read from the index the first time it is asked for.

    >>> from qlog_pyserini.search.pyserini_hits import search_simple_searcher
    >>> results = search_simple_searcher(simple, queries, qids, k=1000, threads=2)  # doctest: +SKIP
    >>> results["q1"][0].docid, results["q1"][0].raw                                 # doctest: +SKIP

Works on any Anserini ``SimpleSearcher`` (Pyserini's ``LuceneSearcher.object``), under the similarity
installed on it, with its analyzer and query generator; it does not import ``pyserini.search.lucene``.
"""

from __future__ import annotations

import threading
from typing import Any, Sequence

from qlog_pyserini.errors import QLogError
from qlog_pyserini.jvm.bridge import detach_when_thread_ends, is_java_exception, java_error, jclass
from qlog_pyserini.lucene.results import SEARCHER, BatchResults, DocidTable

_UNREAD = object()


class PyseriniHit:
    """One hit with the attributes of Pyserini's hits (Anserini's ``ScoredDoc``): ``docid``, ``score``,
    ``lucene_docid`` and ``lucene_document``, plus ``contents`` and ``raw`` (the stored fields of those names).

    The stored document is read from the index when first asked for, never for hits nobody reads.
    Attributes can be reassigned, as on Pyserini's hits (its fusion and segment-id code does).
    """

    __slots__ = ("docid", "score", "lucene_docid", "_searcher", "_document")

    def __init__(self, docid: str, score: float, lucene_docid: int, searcher: Any) -> None:
        self.docid = docid
        self.score = score
        self.lucene_docid = lucene_docid
        self._searcher = searcher
        self._document: Any = _UNREAD

    @property
    def lucene_document(self) -> Any:
        """The hit's stored Lucene ``Document`` (Java), as ``SimpleSearcher.doc(lucene_docid)`` returns it."""
        if self._document is _UNREAD:
            from qlog_pyserini.lucene.searcher import instance_call

            self._document = instance_call(self._searcher, "doc", int(self.lucene_docid))
        return self._document

    @property
    def contents(self) -> str | None:
        """The stored ``contents`` field, or None if the index does not store it."""
        return self._field("contents")

    @property
    def raw(self) -> str | None:
        """The stored ``raw`` field (the source document), or None if the index does not store it."""
        return self._field("raw")

    def _field(self, name: str) -> str | None:
        from qlog_pyserini.lucene.searcher import instance_call

        document = self.lucene_document
        return None if document is None else instance_call(document, "get", name)

    def __repr__(self) -> str:
        return f"PyseriniHit(docid={self.docid!r}, score={self.score!r}, lucene_docid={self.lucene_docid})"


class PyseriniBatchResults(BatchResults):
    """:class:`~qlog_pyserini.lucene.results.BatchResults` whose hits are :class:`PyseriniHit` values.

    Like the dict Pyserini's ``batch_search`` returns, ``results[qid]`` is the same list each time it is
    read (made on first access, so hits changed in place stay changed); the columns, ``to_dict``,
    ``to_frame`` and ``write_run`` are BatchResults'.
    """

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._made: dict[int, list[PyseriniHit]] = {}
        self._making = threading.Lock()

    def hits_at(self, i: int) -> list[PyseriniHit]:  # type: ignore[override]
        """Query ``i``'s hits as :class:`PyseriniHit` values (made on first access, then kept)."""
        made = self._made.get(i)
        if made is None:
            with self._making:
                made = self._made.get(i)
                if made is None:
                    lo, hi = int(self.offsets[i]), int(self.offsets[i + 1])
                    docs = self.docs[lo:hi]
                    ids = self.table[docs].tolist() if hi > lo else []
                    made = [PyseriniHit(d, s, n, self._searcher)
                            for d, s, n in zip(ids, self.scores[lo:hi].tolist(), docs.tolist())]
                    self._made[i] = made
        return made


def docid_table(simple_searcher: Any, where: str) -> DocidTable | None:
    """The docid table of ``simple_searcher``'s index, read now; None when the index holds docids a run
    cannot hold (whitespace, NUL), which Pyserini's own path still serves."""
    table = DocidTable(simple_searcher, where)
    try:
        table.ids  # noqa: B018 (reading the table is the check)
    except QLogError:
        return None
    return table


def search_simple_searcher(simple_searcher: Any, queries: Sequence[str], qids: Sequence[str], k: int = 10,
                           threads: int = 1, table: DocidTable | None = None) -> PyseriniBatchResults:
    """Top ``k`` hits per query from an Anserini ``SimpleSearcher``, as :class:`PyseriniBatchResults`.

    Searched under the similarity installed on ``simple_searcher`` with its analyzer and query generator,
    in Anserini's order (score descending, docid ascending; its 4-decimal rounding and 1e-6 tie steps), each
    score then strictly below the one above as a float (the rule :class:`qlog_pyserini.QLogSearcher`'s runs
    follow): the same docids, ranks and scores as ``SimpleSearcher.batch_search`` except where Anserini's
    1e-6 step vanished in float rounding (tied scores of 16 and more), where Anserini repeats the score
    above and this gives the next float down. ``table`` is the index's docid table, read once per open
    index by the caller that keeps it (read here otherwise).
    """
    from qlog_pyserini.lucene.searcher import check_hits, check_query, check_threads

    if isinstance(queries, (str, bytes)) or isinstance(qids, (str, bytes)):
        raise QLogError("queries and qids must be lists of strings")
    queries, qids = [check_query(x) for x in queries], [str(x) for x in qids]
    if len(queries) != len(qids):
        raise QLogError(f"{len(queries)} queries but {len(qids)} qids")
    if len(set(qids)) != len(qids):
        raise QLogError("qids must be unique")
    k = check_hits(k)
    threads = check_threads(threads)
    cls = jclass(SEARCHER)
    detach_when_thread_ends()  # a short-lived calling thread must not leave a Java thread behind
    try:
        hits = cls.search_batch(simple_searcher, cls.similarity_of(simple_searcher), queries, k, threads)
    except Exception as e:
        if not is_java_exception(e):
            raise
        raise QLogError(f"search failed: {java_error(e)}") from None
    table = table if table is not None else DocidTable(simple_searcher, "this SimpleSearcher's index")
    return PyseriniBatchResults.from_java(hits, qids, table, simple_searcher)
