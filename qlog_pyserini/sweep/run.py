"""Sweep q (or another model's parameter) on one open index: a run and metrics per point, the oracle,
and the honest, cross-validated estimate beside it.

    python -m qlog_pyserini.sweep --index DIR --topics T --qrels Q \\
        --q-grid 0.05,0.1,...,1.0,1.25,1.5 --out sweeps/csn-ruby

One JVM and one open index, and one sweep over the topics for the whole grid: each query's postings
are read once and scored under every grid value (:meth:`QLogSearcher.search_grid
<qlog_pyserini.lucene.searcher.QLogSearcher.search_grid>`; each value's ranking exactly the one a pass
with that model installed gives). The oracle is the grid point with the best mean metric (ties go to the point closest to the
BM25-equivalent value, so a flat curve reports no change); it is chosen on the queries it is scored
on, so its gain is optimistic. The cross-validated estimate (:mod:`qlog_pyserini.sweep.crossval`,
5 folds over queries by default) scores each query at the value chosen on the other folds. Both,
and the label-free q when one is given, are compared with BM25 by the same paired tests
(:func:`qlog_pyserini.eval.significance.compare_scores`: two-sided randomization p first, t-test,
bootstrap interval and reversal share).

Every point's metrics and Recall@K-tokens are computed in process from the pass's arrays
(:mod:`qlog_pyserini.sweep.measure`; the same values trec_eval gives on the point's run), so no run
file is written unless asked for.

Written to ``--out``: ``sweep.csv`` (metrics and Recall@K-tokens per point),
``per_query.csv`` (the sweep metric per query and point, then each query's fold, the value it was
scored at and its cross-validated score), ``summary.json`` (everything a table needs),
``comparison.md`` and ``sweep.png`` (metric against the parameter, BM25 as a reference line, the
oracle marked); with ``keep_runs`` (``--keep-runs``) also ``runs/``, one TREC run per point
(``run.q0.5.txt``, ...; ``run.auto-query.txt`` for the per-query label-free q).
"""

from __future__ import annotations

import os
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any, Sequence

import pandas as pd

from qlog_pyserini.compare.comparison import (
    COMPARISON_ALIGN,
    COMPARISON_HEADERS,
    comparison_cells,
    comparison_table,
    format_markdown,
)
from qlog_pyserini.errors import QLogError
from qlog_pyserini.eval.budget import check_budgets
from qlog_pyserini.eval.report import markdown_table, plot_sweep
from qlog_pyserini.eval.significance import ComparisonResult, compare_scores, format_p
from qlog_pyserini.eval.trec_eval import DEFAULT_METRICS
from qlog_pyserini.formats.topics import read_topics
from qlog_pyserini.formats.trec import read_qrels, write_qrels
from qlog_pyserini.formula import DEFAULT_B, DEFAULT_K1, check_form
from qlog_pyserini.lucene.fields import check_fields
from qlog_pyserini.lucene.searcher import QLogSearcher, check_index_dir
from qlog_pyserini.lucene.similarities import model, own_parameters
from qlog_pyserini.sweep.baselines import (
    FAMILY_LABELS,
    Point,
    TuningGrids,
    cross_validate_families,
    family_value,
    oracle_point,
)
from qlog_pyserini.sweep.crossval import DEFAULT_FOLDS, CrossValidated, choose_best, cross_validate
from qlog_pyserini.sweep.measure import PointScorer
from qlog_pyserini.sweep.results import SweepResult, record
from qlog_pyserini.sweep.results import write as write_result
from qlog_pyserini.system.outputs import atomic_output, check_output_dir, staged_output
from qlog_pyserini.system.progress import info

RECALL_COLUMN = "recall_tokens"  # sweep.csv's Recall@K-tokens columns: recall_tokens.8192, ...
BM25_EQUIVALENT = {"q": 1.0, "gamma": 1.0}  # the parameter value at which the model is BM25


def point_label(parameter: str, value: float) -> str:
    return f"{parameter}{value:g}"


def choose_oracle(scores: dict[float, float], reference: float | None) -> float:
    """The grid value with the highest score; ties go to the value closest to ``reference``."""
    return choose_best(scores, reference)


@dataclass(frozen=True)
class SweepSettings:
    """What a sweep searches and measures: the model, its fixed parameters, the grid, the tests.

    ``folds`` and ``cv_seed`` set the k-fold cross-validation over queries
    (:mod:`qlog_pyserini.sweep.crossval`); ``resamples`` and ``seed`` the paired tests; ``budgets``
    the token budgets of Recall@K-tokens. ``keep_runs`` writes every point's TREC run under ``runs/``
    (the metrics are the same either way: they come from the pass's arrays). ``k1_grid`` and ``b_grid``
    (both given, q-log only) add tuned BM25, the joint (b, q) choice and the engines' default BM25 to the
    same pass (:mod:`qlog_pyserini.sweep.baselines`), chosen by the same folds as q.
    """

    grid: tuple[float, ...]
    similarity: str = "qlog"
    metric: str = "ndcg_cut.10"
    idf_form: str = "lucene"
    k1: float = DEFAULT_K1
    b: float = DEFAULT_B
    hits: int = 1000
    threads: int = 1
    budgets: tuple[int, ...] = (8192,)
    resamples: int = 10000
    seed: int = 0
    folds: int = DEFAULT_FOLDS
    cv_seed: int = 0
    keep_runs: bool = False
    k1_grid: tuple[float, ...] = ()
    b_grid: tuple[float, ...] = ()

    def __post_init__(self) -> None:
        object.__setattr__(self, "grid", tuple(float(v) for v in self.grid))
        if bool(self.k1_grid) != bool(self.b_grid):
            raise QLogError("tuned BM25 needs both a k1 grid and a b grid")
        if self.k1_grid and self.similarity != "qlog":
            raise QLogError("tuned BM25 is measured beside q-log BM25: it needs --similarity qlog")
        object.__setattr__(self, "budgets", tuple(check_budgets(self.budgets)))
        object.__setattr__(self, "idf_form", check_form(self.idf_form))
        if not self.grid:
            raise QLogError("empty grid")
        for name in ("hits", "threads", "resamples"):
            if getattr(self, name) < 1:
                raise QLogError(f"--{name} must be at least 1, got {getattr(self, name)}")
        if self.folds < 2:
            raise QLogError(f"--folds must be at least 2, got {self.folds}")

    def similarity_args(self, parameter: str, value: float) -> dict[str, Any]:
        return own_parameters(self.similarity, **{parameter: value, "idf_form": self.idf_form, "k1": self.k1,
                                                 "b": self.b})

    def tuning(self, grid: Sequence[float]) -> TuningGrids | None:
        """The families of tuned BM25 and the joint (b, q) choice over the q values ``grid``, or None."""
        if not self.k1_grid:
            return None
        return TuningGrids(q_grid=tuple(grid), k1_grid=self.k1_grid, b_grid=self.b_grid, k1=self.k1, b=self.b)


@dataclass
class _Measured:
    """What the grid pass measured (in the staging folder)."""

    table: pd.DataFrame  # one row per grid value: the parameter, then every metric
    per_query: pd.DataFrame  # rows = judged queries, columns = grid values, the sweep metric
    recall: dict[float, dict[str, float]]  # Recall@K-tokens per grid value: {budget: mean over the qrels}
    # tuned BM25 and the joint (b, q) grid: the sweep metric per query at every (k1, b, q) point off the q grid
    points: dict[Point, pd.Series] = field(default_factory=dict)


def run_sweep(index_dir: str | os.PathLike, topics_path: str | os.PathLike, qrels_path: str | os.PathLike,
              out_dir: str | os.PathLike, settings: SweepSettings, *, name: str | None = None,
              family: str | None = None, progress: bool = True, overwrite: bool = False, extra: dict[str, Any] | None = None,
              prediction: Any = None, query_rule: Any = None) -> SweepResult:
    """Run the sweep and write its folder (atomically: built beside ``out_dir``, renamed at the end).

    Steps: check the inputs; search and score every grid point; pick the oracle; score BM25;
    compare the oracle, the cross-validated choice and (with ``prediction``) the label-free q with
    BM25; write the files. ``family`` names the corpus a subsample was drawn from (default: ``name``
    itself), so a leave-one-family-out evaluation holds a corpus out with its subsamples. ``prediction`` (a :class:`qlog_pyserini.predict.rule.Prediction`) adds its
    q to the grid and records it, with its score and comparison, as ``auto`` in the summary. With
    ``query_rule`` too (a :class:`qlog_pyserini.predict.query_rule.QueryRuleSettings`), each query is also
    searched at its own label-free q in one more pass (its run ``runs/run.auto-query.txt`` with
    ``keep_runs``), recorded as ``auto_query`` (rule, score, comparison with BM25, how many queries got each q).
    Recall@K-tokens of BM25 and of the oracle come from the grid's own passes.
    """
    started = time.perf_counter()
    parameter, reference = _check_model(settings.similarity)
    index_dir = check_index_dir(index_dir)
    topics, all_qrels, qrels = _queries(topics_path, qrels_path)
    judged = list(qrels)
    out = check_output_dir(out_dir, "sweep", inputs=(index_dir, topics_path, qrels_path), overwrite=overwrite)
    auto_q = None if prediction is None else round(float(prediction.q), 10)
    grid = sorted(set(settings.grid) | ({reference} if reference is not None else set())
                  | ({auto_q} if auto_q is not None else set()))

    with _open_searcher(index_dir, settings) as searcher, staged_output(out, "sweep", "sweep", overwrite=overwrite) as stage:
        if settings.keep_runs:
            (stage / "runs").mkdir()
        # the trec_eval binary (a metric not computed in process) reads the same judgments from a file
        measured_qrels = qrels_path if len(qrels) == len(all_qrels) else stage / ".qrels.searched.txt"
        if measured_qrels != qrels_path:
            write_qrels(measured_qrels, qrels)
        scorer = PointScorer(searcher, topics, qrels, measured_qrels,
                             list(dict.fromkeys([settings.metric, *DEFAULT_METRICS])), settings.hits, settings.threads)
        tuning = settings.tuning(candidates_of(settings, grid, reference))
        measured = _search_grid(scorer, settings, parameter, grid, stage, progress, tuning)
        scores = {v: float(s) for v, s in zip(measured.table[parameter], measured.table[settings.metric])}
        # The oracle and the cross-validated choice range over the asked grid (and BM25); a label-free q
        # added only to be reported is not a candidate, so it cannot change what the grid finds.
        candidates = candidates_of(settings, grid, reference)
        oracle = choose_oracle({v: scores[v] for v in candidates}, reference)
        # Every comparison pairs per-query values already measured (trec_eval's -q -c values).
        if reference is not None:
            bm25, bm25_recall = measured.per_query[reference], measured.recall[reference]
        else:
            bm25, bm25_recall = _bm25_scores(scorer, settings, stage)
        bm25 = bm25.rename(settings.metric)
        bm25_score = float(bm25.mean())
        comparison = compare_scores(bm25, measured.per_query[oracle].reindex(bm25.index),
                                    resamples=settings.resamples, seed=settings.seed)
        cv = cross_validate(measured.per_query.loc[bm25.index, candidates], reference, settings.folds,
                            settings.cv_seed)
        cv_comparison = compare_scores(bm25, cv.per_query.reindex(bm25.index), resamples=settings.resamples,
                                       seed=settings.seed)
        added = _added(scorer, settings, measured, bm25, cv, stage, tuning, prediction, query_rule,
                       None if auto_q is None else scores[auto_q])
        summary = _record(name=name, family=family, index_dir=index_dir, topics_path=topics_path,
                          qrels_path=qrels_path, settings=settings, parameter=parameter, grid=grid, scores=scores,
                          reference=reference, bm25_score=bm25_score, oracle=oracle,
                          per_query_oracle=float(measured.per_query.loc[bm25.index, candidates].max(axis=1).mean()),
                          comparison=comparison, cv={**cv.record(), "comparison": asdict(cv_comparison),
                                                     "p_text": cv_comparison.p_text()},
                          recall={"bm25": bm25_recall, "oracle": measured.recall[oracle]},
                          counts={"docs": searcher.num_docs, "queries": len(topics), "judged_queries": len(judged),
                                  "qrels_queries": len(all_qrels)},
                          similarity_string=searcher.similarity, extra={**(extra or {}), **added})
        summary["seconds"] = round(time.perf_counter() - started, 2)
        if measured_qrels != qrels_path:
            os.unlink(measured_qrels)  # a working copy, not an output
        result = record(SweepResult.KIND, summary, out)
        _write_outputs(stage, result, measured, cv, comparison, settings, parameter, oracle, bm25_score)
    return result


def _queries(topics_path: str | os.PathLike, qrels_path: str | os.PathLike) -> tuple[dict, dict, dict]:
    """The topics, every judgment, and the judgments of the searched queries (refused when none is judged)."""
    topics = read_topics(topics_path)
    all_qrels = read_qrels(qrels_path)
    judged = [q for q in topics if q in all_qrels]
    if not judged:
        raise QLogError(f"no query of {topics_path} has judgments in {qrels_path}")
    # Measured: the searched queries that are judged. A judged query the topics lack (the qrels of every split,
    # the topics of one) is not searched, and would only add a zero to every mean and test.
    qrels = {q: all_qrels[q] for q in judged}
    if len(qrels) < len(all_qrels):
        info(f"sweep: {len(qrels)} of the {len(all_qrels)} judged queries are in the topics; measured on those "
             f"{len(qrels)}")
    return topics, all_qrels, qrels


def _open_searcher(index_dir: Path, settings: SweepSettings) -> QLogSearcher:
    searcher = QLogSearcher(index_dir, k1=settings.k1, b=settings.b, idf_form=settings.idf_form)
    try:
        # an index without the contents field would score every query 0 at every point, and say nothing
        check_fields(searcher, {"contents": 1.0}, option="sweep")
    except BaseException:
        searcher.close()
        raise
    return searcher


def _added(scorer: PointScorer, settings: SweepSettings, measured: _Measured, bm25: pd.Series,
           cv: CrossValidated, stage: Path, tuning: TuningGrids | None, prediction: Any, query_rule: Any,
           auto_score: float | None) -> dict[str, Any]:
    """The summary's optional parts, in their order: the label-free q, tuned BM25, the per-query q."""
    added: dict[str, Any] = {}
    if prediction is not None:
        auto_q = round(float(prediction.q), 10)
        added["auto"] = {**asdict(prediction), "score": auto_score,
                         "comparison": asdict(compare_scores(bm25, measured.per_query[auto_q].reindex(bm25.index),
                                                             resamples=settings.resamples, seed=settings.seed))}
    if tuning is not None:
        added["tuned"] = _tuned(measured, tuning, bm25, cv, settings)
    if prediction is not None and query_rule is not None:
        added["auto_query"] = _auto_query(scorer, settings, prediction, query_rule, bm25, stage, measured)
    return added


def _record(*, name: str | None, family: str | None, index_dir: Path, topics_path: str | os.PathLike,
            qrels_path: str | os.PathLike, settings: SweepSettings, parameter: str, grid: list[float],
            scores: dict[float, float], reference: float | None, bm25_score: float, oracle: float,
            per_query_oracle: float, comparison: Any, cv: dict[str, Any], recall: dict[str, Any],
            counts: dict[str, int], similarity_string: str, extra: dict[str, Any]) -> dict[str, Any]:
    """The summary of a sweep, in the order of summary.json's keys."""
    return {
        "name": name or index_dir.name, "family": family or name or index_dir.name, "index": str(index_dir.resolve()),
        "topics": str(Path(topics_path).resolve()), "qrels": str(Path(qrels_path).resolve()),
        "similarity": settings.similarity, "parameter": parameter, "idf_form": settings.idf_form,
        "k1": settings.k1, "b": settings.b, "metric": settings.metric, "grid": grid,
        "scores": {f"{v:g}": s for v, s in scores.items()}, "baseline_value": reference,
        "baseline_score": bm25_score, "oracle_value": oracle, "oracle_score": scores[oracle],
        # each query at its own best grid point: the ceiling of any per-query choice of the parameter
        "per_query_oracle_score": per_query_oracle,
        "comparison": asdict(comparison), "p_text": comparison.p_text(),
        "reversal_text": comparison.reversal_text(), "p_bootstrap_text": comparison.p_bootstrap_text(),
        "cv": cv, "recall_at_tokens": recall, **counts,
        "hits": settings.hits, "similarity_string": similarity_string, **extra,
    }


def candidates_of(settings: SweepSettings, grid: Sequence[float], reference: float | None) -> list[float]:
    """The values the oracle and the cross-validated choice range over: the asked grid and BM25's value (a
    label-free q added only to be reported is not a candidate, so it cannot change what the grid finds)."""
    return [v for v in grid if v in set(settings.grid) or v == reference]


def _tuned(measured: _Measured, tuning: TuningGrids, bm25: pd.Series, cv: CrossValidated,
           settings: SweepSettings) -> dict[str, Any]:
    """Tuned BM25, the joint (b, q) choice and the engines' default beside q-log: each family chosen on the folds
    of q's cross-validation, compared with BM25 and (q-log and the joint choice) with tuned BM25."""
    k1, b = float(settings.k1), float(settings.b)
    columns = {(k1, b, float(q)): measured.per_query[q] for q in measured.per_query.columns
               if not isinstance(q, str)}
    table = pd.DataFrame({**columns, **measured.points}).loc[bm25.index]
    chosen = cross_validate_families(table, tuning, cv.fold_of)

    def compare(a: pd.Series, x: pd.Series) -> dict[str, Any]:
        return asdict(compare_scores(a, x.reindex(a.index), resamples=settings.resamples, seed=settings.seed))

    record: dict[str, Any] = {"grids": {"k1": list(tuning.k1_grid), "b": list(tuning.b_grid)},
                              "reference": list(tuning.reference),
                              "engine": {"point": list(tuning.engine), "score": float(table[tuning.engine].mean()),
                                         "comparison": compare(bm25, table[tuning.engine])}}
    for family, result in chosen.items():
        record[family] = {**result.record(), "chosen_text": [family_value(family, v) for v in result.chosen],
                          "oracle": list(oracle_point(table, tuning.families()[family], tuning.reference)),
                          "comparison": compare(bm25, result.per_query)}
    tuned = chosen["bm25"].per_query
    record["qlog_vs_tuned"] = compare(tuned, chosen["qlog"].per_query)
    record["joint_vs_tuned"] = compare(tuned, chosen["joint"].per_query)
    record["verdict"] = tuned_verdict(record, settings.metric)
    return record


def tuned_verdict(tuned: dict[str, Any], metric: str, significance: float = 0.05) -> str:
    """Whether the cross-validated q-log gain holds over tuned BM25, in one sentence with its figures."""
    c = ComparisonResult(**tuned["qlog_vs_tuned"])
    text = (f"q-log (CV) {metric} {c.mean_b:.4f} vs tuned BM25 (CV) {c.mean_a:.4f}: {c.diff:+.4f}, "
            f"{format_p(c.p_randomization, c.resamples)}; ")
    if c.diff > 0 and c.p_randomization < significance:
        return text + "the gain holds over tuned BM25"
    if c.diff < 0 and c.p_randomization < significance:
        return text + "q-log is below tuned BM25"
    return text + "no gain over tuned BM25 is claimed (not significant)"


def _auto_query(scorer: PointScorer, settings: SweepSettings, prediction: Any, rule: Any, bm25: pd.Series,
                stage: Path, measured: _Measured) -> dict[str, Any]:
    """Every query at its own label-free q (:mod:`qlog_pyserini.predict.query_rule`), one pass; its record."""
    from qlog_pyserini.predict.query_rule import corpus_move, distribution

    if settings.similarity != "qlog":
        raise QLogError("the per-query label-free q needs --similarity qlog")
    run_path = stage / "runs" / "run.auto-query.txt" if settings.keep_runs else None
    result, qs = scorer.score_auto_query(prediction, rule, run_path, tag=f"{settings.similarity}-auto-query")
    scores = result.metrics.per_query[settings.metric].reindex(bm25.index)
    chosen = dict(zip(scorer.topics, qs))
    measured.per_query["auto_query_q"] = pd.Series(chosen)
    measured.per_query["auto_query_score"] = scores
    comparison = compare_scores(bm25, scores, resamples=settings.resamples, seed=settings.seed)
    return {"rule": asdict(rule), "corpus_q": prediction.q, "corpus_move": corpus_move(prediction),
            "score": float(scores.mean()), "comparison": asdict(comparison),
            "q_distribution": distribution([chosen[q] for q in bm25.index])}


def _check_model(similarity: str) -> tuple[str, float | None]:
    """The swept parameter of ``similarity`` and its BM25-equivalent value (None if it has none)."""
    spec = model(similarity)
    if spec.sweep_parameter is None:
        raise QLogError(f"similarity {similarity!r} has no parameter to sweep")
    return spec.sweep_parameter, BM25_EQUIVALENT.get(spec.sweep_parameter)


def _search_grid(scorer: PointScorer, settings: SweepSettings, parameter: str, grid: Sequence[float],
                 stage: Path, progress: bool, tuning: TuningGrids | None = None) -> _Measured:
    """Every grid value measured from one sweep over the topics (:meth:`PointScorer.score_grid`: each query's
    postings read once for all values); each value's run under ``stage/runs`` with ``keep_runs``. With
    ``tuning``, its (k1, b, q) points off the q grid are searched in the same pass (no run written)."""
    searcher = scorer.searcher
    models = [searcher.make_similarity(settings.similarity, **settings.similarity_args(parameter, v)) for v in grid]
    labels = [point_label(parameter, v) for v in grid]
    runs = [stage / "runs" / f"run.{label}.txt" if settings.keep_runs else None for label in labels]
    tags = [f"{settings.similarity}-{label}" for label in labels]
    on_grid = {(float(settings.k1), float(settings.b), float(v)) for v in grid}
    extra = [p for p in tuning.points() if p not in on_grid] if tuning is not None else []
    models += [searcher.make_similarity("qlog", k1=k1, b=b, q=q, idf_form=settings.idf_form) for k1, b, q in extra]
    runs += [None] * len(extra)
    tags += [f"qlog-k1{k1:g}-b{b:g}-q{q:g}" for k1, b, q in extra]
    results = scorer.score_grid(models, runs, tags, budgets=settings.budgets, progress=progress,
                                desc=f"sweep {parameter} ({len(models)} points)")
    points = {p: r.metrics.per_query[settings.metric] for p, r in zip(extra, results[len(grid):])}
    results = results[:len(grid)]
    # the last grid value stays installed (the summary's similarity string names it), as a pass per value left it
    searcher.set_similarity(settings.similarity, **settings.similarity_args(parameter, grid[-1]))
    rows, per_query, recall = [], {}, {}
    for value, result in zip(grid, results):
        recall[value] = result.recall_means()
        rows.append({parameter: value, **result.metrics.aggregate,
                     **{f"{RECALL_COLUMN}.{k}": v for k, v in recall[value].items()}})
        per_query[value] = result.metrics.per_query[settings.metric]
    return _Measured(table=pd.DataFrame(rows), per_query=pd.DataFrame(per_query), recall=recall, points=points)


def _bm25_scores(scorer: PointScorer, settings: SweepSettings, stage: Path) -> tuple[pd.Series, dict[str, float]]:
    """BM25's per-query sweep metric and Recall@K-tokens with the sweep's k1 and b, for models that have no
    BM25-equivalent value."""
    scorer.searcher.set_similarity("bm25", k1=settings.k1, b=settings.b)
    result = scorer.score_pass(stage / "runs" / "run.bm25.txt" if settings.keep_runs else None, tag="bm25",
                               budgets=settings.budgets)
    return result.metrics.per_query[settings.metric], result.recall_means()


def _write_outputs(stage: Path, summary: SweepResult, measured: _Measured, cv: CrossValidated, comparison: Any,
                   settings: SweepSettings, parameter: str, oracle: float, bm25_score: float) -> None:
    """sweep.csv, per_query.csv (with the cross-validated fold and choice), summary.json, comparison.md, sweep.png."""
    with atomic_output(stage / "sweep.csv") as f:
        measured.table.to_csv(f, index=False)
    per_query = measured.per_query.rename(columns=lambda v: v if isinstance(v, str) else point_label(parameter, v))
    per_query["cv_fold"] = pd.Series(cv.fold_of)
    per_query[f"cv_{parameter}"] = pd.Series(cv.value_of)
    per_query["cv_score"] = cv.per_query
    with atomic_output(stage / "per_query.csv") as f:
        per_query.to_csv(f)
    write_result(stage, summary)
    cv_result = ComparisonResult(**summary["cv"]["comparison"])
    with atomic_output(stage / "comparison.md") as f:
        f.write(format_markdown(comparison, settings.metric, "bm25",
                                f"{settings.similarity} {parameter}={oracle:g} (oracle)", seed=settings.seed))
        f.write(f"\nCross-validated ({cv.folds} folds over queries, seed {cv.seed}; {parameter} chosen on the "
                f"other folds: {', '.join(f'{v:g}' for v in cv.chosen)}):\n\n"
                + comparison_table(cv_result, settings.metric))
        if "auto" in summary:
            a = summary["auto"]
            f.write(f"\nLabel-free {parameter} = {a['q']:g} (auto):\n\n"
                    + comparison_table(ComparisonResult(**a["comparison"]), settings.metric))
        if "auto_query" in summary:
            a = summary["auto_query"]
            f.write(f"\nLabel-free {parameter} per query (auto-query; queries per {parameter}: "
                    f"{', '.join(f'{v}: {n}' for v, n in a['q_distribution'].items())}):\n\n"
                    + comparison_table(ComparisonResult(**a["comparison"]), settings.metric))
        if "tuned" in summary:
            f.write(format_tuned(summary["tuned"], settings.metric))
    auto = (summary["auto"]["q"], summary["auto"]["score"]) if "auto" in summary else None
    plot_sweep(measured.table, parameter, settings.metric, bm25_score, oracle, stage / "sweep.png",
               title=summary["name"], cv=(tuple(cv.chosen), cv.score), auto=auto)


def format_tuned(tuned: dict[str, Any], metric: str) -> str:
    """comparison.md's section on tuned BM25: the engines' default, each family's cross-validated choice, and the
    comparisons with BM25 and with tuned BM25."""
    k1, b, _ = tuned["reference"]
    bm25 = f"BM25 (k1 {k1:g}, b {b:g})"
    rows = [("BM25 (k1 1.2, b 0.75), the engines' default", bm25, tuned["engine"]["comparison"])]
    for family in ("bm25", "qlog", "joint"):
        rows.append((f"{FAMILY_LABELS[family]}, CV ({'; '.join(tuned[family]['chosen_text'])})", bm25,
                     tuned[family]["comparison"]))
    rows.append((f"{FAMILY_LABELS['qlog']}, CV", f"{FAMILY_LABELS['bm25']}, CV", tuned["qlog_vs_tuned"]))
    rows.append((f"{FAMILY_LABELS['joint']}, CV", f"{FAMILY_LABELS['bm25']}, CV", tuned["joint_vs_tuned"]))
    text = (f"\nTuned BM25 beside q-log (k1 over {', '.join(f'{v:g}' for v in tuned['grids']['k1'])}; b over "
            f"{', '.join(f'{v:g}' for v in tuned['grids']['b'])}; every family chosen on the same folds as q):"
            f" **{tuned['verdict']}**.\n\n")
    return text + markdown_table([[b, a, *comparison_cells(ComparisonResult(**comparison), metric)]
                                  for b, a, comparison in rows],
                                 ["system (B)", "baseline (A)", *COMPARISON_HEADERS], "ll" + COMPARISON_ALIGN)


def summary_line(summary: dict[str, Any]) -> str:
    """The sweep's one-line result: BM25, cross-validated (with its two-sided p), oracle, and auto."""
    p, base = summary["parameter"], summary["baseline_score"]

    def rel(comparison: dict[str, Any]) -> str:
        x = comparison.get("rel_diff")
        return "n/a" if x is None else f"{x:+.1%}"

    def pval(comparison: dict[str, Any]) -> str:
        return format_p(comparison["p_randomization"], comparison["resamples"])

    cv = summary["cv"]
    chosen = "/".join(f"{v:g}" for v in sorted(set(cv["chosen"])))
    judged = f"{summary['judged_queries']} queries"
    if summary.get("qrels_queries", summary["judged_queries"]) != summary["judged_queries"]:
        judged += f" (of the {summary['qrels_queries']} judged)"
    text = (f"{summary['name']}: {summary['docs']} docs, {judged}, {summary['metric']} "
            f"BM25 {base:.4f}; {cv['folds']}-fold CV {cv['score']:.4f} ({rel(cv['comparison'])}, "
            f"{pval(cv['comparison'])}; {p} = {chosen}); oracle {summary['oracle_score']:.4f} at {p} = "
            f"{summary['oracle_value']:g} ({rel(summary['comparison'])}, {pval(summary['comparison'])})")
    if "auto" in summary:
        a = summary["auto"]
        text += f"; auto {p} = {a['q']:g}: {a['score']:.4f} ({rel(a['comparison'])})"
    if "auto_query" in summary:
        a = summary["auto_query"]
        text += f"; auto-query: {a['score']:.4f} ({rel(a['comparison'])})"
    if "tuned" in summary:
        t = summary["tuned"]
        text += (f"; BM25 1.2/0.75 {t['engine']['score']:.4f}; tuned BM25 CV {t['bm25']['score']:.4f}; "
                 f"joint (b, q) CV {t['joint']['score']:.4f}; {t['verdict']}")
    return text + "; p two-sided randomization"
