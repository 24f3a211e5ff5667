"""One grid point of a sweep: one Lucene pass, its run written by Java, its metrics from the arrays.

Each batch of queries comes back from Java as columns (:class:`~qlog_pyserini.search.results.BatchResults`);
its run lines are appended to the point's run file by Java and its per-query metrics are computed
in process (:func:`qlog_pyserini.eval.metrics.evaluate`, equal to trec_eval's ``-q -c`` values),
then the batch is dropped: memory holds one batch and one number per query and metric, however
many queries and grid points. A metric :mod:`~qlog_pyserini.eval.metrics` does not compute goes to
the trec_eval binary on the written run. Recall@K-tokens (:mod:`qlog_pyserini.eval.budget`) is
computed the same way, each document's text read and counted once per sweep.
"""

from __future__ import annotations

import os
from typing import Mapping, Sequence

import numpy as np
import pandas as pd

from qlog_pyserini.errors import QLogError
from qlog_pyserini.eval.budget import TokenCounts, recall_from_arrays
from qlog_pyserini.eval.metrics import DocidTable, QrelsArrays, RunArrays, evaluate, parse_supported
from qlog_pyserini.eval.trec_eval import EvalResult, trec_eval
from qlog_pyserini.search.batch import search_batches
from qlog_pyserini.search.results import BatchResults
from qlog_pyserini.search.searcher import QLogSearcher
from qlog_pyserini.system.outputs import atomic_output

SWEEP_BATCH = 512  # queries per Java call in a sweep: few calls, and one batch of a k = 1000 run is ~4 MB


class PointScorer:
    """Scores search passes of one open searcher against one qrels file (tables built once, on first use)."""

    def __init__(self, searcher: QLogSearcher, topics: Mapping[str, str], qrels: Mapping[str, Mapping[str, int]],
                 qrels_path: str | os.PathLike, metrics: Sequence[str], hits: int, threads: int) -> None:
        self.searcher, self.topics, self.qrels, self.qrels_path = searcher, topics, qrels, qrels_path
        self.metrics, self.hits, self.threads = list(metrics), hits, threads
        try:
            parse_supported(self.metrics)
            self.in_process = True
        except QLogError:  # a measure only the binary knows: every point goes to trec_eval
            self.in_process = False
        self._table: DocidTable | None = None
        self._judged: QrelsArrays | None = None
        self._tokens: TokenCounts | None = None

    @property
    def table(self) -> DocidTable:
        if self._table is None:
            self._table = DocidTable(self.searcher.docids.ids)
        return self._table

    @property
    def judged(self) -> QrelsArrays:
        if self._judged is None:
            self._judged = QrelsArrays.build(self.qrels, self.table)
        return self._judged

    def _batches(self):
        return search_batches(self.searcher, self.topics, self.hits, self.threads, progress=False,
                              batch_size=SWEEP_BATCH)

    def _arrays(self, batch: BatchResults) -> RunArrays:
        return RunArrays(np.array(batch.qids, dtype=object), batch.offsets, batch.docs, batch.scores, self.table)

    def score_pass(self, run_path: str | os.PathLike, tag: str) -> EvalResult:
        """Search every topic with the installed model, write the run at ``run_path``, return its metrics.

        The metrics are trec_eval's ``-q -c`` values on that run: rows are the qrels' queries, a query
        without hits scores 0, the aggregate is the mean over the qrels.
        """
        frames = []
        judged = set(self.qrels)
        with atomic_output(run_path, "wb") as f:
            for batch in self._batches():
                batch.write_run(f, tag)
                if self.in_process and any(q in judged for q in batch.qids):
                    frames.append(evaluate(self._arrays(batch), self.judged, self.metrics, complete=False).per_query)
        if not self.in_process:
            return trec_eval(self.qrels_path, run_path, metrics=self.metrics, per_query=True, complete=True)
        per_query = _complete(frames, self.judged.qids, self.metrics)
        return EvalResult(aggregate={m: float(per_query[m].mean()) for m in per_query.columns}, per_query=per_query)

    def recall_at_tokens(self, budgets: Sequence[int]) -> dict[str, float]:
        """Recall@K-tokens of a pass with the installed model: the mean over the qrels' queries per budget."""
        if self._tokens is None:
            self._tokens = TokenCounts(self.table, self.searcher.doc_text)
        frames = [recall_from_arrays(self._arrays(batch), self.judged, self._tokens, budgets)
                  for batch in self._batches()]
        # a qrels query is found in at most one batch: the others give it 0
        table = pd.concat(frames).groupby(level=0, sort=False).max().reindex(self.judged.qids, fill_value=0.0)
        return {str(k): float(v) for k, v in table.mean().items()}


def _complete(frames: list[pd.DataFrame], qids: Sequence[str], metrics: Sequence[str]) -> pd.DataFrame:
    """Per-batch metric rows as one table over every qrels query (absent ones 0, as trec_eval ``-c``)."""
    if frames:
        per_query = pd.concat(frames)
    else:
        per_query = pd.DataFrame(columns=[c for c in metrics], dtype=float)
    return per_query.reindex(pd.Index(list(qids), name="qid"), fill_value=0.0)
