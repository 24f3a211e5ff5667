"""One call from Python to a run's figures: ``qlog_pyserini.evaluate(run, qrels)``.

    >>> import qlog_pyserini as ql
    >>> topics, qrels = ql.read_topics("topics.tsv"), ql.read_qrels("qrels.txt")    # doctest: +SKIP
    >>> hits = ql.QLogSearcher("indexes/csn-ruby", q=0.7).batch_search(list(topics.values()), list(topics))  # doctest: +SKIP
    >>> ql.evaluate(hits, qrels).aggregate["ndcg_cut.10"]                             # doctest: +SKIP

The figures are those ``python -m qlog_pyserini.eval`` gives on the run file ``search`` would write
for these hits: in-memory hits are scored at the scores a run file holds
(:func:`~qlog_pyserini.formats.trec.run_scores`), with trec_eval's measures computed in process
(:mod:`qlog_pyserini.eval.metrics`, no JVM).
"""

from __future__ import annotations

import os
from typing import Mapping, Sequence

import pandas as pd

from qlog_pyserini.eval.metrics import evaluate as evaluate_arrays
from qlog_pyserini.eval.trec_eval import DEFAULT_METRICS, EvalResult, no_judged_query_answered
from qlog_pyserini.formats.frames import frame_qrels, frame_results, run_frame
from qlog_pyserini.formats.trec import Hit, read_qrels, read_run

Run = str | os.PathLike | Mapping[str, Sequence[Hit]] | pd.DataFrame
Qrels = str | os.PathLike | Mapping[str, Mapping[str, int]] | pd.DataFrame


def evaluate(run: Run, qrels: Qrels, metrics: str | Sequence[str] = DEFAULT_METRICS) -> EvalResult:
    """trec_eval's figures (``-c``: every judged query counts) for ``run`` against ``qrels``.

    ``run``: a TREC run file, ``{qid: [Hit]}`` (a searcher's ``batch_search``) or a results frame
    (``qid, docno, score``; PyTerrier's or :mod:`qlog_pyserini.formats.frames`'). ``qrels``: a TREC qrels
    file, ``{qid: {docid: grade}}`` or a qrels frame (``qid, docno, label``). ``.aggregate`` holds the
    means, ``.per_query`` one row per judged query, ``.to_frame()`` the long form.
    """
    if isinstance(run, pd.DataFrame):
        hits = frame_results(run)
    elif isinstance(run, (str, os.PathLike)):
        hits = read_run(run)
    else:
        hits = frame_results(run_frame(run))  # the scores a run file would hold, ties as it breaks them
    judged = (frame_qrels(qrels) if isinstance(qrels, pd.DataFrame)
              else read_qrels(qrels) if isinstance(qrels, (str, os.PathLike)) else qrels)
    if judged and not any(hits.get(qid) for qid in judged):
        raise no_judged_query_answered(run if isinstance(run, (str, os.PathLike)) else None)
    return evaluate_arrays(hits, judged, metrics=metrics, complete=True)
