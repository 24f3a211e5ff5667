"""q-log BM25 inside Pyserini: for a ``LuceneSearcher`` you already hold, or as one.

    from pyserini.search.lucene import LuceneSearcher
    from qlog_pyserini import install_qlog

    searcher = LuceneSearcher.from_prebuilt_index("beir-v1.0.0-scifact.flat")
    install_qlog(searcher, q=0.7)            # where you would call searcher.set_bm25(0.9, 0.4)
    hits = searcher.search("...", k=10)      # Pyserini's own hits, scored by q-log BM25

    from qlog_pyserini import QLogLuceneSearcher
    searcher = QLogLuceneSearcher.from_prebuilt_index("beir-v1.0.0-scifact.flat")
    searcher.set_qlog(q=0.7)

Both change only the Lucene ``Similarity`` inside Anserini's ``SimpleSearcher``: ``fields=``, ``doc()`` and
RM3/Rocchio stay Pyserini's, and q = 1 gives exactly ``set_bm25(k1, b)``'s runs. ``install_qlog`` leaves the
searcher's methods and hits as Pyserini made them; ``QLogLuceneSearcher`` searches plain queries through the
array bridge (:mod:`qlog_pyserini.search.pyserini_hits`), reading a hit's document only when asked.
docs/pyserini.md says what each keeps and what is tested. Importing this module imports
``pyserini.search.lucene`` (Pyserini's full dependencies; in 2.4.0 a network fetch of its catalogue):
:class:`qlog_pyserini.QLogSearcher` needs neither.
"""

from __future__ import annotations

import weakref
from typing import Any, Mapping

from qlog_pyserini.errors import QLogError
from qlog_pyserini.formula import DEFAULT_B, DEFAULT_K1
from qlog_pyserini.jvm.bridge import configure_classpath, jcast, jclass, start_jvm

# Before Pyserini's pyclass starts the JVM, so that it starts one with our jar too; a JVM that is
# already running gets our jar appended by start_jvm below.
configure_classpath()
try:
    from pyserini.index.lucene import LuceneIndexReader
    from pyserini.search.lucene import LuceneSearcher
except ImportError as e:
    raise ImportError(f"qlog_pyserini.search.lucene needs pyserini.search.lucene, which failed to import ({e}); "
                      "install Pyserini with its dependencies (pip install pyserini==2.4.0), or use "
                      "qlog_pyserini.QLogSearcher / python -m qlog_pyserini.search, which need neither") from None
except OSError as e:  # urllib's URLError: Pyserini 2.4.0 fetches its prebuilt-index catalogue on every import
    raise ImportError(f"install_qlog and QLogLuceneSearcher import pyserini.search.lucene, which downloads "
                      f"Pyserini's prebuilt-index catalogue on every import, and that download failed ({e}); this "
                      "route needs the network (and Pyserini's full install). qlog_pyserini.QLogSearcher and "
                      "python -m qlog_pyserini.search work offline") from None
start_jvm()

INSTALLER = "io.qlog.pyserini.SimilarityInstaller"
SEARCHER = "io.qlog.search.QLogSearcher"
QLOG_SIMILARITY = "io.qlog.similarities.QLogBM25Similarity"

__all__ = ["QLogLuceneSearcher", "install_qlog"]

_UNREAD = object()
# Each searcher's docid table, read once per open index; kept beside the searcher rather than in it, so that a
# QLogLuceneSearcher's attributes stay LuceneSearcher's (tests/pyserini compare the two sets).
_DOCIDS: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()


def install_qlog(searcher: Any, q: float = 1.0, k1: float = DEFAULT_K1, b: float = DEFAULT_B,
                 idf_form: str = "lucene") -> Any:
    """Score ``searcher`` (a Pyserini ``LuceneSearcher``, or Anserini's ``SimpleSearcher`` itself) with q-log BM25.

    Like ``searcher.set_bm25(k1, b)``, it replaces only the similarity over the same open index; the
    analyzer and any RM3/Rocchio set-up stay. q = 1 (with ``idf_form="lucene"``) is exactly
    ``set_bm25(k1, b)``. Returns ``searcher``.
    """
    from qlog_pyserini.lucene.searcher import QLogSearcher, qlog_parameters

    if isinstance(searcher, QLogSearcher):  # ours already speaks q-log
        searcher.set_qlog(q, k1=k1, b=b, idf_form=idf_form)
        return searcher
    from jnius import JavaClass

    java = getattr(searcher, "object", searcher)
    simple = jclass("java.lang.Class").forName("io.anserini.search.SimpleSearcher")
    if not (isinstance(java, JavaClass) and simple.isInstance(java)):
        raise QLogError(f"install_qlog needs a Pyserini LuceneSearcher (or Anserini's SimpleSearcher), "
                        f"not {type(searcher).__name__}")
    q, k1, b, form = qlog_parameters((q, k1, b, idf_form), int(java.get_total_num_docs()),
                                     f"{type(searcher).__name__}", q=q, k1=k1, b=b, idf_form=idf_form)
    jclass(INSTALLER).install_qlog(java, k1, b, q, form)
    return searcher


def _installed(java: Any) -> tuple[float, float, float, str]:
    """(q, k1, b, idf_form) of the q-log BM25 installed in ``java``, read from Java itself so that the Python
    side never keeps a second copy; the defaults when another similarity is installed."""
    from qlog_pyserini.lucene.searcher import instance_call

    similarity = jclass(SEARCHER).similarity_of(java)
    if instance_call(instance_call(similarity, "getClass"), "getName") != QLOG_SIMILARITY:
        return 1.0, DEFAULT_K1, DEFAULT_B, "lucene"
    s = jcast(QLOG_SIMILARITY, similarity)
    q, k1, b = (float(instance_call(s, name)) for name in ("getQ", "getK1", "getB"))
    return q, k1, b, str(instance_call(instance_call(s, "getForm"), "toString"))


class QLogLuceneSearcher(LuceneSearcher):
    """A Pyserini ``LuceneSearcher`` whose Java object is our ``io.qlog.search.QLogSearcher``.

    Everything of ``LuceneSearcher`` is inherited (``from_prebuilt_index``, ``fields=``, ``doc``, ``set_rm3``,
    ``set_rocchio``, ``set_bm25``, ``set_qld``); :meth:`set_qlog` is added, and :meth:`search` and
    :meth:`batch_search` search plain queries on the array bridge (Pyserini's hits' attributes, the stored
    document read only when asked for). A new searcher scores with q-log BM25 at ``q`` (default 1: BM25, as ``LuceneSearcher``).
    Queries are analyzed as the index records (``default`` for any Anserini/Pyserini index), as
    :class:`qlog_pyserini.QLogSearcher` does, so the two give the same runs.
    """

    def __init__(self, index_dir: str, prebuilt_index_name: str | None = None,
                 index_reader: LuceneIndexReader | None = None, q: float = 1.0, k1: float = DEFAULT_K1,
                 b: float = DEFAULT_B, idf_form: str = "lucene") -> None:
        from qlog_pyserini.analysis.analyzers import index_analyzer, java_analyzer
        from qlog_pyserini.lucene.searcher import check_index_dir

        # LuceneSearcher.__init__ would open Anserini's SimpleSearcher; this opens our subclass of it
        # and sets the same attributes (tests/pyserini check the two sets stay equal).
        check_index_dir(index_dir)
        self.index_dir = index_dir
        analyzer = index_analyzer(index_dir)
        self.object = (jclass(SEARCHER)(str(index_dir)) if analyzer == "default"
                       else jclass(SEARCHER)(str(index_dir), java_analyzer(analyzer)))
        self.num_docs = self.object.get_total_num_docs()
        self.prebuilt_index_name = prebuilt_index_name
        self.index_reader = index_reader if index_reader else LuceneIndexReader(index_dir)
        self.rm3 = None
        self.rocchio = None
        self.set_qlog(q, k1=k1, b=b, idf_form=idf_form)

    def set_qlog(self, q: float | None = None, *, k1: float | None = None, b: float | None = None,
                 idf_form: str | None = None) -> None:
        """Score with q-log BM25; parameters not given keep their values, exactly as
        :meth:`qlog_pyserini.QLogSearcher.set_qlog` (one contract: ``lucene.searcher.qlog_parameters``).
        q = 1 with ``lucene`` is ``set_bm25(k1, b)`` exactly."""
        from qlog_pyserini.lucene.searcher import qlog_parameters

        q, k1, b, form = qlog_parameters(_installed(self.object), int(self.num_docs), repr(str(self.index_dir)),
                                         q=q, k1=k1, b=b, idf_form=idf_form)
        # static calls: an instance call through pyjnius can cross to another thread's searcher
        jclass(SEARCHER).install(self.object, jclass(SEARCHER).qlog_model(k1, b, q, form))

    def search(self, q: Any, k: int = 10, query_generator: Any = None, fields: dict | None = None,
               strip_segment_id: bool = False, remove_dups: bool = False) -> list:
        """Pyserini's ``LuceneSearcher.search``; a text query with none of the other options set is searched
        on the array bridge (see :meth:`batch_search`), anything else by Pyserini itself."""
        if isinstance(q, str) and self._on_arrays(query_generator, fields, strip_segment_id, remove_dups):
            results = self._search_arrays([q], ["q"], k, 1)
            if results is not None:
                return results.hits_at(0)
        return super().search(q, k, query_generator, fields or {}, strip_segment_id, remove_dups)

    def batch_search(self, queries: list[str], qids: list[str], k: int = 10, threads: int = 1,
                     query_generator: Any = None, fields: dict | None = None) -> Mapping[str, list]:
        """Pyserini's ``LuceneSearcher.batch_search``, at the cost of a plain Lucene top-k when no query
        generator, ``fields`` or RM3/Rocchio feedback is set: the batch crosses the bridge as arrays
        (:func:`qlog_pyserini.search.pyserini_hits.search_simple_searcher`) and each hit reads its stored
        document only when ``lucene_document``, ``contents`` or ``raw`` is asked for.

        Returns ``{qid: hits}`` (a read-only mapping whose lists are made on first access, with
        ``to_dict``, ``to_frame`` and ``write_run`` besides), the same docids, ranks and scores as
        Pyserini's own call except that a score Anserini's 1e-6 tie step left equal to the one above
        (tied scores of 16 and more) is the next float down, as in :class:`qlog_pyserini.QLogSearcher`'s runs.
        With any of those options set, or duplicate qids, it is Pyserini's own ``batch_search``.
        """
        if self._on_arrays(query_generator, fields) and len(set(qids)) == len(qids):
            results = self._search_arrays(queries, qids, k, threads)
            if results is not None:
                return results
        return super().batch_search(queries, qids, k, threads, query_generator, fields or {})

    def _on_arrays(self, query_generator: Any, fields: dict | None, *filters: bool) -> bool:
        """Whether a search with these options is the array bridge's: Anserini's own query generator, the
        contents field only, no feedback (Pyserini's Python RM3/Rocchio or Anserini's), no hit filter."""
        from qlog_pyserini.lucene.searcher import instance_call

        if query_generator is not None or fields or any(filters) or self.rm3 or self.rocchio:
            return False
        return not (instance_call(self.object, "use_rm3") or instance_call(self.object, "use_rocchio"))

    def _search_arrays(self, queries: list[str], qids: list[str], k: int, threads: int) -> Any:
        """The batch through ``io.qlog.search.QLogSearcher.search_batch``; None when the index's docids
        are not ones a run can hold (Pyserini's path then serves them as they are)."""
        from qlog_pyserini.search.pyserini_hits import docid_table, search_simple_searcher

        table = _DOCIDS.get(self, _UNREAD)
        if table is _UNREAD:
            table = _DOCIDS[self] = docid_table(self.object, repr(str(self.index_dir)))
        if table is None:
            return None
        return search_simple_searcher(self.object, queries, qids, k, threads, table)

    @property
    def similarity(self) -> str:
        """The installed similarity as Lucene names it, e.g. ``QLogBM25(k1=0.9,b=0.4,q=0.7,form=lucene)``."""
        from qlog_pyserini.lucene.searcher import instance_call

        return str(instance_call(jclass(SEARCHER).similarity_of(self.object), "toString"))
