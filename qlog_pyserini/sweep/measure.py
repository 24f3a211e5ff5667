"""A sweep's grid points measured: each point's metrics and Recall@K-tokens from the arrays.

A whole grid is measured from one sweep over the topics (:meth:`PointScorer.score_grid`: each batch of
queries searched under every model at once, each query's postings read once); a single pass, as the
label-free q per query and BM25's reference make, by :meth:`PointScorer.score_pass`. A sweep of many
small indexes takes the grid's measures as arrays (:meth:`PointScorer.score_grid_values`): a table per model
and index would cost it more than the search.

Each batch of queries comes back from Java as columns (:class:`~qlog_pyserini.lucene.results.BatchResults`);
its per-query metrics are computed in process (:func:`qlog_pyserini.eval.metrics.evaluate`, equal to
trec_eval's ``-q -c`` values) and so is its Recall@K-tokens (:func:`qlog_pyserini.eval.budget.recall_from_arrays`,
each document's text read and counted once per sweep, whatever the number of grid points), then the batch
is dropped: memory holds one batch and one number per query, metric and budget, however many queries and
grid points. A run file is written (by Java, batch by batch) only when asked for; a metric
:mod:`~qlog_pyserini.eval.metrics` does not compute is the one exception: that pass's run goes to a
temporary file for the trec_eval binary.
"""

from __future__ import annotations

import contextlib
import os
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Iterable, Mapping, Sequence

import numpy as np
import pandas as pd

from qlog_pyserini.errors import QLogError
from qlog_pyserini.eval.budget import TokenCounts, recall_from_arrays, recall_of_runs
from qlog_pyserini.eval.metrics import (
    DocidTable,
    QrelsArrays,
    RunArrays,
    evaluate_arrays,
    metric_names,
    parse_supported,
)
from qlog_pyserini.eval.trec_eval import EvalResult, trec_eval
from qlog_pyserini.lucene.batch import prefetched, search_batches, search_grid_batches
from qlog_pyserini.lucene.results import BatchResults
from qlog_pyserini.lucene.searcher import QLogSearcher
from qlog_pyserini.lucene.stored import StoredTexts
from qlog_pyserini.system.outputs import atomic_output

if TYPE_CHECKING:
    from qlog_pyserini.predict.query_rule import QueryRuleSettings
    from qlog_pyserini.predict.rule import Prediction

SWEEP_BATCH = 128  # queries per Java call in a sweep: the next batch is searched while this one is measured
GRID_HITS = 1 << 17  # hits per Java call of a grid, all models together (as a 128-query, k = 1000 pass)


@dataclass(frozen=True)
class PassResult:
    """What one search pass measured.

    ``metrics`` are trec_eval's ``-q -c`` values (rows = the qrels' queries); ``recall`` is
    Recall@K-tokens per qrels query (1.0/0.0, one column per budget, labelled by the integer budget),
    or None when no budget was asked for; ``recall_every`` the same table where every relevant
    document must fit (:mod:`qlog_pyserini.eval.budget`), when the scorer was asked for it.
    """

    metrics: EvalResult
    recall: pd.DataFrame | None = None
    recall_every: pd.DataFrame | None = None

    def recall_means(self) -> dict[str, float]:
        """Recall@K-tokens per budget, ``{"8192": mean over the qrels' queries}`` (empty without budgets)."""
        return {} if self.recall is None else {str(k): float(v) for k, v in self.recall.mean().items()}


@dataclass(frozen=True)
class GridValues:
    """What :meth:`PointScorer.score_grid_values` measured: ``values[model, query, metric]`` (the ``metrics``
    names, trec_eval's ``-q -c`` values), ``recall[model, query, budget]`` and ``recall_every`` (the
    every-relevant form; zero columns when the scorer does not measure it), 1.0/0.0 per ``budgets``; queries
    are the qrels' queries, ``qids``, in their order."""

    qids: list[str]
    metrics: list[str]
    budgets: list[int]
    values: np.ndarray
    recall: np.ndarray
    recall_every: np.ndarray


class PointScorer:
    """Scores search passes of one open searcher against one qrels file (tables built once, on first use).

    ``every_relevant`` adds, beside Recall@K-tokens (at least one relevant document fits), the form
    where every relevant document must fit (:attr:`PassResult.recall_every`), for queries with several.
    """

    def __init__(self, searcher: QLogSearcher, topics: Mapping[str, str], qrels: Mapping[str, Mapping[str, int]],
                 qrels_path: str | os.PathLike, metrics: Sequence[str], hits: int, threads: int,
                 every_relevant: bool = False) -> None:
        self.searcher, self.topics, self.qrels, self.qrels_path = searcher, topics, qrels, qrels_path
        self.metrics, self.hits, self.threads = list(metrics), hits, threads
        self.every_relevant = every_relevant
        try:
            parse_supported(self.metrics)
            self.in_process = True
        except QLogError:  # a measure only the binary knows: every point goes to trec_eval
            self.in_process = False
        self._table: DocidTable | None = None
        self._judged: QrelsArrays | None = None
        self._tokens: TokenCounts | None = None
        self.judged_qids = frozenset(qrels)  # the queries a batch must hold one of to be measured

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

    @property
    def tokens(self) -> TokenCounts:
        """Token counts of the index's documents, shared by every pass of this scorer."""
        if self._tokens is None:
            # the table's keys are Lucene doc numbers: texts read by number, many per call
            self._tokens = TokenCounts(self.table, texts_of=StoredTexts(self.searcher))
        return self._tokens

    def arrays(self, batch: BatchResults) -> RunArrays:
        """``batch`` as the columnar run the evaluators take, its docids resolved by this index's table."""
        # a Lucene top-k lists a document once per query
        return RunArrays(np.array(batch.qids, dtype=object), batch.offsets, batch.docs, batch.scores, self.table,
                         distinct_docs=True)

    def score_pass(self, run_path: str | os.PathLike | None = None, tag: str = "run",
                   budgets: Sequence[int] = ()) -> PassResult:
        """Search every topic with the installed model and measure the pass.

        The metrics are trec_eval's ``-q -c`` values on the pass's run: rows are the qrels' queries, a
        query without hits scores 0, the aggregate is the mean over the qrels. ``budgets`` asks for
        Recall@K-tokens at those token budgets. The run is written at ``run_path`` (tagged ``tag``) only
        when one is given.
        """
        batches = search_batches(self.searcher, self.topics, self.hits, self.threads, progress=False,
                                 batch_size=SWEEP_BATCH)
        return self.score_batches(prefetched(batches), run_path, tag, budgets)

    def score_auto_query(self, prediction: Prediction, rule: QueryRuleSettings | None = None,
                         run_path: str | os.PathLike | None = None, tag: str = "run",
                         budgets: Sequence[int] = ()) -> tuple[PassResult, list[float]]:
        """Every topic at its own label-free q (:class:`qlog_pyserini.predict.per_query.AutoQueryQ`, one pass),
        measured as :meth:`score_pass` measures a pass; also the q of each topic, in topic order."""
        from qlog_pyserini.predict.per_query import AutoQueryQ

        q_of = AutoQueryQ(self.searcher, prediction, rule)
        batches = search_batches(self.searcher, self.topics, self.hits, self.threads, progress=False,
                                 batch_size=SWEEP_BATCH, q_of=q_of)
        return self.score_batches(prefetched(batches), run_path, tag, budgets), q_of.chosen

    def score_batches(self, batches: Iterable[BatchResults], run_path: str | os.PathLike | None = None,
                      tag: str = "run", budgets: Sequence[int] = ()) -> PassResult:
        """Measure a pass given as its batches (each topic in one batch); see :meth:`score_pass`."""
        with contextlib.ExitStack() as stack:
            measure = _PassMeasure(self, stack, run_path, tag, budgets)
            for batch in batches:
                measure.add(batch)
            return measure.result()

    def score_grid_values(self, models: Sequence[Any], budgets: Sequence[int] = ()) -> GridValues:
        """:meth:`score_grid`'s measures as one array, with no table per model (the same values): what a sweep of
        many small indexes takes, where a table per model and index would cost more than the search.
        Metrics computed in process only."""
        if not self.in_process:
            raise QLogError(f"{', '.join(self.metrics)}: grid values are computed in process only")
        with contextlib.ExitStack() as stack:
            measures = self._grid_measures(stack, list(models), [None] * len(models), ["run"] * len(models), budgets,
                                           False, "grid")
            parts = [m.arrays() for m in measures]
            return GridValues(qids=list(self.judged.qids), metrics=metric_names(self.metrics),
                              budgets=[int(k) for k in budgets], values=np.stack([p[0] for p in parts]),
                              recall=np.stack([p[1] for p in parts]), recall_every=np.stack([p[2] for p in parts]))

    def score_grid(self, models: Sequence[Any], run_paths: Sequence[str | os.PathLike | None] | None = None,
                   tags: Sequence[str] | None = None, budgets: Sequence[int] = (), progress: bool = False,
                   desc: str = "grid") -> list[PassResult]:
        """One pass per model as :meth:`score_pass` measures it (the same results, model by model), made in one
        sweep over the topics: each batch of queries is searched under every model at once
        (:meth:`QLogSearcher.search_grid`, each query's postings read once) and measured model by model.

        ``run_paths`` and ``tags``, one per model, write each model's run as :meth:`score_pass` does.
        Each Java call returns about :data:`GRID_HITS` hits over all models, so memory holds a bounded number
        of hits whatever the number of queries and models. ``progress`` shows a bar over the queries.
        """
        models = list(models)
        paths = list(run_paths) if run_paths is not None else [None] * len(models)
        names = list(tags) if tags is not None else ["run"] * len(models)
        if not (len(paths) == len(names) == len(models)):
            raise QLogError(f"{len(models)} models, {len(paths)} run paths and {len(names)} tags")
        with contextlib.ExitStack() as stack:
            measures = self._grid_measures(stack, models, paths, names, budgets, progress, desc)
            return [measure.result() for measure in measures]

    def _grid_measures(self, stack: contextlib.ExitStack, models: list[Any], paths: list[str | os.PathLike | None],
                       names: list[str], budgets: Sequence[int], progress: bool, desc: str) -> list[_PassMeasure]:
        """Every model's pass of the grid, fed batch by batch (see :meth:`score_grid`), ready to be read."""
        batches = search_grid_batches(self.searcher, self.topics, models, self.hits, self.threads,
                                      progress=progress, batch_size=max(1, GRID_HITS // (len(models) * self.hits)),
                                      desc=desc, writable=any(p is not None for p in paths) or not self.in_process)
        measures = [_PassMeasure(self, stack, path, tag, budgets) for path, tag in zip(paths, names)]
        for per_model in prefetched(batches):
            if not budgets or not any(q in self.judged_qids for q in per_model[0].qids):
                for measure, batch in zip(measures, per_model):
                    measure.add(batch)
                continue
            # Recall@K-tokens of every model's ranking of the batch in one walk (the token counts'
            # documents read once for all of them), then each model's pass measured with it
            arrays = [self.arrays(batch) for batch in per_model]
            found = recall_of_runs(arrays, self.judged, self.tokens, budgets)
            every = (recall_of_runs(arrays, self.judged, self.tokens, budgets, every=True)
                     if self.every_relevant else [None] * len(arrays))
            for measure, batch, run, hits, all_hits in zip(measures, per_model, arrays, found, every):
                measure.add(batch, run, hits, all_hits)
        return measures


class _PassMeasure:
    """One pass's measurement, fed batch by batch: its metrics (in process, or trec_eval on its run file), its
    Recall@K-tokens, and its run when a path is given (written atomically, closed by ``stack``)."""

    def __init__(self, scorer: PointScorer, stack: contextlib.ExitStack, run_path: str | os.PathLike | None,
                 tag: str, budgets: Sequence[int]) -> None:
        self.scorer, self.tag, self.budgets = scorer, tag, list(budgets)
        if run_path is None and not scorer.in_process:
            # trec_eval reads a file: this pass's run lives only as long as its evaluation
            run_path = Path(stack.enter_context(tempfile.TemporaryDirectory(prefix="qlog-point-"))) / "run.txt"
        self.run_path = run_path
        # the run's own stack: result() closes it (the file renamed into place) before trec_eval reads it;
        # an error before that unwinds it through ``stack``, and the half-written run is removed
        self.output = stack.enter_context(contextlib.ExitStack())
        self.file = self.output.enter_context(atomic_output(run_path, "wb")) if run_path is not None else None
        # one row per qrels query: each query is in one batch, whose values fill its row (absent ones 0, as
        # trec_eval -c counts them)
        self.measured = np.zeros((len(scorer.judged.qids), len(metric_names(scorer.metrics)) if scorer.in_process else 0))
        self.found: np.ndarray | None = None
        self.found_every: np.ndarray | None = None

    def add(self, batch: BatchResults, arrays: RunArrays | None = None, recall: np.ndarray | None = None,
            recall_every: np.ndarray | None = None) -> None:
        """Measure one batch (its run lines written first, when the pass writes a run); ``arrays``, ``recall`` and
        ``recall_every`` are the batch's columns and Recall@K-tokens tables when the caller has them already."""
        scorer = self.scorer
        if self.file is not None:
            batch.write_run(self.file, self.tag)
        if not any(q in scorer.judged_qids for q in batch.qids):
            return
        arrays = scorer.arrays(batch) if arrays is None else arrays
        if scorer.in_process:
            values, present = evaluate_arrays(arrays, scorer.judged, scorer.metrics)
            self.measured[present] = values[present]
        if self.budgets:
            # every qrels query is a row; one missing from this batch is 0 here, its own batch says
            hits = (recall_from_arrays(arrays, scorer.judged, scorer.tokens, self.budgets).to_numpy()
                    if recall is None else recall)
            self.found = hits if self.found is None else np.maximum(self.found, hits)
            if scorer.every_relevant:
                hits = (recall_from_arrays(arrays, scorer.judged, scorer.tokens, self.budgets, every=True).to_numpy()
                        if recall_every is None else recall_every)
                self.found_every = hits if self.found_every is None else np.maximum(self.found_every, hits)

    def arrays(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """The in-process pass's metrics, Recall@K-tokens and every-relevant Recall@K-tokens, as arrays (rows:
        the qrels queries; no budgets, or no every-relevant form: zero columns)."""
        self.output.close()
        rows, width = len(self.scorer.judged.qids), len(self.budgets)
        found = self.found if self.found is not None else np.zeros((rows, width))
        every = (self.found_every if self.found_every is not None else np.zeros((rows, width))
                 if self.scorer.every_relevant else np.zeros((rows, 0)))
        return self.measured, found, every

    def result(self) -> PassResult:
        """The pass's metrics and recall; for trec_eval, the run file is flushed and evaluated first."""
        scorer = self.scorer
        self.output.close()
        if scorer.in_process:
            per_query = pd.DataFrame(self.measured, index=pd.Index(list(scorer.judged.qids), name="qid"),
                                     columns=metric_names(scorer.metrics))
            metrics = EvalResult(aggregate={m: float(per_query[m].mean()) for m in per_query.columns},
                                 per_query=per_query)
        else:
            metrics = trec_eval(scorer.qrels_path, self.run_path, metrics=scorer.metrics, per_query=True,
                                complete=True)
        if not self.budgets:
            return PassResult(metrics)
        labels = [int(k) for k in self.budgets]

        def table(found: np.ndarray | None) -> pd.DataFrame:
            found = found if found is not None else np.zeros((len(scorer.judged.qids), len(labels)))
            return pd.DataFrame(found, index=pd.Index(scorer.judged.qids, name="qid"), columns=labels)

        return PassResult(metrics, table(self.found), table(self.found_every) if scorer.every_relevant else None)

