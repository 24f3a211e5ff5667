"""Paired tests, checked against exact distributions and hand formulas (not against themselves)."""

from __future__ import annotations

import itertools
import math

import numpy as np
import pandas as pd
import pytest

import qlog_pyserini.eval.significance as sig
from qlog_pyserini.errors import QLogError
from qlog_pyserini.eval.significance import (
    compare_scores,
    paired_bootstrap,
    paired_t_test,
    randomization_test,
    win_tie_loss,
)

A = np.array([0.1, 0.2, 0.3, 0.4, 0.5])
B_BETTER = A + np.array([0.1, 0.05, 0.2, 0.1, 0.3])


def test_identical_vectors():
    boot = paired_bootstrap(A, A, resamples=500)
    assert boot.diff == 0.0
    assert boot.reversals == 500 and boot.p == 1.0
    assert (boot.ci_low, boot.ci_high) == (0.0, 0.0)
    assert randomization_test(A, A, resamples=500) == 1.0
    assert paired_t_test(A, A) == (0.0, 1.0)
    assert win_tie_loss(A, A) == (0, 5, 0)


def test_better_on_every_query_has_no_reversal():
    boot = paired_bootstrap(A, B_BETTER, resamples=1000, seed=3)
    assert boot.diff == pytest.approx(0.15)
    assert boot.reversals == 0 and boot.p == 0.0
    # Every resampled mean lies between the smallest and largest difference.
    assert 0.05 - 1e-12 <= boot.ci_low < boot.diff < boot.ci_high <= 0.3 + 1e-12
    worse = paired_bootstrap(B_BETTER, A, resamples=1000, seed=3)
    assert worse.diff == pytest.approx(-0.15) and worse.reversals == 0
    result = compare_scores(pd.Series(A), pd.Series(B_BETTER), resamples=1000)
    assert result.p_bootstrap_text() == "p <= 1/1000"


def test_bootstrap_counts_zero_means_as_reversals():
    # d = (+0.1, +0.1, +0.1, -0.1) in floating point: 0.4 - 0.3 and 0.5 - 0.6 differ in the last
    # bits, so a resample with two of each is "zero" only with the documented tolerance.
    a = np.array([0.3, 0.3, 0.3, 0.6])
    b = np.array([0.4, 0.4, 0.4, 0.5])
    # k = number of draws of the negative query ~ Binomial(4, 1/4); mean <= 0 iff k >= 2.
    exact = 1 - (3 / 4) ** 4 - 4 * (1 / 4) * (3 / 4) ** 3  # 67/256; without zeros it would be 13/256
    boot = paired_bootstrap(a, b, resamples=20000, seed=1)
    assert boot.p == pytest.approx(exact, abs=0.015)
    assert boot.p == boot.reversals / 20000


def test_randomization_matches_exact_enumeration():
    d = np.array([0.3, 0.1, -0.05, 0.2, 0.15, -0.1, 0.25])
    a = np.zeros_like(d)
    observed = abs(d.mean())
    flips = [abs(np.dot(s, d)) / d.size >= observed - 1e-12 for s in itertools.product((-1, 1), repeat=d.size)]
    exact = sum(flips) / len(flips)
    p = randomization_test(a, d, resamples=20000, seed=5)
    assert p == pytest.approx(exact, abs=0.012)
    assert randomization_test(d, a, resamples=20000, seed=5) == p  # two-sided: symmetric


def test_randomization_p_is_never_zero():
    # Only all-plus or all-minus signs reach the observed |mean|: exact p is 2/2^20, far below 1/R.
    d = np.linspace(0.1, 0.2, 20)
    p = randomization_test(np.zeros(20), d, resamples=999, seed=0)
    assert p == 1 / 1000


def test_t_statistic_matches_hand_formula():
    rng = np.random.default_rng(7)
    a = rng.random(30)
    b = a + rng.normal(0.05, 0.1, 30)
    d = b - a
    t_hand = d.mean() / (d.std(ddof=1) / math.sqrt(d.size))
    assert paired_t_test(a, b).t == pytest.approx(t_hand, rel=1e-12)


@pytest.mark.parametrize("quantile_t, p", [(2.776445, 0.05), (4.604095, 0.01)])
def test_t_test_p_matches_table(quantile_t, p):
    # Textbook t table, 4 degrees of freedom: two-sided 5% and 1% critical values.
    base = np.array([1.0, 2.0, 3.0, 4.0, 5.0]) - 3.0
    se = base.std(ddof=1) / math.sqrt(5)
    d = base + quantile_t * se
    assert paired_t_test(np.zeros(5), d).p == pytest.approx(p, abs=1e-5)


@pytest.mark.parametrize("seed, n", [(1, 5), (2, 52), (3, 1000)])
def test_t_test_equals_scipy_stats(seed, n):
    # scipy.stats.ttest_rel is the reference the lighter computation must reproduce
    from scipy import stats

    rng = np.random.default_rng(seed)
    a = rng.random(n)
    b = np.clip(a + rng.normal(0.02, 0.2, n), 0, 1)
    ref = stats.ttest_rel(b, a)
    ours = paired_t_test(a, b)
    assert ours.t == pytest.approx(float(ref.statistic), rel=1e-12)
    assert ours.p == pytest.approx(float(ref.pvalue), rel=1e-10)


def test_t_test_edge_cases():
    assert paired_t_test([0.1, 0.2], [0.3, 0.4]) == (math.inf, 0.0)
    t, p = paired_t_test([0.5], [0.7])
    assert math.isnan(t) and math.isnan(p)


def test_win_tie_loss_small_case():
    a = [0.5, 0.2, 0.3, 0.0, 0.9]
    b = [0.6, 0.2, 0.1, 0.0, 0.95]
    assert win_tie_loss(a, b) == (2, 2, 1)
    assert win_tie_loss(a, b, eps=0.06) == (1, 3, 1)
    with pytest.raises(QLogError):
        win_tie_loss(a, b, eps=-1)


def test_compare_scores_aligns_on_qids():
    a = pd.Series({"q1": 0.2, "q2": 0.4, "q3": 0.0, "q4": 0.6})
    b = pd.Series({"q4": 0.6, "q3": 0.5, "q1": 0.1, "q2": 0.8})  # same queries, other order
    r = compare_scores(a, b, resamples=2000, seed=2)
    assert r.n_queries == 4
    assert r.mean_a == pytest.approx(1.2 / 4)
    assert r.mean_b == pytest.approx(2.0 / 4)
    assert r.diff == pytest.approx(0.8 / 4)
    assert r.rel_diff == pytest.approx(0.2 / 0.3)
    assert (r.wins, r.ties, r.losses) == (2, 1, 1)
    assert r.resamples == 2000
    assert 0 < r.reversals < 2000
    assert r.p_bootstrap_text() == f"p = {r.reversals / 2000:.4g}"


def test_compare_scores_relative_difference_undefined_for_zero_baseline():
    r = compare_scores(pd.Series({"q1": 0.0, "q2": 0.0}), pd.Series({"q1": 0.5, "q2": 1.0}), resamples=100)
    assert r.rel_diff is None


def test_compare_scores_refuses_different_queries():
    with pytest.raises(QLogError, match="different queries"):
        compare_scores(pd.Series({"q1": 0.1, "q2": 0.2}), pd.Series({"q1": 0.1, "q3": 0.2}))
    with pytest.raises(QLogError):
        compare_scores(pd.Series(dtype=float), pd.Series(dtype=float))


def test_bad_resamples():
    with pytest.raises(QLogError, match="resamples"):
        paired_bootstrap(A, B_BETTER, resamples=0)


def test_chunking_does_not_change_results(monkeypatch):
    rng = np.random.default_rng(11)
    a, b = rng.random(50), rng.random(50)
    whole = (paired_bootstrap(a, b, resamples=3000, seed=4), randomization_test(a, b, resamples=3000, seed=4))
    monkeypatch.setattr(sig, "CHUNK_ENTRIES", 777)  # 15 rows per chunk, last one partial
    assert (paired_bootstrap(a, b, resamples=3000, seed=4), randomization_test(a, b, resamples=3000, seed=4)) == whole


def loop_bootstrap(a, b, resamples, seed):
    """The bootstrap one resample at a time in plain Python: the oracle for the vectorised draw."""
    d = np.asarray(b, dtype=float) - np.asarray(a, dtype=float)
    rng = np.random.default_rng(seed)
    means = []
    for _ in range(resamples):
        idx = rng.integers(0, d.size, size=d.size)
        means.append(sum(d[i] for i in idx) / d.size)
    tol = sig.RELATIVE_ZERO * max(1.0, float(np.abs(d).max()))
    observed = float(d.mean())
    if abs(observed) <= tol:
        reversals = resamples
    else:
        reversals = sum(1 for m in means if (m <= tol if observed > 0 else m >= -tol))
    return reversals, np.percentile(means, [2.5, 97.5])


def loop_randomization(a, b, resamples, seed):
    """The sign-flip test one resample at a time: each resample's n coin flips, then |mean|."""
    d = np.asarray(b, dtype=float) - np.asarray(a, dtype=float)
    rng = np.random.default_rng(seed)
    tol = sig.RELATIVE_ZERO * max(1.0, float(np.abs(d).max()))
    observed = abs(float(d.mean()))
    k = 0
    for _ in range(resamples):
        flips = rng.integers(0, 2, size=d.size)
        k += abs(sum(x if f else -x for x, f in zip(d, flips)) / d.size) >= observed - tol
    return (1 + k) / (1 + resamples)


@pytest.mark.parametrize("n,seed", [(7, 0), (120, 3), (1261, 9)])
def test_vectorised_resampling_equals_one_resample_at_a_time(n, seed):
    rng = np.random.default_rng(seed)
    a = rng.random(n)
    b = np.clip(a + rng.normal(0.01, 0.1, n), 0, 1)
    boot = paired_bootstrap(a, b, resamples=400, seed=seed)
    reversals, (low, high) = loop_bootstrap(a, b, 400, seed)
    assert boot.reversals == reversals
    assert (boot.ci_low, boot.ci_high) == pytest.approx((low, high), abs=1e-12)
    assert randomization_test(a, b, resamples=400, seed=seed) == loop_randomization(a, b, 400, seed)


def test_one_p_formatter():
    assert sig.format_p(0.01234) == "p = 0.0123"
    assert sig.format_p(1 / 10001, 10000) == "p <= 1/10001"
    assert sig.format_p(2 / 10001, 10000) == "p = 0.0002"
    assert sig.format_p(1 / 10001) == "p = 0.0001"  # no resamples: a plain p (a t-test's)
    assert sig.format_p(None) == sig.format_p(float("nan")) == "n/a"
    # 40 queries all better: a sign flip as extreme as the observed one has chance 2 / 2**40.
    base = np.linspace(0.1, 0.5, 40)
    result = compare_scores(pd.Series(base), pd.Series(base + 0.1), resamples=100)
    assert result.p_randomization == 1 / 101
    assert result.p_text() == "p <= 1/101 (two-sided randomization)"
    from qlog_pyserini.compare.comparison import COMPARISON_HEADERS, comparison_cells

    cells = dict(zip(COMPARISON_HEADERS, comparison_cells(result, "ndcg_cut.10")))
    assert cells["p (two-sided randomization)"] == "p <= 1/101"


def test_no_other_module_formats_a_p_bound():
    # compare, table, reproduce and sweep all call format_p; a second spelling would drift from it.
    from conftest import ROOT

    others = [p for p in (ROOT / "qlog_pyserini").rglob("*.py")
              if p.name != "significance.py" and 'p <= 1/' in p.read_text(encoding="utf-8")]
    assert others == []


def test_holm_matches_its_definition_on_the_textbook_example_and_bonferroni_bounds():
    from qlog_pyserini.eval.significance import holm

    # Holm's step-down on four tests: 0.005*4, 0.01*3, 0.03*2, then max(0.04*1, 0.06) (the running maximum)
    assert holm([0.01, 0.04, 0.03, 0.005]) == pytest.approx([0.03, 0.06, 0.06, 0.02])
    rng = np.random.default_rng(7)
    for _ in range(200):
        p = rng.uniform(0, 1, size=rng.integers(1, 12)).tolist()
        h = holm(p)
        m = len(p)
        # never below the raw p, never above Bonferroni's m*p (capped at 1), monotone in the raw p
        assert all(pi - 1e-15 <= hi <= min(1.0, m * pi) + 1e-15 for pi, hi in zip(p, h))
        order = np.argsort(p)
        assert all(h[a] <= h[b] + 1e-15 for a, b in zip(order, order[1:]))
    assert holm([]) == []
