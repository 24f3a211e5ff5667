"""PyTerrier transformers over a Lucene index: q-log BM25 and its baselines as a retriever, and a text loader.

    import pyterrier as pt
    from qlog_pyserini.pyterrier import QLogRetriever

    bm25 = QLogRetriever("indexes/csn-ruby", similarity="bm25")
    qlog = QLogRetriever("indexes/csn-ruby", q=0.7)
    pt.Experiment([bm25, qlog], topics, qrels, eval_metrics=["ndcg_cut_10"], baseline=0)

Only PyTerrier's Python side is used: no Terrier, no second JVM. Searching runs in our JVM
(pyjnius, :mod:`qlog_pyserini.jvm`) through :class:`~qlog_pyserini.lucene.searcher.QLogSearcher`.
The results frame's scores are those our ``search`` verb writes to its run file
(:mod:`qlog_pyserini.formats.frames`), so ``pt.Experiment`` scores exactly what our ``eval`` scores.
"""

from __future__ import annotations

import os
from typing import Any

import pandas as pd
import pyterrier as pt

from qlog_pyserini.errors import QLogError
from qlog_pyserini.formats.frames import RUN_COLUMNS, columns_run_frame, run_frame
from qlog_pyserini.formula import DEFAULT_B, DEFAULT_K1, check_q
from qlog_pyserini.lucene.batch import search_batches
from qlog_pyserini.lucene.searcher import QLogSearcher, check_hits, check_threads
from qlog_pyserini.lucene.similarities import DEFAULT_MU, PARAMETER_CHECKS, model, own_parameters
from qlog_pyserini.predict.rule import Prediction, RuleSettings, is_auto, predict_with

# What pt.GridSearch may vary (through set_parameter); anything else stays as built.
PARAMETERS = ("q", "k1", "b", "idf_form", "gamma", "mu", "similarity", "num_results")
# Checked whenever assigned (`r.k1 = -1` fails there, not at the next transform), threads included.
CHECKED = (*PARAMETERS, "threads")


class QLogRetriever(pt.Transformer):
    """Retrieves from a Lucene index with q-log BM25 or a baseline, PyTerrier's queries frame in, results frame out.

    Args:
        index: a Lucene index folder, or a :class:`QLogSearcher` to share one open index between
            several retrievers (each installs its own model before it searches).
        q: the q of the q-logarithm IDF (1 is BM25), or ``"auto"``: the label-free q predicted from
            the index (``--q auto``'s rule, constants from ``auto``), kept in :attr:`prediction`.
        k1, b, idf_form: BM25's parameters and the odds form (``lucene`` or ``rsj``).
        similarity: ``qlog`` (default) or a baseline of :mod:`qlog_pyserini.lucene.similarities`:
            ``bm25``, ``idf-gamma`` (``gamma``), ``qld`` (``mu``), ``dfr``, ``dph``.
        num_results: hits per query (default 1000, as the ``search`` verb).
        threads: Java search threads.
        verbose: a progress bar while searching.

    The input frame needs ``qid`` and ``query``; its other query columns are kept. The output has
    them and ``docno``, ``rank`` (from 0, as PyTerrier numbers it) and ``score``; a query that
    matches nothing has no rows. Every parameter above except ``index`` can be set with
    ``set_parameter`` (so ``pt.GridSearch`` can vary q) and takes effect on the next search.
    """

    def __init__(self, index: str | os.PathLike | QLogSearcher, *, q: float | str = 1.0, k1: float = DEFAULT_K1,
                 b: float = DEFAULT_B, idf_form: str = "lucene", similarity: str = "qlog", gamma: float = 1.0,
                 mu: float = DEFAULT_MU, num_results: int = 1000, threads: int = 1,
                 auto: RuleSettings | None = None, verbose: bool = False) -> None:
        values = dict(q=q, k1=k1, b=b, idf_form=idf_form, similarity=similarity, gamma=gamma, mu=mu,
                      num_results=num_results, threads=threads)
        self._check(values)  # a bad parameter fails here, before the index is opened or the first search
        self.searcher = index if isinstance(index, QLogSearcher) else QLogSearcher(index)
        self.auto = auto or RuleSettings()
        self.prediction: Prediction | None = None
        self.verbose = verbose
        for name, value in values.items():
            object.__setattr__(self, name, value)

    def __setattr__(self, name: str, value: Any) -> None:
        if name in CHECKED and name in self.__dict__:
            self._check({**{n: getattr(self, n) for n in CHECKED}, name: value})
        object.__setattr__(self, name, value)

    def set_parameter(self, name: str, value: Any) -> None:
        """Set one of :data:`PARAMETERS` (what ``pt.GridSearch`` calls); checked at once."""
        if name not in PARAMETERS:
            raise ValueError(f"QLogRetriever has no parameter {name!r}; it has {', '.join(PARAMETERS)}")
        setattr(self, name, value)

    @staticmethod
    def _check(values: dict[str, Any]) -> None:
        # One contract with QLogSearcher and the search verb: each value checked by its own rule, whichever
        # model is chosen (a retriever may switch model through set_parameter).
        model(values["similarity"])
        check_hits(values["num_results"], "num_results")
        check_threads(values["threads"])
        q = values["q"]
        if is_auto(q) and values["similarity"] != "qlog":
            raise QLogError(f"q='auto' applies to similarity 'qlog' only, not {values['similarity']!r}")
        for name in ("k1", "b", "idf_form", "gamma", "mu") + (() if is_auto(q) else ("q",)):
            PARAMETER_CHECKS[name](values[name])

    def resolved_q(self) -> float:
        """The q searched with: ``q``, or the label-free prediction when ``q`` is ``"auto"`` (made once)."""
        if not is_auto(self.q):
            return check_q(self.q)
        if self.prediction is None:
            self.prediction = predict_with(self.searcher.index_dir, self.auto)
        return self.prediction.q

    def install(self) -> None:
        """Put this retriever's model into its searcher (done before every search)."""
        if self.similarity == "qlog":
            self.searcher.set_qlog(k1=self.k1, b=self.b, q=self.resolved_q(), idf_form=self.idf_form)
        else:
            self.searcher.set_similarity(self.similarity, **own_parameters(self.similarity, k1=self.k1, b=self.b,
                                                                          gamma=self.gamma, mu=self.mu))

    def transform(self, inp: pd.DataFrame) -> pd.DataFrame:
        """Search every row's ``query``; the results frame, queries in input order."""
        pt.validate.query_frame(inp, ["query"])
        self.install()
        # Rows are searched under their position, so a qid PyTerrier allows but a run line cannot hold
        # (a space) or a qid listed twice (a rewritten query beside its original) is still answered.
        keys = [str(i) for i in range(len(inp))]
        queries = dict(zip(keys, (_query_text(t, qid) for t, qid in zip(inp["query"], inp["qid"]))))
        # Each batch's columns straight into the frame: no Hit per row (search_batches' batches are
        # BatchResults, as no fields are searched here).
        frames = [columns_run_frame(batch.qids, batch.offsets, batch.table[batch.docs], batch.scores)
                  for batch in search_batches(self.searcher, queries, hits=self.num_results, threads=self.threads,
                                              progress=self.verbose)]
        found = (pd.concat(frames, ignore_index=True) if frames else run_frame({}, [])).rename(columns={"qid": "_row"})
        rows = inp[pt.model.query_columns(inp)].reset_index(drop=True)
        out = rows.iloc[found["_row"].astype(int).to_numpy()].reset_index(drop=True)
        for column in RUN_COLUMNS[1:]:
            out[column] = found[column].to_numpy()
        return out

    def __repr__(self) -> str:
        name = {"qlog": f"q={self.q}", "idf-gamma": f"gamma={self.gamma}", "qld": f"mu={self.mu}"}
        detail = name.get(self.similarity, "")
        return f"QLogRetriever({self.similarity}{', ' + detail if detail else ''})"


def _query_text(query: Any, qid: Any) -> str:
    # A missing query (None, NaN, pd.NA: a failed join, an empty cell) is refused: str() of it would search
    # the words "nan" or "<NA>", as the API refuses search(None) rather than searching "None".
    if query is None or (not isinstance(query, str) and pd.api.types.is_scalar(query) and pd.isna(query)):
        raise QLogError(f"query of qid {str(qid)!r} is missing ({query!r})")
    return str(query)


class TextLoader(pt.Transformer):
    """Adds each hit's indexed text as a ``text`` column (for a reranker later in a ``>>`` pipeline)."""

    def __init__(self, index: str | os.PathLike | QLogSearcher | QLogRetriever, column: str = "text") -> None:
        if isinstance(index, QLogRetriever):
            index = index.searcher
        self.searcher = index if isinstance(index, QLogSearcher) else QLogSearcher(index)
        self.column = column

    def transform(self, inp: pd.DataFrame) -> pd.DataFrame:
        """The input frame with ``text`` filled from the index for every ``docno``."""
        pt.validate.result_frame(inp)
        return inp.assign(**{self.column: [self.searcher.doc_text(str(d)) for d in inp["docno"]]})

    def __repr__(self) -> str:
        return "TextLoader()"
