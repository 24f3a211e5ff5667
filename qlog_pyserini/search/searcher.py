"""Python API: search a standard Lucene index with q-log BM25 (or any similarity) from Python.

    >>> from qlog_pyserini import QLogSearcher
    >>> s = QLogSearcher("indexes/csn-ruby", q=0.7)             # doctest: +SKIP
    >>> hits = s.search("parse the json body of a request", k=10)  # doctest: +SKIP
    >>> s.set_q(0.05)                 # new IDF, same open index   # doctest: +SKIP
    >>> print(s.explain("parse json", hits[0].docid))             # doctest: +SKIP

Hits are :class:`qlog_pyserini.formats.trec.Hit` (``docid``, ``score``) in Anserini's order: score
descending, ties broken by docid ascending, exactly as Pyserini's ``LuceneSearcher``.

Queries are analyzed as the index was (``default`` or ``identifier``, see
:mod:`qlog_pyserini.analysis`), read from the index unless ``analyzer=`` says otherwise.
"""

from __future__ import annotations

import json
import math
import os
import threading
from pathlib import Path
from typing import Any, Iterable, Sequence

import numpy as np

from qlog_pyserini.errors import QLogError
from qlog_pyserini.formats.trec import Hit, check_id
from qlog_pyserini.formula import (DEFAULT_B, DEFAULT_K1, check_float_parameter, check_form, check_q,
                                   check_score_range, max_idf)
from qlog_pyserini.jvm.bridge import detach_when_thread_ends, jclass
from qlog_pyserini.analysis.analyzers import check_analyzer, index_analyzer, java_analyzer
from qlog_pyserini.search.results import SEARCHER, BatchResults, DocidTable


def check_index_dir(index_dir: str | os.PathLike) -> Path:
    """``index_dir`` if it holds a Lucene index (a ``segments_N`` file), else :class:`QLogError`."""
    path = Path(index_dir)
    if not path.exists():
        raise QLogError(f"index {str(path)!r} does not exist")
    if not path.is_dir():
        raise QLogError(f"index {str(path)!r} is not a folder")
    if not any(p.name.startswith("segments_") for p in path.iterdir()):
        raise QLogError(f"{str(path)!r} is not a Lucene index (no segments_N file)")
    return path


MAX_HITS = 2**31 - 1  # Lucene counts hits in a Java int


def check_hits(k: int, name: str = "k") -> int:
    """``k`` if it is a usable number of hits per query (1 .. 2^31 - 1), else QLogError."""
    if isinstance(k, bool) or not isinstance(k, (int, np.integer)) or not 1 <= k <= MAX_HITS:
        raise QLogError(f"illegal {name} value: {k!r}, must be an integer from 1 to {MAX_HITS}")
    return int(k)


def _java_error(e: Exception) -> str:
    """The first line of a Java exception's message, without the Java stack."""
    text = str(getattr(e, "innermessage", None) or e).strip().splitlines()
    return text[0] if text else type(e).__name__


def _is_java_exception(e: Exception) -> bool:
    return type(e).__name__ == "JavaException"


# pyjnius binds the Java instance of an instance-method call on the class's shared method object, so
# two threads calling one method on two objects of one Java class can swap objects. Our hot paths
# are static Java calls (no instance to swap); the few instance calls left go through this lock.
_INSTANCE_CALLS = threading.Lock()


def instance_call(obj: Any, method: str, *args: Any) -> Any:
    """``obj.method(*args)`` on a Java object, with no other thread's call able to cross it."""
    with _INSTANCE_CALLS:
        return getattr(obj, method)(*args)


class QLogSearcher:
    """Searches one open Lucene index; the similarity can be changed at any time without reopening it.

    Args:
        index_dir: a Lucene index built by Anserini/Pyserini (``contents`` field, ``id`` docids).
        k1, b: BM25 parameters (Pyserini's defaults 0.9, 0.4).
        q: the q of the q-logarithm IDF; 1 is Lucene's BM25.
        idf_form: ``lucene`` (1 + RSJ odds, default) or ``rsj`` (the paper's odds, IDF floored at 0).
        analyzer: how queries are analyzed, ``default`` or ``identifier``; by default the analyzer the
            index records (``default`` for any index built by Anserini/Pyserini). Set it only to study
            a mismatch: a query analyzed unlike the documents misses terms.

    Safe to share between threads: each search runs under the model installed when it starts (an
    immutable Java similarity passed with the call), and model changes are serialized, so ``q``,
    ``k1``, ``b``, ``idf_form`` and :attr:`similarity` always describe one model.
    """

    def __init__(self, index_dir: str | os.PathLike, k1: float = DEFAULT_K1, b: float = DEFAULT_B,
                 q: float = 1.0, idf_form: str = "lucene", analyzer: str | None = None) -> None:
        self.index_dir = check_index_dir(index_dir)
        try:
            self.analyzer = index_analyzer(self.index_dir) if analyzer is None else check_analyzer(analyzer)
            cls = jclass(SEARCHER)
            # default keeps SimpleSearcher's own analyzer object: exactly Anserini's query analysis.
            self._java = (cls(str(self.index_dir)) if self.analyzer == "default"
                          else cls(str(self.index_dir), java_analyzer(self.analyzer)))
        except Exception as e:
            if not _is_java_exception(e):
                raise
            # A corrupt or unreadable index: one line, not Lucene's 50-line stack.
            raise QLogError(f"cannot open index {str(self.index_dir)!r}: {_java_error(e)}") from None
        self._lock = threading.RLock()
        self._num_docs = int(jclass(SEARCHER).num_docs_of(self._java))
        self.docids = DocidTable(self._java, repr(str(self.index_dir)))
        self.k1, self.b, self.q, self.idf_form = k1, b, 1.0, "lucene"
        self._model: Any = None
        self.set_qlog(k1=k1, b=b, q=q, idf_form=idf_form)

    def _check_qlog(self, k1: float, b: float, q: float, form: str) -> None:
        if not (k1 >= 0 and k1 != float("inf")):
            raise QLogError(f"illegal k1 value: {k1}, must be a non-negative finite number")
        if not 0 <= b <= 1:
            raise QLogError(f"illegal b value: {b}, must be between 0 and 1")
        check_float_parameter("k1", k1)
        # Refuse, before any search, parameters whose scores run files cannot represent exactly.
        n = self.num_docs
        check_score_range(max_idf(n, q, form), f"q = {q:g} ({form} odds) on {str(self.index_dir)!r} (N = {n})")

    def set_qlog(self, k1: float | None = None, b: float | None = None, q: float | None = None,
                 idf_form: str | None = None) -> None:
        """Install q-log BM25 with the given parameters (unchanged ones keep their values)."""
        with self._lock:  # a concurrent set_qlog(k1=...) must not lose this q, nor this one its k1
            k1 = self.k1 if k1 is None else float(k1)
            b = self.b if b is None else float(b)
            q = self.q if q is None else check_q(q)
            form = self.idf_form if idf_form is None else check_form(idf_form)
            self._check_qlog(k1, b, q, form)
            self._install(jclass(SEARCHER).qlog_model(k1, b, q, form))
            self.k1, self.b, self.q, self.idf_form = k1, b, q, form

    def set_q(self, q: float) -> None:
        """Change only q (no reindex, the index stays open)."""
        self.set_qlog(q=q)

    def set_similarity(self, similarity: Any, **params: Any) -> None:
        """Install a model by name (see :mod:`qlog_pyserini.search.similarities`: ``bm25``, ``qlog``, ``idf-gamma``,
        ``qld``, ``dfr``, ``dph``; k1 and b default to this searcher's) or any Lucene ``Similarity`` object.

        ``set_similarity("qlog", q=0.3)`` is the same as ``set_qlog(q=0.3)``.
        """
        with self._lock:
            if isinstance(similarity, str):
                if similarity == "qlog":
                    self.set_qlog(**{k: params[k] for k in ("k1", "b", "q", "idf_form") if k in params})
                    return
                from qlog_pyserini.search.similarities import make_similarity

                params = {"k1": self.k1, "b": self.b, **params}
                if similarity == "idf-gamma":
                    # BM25's largest idf (a term in one document) raised to gamma bounds one term's score.
                    n = self.num_docs
                    largest = math.log(1 + (n - 0.5) / 1.5) ** float(params.get("gamma", 1.0)) if n > 1 else 0.0
                    check_score_range(largest, f"idf-gamma with gamma = {params.get('gamma', 1.0)} on "
                                               f"{str(self.index_dir)!r} (N = {n})")
                similarity = make_similarity(similarity, **params)
            self._install(similarity)

    def _install(self, model: Any) -> None:
        """``model`` becomes the model of later searches here and of the Java searcher (explain, feedback)."""
        try:
            jclass(SEARCHER).install(self._java, model)
        except Exception as e:
            if not _is_java_exception(e):
                raise
            raise QLogError(f"cannot install similarity: {_java_error(e)}") from None
        self._model = model

    @property
    def similarity(self) -> str:
        """The installed similarity as Lucene names it, e.g. ``QLogBM25(k1=0.9,b=0.4,q=0.7,form=lucene)``."""
        with self._lock:
            return str(instance_call(jclass(SEARCHER).similarity_of(self._java), "toString"))

    @property
    def java(self) -> Any:
        """The Java ``io.qlog.search.QLogSearcher`` (an Anserini ``SimpleSearcher``), for Anserini calls not wrapped here."""
        return self._java

    @property
    def num_docs(self) -> int:
        return self._num_docs

    def search(self, query: str, k: int = 10) -> list[Hit]:
        """Top ``k`` hits for ``query`` (an empty or all-stopword query gives no hits)."""
        return self.search_batch([str(query)], ["q"], k=k).hits_at(0)

    def batch_search(self, queries: Sequence[str], qids: Sequence[str], k: int = 10,
                     threads: int = 1) -> BatchResults:
        """Top ``k`` hits per query, searched on ``threads`` Java threads: ``{qid: hits}`` in ``qids`` order.

        The result is a read-only mapping (:class:`~qlog_pyserini.search.results.BatchResults`) whose
        hits are made on access; it also gives ``to_dict()``, ``to_frame()`` and the run lines.
        """
        return self.search_batch(queries, qids, k=k, threads=threads)

    def search_batch(self, queries: Sequence[str], qids: Sequence[str], k: int = 10, threads: int = 1,
                     q: Iterable[float] | None = None) -> BatchResults:
        """Top ``k`` hits per query as columns (:class:`~qlog_pyserini.search.results.BatchResults`).

        ``q``, one value per query, searches each query with q-log BM25 at its own q (this searcher's
        k1, b and IDF form; one Lucene searcher per distinct q over the one open index); by default
        every query is searched with the installed model.
        """
        queries, qids = self._check_batch(queries, qids)
        k = check_hits(k)
        if isinstance(threads, bool) or not isinstance(threads, (int, np.integer)) or not 1 <= threads <= 1024:
            raise QLogError(f"illegal threads value: {threads!r}, must be an integer from 1 to 1024")
        with self._lock:
            model, k1, b, form = self._model, self.k1, self.b, self.idf_form
        if q is None:
            hits = self._call(jclass(SEARCHER).search_batch, self._java, model, queries, k, int(threads))
        else:
            qs = [check_q(v) for v in q]
            if len(qs) != len(queries):
                raise QLogError(f"{len(qs)} q values for {len(queries)} queries")
            for value in sorted(set(qs)):
                self._check_qlog(k1, b, value, form)
            hits = self._call(jclass(SEARCHER).search_batch_q, self._java, k1, b, form, qs, queries, k,
                              int(threads))
        return BatchResults.from_java(hits, qids, self.docids, self._java)

    @staticmethod
    def _check_batch(queries: Sequence[str], qids: Sequence[str]) -> tuple[list[str], list[str]]:
        if isinstance(queries, str) or isinstance(qids, str):
            raise QLogError("queries and qids must be sequences of strings, not one string")
        queries, qids = [str(x) for x in queries], list(qids)
        if len(queries) != len(qids):
            raise QLogError(f"{len(queries)} queries but {len(qids)} qids")
        if len(set(qids)) != len(qids):
            raise QLogError("qids must be unique")
        for qid in qids:
            check_id(qid, "qid")  # a tab or newline in a qid would corrupt the run line it starts
        return queries, qids

    def _call(self, method: Any, *args: Any) -> Any:
        """A Java search call; a Java exception becomes one QLogError line."""
        detach_when_thread_ends()  # a short-lived calling thread must not leave a Java thread behind
        try:
            return method(*args)
        except Exception as e:
            if not _is_java_exception(e):
                raise
            raise QLogError(f"search failed on {str(self.index_dir)!r}: {_java_error(e)}") from None

    def explain(self, query: str, docid: str) -> str:
        """Lucene's explanation of ``docid``'s score for ``query``, naming the q-log IDF, q and the odds form."""
        with self._lock:
            text = instance_call(self._java, "explain", query, docid)
        if text is None:
            raise QLogError(f"docid {docid!r} is not in the index")
        return text

    def doc_text(self, docid: str) -> str:
        """The indexed text of ``docid`` (from the stored raw document); :class:`QLogError` if absent."""
        raw = instance_call(self._java, "doc_raw", docid)
        if raw is None:
            contents = instance_call(self._java, "doc_contents", docid)
            if contents is None:
                raise QLogError(f"docid {docid!r} is not in the index")
            return contents
        try:
            obj = json.loads(raw)
        except ValueError:
            return raw
        return obj.get("contents", raw) if isinstance(obj, dict) else raw

    def close(self) -> None:
        instance_call(self._java, "close")

    def __enter__(self) -> "QLogSearcher":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def anserini_bm25_searcher(index_dir: str | os.PathLike, k1: float = DEFAULT_K1, b: float = DEFAULT_B) -> Any:
    """Anserini's own ``SimpleSearcher`` with ``set_bm25(k1, b)``: the reference q = 1 must equal."""
    s = jclass("io.anserini.search.SimpleSearcher")(str(check_index_dir(index_dir)))
    s.set_bm25(float(k1), float(b))
    return s


def hits_from_anserini(scored_docs: Sequence[Any]) -> list[Hit]:
    """Python hits from an array of Anserini ``ScoredDoc``."""
    return [Hit(d.docid, float(d.score)) for d in scored_docs]


def results_from_anserini(results: Any) -> dict[str, list[Hit]]:
    """Python ``{qid: hits}`` from Anserini's ``Map<String, ScoredDoc[]>``."""
    return {qid: hits_from_anserini(results.get(qid)) for qid in results.keySet().toArray()}
