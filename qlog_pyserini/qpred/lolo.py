"""Leave-one-language-out: how much of the oracle gain the label-free q recovers.

    python -m qlog_pyserini.lolo --sweeps sweeps/csn-ruby sweeps/cosqa sweeps/cacm ... \\
        [--variant hapax-per-token --variant df-slope | --variant all] [--output results/lolo.md]

Each ``--sweeps`` folder is the output of ``python -m qlog_pyserini.sweep`` (q-log BM25 over a grid
of q); its ``summary.json`` gives the index, topics, qrels, metric M, the grid scores M(q), and
the oracle q_opt with M(q_opt). For each corpus and each rule:

    fitted c      1 - q_opt = c * h through the origin (q = 1 at h = 0), least squares over the
                  OTHER corpora:  c = sum(h_i * (1 - q_opt_i)) / sum(h_i^2)      (0 if all h_i = 0)
    fixed c       the paper's c = 7.28 (h_tok variants only)
    q_pred        clip(1 - c * h, q_min, 1)
    M(q_pred)     the sweep's score if q_pred is on its grid (within 1e-9), else measured: the index
                  is searched at q_pred with the sweep's k1, b, idf form and hit count, and the run
                  scored by trec_eval (:mod:`qlog_pyserini.evaluation`), as the sweep scored its points
    recovery      (M(q_pred) - M(1)) / (M(q_opt) - M(1))

M(1) is the grid score at q = 1 (the sweep always has it; ``baseline_score`` otherwise). Recovery
is 1 when the prediction is as good as the oracle, 0 when it is no better than BM25, negative
when worse, and above 1 when an off-grid q_pred beats every grid point. It is undefined ("n/a")
when M(q_opt) <= M(1), i.e. BM25 is already best on the grid and there is no gain to recover;
such corpora are listed (with M(q_pred) - M(1), so a loss stays visible) but left out of the
mean. The mean is the plain average over the other corpora, as the paper's 72% is.

h is a feature of :mod:`qlog_pyserini.corpus_stats`: an h_tok variant, or ``df-slope`` (the
second rule, item 5 of issue 4). The arithmetic (:func:`fit_c`, :func:`leave_one_out_c`,
:func:`recovery`, :func:`evaluate_rule`) is pure and takes M(q) as a callback, so it is tested on
synthetic sweeps with known answers.
"""

from __future__ import annotations

import json
import os
import tempfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Mapping, Sequence

from qlog_pyserini.errors import QLogError
from qlog_pyserini.formula import DEFAULT_B, DEFAULT_K1, check_form
from qlog_pyserini.qpred.rule import DEFAULT_Q_MIN, DEFAULT_VARIANT, PAPER_C, q_from_h
from qlog_pyserini.qpred.statistics import DEFAULT_SAMPLE_DOCS, H_TOK_VARIANTS, corpus_stats, features

PAPER_RECOVERY = 0.72
GRID_TOLERANCE = 1e-9
SCORE_TOLERANCE = 5e-5  # trec_eval prints 4 decimals: two honest measurements of one run differ by less
DEFAULT_VARIANTS = (DEFAULT_VARIANT, "sample-df-slope")  # the paper's rule and the size-comparable slope rule
REQUIRED_KEYS = ("name", "index", "topics", "qrels", "metric", "parameter", "grid", "scores",
                 "baseline_score", "oracle_value", "oracle_score", "idf_form")


@dataclass(frozen=True)
class Sweep:
    """One corpus's q sweep, as ``summary.json`` describes it (paths resolved)."""

    name: str
    index: Path
    topics: Path
    qrels: Path
    metric: str
    scores: dict[float, float]
    baseline_score: float
    oracle_value: float
    oracle_score: float
    idf_form: str = "lucene"
    k1: float = DEFAULT_K1
    b: float = DEFAULT_B
    hits: int = 1000
    folder: Path | None = None

    def score_at(self, q: float) -> float | None:
        """M(q) from the grid, or None if q is not a grid point."""
        return grid_lookup(self.scores, q)

    @property
    def m_base(self) -> float:
        """M(1): the grid score at q = 1, else the sweep's baseline score."""
        at_one = self.score_at(1.0)
        return self.baseline_score if at_one is None else at_one


def read_sweep(folder: str | os.PathLike) -> Sweep:
    """Read ``folder/summary.json`` of a q sweep; relative paths resolve against the cwd, then the folder."""
    folder = Path(folder)
    path = folder / "summary.json"
    try:
        summary = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise QLogError(f"{str(folder)!r} is not a sweep folder (no summary.json)") from None
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as e:
        raise QLogError(f"cannot read {str(path)!r}: {e}") from None
    missing = [k for k in REQUIRED_KEYS if k not in summary]
    if missing:
        raise QLogError(f"{path}: missing keys {', '.join(missing)}")
    if summary["parameter"] != "q" or summary.get("similarity", "qlog") != "qlog":
        raise QLogError(f"{path}: a sweep of q-log BM25's q is needed, not of {summary.get('similarity')} "
                        f"{summary['parameter']!r}")
    try:
        scores = {float(k): float(v) for k, v in summary["scores"].items()}
        sweep = Sweep(
            name=str(summary["name"]), index=_resolve(summary["index"], folder),
            topics=_resolve(summary["topics"], folder), qrels=_resolve(summary["qrels"], folder),
            metric=str(summary["metric"]), scores=scores, baseline_score=float(summary["baseline_score"]),
            oracle_value=float(summary["oracle_value"]), oracle_score=float(summary["oracle_score"]),
            idf_form=check_form(summary["idf_form"]), k1=float(summary.get("k1", DEFAULT_K1)),
            b=float(summary.get("b", DEFAULT_B)), hits=int(summary.get("hits", 1000)), folder=folder)
    except (TypeError, ValueError) as e:
        raise QLogError(f"{path}: {e}") from None
    if not scores:
        raise QLogError(f"{path}: no grid scores")
    return sweep


def _resolve(value: str, folder: Path) -> Path:
    p = Path(value)
    if p.is_absolute() or p.exists() or not (folder / p).exists():
        return p
    return folder / p


# --- the arithmetic: pure functions -------------------------------------------------------------------

def grid_lookup(scores: Mapping[float, float], q: float, tol: float = GRID_TOLERANCE) -> float | None:
    """The score of the grid point within ``tol`` of ``q``, or None."""
    for value, score in scores.items():
        if abs(value - q) <= tol:
            return score
    return None


def fit_c(h: Sequence[float], q_opt: Sequence[float]) -> float:
    """Least-squares c of ``1 - q_opt = c * h`` through the origin; 0 when every h is 0 (no evidence against BM25)."""
    if len(h) != len(q_opt):
        raise ValueError(f"{len(h)} h values but {len(q_opt)} q_opt values")
    sxx = sum(x * x for x in h)
    if sxx == 0:
        return 0.0
    return sum(x * (1.0 - q) for x, q in zip(h, q_opt)) / sxx


def leave_one_out_c(h: Sequence[float], q_opt: Sequence[float]) -> list[float]:
    """For each corpus i, :func:`fit_c` on all corpora but i (at least two corpora are needed)."""
    if len(h) < 2:
        raise ValueError("leave-one-out needs at least two corpora")
    return [fit_c([x for j, x in enumerate(h) if j != i], [q for j, q in enumerate(q_opt) if j != i])
            for i in range(len(h))]


def recovery(m_pred: float, m_base: float, m_opt: float) -> float | None:
    """(M(q_pred) - M(1)) / (M(q_opt) - M(1)); None (n/a) when M(q_opt) <= M(1): no gain to recover."""
    gain = m_opt - m_base
    if not gain > 0:
        return None
    return (m_pred - m_base) / gain


def mean_recovery(values: Sequence[float | None]) -> float | None:
    """Mean of the defined recoveries (n/a ones left out); None if none is defined."""
    defined = [v for v in values if v is not None]
    return sum(defined) / len(defined) if defined else None


@dataclass(frozen=True)
class Row:
    """One corpus under one rule."""

    name: str
    h: float
    q_opt: float
    c: float
    q_pred: float
    m_base: float
    m_opt: float
    m_pred: float
    recovery: float | None
    measured: bool  # M(q_pred) came from a search (q_pred off the grid)


@dataclass(frozen=True)
class RuleResult:
    """A rule evaluated leave-one-language-out: per-corpus rows and the mean recovery."""

    variant: str
    mode: str  # "fit" (c fitted leave-one-out) or "fixed"
    c_all: float  # c fitted on all corpora ("fit"), or the fixed c
    q_min: float
    rows: list[Row] = field(default_factory=list)

    @property
    def mean_recovery(self) -> float | None:
        return mean_recovery([r.recovery for r in self.rows])

    @property
    def counted(self) -> int:
        return sum(r.recovery is not None for r in self.rows)


Evaluate = Callable[[Sweep, float], float]


def evaluate_rule(sweeps: Sequence[Sweep], h: Sequence[float], evaluate: Evaluate, variant: str = "h",
                  c: float | None = None, q_min: float = DEFAULT_Q_MIN) -> RuleResult:
    """Predict each corpus's q from its ``h`` and score it.

    ``c`` None fits c on the other corpora (leave one out); a number uses it for every corpus.
    ``evaluate(sweep, q)`` gives M(q) for a q that is not on the sweep's grid.
    """
    if len(sweeps) != len(h):
        raise ValueError(f"{len(sweeps)} sweeps but {len(h)} h values")
    q_opt = [s.oracle_value for s in sweeps]
    cs = leave_one_out_c(h, q_opt) if c is None else [float(c)] * len(sweeps)
    rows = []
    for s, x, ci in zip(sweeps, h, cs):
        q = q_from_h(x, ci, q_min)
        on_grid = s.score_at(q)
        m_pred = on_grid if on_grid is not None else float(evaluate(s, q))
        rows.append(Row(name=s.name, h=x, q_opt=s.oracle_value, c=ci, q_pred=q, m_base=s.m_base,
                        m_opt=s.oracle_score, m_pred=m_pred, recovery=recovery(m_pred, s.m_base, s.oracle_score),
                        measured=on_grid is None))
    return RuleResult(variant=variant, mode="fit" if c is None else "fixed",
                      c_all=fit_c(h, q_opt) if c is None else float(c), q_min=q_min, rows=rows)


# --- measuring M(q) off the grid ----------------------------------------------------------------------

class SearchEvaluator:
    """M(q) by searching a sweep's index at q and scoring the run with trec_eval, as the sweep did.

    One searcher stays open per index; values are cached. Before the first off-grid search on a
    corpus, the sweep's oracle point is re-measured the same way: if it differs from the sweep's
    score by more than trec_eval's rounding, the two measurements are not comparable (different
    topics, qrels or settings) and a warning is kept in :attr:`warnings`.
    """

    def __init__(self, threads: int = 1) -> None:
        self.threads = threads
        self.warnings: list[str] = []
        self._searchers: dict[Path, Any] = {}
        self._cache: dict[tuple[str, float], float] = {}
        self._checked: set[str] = set()

    def __call__(self, sweep: Sweep, q: float) -> float:
        if sweep.name not in self._checked:
            self._checked.add(sweep.name)
            again = self.measure(sweep, sweep.oracle_value)
            if abs(again - sweep.oracle_score) > SCORE_TOLERANCE:
                self.warnings.append(
                    f"{sweep.name}: re-measuring q = {sweep.oracle_value:g} gives {sweep.metric} {again:.4f}, the "
                    f"sweep says {sweep.oracle_score:.4f}; M(q_pred) may not be comparable with the sweep's scores")
        return self.measure(sweep, q)

    def measure(self, sweep: Sweep, q: float) -> float:
        """M(q) on ``sweep``'s corpus by an actual search at q."""
        key = (sweep.name, round(q, 12))
        if key in self._cache:
            return self._cache[key]
        from qlog_pyserini.eval.trec_eval import trec_eval
        from qlog_pyserini.formats.topics import read_topics
        from qlog_pyserini.formats.trec import write_run
        from qlog_pyserini.search.batch import search_topics
        from qlog_pyserini.search.searcher import QLogSearcher

        searcher = self._searchers.get(sweep.index)
        if searcher is None:
            searcher = self._searchers[sweep.index] = QLogSearcher(sweep.index)
        searcher.set_qlog(k1=sweep.k1, b=sweep.b, q=q, idf_form=sweep.idf_form)
        topics = read_topics(sweep.topics)
        results = search_topics(searcher, topics, hits=sweep.hits, threads=self.threads, progress=False)
        with tempfile.TemporaryDirectory(prefix="qlog-lolo-") as tmp:
            run = Path(tmp) / "run.txt"
            write_run(run, results, tag="lolo", qids=list(topics))
            value = trec_eval(sweep.qrels, run, metrics=[sweep.metric], per_query=False).aggregate[sweep.metric]
        self._cache[key] = value
        return value

    def close(self) -> None:
        for s in self._searchers.values():
            s.close()
        self._searchers.clear()


# --- the report ---------------------------------------------------------------------------------------

def _num(x: float | None, digits: int = 4) -> str:
    return "n/a" if x is None else f"{x:.{digits}f}"


def rule_title(result: RuleResult) -> str:
    how = (f"c fitted on the other corpora (c on all corpora: {result.c_all:.4g})" if result.mode == "fit"
           else f"fixed c = {result.c_all:g}")
    return f"h = {result.variant}, {how}"


def format_markdown(results: Sequence[RuleResult], metric: str, notes: Sequence[str] = ()) -> str:
    """The report: one table per rule, then a summary of mean recoveries beside the paper's."""
    lines = ["# Leave-one-language-out: label-free q", "",
             f"q_pred = clip(1 - c * h, q_min, 1); M = {metric}; recovery = (M(q_pred) - M(1)) / (M(q_opt) - M(1)), "
             "n/a (and left out of the mean) when M(q_opt) <= M(1). "
             "M(q_pred) marked * was measured by searching at q_pred (off the sweep's grid).", ""]
    for r in results:
        lines += [f"## {rule_title(r)}", "",
                  "| corpus | h | q_opt | c | q_pred | M(1) | M(q_opt) | M(q_pred) | M(q_pred) - M(1) | recovery |",
                  "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|"]
        for row in r.rows:
            lines.append(f"| {row.name} | {row.h:.4f} | {row.q_opt:g} | {row.c:.3f} | {row.q_pred:.3f} | "
                         f"{row.m_base:.4f} | {row.m_opt:.4f} | {row.m_pred:.4f}{'*' if row.measured else ''} | "
                         f"{row.m_pred - row.m_base:+.4f} | {_num(row.recovery, 3)} |")
        lines += ["", f"mean recovery: {_num(r.mean_recovery, 3)} over {r.counted} of {len(r.rows)} corpora "
                      f"(paper: {PAPER_RECOVERY})", ""]
    lines += ["## Summary", "", "| h | c | mean recovery | corpora counted |", "|---|---|---:|---:|"]
    for r in results:
        c = "leave-one-out fit" if r.mode == "fit" else f"{r.c_all:g}"
        lines.append(f"| {r.variant} | {c} | {_num(r.mean_recovery, 3)} | {r.counted}/{len(r.rows)} |")
    lines.append(f"| paper (h_tok) | leave-one-out fit | {PAPER_RECOVERY} | |")
    if notes:
        lines += ["", "Notes:", ""] + [f"- {n}" for n in notes]
    return "\n".join(lines) + "\n"


def run_lolo(sweeps: Sequence[Sweep], variants: Sequence[str], evaluate: Evaluate, fixed_c: float = PAPER_C,
             q_min: float = DEFAULT_Q_MIN, feature_values: Mapping[str, Mapping[str, float | None]] | None = None,
             sample_docs: int = DEFAULT_SAMPLE_DOCS, seed: int = 0) -> tuple[list[RuleResult], list[str]]:
    """Every requested rule on ``sweeps``: fitted leave-one-out, and at ``fixed_c`` for h_tok variants.

    ``feature_values`` ({sweep name: {variant: h}}) defaults to :func:`corpus_stats` of each index.
    Returns the results and notes (variants skipped, and why).
    """
    if feature_values is None:
        by_index: dict[Path, dict[str, float | None]] = {}
        for s in sweeps:
            if s.index not in by_index:
                by_index[s.index] = features(corpus_stats(s.index, sample_docs=sample_docs, seed=seed))
        feature_values = {s.name: by_index[s.index] for s in sweeps}
    results: list[RuleResult] = []
    notes: list[str] = []
    for v in variants:
        h = [feature_values[s.name].get(v) for s in sweeps]
        if any(x is None for x in h):
            lacking = ", ".join(s.name for s, x in zip(sweeps, h) if x is None)
            notes.append(f"{v}: skipped, not available for {lacking}")
            continue
        if len(sweeps) >= 2:
            results.append(evaluate_rule(sweeps, h, evaluate, variant=v, c=None, q_min=q_min))
        if v in H_TOK_VARIANTS:
            results.append(evaluate_rule(sweeps, h, evaluate, variant=v, c=fixed_c, q_min=q_min))
    return results, notes
