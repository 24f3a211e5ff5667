"""Sweep an instance set (issue -> files): every issue on its own index, q-log BM25 beside tuned BM25.

    python -m qlog_pyserini.sweep --instances SET --index DIR --out sweeps/java-issues

Each corpus's index is opened once and its instances are scored at every grid point in one pass
(:meth:`PointScorer.score_grid_values <qlog_pyserini.sweep.measure.PointScorer.score_grid_values>`), ``--threads``
corpora at once. The grid holds three families (:mod:`qlog_pyserini.sweep.baselines`: q-log over q, tuned BM25
over (k1, b), the joint (b, q)), each chosen by cross-validation on the same folds, dealt by repository by default
(:func:`group_fold_assignment <qlog_pyserini.sweep.crossval.group_fold_assignment>`); ``--q auto-files`` adds the files
rule of :mod:`qlog_pyserini.predict.files`. Measures are trec_eval's and Recall@K-tokens
(:mod:`qlog_pyserini.eval.budget`), compared by :func:`qlog_pyserini.eval.significance.compare_scores`. The
measures, folds and files written are described in docs/cli.md ("Instance sets: issue -> files").
"""

from __future__ import annotations

import os
import threading
import time
from concurrent.futures import ThreadPoolExecutor, as_completed
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any, Mapping, Sequence

import numpy as np
import pandas as pd

from qlog_pyserini.errors import QLogError
from qlog_pyserini.eval.budget import check_budgets
from qlog_pyserini.eval.report import cell, markdown_table
from qlog_pyserini.eval.significance import ComparisonResult, compare_scores, format_p
from qlog_pyserini.formats.instances import InstanceSet, read_instance_set
from qlog_pyserini.formula import check_form
from qlog_pyserini.jvm.bridge import detach_when_thread_ends
from qlog_pyserini.lucene.searcher import QLogSearcher
from qlog_pyserini.predict.files import RULE as FILES_RULE
from qlog_pyserini.predict.files import FilesRule
from qlog_pyserini.search.instances import corpus_indexes
from qlog_pyserini.sweep.baselines import (
    FAMILY_LABELS,
    Point,
    TuningGrids,
    cross_validate_families,
    family_value,
    oracle_point,
    point_text,
)
from qlog_pyserini.sweep.crossval import DEFAULT_FOLDS, CrossValidated, fold_assignment, group_fold_assignment
from qlog_pyserini.sweep.measure import GridValues, PointScorer
from qlog_pyserini.sweep.results import InstanceSweepResult, record
from qlog_pyserini.sweep.results import write as write_result
from qlog_pyserini.sweep.run import RECALL_COLUMN
from qlog_pyserini.system.outputs import atomic_output, check_output_dir, staged_output
from qlog_pyserini.system.progress import progress_bar

ISSUE_BUDGETS: tuple[int, ...] = (8192, 13000, 27000, 50000)
ISSUE_METRICS = ("success.1,3,5,10", "recall.1,3,5", "recip_rank", "ndcg_cut.10")  # trec_eval's, in process
RECALL_ALL_COLUMN = "recall_tokens_all"  # every changed file fits; RECALL_COLUMN: at least one fits
EVERY = "every"  # every.k: every file the fix modifies is in the top k (SweRank's Acc@k); success.k: the first is
MEASURE_NAMES = {"success.1": "Hit@1", "success.3": "Hit@3", "success.5": "Hit@5", "success.10": "Hit@10",
                 f"{EVERY}.1": "Acc@1 all", f"{EVERY}.3": "Acc@3 all", f"{EVERY}.5": "Acc@5 all",
                 "recip_rank": "MRR", "ndcg_cut.10": "NDCG@10"}
CV_UNITS = ("repository", "instance")
# the systems of every table, in order: name -> label
SYSTEMS = {"bm25": "BM25", "engine": "BM25 (k1 1.2, b 0.75)", "bm25_cv": "tuned BM25 (CV)",
           "qlog_cv": "q-log (CV)", "joint_cv": "joint (b, q) (CV)", "auto": "q-log (--q auto-files)"}
FAMILY_SYSTEM = {"bm25": "bm25_cv", "qlog": "qlog_cv", "joint": "joint_cv"}
# the paired comparisons reported: (baseline, system)
PAIRS = (("bm25", "engine"), ("bm25", "bm25_cv"), ("bm25", "qlog_cv"), ("bm25", "joint_cv"),
         ("bm25_cv", "qlog_cv"), ("bm25_cv", "joint_cv"), ("bm25", "auto"), ("bm25_cv", "auto"))
SIGNIFICANCE = 0.05
LOCALIZED = "localize:"  # the systems of issue -> files configurations: localize:<name>


def with_every_gold(frame: pd.DataFrame) -> pd.DataFrame:
    """``frame`` with ``every.k`` beside each ``recall.k`` (trec_eval's recall: the share of the answers in the top
    k): 1 when that share is whole, so every file the fix modifies is in the top k; NaN stays NaN."""
    for column in [c for c in frame.columns if c.startswith("recall.")]:
        recall = frame[column].to_numpy(dtype=float)
        frame[f"{EVERY}.{column.partition('.')[2]}"] = np.where(np.isnan(recall), np.nan, recall >= 1 - 1e-9)
    return frame


def measure_name(measure: str) -> str:
    """``recip_rank`` -> ``MRR``, ``recall_tokens.27000`` -> ``R@27K any``, ``recall_tokens_all.27000`` -> ``R@27K all``."""
    if measure in MEASURE_NAMES:
        return MEASURE_NAMES[measure]
    kind, _, budget = measure.partition(".")
    size = int(budget)
    text = f"{size // 1000}K" if size % 1000 == 0 else f"{size / 1024:g}K" if size % 1024 == 0 else str(size)
    return f"R@{text} {'all' if kind == RECALL_ALL_COLUMN else 'any'}"


@dataclass(frozen=True)
class InstanceSweepSettings:
    """What an instance-set sweep measures: the grids, the metric that chooses, the tests and the folds.

    ``cv_unit`` deals the folds by ``repository`` (default) or by ``instance``. ``auto`` (a
    :class:`qlog_pyserini.predict.files.FilesRule`) adds ``--q auto-files`` (the files rule) as one more system:
    every instance searched at the q the rule gives its index.
    """

    grids: TuningGrids
    metric: str = "recip_rank"
    idf_form: str = "lucene"
    hits: int = 1000
    threads: int = 1
    budgets: tuple[int, ...] = ISSUE_BUDGETS
    resamples: int = 10000
    seed: int = 0
    folds: int = DEFAULT_FOLDS
    cv_seed: int = 0
    cv_unit: str = "repository"
    auto: FilesRule | None = None
    localize: tuple[str, ...] = ()  # issue -> files configurations (qlog_pyserini.sweep.localized), each a system

    def __post_init__(self) -> None:
        object.__setattr__(self, "budgets", tuple(check_budgets(self.budgets)))
        object.__setattr__(self, "idf_form", check_form(self.idf_form))
        if self.metric not in self.measures():
            raise QLogError(f"--metric {self.metric!r} is not measured on an instance set; choose one of "
                            f"{', '.join(self.measures())}")
        if self.cv_unit not in CV_UNITS:
            raise QLogError(f"--cv-by must be one of {', '.join(CV_UNITS)}, got {self.cv_unit!r}")
        for name in ("hits", "threads", "resamples"):
            if getattr(self, name) < 1:
                raise QLogError(f"--{name} must be at least 1, got {getattr(self, name)}")
        if self.folds < 2:
            raise QLogError(f"--folds must be at least 2, got {self.folds}")

    def measures(self) -> list[str]:
        """Every measure's column name, in table order."""
        return (list(MEASURE_NAMES) + [f"{RECALL_COLUMN}.{k}" for k in self.budgets]
                + [f"{RECALL_ALL_COLUMN}.{k}" for k in self.budgets])


def run_instance_sweep(instances: str | os.PathLike, index_dir: str | os.PathLike, out_dir: str | os.PathLike,
                       settings: InstanceSweepSettings, *, name: str | None = None, progress: bool = True,
                       overwrite: bool = False, extra: dict[str, Any] | None = None) -> InstanceSweepResult:
    """Sweep the instance set ``instances`` on its indexes ``index_dir`` and write ``out_dir`` (atomically);
    returns its typed summary. See the module docstring."""
    started = time.perf_counter()
    instance_set = read_instance_set(instances)
    indexes = corpus_indexes(instance_set, index_dir)
    out = check_output_dir(out_dir, "sweep", inputs=(instances, index_dir), overwrite=overwrite)
    fold_of, unit = instance_folds(instance_set, settings)
    points = settings.grids.points()
    per_point = measure_points(instance_set, indexes, points, settings, progress)
    if settings.localize:
        from qlog_pyserini.localize.run import issue_evidence
        from qlog_pyserini.sweep.localized import measure_configurations, parse_configuration

        evidence_of = issue_evidence() if any(parse_configuration(n)[0].evidence for n in settings.localize) else None
        measured = measure_configurations(instance_set, indexes, settings.localize, settings.measures(),
                                          ISSUE_METRICS, settings.budgets, RECALL_COLUMN, RECALL_ALL_COLUMN,
                                          settings.hits, evidence_of)
        per_point.update({f"{LOCALIZED}{n}": frame for n, frame in measured.items()})
    with staged_output(out, "sweep", "sweep", overwrite=overwrite) as stage:
        summary, per_query = summarize(instance_set, per_point, settings, fold_of, unit)
        summary.update(name=name or Path(instances).name, instance_set=str(Path(instances).resolve()),
                       indexes=str(Path(index_dir).resolve()), corpora=len(indexes), **(extra or {}))
        summary["seconds"] = round(time.perf_counter() - started, 2)
        result = record(InstanceSweepResult.KIND, summary, out)
        _write(stage, result, per_point, per_query, settings)
    return result


def instance_folds(instance_set: InstanceSet, settings: InstanceSweepSettings) -> tuple[dict[str, int], str]:
    """The cross-validation folds (``{instance id: fold}``) and the unit they were dealt by."""
    ids = [i.instance_id for i in instance_set.instances]
    repos = instance_set.repositories()
    if settings.cv_unit == "repository" and len(set(repos.values())) >= 2:
        return group_fold_assignment(repos, settings.folds, settings.cv_seed), "repository"
    return fold_assignment(ids, settings.folds, settings.cv_seed), "instance"


def measure_points(instance_set: InstanceSet, indexes: Mapping[str, Path], points: list[Point],
                   settings: InstanceSweepSettings, progress: bool = True) -> dict[Point | str, pd.DataFrame]:
    """Every point's measures per instance (rows = instance ids in set order, columns = the measures); with
    ``settings.auto``, also ``"auto"``: each instance at the q the files rule gives its index (searched in the
    same pass), and ``"auto_q"``: that q per instance (one column, ``q``).

    ``settings.threads`` corpora are measured at once, each on its own searcher (an issue set's corpora
    mostly hold one instance each, too few queries to share among search threads).
    """
    labels: list[Point | str] = list(points) + (["auto"] if settings.auto is not None else [])
    groups = instance_set.by_corpus()
    measured: dict[str, tuple[GridValues, float | None]] = {}
    with progress_bar(total=len(instance_set.instances), desc=f"sweep ({len(points)} models)", unit="q",
                      quiet=not progress) as bar, ThreadPoolExecutor(settings.threads,
                                                                     thread_name_prefix="qlog-corpus") as pool:
        pending = {pool.submit(_measure_corpus, instance_set, indexes[key], members, points, settings): key
                   for key, members in groups.items()}
        try:
            for done in as_completed(pending):
                measured[pending[done]] = done.result()
                bar.update(len(groups[pending[done]]))
        except BaseException:
            for future in pending:  # one corpus failed: the others not started are not searched
                future.cancel()
            raise
    columns = settings.measures()
    order = [i.instance_id for i in instance_set.instances]
    ids = [i.instance_id for key in groups for i in groups[key]]
    out: dict[Point | str, pd.DataFrame] = {}
    for m, label in enumerate(labels):
        blocks = []
        for key, members in groups.items():
            grid = measured[key][0]
            at = {q: i for i, q in enumerate(grid.qids)}
            rows = np.array([at.get(i.instance_id, -1) for i in members])
            block = np.concatenate([grid.values[m], grid.recall[m], grid.recall_every[m]], axis=1)
            # an instance the qrels lack is a row of NaN, as a reindex would leave it
            blocks.append(np.where(rows[:, None] >= 0, block[np.maximum(rows, 0)], np.nan))
        names = (grid.metrics + [f"{RECALL_COLUMN}.{k}" for k in grid.budgets]
                 + [f"{RECALL_ALL_COLUMN}.{k}" for k in grid.budgets])
        out[label] = with_every_gold(pd.DataFrame(np.concatenate(blocks), index=pd.Index(ids, name="qid"),
                                                  columns=names)).reindex(order)[columns]
    if settings.auto is not None:
        q_of = {i.instance_id: measured[key][1] for key, members in groups.items() for i in members}
        out["auto_q"] = pd.DataFrame({"q": [float(q_of[q]) for q in order]}, index=pd.Index(order, name="qid"))
    return out


# pyjnius can cross the objects of two threads' instance calls on one Java class; opening an index makes
# some (the analyzer record, the reader's close), so corpora are opened and closed one at a time
_OPENING = threading.Lock()


def _measure_corpus(instance_set: InstanceSet, index: Path, members: list, points: list[Point],
                    settings: InstanceSweepSettings) -> tuple[GridValues, float | None]:
    """The grid's values on one corpus's index (with ``settings.auto``, the q the files rule gives it last) and
    that q (None without ``settings.auto``)."""
    detach_when_thread_ends()  # a pool thread must not leave a Java thread behind
    ids = [i.instance_id for i in members]
    topics = {q: instance_set.topics[q] for q in ids}
    qrels = {q: instance_set.qrels.get(q, {}) for q in ids}
    with _OPENING:
        searcher = QLogSearcher(index, idf_form=settings.idf_form)
    try:
        scorer = PointScorer(searcher, topics, qrels, instance_set.qrels_path, ISSUE_METRICS, settings.hits,
                             settings.threads, every_relevant=True)
        models = [searcher.make_similarity("qlog", k1=k1, b=b, q=q, idf_form=settings.idf_form)
                  for k1, b, q in points]
        q_auto = None
        if settings.auto is not None:
            q_auto = settings.auto.q_for(searcher.mean_length())
            models.append(searcher.make_similarity("qlog", k1=settings.grids.k1, b=settings.grids.b,
                                                   q=q_auto, idf_form=settings.idf_form))
        return scorer.score_grid_values(models, budgets=settings.budgets), q_auto
    finally:
        with _OPENING:
            searcher.close()


def assemble(per_point: Mapping[Point, pd.DataFrame], value_of: Mapping[str, Point]) -> pd.DataFrame:
    """Every measure of each instance at the point it was scored at (``value_of``: a cross-validated choice)."""
    order = list(next(iter(per_point.values())).index)
    return pd.DataFrame([per_point[value_of[q]].loc[q] for q in order], index=pd.Index(order, name="qid"))


def summarize(instance_set: InstanceSet, per_point: Mapping[Point | str, pd.DataFrame], settings: InstanceSweepSettings,
              fold_of: Mapping[str, int], unit: str) -> tuple[dict[str, Any], pd.DataFrame]:
    """The summary record and the per-instance table of every system."""
    grids = settings.grids
    per_point = dict(per_point)
    auto, auto_q = per_point.pop("auto", None), per_point.pop("auto_q", None)
    localized = {p: per_point.pop(p) for p in list(per_point) if isinstance(p, str) and p.startswith(LOCALIZED)}
    selection = pd.DataFrame({p: frame[settings.metric] for p, frame in per_point.items()})
    cv = cross_validate_families(selection, grids, fold_of)
    systems = {"bm25": per_point[grids.reference], "engine": per_point[grids.engine]}
    for family, result in cv.items():
        systems[FAMILY_SYSTEM[family]] = assemble(per_point, result.value_of)
    if auto is not None:
        systems["auto"] = auto
    systems.update(localized)
    labels = {**SYSTEMS, **{p: f"{p[len(LOCALIZED):]} ({'label-free' if p == LOCALIZED + 'auto' else 'BM25'})"
                            for p in localized}}
    pairs = [*PAIRS, *((base, p) for p in localized for base in ("bm25", "engine", "bm25_cv"))]
    repos, languages = instance_set.repositories(), instance_set.attribute("language")
    groups = {"all": {q: "all" for q in repos}, "language": languages, "repository": repos}
    summary: dict[str, Any] = {
        "metric": settings.metric, "measures": settings.measures(), "budgets": list(settings.budgets),
        "idf_form": settings.idf_form, "hits": settings.hits, "k1": grids.k1, "b": grids.b,
        "resamples": settings.resamples, "seed": settings.seed,
        "grids": {"q": list(grids.q_grid), "k1": list(grids.k1_grid), "b": list(grids.b_grid)},
        "points": len(per_point), "instances": len(repos), "repositories": len(set(repos.values())),
        "languages": sorted(set(languages.values())),
        "cv": {"unit": unit, "folds": max(fold_of.values()) + 1, "seed": settings.cv_seed,
               **{family: {**_cv_record(family, result), "label": FAMILY_LABELS[family]}
                  for family, result in cv.items()}},
        "oracle": {family: {"point": list(p), "value": family_value(family, p),
                            "score": float(selection[p].mean())}
                   for family, p in ((f, oracle_point(selection, pts, grids.reference))
                                     for f, pts in grids.families().items())},
        "systems": {s: labels[s] for s in systems}, "tables": {}, "comparisons": {},
    }
    if auto_q is not None:
        qs = auto_q["q"].value_counts().sort_index()
        summary["auto"] = {"rule": {"rule": FILES_RULE, **asdict(settings.auto)}, "q_distribution": {f"{q:g}": int(n) for q, n in qs.items()}}
    for kind, group_of in groups.items():
        summary["tables"][kind] = _group_table(systems, group_of, settings)
    for base, system in (p for p in pairs if p[1] in systems):
        summary["comparisons"][f"{system} vs {base}"] = {
            m: asdict(compare_scores(systems[base][m], systems[system][m], resamples=settings.resamples,
                                     seed=settings.seed)) for m in settings.measures()}
    summary["verdict"] = verdict(summary)
    per_query = pd.concat({s: frame for s, frame in systems.items()}, axis=1)
    per_query.columns = [f"{s}:{m}" for s, m in per_query.columns]
    per_query = per_query.copy()  # one block before the columns inserted below
    per_query.insert(0, "fold", pd.Series(fold_of))
    per_query.insert(0, "language", pd.Series(languages))
    per_query.insert(0, "repo", pd.Series(repos))
    if auto_q is not None:
        per_query["auto:q"] = auto_q["q"]
    for family, result in cv.items():
        per_query[f"{FAMILY_SYSTEM[family]}:point"] = pd.Series({q: point_text(p) for q, p in result.value_of.items()})
    return summary, per_query


def _cv_record(family: str, result: CrossValidated) -> dict[str, Any]:
    record = result.record()
    record["chosen_text"] = [family_value(family, p) for p in result.chosen]  # type: ignore[arg-type]
    return record


def _group_table(systems: Mapping[str, pd.DataFrame], group_of: Mapping[str, str],
                 settings: InstanceSweepSettings) -> list[dict[str, Any]]:
    """Per group: instances, every system's mean of every measure, and the headline comparisons' p on the metric."""
    group = pd.Series(group_of)
    rows = []
    for value in sorted(set(group_of.values())):
        ids = list(group.index[group == value])
        row: dict[str, Any] = {"group": value, "instances": len(ids),
                               "means": {s: {m: float(frame.loc[ids, m].mean()) for m in settings.measures()}
                                         for s, frame in systems.items()}}
        row["p"] = {f"{system} vs {base}": compare_scores(systems[base].loc[ids, settings.metric],
                                                          systems[system].loc[ids, settings.metric],
                                                          resamples=settings.resamples, seed=settings.seed
                                                          ).p_randomization
                    for base, system in (("bm25", "qlog_cv"), ("bm25_cv", "qlog_cv"), ("bm25_cv", "joint_cv"))}
        rows.append(row)
    return rows


def verdict(summary: Mapping[str, Any]) -> str:
    """Whether q-log's gain holds over tuned BM25, in one sentence with its figures."""
    metric = summary["metric"]
    over_bm25 = ComparisonResult(**summary["comparisons"]["qlog_cv vs bm25"][metric])
    over_tuned = ComparisonResult(**summary["comparisons"]["qlog_cv vs bm25_cv"][metric])
    name = measure_name(metric)
    first = (f"q-log (CV) {name} {over_bm25.mean_b:.4f} against BM25 {over_bm25.mean_a:.4f} "
             f"({over_bm25.diff:+.4f}, {format_p(over_bm25.p_randomization, over_bm25.resamples)}) and against "
             f"tuned BM25 (CV) {over_tuned.mean_a:.4f} ({over_tuned.diff:+.4f}, "
             f"{format_p(over_tuned.p_randomization, over_tuned.resamples)}): ")
    if over_tuned.diff > 0 and over_tuned.p_randomization < SIGNIFICANCE:
        return first + "q-log's gain holds over tuned BM25."
    if over_tuned.diff < 0 and over_tuned.p_randomization < SIGNIFICANCE:
        return first + "q-log is significantly below tuned BM25; no gain is claimed."
    return first + (f"the difference from tuned BM25 is not significant (p >= {SIGNIFICANCE:g}); "
                    "no gain over tuned BM25 is claimed.")


def _write(stage: Path, summary: InstanceSweepResult, per_point: Mapping[Point | str, pd.DataFrame], per_query: pd.DataFrame,
           settings: InstanceSweepSettings) -> None:
    per_point = {p: frame for p, frame in per_point.items() if isinstance(p, tuple)}  # the grid's, not auto's
    rows = [{"k1": p[0], "b": p[1], "q": p[2], **frame.mean().to_dict()} for p, frame in per_point.items()]
    with atomic_output(stage / "points.csv") as f:
        pd.DataFrame(rows).to_csv(f, index=False)
    with atomic_output(stage / "per_query.csv") as f:
        per_query.to_csv(f, index_label="qid")
    selection = pd.DataFrame({point_text(p): frame[settings.metric] for p, frame in per_point.items()})
    with atomic_output(stage / "per_point.csv") as f:
        selection.to_csv(f, index_label="qid")
    write_result(stage, summary)
    with atomic_output(stage / "summary.md") as f:
        f.write(format_summary(summary))


def _p(summary: Mapping[str, Any], pair: str, measure: str) -> str:
    c = summary["comparisons"][pair][measure]
    return format_p(c["p_randomization"], c["resamples"])


def format_summary(summary: Mapping[str, Any]) -> str:
    """The sweep's tables as markdown (see the module docstring)."""
    name = measure_name(summary["metric"])
    cv = summary["cv"]
    systems = list(summary["systems"])
    lines = [f"# {summary['name']}: {summary['instances']} instances, {summary['repositories']} repositories "
             f"({', '.join(summary['languages'])}), {summary['corpora']} indexes", "",
             f"**{summary['verdict']}**", "",
             f"## {name} per language", ""]
    lines.append(group_table("language", summary["tables"]["all"] + summary["tables"]["language"], summary))
    lines += [f"## {name} per repository", "", group_table("repository", summary["tables"]["repository"], summary)]
    measures = summary["measures"]
    names = [measure_name(m) for m in measures]
    means = summary["tables"]["all"][0]["means"]
    labels = summary["systems"]
    p_rows = []
    for pair in summary["comparisons"]:
        system, _, base = pair.partition(" vs ")
        p_rows.append([f"{labels[system]} vs {labels[base]}", *(_p(summary, pair, m) for m in measures)])
    choices = [[cv[f]["label"], "; ".join(cv[f]["chosen_text"]), f"{cv[f]['score']:.4f}", summary["oracle"][f]["value"],
                f"{summary['oracle'][f]['score']:.4f}"] for f in ("bm25", "qlog", "joint")]
    lines += ["## Every measure (all instances)", "",
              markdown_table([[labels[s], *(cell(means[s][m]) for m in measures)] for s in systems], ["system", *names],
                             "l" + "r" * len(measures)),
              "Two-sided paired randomization p per measure:", "",
              markdown_table(p_rows, ["comparison", *names]),
              "## Choices", "",
              markdown_table(choices, ["family", "values chosen per fold (CV)", f"CV {name}", "oracle (all instances)",
                                       f"oracle {name}"], "llrlr").rstrip("\n")]
    grids = summary["grids"]
    lines += ["", f"BM25 = k1 {summary['k1']:g}, b {summary['b']:g}; grids: q {_values(grids['q'])}, k1 "
              f"{_values(grids['k1'])}, b {_values(grids['b'])} ({summary['points']} models, each searched on every "
              f"index in one pass). CV = {cv['folds']}-fold cross-validation on {name}, folds dealt by {cv['unit']} "
              f"(seed {cv['seed']}); every family chosen on the same folds, ties toward BM25. Hit@K, MRR and "
              f"NDCG@10 over the files each fix modifies; R@K any / all = the ranked files fill K tokens in rank "
              "order (whole files, up to the first that does not fit; tokens = identifiers, numbers and other "
              "non-space characters of the file's path and text) and at least one / every changed file is in. "
              "p = two-sided paired randomization test.", ""]
    return "\n".join(lines)


def _values(values: list[float]) -> str:
    return ",".join(f"{v:g}" for v in values)


def group_table(label: str, rows: Sequence[Mapping[str, Any]], summary: Mapping[str, Any]) -> str:
    """Markdown of one table: a row per group (``rows`` from a summary's ``tables``, each naming its
    ``group``), the selection metric under every system of ``summary`` and the three paired p-values."""
    systems, metric = list(summary["systems"]), summary["metric"]
    return markdown_table([_group_row(row, systems, metric, summary["resamples"]) for row in rows],
                          [label, "instances", *(summary["systems"][s] for s in systems), "p q-log vs BM25",
                           "p q-log vs tuned", "p joint vs tuned"], "lr" + "r" * len(systems) + "lll")


def _group_row(row: Mapping[str, Any], systems: list[str], metric: str, resamples: int) -> list[str]:
    p = {k: format_p(v, resamples) for k, v in row["p"].items()}
    return [row["group"], row["instances"], *(cell(row["means"][s][metric]) for s in systems),
            p["qlog_cv vs bm25"], p["qlog_cv vs bm25_cv"], p["joint_cv vs bm25_cv"]]


def summary_line(summary: Mapping[str, Any]) -> str:
    """The instance sweep's one-line result."""
    means = summary["tables"]["all"][0]["means"]
    metric = summary["metric"]
    return (f"{summary['name']}: {summary['instances']} instances, {summary['corpora']} indexes, "
            f"{measure_name(metric)} " + ", ".join(f"{label} {means[s][metric]:.4f}"
                                                   for s, label in summary["systems"].items())
            + f"; {summary['verdict']}")
