"""Paired significance tests for two systems scored on the same queries.

Inputs are per-query scores ``a`` (the baseline) and ``b`` (the system), aligned position by
position; every statistic is about the differences ``d = b - a``, so a positive difference
means the system is better. All functions are pure; the resampling ones take a ``seed`` and give
the same answer for the same seed, whatever the chunking used to bound memory.

Definitions (each repeated where it is computed):

- **Bootstrap**: draw ``n`` queries with replacement, ``resamples`` times; each draw gives a
  mean difference. The 95% interval is the 2.5th and 97.5th percentiles of those means
  (numpy's default linear interpolation). A **reversal** is a resample whose mean difference
  has the opposite sign of the observed mean difference, or is zero while the observed one is
  not; when the observed mean difference is zero every resample counts as a reversal, so
  ``p = 1``. ``p_bootstrap = reversals / resamples``.
- **Randomization** (paired sign-flipping): each resample flips the sign of each ``d_i`` with
  probability 1/2; two-sided, the statistic is ``|mean|``.
  ``p = (1 + #{resamples with |mean*| >= |observed mean|}) / (1 + resamples)``; the +1 counts the
  observed assignment as one of the permutations, so ``p`` is never 0 and the test stays valid
  with a finite number of resamples (Phipson & Smyth, 2010).
- **Paired t-test**: ``t = mean(d) / (sd(d) / sqrt(n))`` with the n-1 standard deviation,
  two-sided, :func:`scipy.stats.ttest_rel`'s arithmetic (the t tail from :func:`scipy.special.stdtr`);
  identical vectors give ``t = 0, p = 1``.

- **Holm** (Holm, 1979), for ``m`` tests at once: sort the p-values, multiply the i-th smallest (from 0) by
  ``m - i``, carry the running maximum upward and cap at 1; a test is significant at level alpha when its
  adjusted p is below alpha, which bounds the family-wise error by alpha without assuming independence.

"Zero" means ``|x| <= 1e-12 * max(1, max|d_i|)`` wherever a mean difference is compared
with 0 or with another one, so summing the same differences in another order (which changes
the last bits) cannot turn a tie into a win.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import NamedTuple, Sequence

import numpy as np
import pandas as pd

from qlog_pyserini.errors import QLogError

# Index matrices are drawn this many entries at a time (8 bytes each): ~32 MB, whatever n.
CHUNK_ENTRIES = 1 << 22
RELATIVE_ZERO = 1e-12


class BootstrapResult(NamedTuple):
    """Paired bootstrap of the mean difference ``b - a`` (see the module docstring)."""

    diff: float
    ci_low: float
    ci_high: float
    reversals: int
    resamples: int
    p: float


class TTestResult(NamedTuple):
    """Paired t-test of ``b - a``: the t statistic and its two-sided p-value."""

    t: float
    p: float


def _differences(a: Sequence[float] | np.ndarray, b: Sequence[float] | np.ndarray) -> np.ndarray:
    a = np.asarray(a, dtype=float)
    b = np.asarray(b, dtype=float)
    if a.ndim != 1 or a.shape != b.shape:
        raise QLogError(f"paired scores need two 1-d vectors of one length, got shapes {a.shape} and {b.shape}")
    if a.size == 0:
        raise QLogError("no queries to compare")
    if not (np.isfinite(a).all() and np.isfinite(b).all()):
        raise QLogError("scores contain NaN or infinity")
    return b - a


def _check_resamples(resamples: int) -> int:
    if not isinstance(resamples, (int, np.integer)) or isinstance(resamples, bool) or resamples < 1:
        raise QLogError(f"illegal resamples value: {resamples!r}, must be an integer >= 1")
    return int(resamples)


def _zero_tol(d: np.ndarray) -> float:
    return RELATIVE_ZERO * max(1.0, float(np.abs(d).max()))


def format_p(p: float | None, resamples: int | None = None) -> str:
    """A p-value as every report writes it: ``p = 0.0123`` (3 significant digits), ``n/a`` if missing.

    With ``resamples`` R, ``p`` is a randomization p, which counts the observed assignment and so
    is at least 1/(R + 1); that smallest value means no resample was as extreme, and is written as
    the bound ``p <= 1/(R + 1)`` (``p <= 1/10001``), never as a number that looks exact.
    """
    if p is None or p != p:
        return "n/a"
    if resamples is not None and p <= (1 + 1e-9) / (resamples + 1):
        return f"p <= 1/{resamples + 1}"
    return f"p = {p:.3g}"


def _chunks(resamples: int, n: int):
    rows = max(1, CHUNK_ENTRIES // n)
    for start in range(0, resamples, rows):
        yield min(rows, resamples - start)


def bootstrap_means(d: np.ndarray, resamples: int, seed: int) -> np.ndarray:
    """Mean of ``d`` over ``resamples`` draws of ``len(d)`` queries with replacement."""
    rng = np.random.default_rng(seed)
    n = d.size
    # rng.integers consumes its stream row by row, so drawing in chunks equals one big draw.
    return np.concatenate([d[rng.integers(0, n, size=(rows, n))].mean(axis=1) for rows in _chunks(resamples, n)])


def paired_bootstrap(a: Sequence[float] | np.ndarray, b: Sequence[float] | np.ndarray,
                     resamples: int = 10000, seed: int = 0) -> BootstrapResult:
    """Paired bootstrap over queries of the mean difference ``b - a``.

    Returns the observed mean difference, the 95% percentile interval of the resampled means,
    the number of reversals and ``p = reversals / resamples``. A reversal is a resample whose
    mean difference has the opposite sign of the observed one, or is zero while the observed
    one is not; if the observed mean difference is zero, every resample is a reversal (p = 1).
    """
    d = _differences(a, b)
    resamples = _check_resamples(resamples)
    tol = _zero_tol(d)
    observed = float(d.mean())
    means = bootstrap_means(d, resamples, seed)
    if abs(observed) <= tol:
        reversals = resamples
    elif observed > 0:
        reversals = int(np.count_nonzero(means <= tol))
    else:
        reversals = int(np.count_nonzero(means >= -tol))
    low, high = np.percentile(means, [2.5, 97.5])
    return BootstrapResult(observed, float(low), float(high), reversals, resamples, reversals / resamples)


def randomization_test(a: Sequence[float] | np.ndarray, b: Sequence[float] | np.ndarray,
                       resamples: int = 10000, seed: int = 0) -> float:
    """Two-sided paired randomization (sign-flipping) test of the mean difference ``b - a``.

    Under the null hypothesis the two systems are exchangeable on each query, so each
    difference is as likely to have either sign. Each resample flips every sign independently
    with probability 1/2 and records ``|mean|``; ``p = (1 + k) / (1 + resamples)`` where ``k``
    counts resamples with ``|mean*| >= |observed mean|``. The +1 counts the observed signs as one
    of the assignments, so p is never 0. Identical vectors give p = 1.
    """
    d = _differences(a, b)
    resamples = _check_resamples(resamples)
    tol = _zero_tol(d)
    observed = abs(float(d.mean()))
    rng = np.random.default_rng(seed)
    n = d.size
    k = 0
    for rows in _chunks(resamples, n):
        signs = rng.integers(0, 2, size=(rows, n)).astype(float) * 2.0 - 1.0
        k += int(np.count_nonzero(np.abs(signs @ d) / n >= observed - tol))
    return (1 + k) / (1 + resamples)


def paired_t_test(a: Sequence[float] | np.ndarray, b: Sequence[float] | np.ndarray) -> TTestResult:
    """Two-sided paired t-test of ``b - a``: ``t = mean(d) / (sd(d) / sqrt(n))``, n-1 degrees of freedom.

    Where the formula is 0/0 (all differences zero, e.g. identical vectors) there is no evidence
    of a difference, so this returns ``t = 0.0, p = 1.0`` instead of scipy's NaN. A constant
    non-zero difference (to the module's zero tolerance) gives ``t = ±inf, p = 0``. Fewer than
    2 queries give NaN (no variance to estimate).
    """
    d = _differences(a, b)
    if d.size < 2:
        return TTestResult(math.nan, math.nan)
    tol = _zero_tol(d)
    if np.all(np.abs(d) <= tol):
        return TTestResult(0.0, 1.0)
    # A constant difference (to the same tolerance; 0.3 - 0.1 and 0.4 - 0.2 differ in the last
    # bits) has zero variance: certain evidence of a shift, where scipy would report ~1e16 or warn.
    if np.all(np.abs(d - d[0]) <= tol):
        return TTestResult(math.copysign(math.inf, d[0]), 0.0)
    # scipy.stats.ttest_rel's arithmetic, with the t distribution's tail from scipy.special: scipy.stats
    # alone takes most of a second to import, a fixed cost of every sweep and table that tests.
    from scipy.special import stdtr

    diff = np.asarray(b, dtype=float) - np.asarray(a, dtype=float)
    t = float(np.mean(diff) / np.sqrt(np.var(diff, ddof=1) / diff.size))
    return TTestResult(t, float(min(1.0, 2.0 * stdtr(diff.size - 1, -abs(t)))))


def win_tie_loss(a: Sequence[float] | np.ndarray, b: Sequence[float] | np.ndarray, eps: float = 0.0) -> tuple[int, int, int]:
    """``(wins, ties, losses)`` of the system ``b`` against the baseline ``a``.

    A win is ``b_i - a_i > eps``, a loss ``b_i - a_i < -eps``, anything else a tie.
    """
    if not eps >= 0:
        raise QLogError(f"illegal eps value: {eps!r}, must be >= 0")
    d = _differences(a, b)
    wins = int(np.count_nonzero(d > eps))
    losses = int(np.count_nonzero(d < -eps))
    return wins, d.size - wins - losses, losses


@dataclass(frozen=True)
class ComparisonResult:
    """Baseline ``a`` against system ``b`` on one metric over the same queries.

    ``diff = mean_b - mean_a``; ``rel_diff = diff / mean_a`` (None when ``mean_a == 0``);
    ``[ci_low, ci_high]`` is the 95% bootstrap interval of the mean difference; wins/ties/losses
    are counted for ``b``. See the module docstring for the exact tests.
    """

    mean_a: float
    mean_b: float
    diff: float
    rel_diff: float | None
    ci_low: float
    ci_high: float
    reversals: int
    resamples: int
    p_bootstrap: float
    p_randomization: float
    p_ttest: float
    wins: int
    ties: int
    losses: int
    n_queries: int

    @property
    def p(self) -> float:
        """The headline p: the two-sided paired randomization test's (see the module docstring)."""
        return self.p_randomization

    def p_text(self) -> str:
        """The headline p for a report, naming its test: ``p = 0.0123 (two-sided randomization)``.

        The randomization p counts the observed assignment, so it is at least 1/(resamples + 1);
        that smallest value is written as a bound (``p <= 1/10001``): no resample was as extreme.
        """
        return f"{format_p(self.p_randomization, self.resamples)} (two-sided randomization)"

    def reversal_text(self) -> str:
        """The bootstrap reversal share, named for what it is: ``reversal share 0.0134 (134/10000)``.

        It is the share of bootstrap resamples whose mean difference does not have the observed
        sign: a one-sided quantity, about half a two-sided p, so it is never reported as "the" p.
        """
        return f"bootstrap reversal share {self.p_bootstrap:.4g} ({self.reversals}/{self.resamples})"

    def p_bootstrap_text(self) -> str:
        """The bootstrap p for a report: ``p <= 1/R`` when no resample reversed the sign.

        With R resamples the estimate cannot resolve below 1/R, so zero reversals is written as a
        bound (``p <= 1/10000``), never as ``p = 0``.
        """
        if self.reversals == 0:
            return f"p <= 1/{self.resamples}"
        return f"p = {self.p_bootstrap:.4g}"


def compare_scores(a: pd.Series, b: pd.Series, resamples: int = 10000, seed: int = 0,
                   eps: float = 0.0) -> ComparisonResult:
    """Every paired statistic of this module for baseline ``a`` and system ``b``.

    ``a`` and ``b`` are indexed by qid and must hold exactly the same queries (order does not
    matter; they are aligned on the index). Fill absent queries before calling, e.g. with 0 as
    trec_eval ``-c`` does.
    """
    for name, s in (("baseline", a), ("system", b)):
        if not s.index.is_unique:
            dup = s.index[s.index.duplicated()][0]
            raise QLogError(f"{name} scores list query {dup!r} more than once")
    only_a = a.index.difference(b.index)
    only_b = b.index.difference(a.index)
    if len(only_a) or len(only_b):
        example = (list(only_a) + list(only_b))[:3]
        raise QLogError(f"the two score vectors cover different queries ({len(only_a)} only in the baseline, "
                        f"{len(only_b)} only in the system, e.g. {', '.join(map(str, example))})")
    b = b.reindex(a.index)
    x, y = a.to_numpy(dtype=float), b.to_numpy(dtype=float)
    boot = paired_bootstrap(x, y, resamples=resamples, seed=seed)
    wins, ties, losses = win_tie_loss(x, y, eps=eps)
    mean_a, mean_b = float(x.mean()), float(y.mean())
    return ComparisonResult(
        mean_a=mean_a,
        mean_b=mean_b,
        diff=boot.diff,
        rel_diff=None if mean_a == 0 else boot.diff / mean_a,
        ci_low=boot.ci_low,
        ci_high=boot.ci_high,
        reversals=boot.reversals,
        resamples=boot.resamples,
        p_bootstrap=boot.p,
        p_randomization=randomization_test(x, y, resamples=resamples, seed=seed),
        p_ttest=paired_t_test(x, y).p,
        wins=wins,
        ties=ties,
        losses=losses,
        n_queries=len(x),
    )


MAX_RESAMPLES = 10_000_000  # about a minute per comparison here; more changes no printed digit


def check_resamples(resamples: int, option: str = "--resamples") -> int:
    """``resamples`` if it is a usable number of bootstrap/randomization resamples, else :class:`QLogError`
    (10**12 would be accepted by numpy and run for days)."""
    if isinstance(resamples, bool) or not isinstance(resamples, int) or not 1 <= resamples <= MAX_RESAMPLES:
        raise QLogError(f"{option} must be an integer from 1 to {MAX_RESAMPLES:,}, got {resamples!r}")
    return resamples


def holm(pvalues: Sequence[float]) -> list[float]:
    """Holm-adjusted p-values, in the order given (see the module docstring)."""
    m = len(pvalues)
    adjusted = [0.0] * m
    running = 0.0
    for i, k in enumerate(sorted(range(m), key=lambda j: pvalues[j])):
        running = max(running, min(1.0, (m - i) * float(pvalues[k])))
        adjusted[k] = running
    return adjusted
