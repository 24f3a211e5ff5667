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

import functools
import json
import math
import os
import re
import threading
from pathlib import Path
from typing import Any, Iterable, Sequence

import numpy as np

from qlog_pyserini.errors import QLogError
from qlog_pyserini.formats.trec import UNWRITABLE_ID, Hit, check_id
from qlog_pyserini.formula import DEFAULT_B, DEFAULT_K1, check_q, check_qlog, check_score_range, max_idf
from qlog_pyserini.jvm.bridge import detach_when_thread_ends, is_java_exception, java_error, jclass
from qlog_pyserini.analysis.analyzers import java_analyzer, open_reader, query_analyzer
from qlog_pyserini.search.results import SEARCHER, BatchResults, DocidTable
from qlog_pyserini.search.similarities import check_parameters, own_parameters


def text_of_raw(raw: str) -> str:
    """The indexed text of a stored raw document: its ``contents`` when it is a JSON object (Anserini's
    ``JsonCollection``), else the raw document itself."""
    try:
        obj = json.loads(raw)
    except ValueError:
        return raw
    return obj.get("contents", raw) if isinstance(obj, dict) else raw


def check_index_dir(index_dir: str | os.PathLike) -> Path:
    """``index_dir`` if it holds a Lucene index (a ``segments_N`` file), else :class:`QLogError`."""
    if not isinstance(index_dir, (str, os.PathLike)):
        raise QLogError(f"index must be a folder path, not {type(index_dir).__name__}")
    path = Path(index_dir)
    if not path.exists():
        raise QLogError(f"index {str(path)!r} does not exist")
    if not path.is_dir():
        raise QLogError(f"index {str(path)!r} is not a folder")
    if not any(p.name.startswith("segments_") for p in path.iterdir()):
        raise QLogError(f"{str(path)!r} is not a Lucene index (no segments_N file)")
    return path


def no_documents(index_dir: str | os.PathLike) -> QLogError:
    """The one refusal of an index with no documents, whichever verb opens it: a run of it would be empty and
    exit 0, and its statistics (the label-free q, the rewrite's boosts) do not exist."""
    return QLogError(f"index {str(index_dir)!r} holds no documents: nothing to search or measure")


def count_documents(index_dir: str | os.PathLike) -> int:
    """The number of live documents in the Lucene index ``index_dir`` (checked by :func:`check_index_dir`)."""
    with open_reader(check_index_dir(index_dir)) as reader:
        return int(reader.numDocs())


MAX_HITS = 2**31 - 1  # Lucene counts hits in a Java int


def check_hits(k: int, name: str = "k") -> int:
    """``k`` if it is a usable number of hits per query (1 .. 2^31 - 1), else QLogError."""
    if isinstance(k, bool) or not isinstance(k, (int, np.integer)) or not 1 <= k <= MAX_HITS:
        raise QLogError(f"illegal {name} value: {k!r}, must be an integer from 1 to {MAX_HITS}")
    return int(k)


MAX_THREADS = 1024


def check_threads(threads: int) -> int:
    """``threads`` if it is a usable number of search threads (1 .. 1024), else QLogError."""
    if isinstance(threads, bool) or not isinstance(threads, (int, np.integer)) or not 1 <= threads <= MAX_THREADS:
        raise QLogError(f"illegal threads value: {threads!r}, must be an integer from 1 to {MAX_THREADS}")
    return int(threads)


def qlog_parameters(current: tuple[float, float, float, str], num_docs: int, where: str, q: float | None = None,
                    k1: float | None = None, b: float | None = None,
                    idf_form: str | None = None) -> tuple[float, float, float, str]:
    """``(q, k1, b, idf_form)`` after a ``set_qlog`` call: the given ones checked as the Java constructor checks
    them (:func:`qlog_pyserini.formula.check_qlog`), the others kept from ``current``; refused before any search
    when one term could score more than run files represent on an index of ``num_docs`` documents.

    The one contract of :meth:`QLogSearcher.set_qlog` and ``QLogLuceneSearcher.set_qlog``.
    """
    cq, ck1, cb, cform = current
    q, k1, b, form = check_qlog(cq if q is None else q, ck1 if k1 is None else k1, cb if b is None else b,
                                cform if idf_form is None else idf_form)
    check_score_range(max_idf(num_docs, q, form), f"q = {q:g} ({form} odds) on {where} (N = {num_docs})")
    return q, k1, b, form


_LONE_SURROGATE = re.compile("[\ud800-\udfff]")


def check_query(query: object, what: str = "query") -> str:
    """``query`` if it is text pyjnius can hand to Java, else :class:`QLogError` (``None`` would search "None")."""
    if not isinstance(query, str):
        raise QLogError(f"{what} must be a string, not {type(query).__name__}")
    if _LONE_SURROGATE.search(query):
        raise QLogError(f"{what} {query!r} holds a lone surrogate, which is not Unicode text")
    return query


class _Closed:
    """Stands for the Java searcher after :meth:`QLogSearcher.close`: every use is one clear error."""

    def __init__(self, index_dir: Path) -> None:
        self._index_dir = index_dir

    def __getattr__(self, name: str) -> Any:
        raise QLogError(f"this searcher of {str(self._index_dir)!r} is closed")


def _is_java_similarity(value: object) -> bool:
    from jnius import JavaClass

    return isinstance(value, JavaClass) and bool(_similarity_class().isInstance(value))


@functools.lru_cache(maxsize=1)
def _similarity_class() -> Any:
    """Lucene's ``Similarity`` as a Java ``Class``, looked up once (a grid checks its models at every batch)."""
    return jclass("java.lang.Class").forName("org.apache.lucene.search.similarities.Similarity")


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
        analyzer: how queries are analyzed: ``default`` (Anserini's, Porter stemming), ``identifier``,
            or for an index Pyserini's indexer built with other flags ``nostem`` (``-stemmer none``),
            ``krovetz`` or ``whitespace`` (``-pretokenized``); by default the analyzer the index records,
            else ``default``. An index whose own terms show another analyzer than the one chosen (an
            index built ``-stemmer none`` searched with Porter stemming) is refused.

    Safe to share between threads: each search runs under the model installed when it starts (an
    immutable Java similarity passed with the call), and model changes are serialized, so ``q``,
    ``k1``, ``b``, ``idf_form`` and :attr:`similarity` always describe one model.
    """

    def __init__(self, index_dir: str | os.PathLike, k1: float = DEFAULT_K1, b: float = DEFAULT_B,
                 q: float = 1.0, idf_form: str = "lucene", analyzer: str | None = None) -> None:
        self.index_dir = check_index_dir(index_dir)
        try:
            self.analyzer = query_analyzer(self.index_dir, analyzer)
            cls = jclass(SEARCHER)
            # default keeps SimpleSearcher's own analyzer object: exactly Anserini's query analysis.
            self._java = (cls(str(self.index_dir)) if self.analyzer == "default"
                          else cls(str(self.index_dir), java_analyzer(self.analyzer)))
        except Exception as e:
            if not is_java_exception(e):
                raise
            # A corrupt or unreadable index: one line, not Lucene's 50-line stack.
            raise QLogError(f"cannot open index {str(self.index_dir)!r}: {java_error(e)}") from None
        self._lock = threading.RLock()
        self._num_docs = int(jclass(SEARCHER).num_docs_of(self._java))
        if self._num_docs == 0:
            instance_call(self._java, "close")
            raise no_documents(self.index_dir)
        self.docids = DocidTable(self._java, repr(str(self.index_dir)))
        self.k1, self.b, self.q, self.idf_form = k1, b, 1.0, "lucene"
        self._model: Any = None
        self.set_qlog(k1=k1, b=b, q=q, idf_form=idf_form)

    def _check_qlog(self, k1: float, b: float, q: float, form: str) -> None:
        # Refuse, before any search, parameters whose scores run files cannot represent exactly.
        qlog_parameters((q, k1, b, form), self.num_docs, repr(str(self.index_dir)))

    def set_qlog(self, q: float | None = None, *, k1: float | None = None, b: float | None = None,
                 idf_form: str | None = None) -> None:
        """Install q-log BM25 with the given parameters; those not given keep their values (see
        :func:`qlog_parameters`, the contract ``QLogLuceneSearcher.set_qlog`` shares)."""
        with self._lock:  # a concurrent set_qlog(k1=...) must not lose this q, nor this one its k1
            q, k1, b, form = self._qlog_values(q, k1, b, idf_form)
            self._install(jclass(SEARCHER).qlog_model(k1, b, q, form))
            self.k1, self.b, self.q, self.idf_form = k1, b, q, form

    def _qlog_values(self, q: float | None, k1: float | None, b: float | None,
                     idf_form: str | None) -> tuple[float, float, float, str]:
        return qlog_parameters((self.q, self.k1, self.b, self.idf_form), self.num_docs, repr(str(self.index_dir)),
                               q=q, k1=k1, b=b, idf_form=idf_form)

    def set_q(self, q: float) -> None:
        """Change only q (no reindex, the index stays open)."""
        self.set_qlog(q=q)

    def set_similarity(self, similarity: Any, **params: Any) -> None:
        """Install a model by name (see :mod:`qlog_pyserini.search.similarities`: ``bm25``, ``qlog``, ``idf-gamma``,
        ``qld``, ``dfr``, ``dph``; k1 and b default to this searcher's) or any Lucene ``Similarity`` object.

        ``set_similarity("qlog", q=0.3)`` is the same as ``set_qlog(q=0.3)``.
        """
        if not isinstance(similarity, str) and not _is_java_similarity(similarity):
            raise QLogError(f"similarity must be a model name (qlog, bm25, idf-gamma, qld, dfr, dph) or a Lucene "
                            f"Similarity, not {type(similarity).__name__}")
        with self._lock:
            if isinstance(similarity, str):
                if similarity == "qlog":
                    check_parameters("qlog", params)
                    self.set_qlog(**params)
                    return
                similarity = self.make_similarity(similarity, **params)
            self._install(similarity)

    def make_similarity(self, similarity: str, **params: Any) -> Any:
        """The Lucene ``Similarity`` that ``set_similarity(similarity, **params)`` installs, checked the same way
        (parameters not given are this searcher's), without installing it: a model for :meth:`search_grid`."""
        with self._lock:
            check_parameters(similarity, params)
            if similarity == "qlog":
                q, k1, b, form = self._qlog_values(*(params.get(k) for k in ("q", "k1", "b", "idf_form")))
                return jclass(SEARCHER).qlog_model(k1, b, q, form)
            from qlog_pyserini.search.similarities import make_similarity

            params = {**own_parameters(similarity, k1=self.k1, b=self.b), **params}
            if similarity == "idf-gamma":
                # BM25's largest idf (a term in one document) raised to gamma bounds one term's score.
                n = self.num_docs
                largest = math.log(1 + (n - 0.5) / 1.5) ** float(params.get("gamma", 1.0)) if n > 1 else 0.0
                check_score_range(largest, f"idf-gamma with gamma = {params.get('gamma', 1.0)} on "
                                           f"{str(self.index_dir)!r} (N = {n})")
            return make_similarity(similarity, **params)

    def _install(self, model: Any) -> None:
        """``model`` becomes the model of later searches here and of the Java searcher (explain, feedback)."""
        try:
            jclass(SEARCHER).install(self._open(), model)
        except Exception as e:
            if not is_java_exception(e):
                raise
            raise QLogError(f"cannot install similarity: {java_error(e)}") from None
        self._model = model

    @property
    def similarity(self) -> str:
        """The installed similarity as Lucene names it, e.g. ``QLogBM25(k1=0.9,b=0.4,q=0.7,form=lucene)``."""
        with self._lock:
            return str(instance_call(jclass(SEARCHER).similarity_of(self._open()), "toString"))

    @property
    def java(self) -> Any:
        """The Java ``io.qlog.search.QLogSearcher`` (an Anserini ``SimpleSearcher``), for Anserini calls not wrapped
        here; one clear error once :meth:`close` ran."""
        return self._open()

    @property
    def num_docs(self) -> int:
        return self._num_docs

    def mean_length(self, field: str = "contents") -> float:
        """The mean length of ``field`` in tokens as BM25 reads it (Lucene's avgdl); 0 if no document has it."""
        return float(self.call_java(instance_call, self._open(), "mean_length", field))

    def search(self, query: str, k: int = 10) -> list[Hit]:
        """Top ``k`` hits for ``query`` (an empty or all-stopword query gives no hits)."""
        return self.batch_search([check_query(query)], ["q"], k=k).hits_at(0)

    def search_query(self, query: Any, k: int = 10) -> list[Hit]:
        """Top ``k`` hits for a Java Lucene ``Query`` built by the caller (e.g. a rewritten one), ordered and
        rounded as :meth:`search`'s, under the installed similarity."""
        text = self.call_java(instance_call, self._java, "search_query_tsv", query, check_hits(k))
        # docid TAB score TAB luceneDocid lines; Java sends a float's shortest decimal, which float32 reads back exactly
        return [Hit(docid, float(np.float32(score)), int(lucene))
                for docid, score, lucene in (line.split("\t") for line in text.split("\n") if line)]

    def batch_search(self, queries: Sequence[str], qids: Sequence[str], k: int = 10, threads: int = 1,
                     q: Iterable[float] | None = None) -> BatchResults:
        """Top ``k`` hits per query, searched on ``threads`` Java threads: ``{qid: hits}`` in ``qids`` order.

        The result is a read-only mapping (:class:`~qlog_pyserini.search.results.BatchResults`) over the
        batch's columns, as they crossed the bridge: hits are made on access, and it also gives ``to_dict()``,
        ``to_frame()`` and the run lines. ``q``, one value per query, searches each query with q-log BM25 at
        its own q (this searcher's k1, b and IDF form; one Lucene searcher per distinct q over the one open
        index); by default every query is searched with the installed model.
        """
        queries, qids = self._check_batch(queries, qids)
        java = self._open()
        k = check_hits(k)
        threads = check_threads(threads)
        with self._lock:
            model, k1, b, form = self._model, self.k1, self.b, self.idf_form
        if q is None:
            hits = self.call_java(jclass(SEARCHER).search_batch, java, model, queries, k, int(threads))
        else:
            qs = [check_q(v) for v in q]
            if len(qs) != len(queries):
                raise QLogError(f"{len(qs)} q values for {len(queries)} queries")
            for value in sorted(set(qs)):
                self._check_qlog(k1, b, value, form)
            hits = self.call_java(jclass(SEARCHER).search_batch_q, java, k1, b, form, qs, queries, k,
                              int(threads))
        return BatchResults.from_java(hits, qids, self.docids, java)

    def search_grid(self, queries: Sequence[str], qids: Sequence[str], models: Sequence[Any], k: int = 10,
                    threads: int = 1, writable: bool = True) -> list[BatchResults]:
        """Top ``k`` hits per query under each of ``models`` (Lucene similarities, e.g. from :meth:`make_similarity`):
        one :class:`~qlog_pyserini.search.results.BatchResults` per model, in ``models`` order, each equal to
        :meth:`batch_search` with that model installed.

        A sweep's grid in one pass: each query's postings are read once and scored by every model
        (Java's ``ModelGridTopK``, Lucene's own scores exactly); the installed model is not changed. Results
        that will not write a run (``writable=False``) let their Java copy go at once.
        """
        queries, qids = self._check_batch(queries, qids)
        java = self._open()
        k = check_hits(k)
        threads = check_threads(threads)
        models = list(models)
        if not models:
            raise QLogError("search_grid needs at least one model")
        for m in models:
            if not _is_java_similarity(m):
                raise QLogError(f"search_grid takes Lucene Similarity objects, not {type(m).__name__}")
        hits = self.call_java(jclass(SEARCHER).search_batch_grid, java, models, queries, k, int(threads))
        return [BatchResults.from_java(h, qids, self.docids, java, keep_java=writable) for h in hits]

    @staticmethod
    def _check_batch(queries: Sequence[str], qids: Sequence[str]) -> tuple[list[str], list[str]]:
        for name, values in (("queries", queries), ("qids", qids)):
            if isinstance(values, (str, bytes)) or not isinstance(values, Sequence):
                raise QLogError(f"{name} must be a list of strings, not {type(values).__name__}")
        queries, qids = list(queries), list(qids)
        # One regex pass over each list joined (joining makes no surrogate, whitespace or NUL); only a
        # list that fails is checked item by item, for the error naming the first bad one.
        if not (all(isinstance(x, str) for x in queries) and not _LONE_SURROGATE.search("".join(queries))):
            queries = [check_query(x) for x in queries]
        if len(queries) != len(qids):
            raise QLogError(f"{len(queries)} queries but {len(qids)} qids")
        if len(set(qids)) != len(qids):
            raise QLogError("qids must be unique")
        if not (all(isinstance(q, str) and q for q in qids) and not UNWRITABLE_ID.search("".join(qids))):
            for qid in qids:
                check_id(qid, "qid")  # a tab or newline in a qid would corrupt the run line it starts
        return queries, qids

    def call_java(self, method: Any, *args: Any) -> Any:
        """``method(*args)``, a Java call on this searcher's index from any Python thread: a Java exception
        becomes one QLogError line naming the index, and the calling thread is detached from the JVM when it ends."""
        detach_when_thread_ends()  # a short-lived calling thread must not leave a Java thread behind
        try:
            return method(*args)
        except Exception as e:
            if not is_java_exception(e):
                raise
            if isinstance(self._java, _Closed):
                # closed by another thread mid-search: Lucene's symptom varies (AlreadyClosedException, a
                # NullPointerException in its statistics); the cause is one
                raise QLogError(f"this searcher of {str(self.index_dir)!r} was closed while it searched") from None
            raise QLogError(f"search failed on {str(self.index_dir)!r}: {java_error(e)}") from None

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
        return text_of_raw(raw)

    def _open(self) -> Any:
        """The Java searcher, or one clear error once :meth:`close` ran."""
        if isinstance(self._java, _Closed):
            raise QLogError(f"this searcher of {str(self.index_dir)!r} is closed")
        return self._java

    def close(self) -> None:
        """Close the index; any later call on this searcher is one clear error. Closing twice is harmless."""
        with self._lock:
            if not isinstance(self._java, _Closed):
                java, self._java = self._java, _Closed(self.index_dir)
                instance_call(java, "close")

    def __enter__(self) -> "QLogSearcher":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
