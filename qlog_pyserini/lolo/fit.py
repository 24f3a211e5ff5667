"""Leave-one-family-out, the fitting side: the sweeps it reads, the rule candidates, and the pure arithmetic.

A family is a corpus with its nested size subsamples (``summary.json``'s ``family``, which ``sweep --family``
records; a sweep without one is its own family). Held out one family at a time, the label-free rule's
constants are fitted on the other families and judged on the held-out one: how much of the oracle gain
the label-free q recovers, and whether it ever hurts. Measuring M(q) off a sweep's grid is
:mod:`qlog_pyserini.lolo.evaluate`; the markdown and JSON report, :mod:`qlog_pyserini.lolo.report`.

The default evaluation (:func:`select_shrinkage`, :func:`leave_one_family_out`, :func:`fit_rule`) judges the
full rule of :mod:`qlog_pyserini.predict.rule`; the per-feature report (``--variant``, :func:`run_lolo`)
fits only c of ``clip(1 - c * h, q_min, 1)``. How each fits and what recovery means: docs/label-free-q.md
("How the rule is evaluated"). Everything here is pure and takes M(q) as a callback, so it is tested on
synthetic sweeps with known answers.
"""

from __future__ import annotations

import math
import os
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, Callable, Mapping, Sequence

from qlog_pyserini.errors import QLogError
from qlog_pyserini.formula import DEFAULT_B, DEFAULT_K1, check_form
from qlog_pyserini.predict.rule import DEFAULT_STEP, DEFAULT_VARIANT, PAPER_C, PAPER_Q_MIN, auto_q, q_from_h
from qlog_pyserini.stats.statistics import DEFAULT_SAMPLE_DOCS, FEATURES, H_TOK_VARIANTS, corpus_stats, features
from qlog_pyserini.sweep.results import SUMMARY
from qlog_pyserini.sweep.results import read as read_result

GRID_TOLERANCE = 1e-9
DEFAULT_VARIANTS = ("hapax-per-token", "sample-df-slope")  # the paper's h_tok and the size-comparable slope
DEFAULT_SHRINKS = (0, 1000, 2000, 3000, 5000, 10000)
REQUIRED_KEYS = ("name", "index", "topics", "qrels", "metric", "parameter", "grid", "scores",
                 "baseline_score", "oracle_value", "oracle_score", "idf_form")


@dataclass(frozen=True)
class LoloOptions:
    """What a leave-one-family-out evaluation is asked for; :meth:`check` refuses bad values before any work."""

    text: Sequence[str] = ()  # natural-language corpora (or families); the others count as code
    auto_query_only: bool = False  # only the per-query rule's report (read from per_query.csv, no search)
    fit_variants: Sequence[str] = (DEFAULT_VARIANT,)  # features the rule fit may choose from
    shrinks: Sequence[int] = DEFAULT_SHRINKS  # shrinkage constants n0 to choose from
    variants: Sequence[str] = ()  # the per-feature report's features ("all": every one)
    c: float = PAPER_C  # the per-feature report's fixed c
    q_min: float = PAPER_Q_MIN  # the per-feature report's lowest q
    sample_docs: int = DEFAULT_SAMPLE_DOCS
    seed: int = 0
    threads: int = 1

    def check(self) -> LoloOptions:
        """The options with variants deduplicated and ``all`` expanded; QLogError naming the bad one."""
        variants = list(dict.fromkeys(self.variants))
        if "all" in variants:
            variants = list(FEATURES)
        fit_variants = list(dict.fromkeys(self.fit_variants or (DEFAULT_VARIANT,)))
        unknown = [v for v in variants + fit_variants if v not in FEATURES]
        if unknown:
            raise QLogError(f"unknown variant {unknown[0]!r}; known: {', '.join(FEATURES)} or 'all'")
        for name, value in (("--c", self.c), ("--q-min", self.q_min)):
            if not math.isfinite(value):
                raise QLogError(f"{name} must be finite, got {value}")
        if self.q_min > 1:
            raise QLogError(f"--q-min must be at most 1, got {self.q_min}")
        if self.threads < 1:
            raise QLogError(f"--threads must be at least 1, got {self.threads}")
        shrinks = sorted(set(self.shrinks))
        if not shrinks or min(shrinks) < 0:
            raise QLogError(f"--shrink-docs {','.join(map(str, self.shrinks))!r} must list integers >= 0")
        return replace(self, variants=variants, fit_variants=fit_variants, shrinks=shrinks)


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
    docs: int | None = None
    family: str = ""  # the corpus this one is a subsample of; "" until read: the sweep's own name

    def __post_init__(self) -> None:
        if not self.family:
            object.__setattr__(self, "family", self.name)

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
    path = folder / SUMMARY
    summary = read_result(folder)
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
            b=float(summary.get("b", DEFAULT_B)), hits=int(summary.get("hits", 1000)), folder=folder,
            docs=int(summary["docs"]) if "docs" in summary else None, family=str(summary.get("family") or ""))
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


def load_sweeps(folders: Sequence[str | os.PathLike]) -> tuple[list[Sweep], str]:
    """The sweeps, checked to have unique names and one metric; returns them and the metric."""
    sweeps = [read_sweep(d) for d in folders]
    names = [s.name for s in sweeps]
    if len(set(names)) != len(names):
        raise QLogError(f"sweep names must be unique, got {names}")
    metrics = {s.metric for s in sweeps}
    if len(metrics) != 1:
        raise QLogError(f"all sweeps must use one metric, got {sorted(metrics)}")
    return sweeps, metrics.pop()


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
        raise QLogError(f"{len(h)} h values but {len(q_opt)} q_opt values")
    sxx = sum(x * x for x in h)
    if sxx == 0:
        return 0.0
    return sum(x * (1.0 - q) for x, q in zip(h, q_opt)) / sxx


def leave_one_out_c(h: Sequence[float], q_opt: Sequence[float]) -> list[float]:
    """For each corpus i, :func:`fit_c` on all corpora but i (at least two corpora are needed)."""
    if len(h) < 2:
        raise QLogError("leave-one-out needs at least two corpora")
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
    """A per-feature rule evaluated one corpus held out at a time: per-corpus rows and the mean recovery."""

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
                  c: float | None = None, q_min: float = PAPER_Q_MIN) -> RuleResult:
    """Predict each corpus's q from its ``h`` and score it.

    ``c`` None fits c on the other corpora (leave one out); a number uses it for every corpus.
    ``evaluate(sweep, q)`` gives M(q) for a q that is not on the sweep's grid.
    """
    if len(sweeps) != len(h):
        raise QLogError(f"{len(sweeps)} sweeps but {len(h)} h values")
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


def run_lolo(sweeps: Sequence[Sweep], variants: Sequence[str], evaluate: Evaluate, fixed_c: float = PAPER_C,
             q_min: float = PAPER_Q_MIN, feature_values: Mapping[str, Mapping[str, float | None]] | None = None,
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


# --- the safe rule: fitted and judged leave-one-family-out --------------------------------------------

SAFETY_FLOOR = -0.005  # the requirement: NDCG@10 at auto at most 0.5% (relative) below BM25 on every corpus
FIT_FLOOR = -0.0025  # what a candidate must keep on every TRAINING corpus: half the requirement, a margin
RECOVERY_TARGET = 0.5  # the requirement: mean held-out recovery of the oracle gain on code
RECOVERY_TOLERANCE = 0.03  # candidates this close to the best mean recovery count as equals; the cautious one wins


@dataclass(frozen=True)
class RuleParams:
    """One candidate of the label-free rule (:func:`qlog_pyserini.predict.rule.auto_q`)."""

    variant: str
    c: float
    q_min: float
    shrink_docs: int
    step: float = DEFAULT_STEP
    h0: float = 0.0

    def q(self, h: float, docs: int) -> float:
        return auto_q(h, docs, self.c, self.q_min, self.shrink_docs, self.step, self.h0)

    def label(self) -> str:
        return (f"h = {self.variant}, h0 = {self.h0:g}, c = {self.c:g}, q_min = {self.q_min:g}, "
                f"shrink n0 = {self.shrink_docs}, step = {self.step:g}")


@dataclass(frozen=True)
class Evidence:
    """One corpus as the rule fit sees it: its sweep, size, features, family and kind."""

    sweep: Sweep
    docs: int
    features: Mapping[str, float | None]
    family: str
    kind: str = "code"  # "code" or "text"

    @property
    def name(self) -> str:
        return self.sweep.name


def candidate_grid(variants: Sequence[str] = (DEFAULT_VARIANT,),
                   cs: Sequence[float] = (0.5, 0.75, 1.0, 1.25, 1.5, 2.0, 2.5, 3.0, 4.0),
                   q_mins: Sequence[float] = (0.55, 0.6, 0.65, 0.7, 0.75, 0.8),
                   shrinks: Sequence[int] = (0, 500, 1000, 2000, 5000, 10000),
                   step: float = DEFAULT_STEP, h0s: Sequence[float] = (0.0,)) -> list[RuleParams]:
    """Every combination: the search space of :func:`fit_rule`."""
    return [RuleParams(v, c, m, n, step, h0) for v in variants for c in cs for m in q_mins for n in shrinks
            for h0 in h0s]


@dataclass(frozen=True)
class AutoRow:
    """One held-out corpus under the rule fitted without its family."""

    name: str
    family: str
    kind: str
    docs: int
    h: float
    params: RuleParams
    q_auto: float
    q_opt: float
    m_base: float
    m_opt: float
    m_auto: float
    measured: bool

    @property
    def rel_change(self) -> float:
        """(M(q_auto) - M(1)) / M(1): the relative change against BM25."""
        return (self.m_auto - self.m_base) / self.m_base if self.m_base else 0.0

    @property
    def recovery(self) -> float | None:
        return recovery(self.m_auto, self.m_base, self.m_opt)


def _outcome(e: Evidence, p: RuleParams, evaluate: Evaluate) -> tuple[float, float, bool]:
    h = e.features.get(p.variant)
    q = p.q(0.0 if h is None else h, e.docs)
    on_grid = e.sweep.score_at(q)
    return q, (on_grid if on_grid is not None else float(evaluate(e.sweep, q))), on_grid is None


def fit_rule(training: Sequence[Evidence], candidates: Sequence[RuleParams], evaluate: Evaluate,
             floor: float = FIT_FLOOR, tolerance: float = RECOVERY_TOLERANCE) -> RuleParams:
    """The most cautious of the near-best safe candidates on ``training``.

    Safe: every training corpus stays at least ``floor`` (relative) above BM25. Near-best: a mean
    recovery on the training code corpora (those with a gain to recover) within ``tolerance`` of the
    best safe candidate's. Most cautious: the smallest total move away from q = 1 over the training
    corpora (then the smaller c, larger q_min, larger n0). Preferring caution among near-equals is
    what keeps the rule from being tuned to the last digit of the corpora it was fitted on. If no
    candidate is safe, the one with the best worst case is returned (safety first).
    """
    if not training or not candidates:
        raise ValueError("fit_rule needs training corpora and candidates")
    scored = []
    for p in candidates:
        if any(e.features.get(p.variant) is None for e in training):
            continue
        worst, recs, moved = math.inf, [], 0.0
        for e in training:
            q, m, _ = _outcome(e, p, evaluate)
            worst = min(worst, (m - e.sweep.m_base) / e.sweep.m_base if e.sweep.m_base else 0.0)
            moved += 1.0 - q
            r = recovery(m, e.sweep.m_base, e.sweep.oracle_score)
            if e.kind == "code" and r is not None:
                recs.append(r)
        scored.append((p, worst, sum(recs) / len(recs) if recs else 0.0, moved))
    if not scored:
        raise ValueError("no candidate's feature is available on every training corpus")
    safe = [x for x in scored if x[1] >= floor - 1e-12]
    if not safe:
        return max(scored, key=lambda x: (x[1], -x[3]))[0]
    top = max(x[2] for x in safe)
    near = [x for x in safe if x[2] >= top - tolerance]
    return min(near, key=lambda x: (round(x[3], 9), -x[0].h0, x[0].c, -x[0].q_min, -x[0].shrink_docs))[0]


def leave_one_family_out(corpora: Sequence[Evidence], candidates: Sequence[RuleParams], evaluate: Evaluate,
                         floor: float = FIT_FLOOR) -> list[AutoRow]:
    """For each corpus: the rule fitted on every corpus of OTHER families, applied to it."""
    rows = []
    fitted: dict[str, RuleParams] = {}
    for e in corpora:
        if e.family not in fitted:
            training = [t for t in corpora if t.family != e.family]
            fitted[e.family] = fit_rule(training, candidates, evaluate, floor)
        p = fitted[e.family]
        q, m, measured = _outcome(e, p, evaluate)
        rows.append(AutoRow(name=e.name, family=e.family, kind=e.kind, docs=e.docs,
                            h=e.features.get(p.variant) or 0.0, params=p, q_auto=q, q_opt=e.sweep.oracle_value,
                            m_base=e.sweep.m_base, m_opt=e.sweep.oracle_score, m_auto=m, measured=measured))
    return rows


def apply_rule(corpora: Sequence[Evidence], params: RuleParams, evaluate: Evaluate) -> list[AutoRow]:
    """One fixed rule on every corpus (e.g. the default, fitted on all of them: in-sample)."""
    rows = []
    for e in corpora:
        q, m, measured = _outcome(e, params, evaluate)
        rows.append(AutoRow(name=e.name, family=e.family, kind=e.kind, docs=e.docs,
                            h=e.features.get(params.variant) or 0.0, params=params, q_auto=q,
                            q_opt=e.sweep.oracle_value, m_base=e.sweep.m_base, m_opt=e.sweep.oracle_score,
                            m_auto=m, measured=measured))
    return rows


def auto_summary(rows: Sequence[AutoRow]) -> dict[str, Any]:
    """Worst relative change, corpora below the 0.5% floor, mean recovery on code (all / full-size only)."""
    code = [r.recovery for r in rows if r.kind == "code" and r.recovery is not None]
    full = [r.recovery for r in rows if r.kind == "code" and r.recovery is not None and r.family == r.name]
    worst = min(rows, key=lambda r: r.rel_change) if rows else None
    return {"corpora": len(rows), "worst_rel_change": worst.rel_change if worst else None,
            "worst_corpus": worst.name if worst else None,
            "below_floor": [r.name for r in rows if r.rel_change < SAFETY_FLOOR - 1e-12],
            "mean_recovery_code": sum(code) / len(code) if code else None, "code_counted": len(code),
            "mean_recovery_code_full_size": sum(full) / len(full) if full else None, "full_size_counted": len(full)}


def collect_evidence(sweeps: Sequence[Sweep], text: Sequence[str] = (), sample_docs: int = DEFAULT_SAMPLE_DOCS,
                     seed: int = 0, feature_values: Mapping[str, Mapping[str, float | None]] | None = None,
                     docs: Mapping[str, int] | None = None) -> list[Evidence]:
    """:class:`Evidence` for each sweep: features of its index (computed unless given), size, family, kind.

    ``text`` names the natural-language corpora (their families); every other corpus counts as code.
    """
    out = []
    cache: dict[Path, tuple[dict, int]] = {}
    for s in sweeps:
        if feature_values is not None and docs is not None:
            f, n = feature_values[s.name], docs[s.name]
        else:
            if s.index not in cache:
                stats = corpus_stats(s.index, sample_docs=sample_docs, seed=seed)
                cache[s.index] = (features(stats), int(stats["documents"]))
            f, n = cache[s.index]
        out.append(Evidence(sweep=s, docs=n, features=f, family=s.family,
                            kind="text" if s.name in text or s.family in text else "code"))
    return out


@dataclass(frozen=True)
class ShrinkSelection:
    """Leave-one-family-out outcomes for each fixed shrinkage n0, and the n0 chosen from them."""

    outcomes: dict[int, list[AutoRow]]
    chosen: int


def select_shrinkage(corpora: Sequence[Evidence], candidates: Sequence[RuleParams], evaluate: Evaluate,
                     shrinks: Sequence[int], floor: float = FIT_FLOOR, target: float = RECOVERY_TARGET) -> ShrinkSelection:
    """Pick n0 by leave-one-family-out evaluation, never by in-sample fit.

    For each n0, the other constants are fitted without each held-out family (:func:`leave_one_family_out`)
    on the candidates with that n0. Requirements first: an n0 is admissible when
    no held-out corpus falls more than 0.5% below BM25 and the mean held-out recovery on code reaches
    ``target``; the chosen n0 is the LARGEST admissible one (the most shrinkage toward BM25 on small
    corpora that the evidence allows, since small corpora are where a label-free rule is riskiest).
    Without an admissible n0: the safe one with the best recovery; without a safe one, the best worst case.
    """
    outcomes = {}
    for n0 in shrinks:
        pool = [replace(c, shrink_docs=n0) for c in candidates]
        pool = list(dict.fromkeys(pool))
        outcomes[n0] = leave_one_family_out(corpora, pool, evaluate, floor)

    def key(n0: int) -> tuple:
        s = auto_summary(outcomes[n0])
        safe = not s["below_floor"]
        rec = s["mean_recovery_code"] or 0.0
        return (safe, safe and rec >= target, n0 if safe and rec >= target else (rec if safe else s["worst_rel_change"]))

    return ShrinkSelection(outcomes=outcomes, chosen=max(shrinks, key=key))
