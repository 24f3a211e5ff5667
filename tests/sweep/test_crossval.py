"""Cross-validated parameter choice: every query scored once, at a value chosen without it (checked
against an independent brute-force computation), deterministic by seed, and wired into the sweep."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest

from qlog_pyserini.errors import QLogError
from qlog_pyserini.sweep.crossval import choose_best, cross_validate, fold_assignment


def random_table(n: int, values: list[float], seed: int) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    # per-query scores on a coarse scale, so ties between values happen and the tie rule matters
    return pd.DataFrame(rng.integers(0, 5, size=(n, len(values))) / 4.0, index=[f"q{i}" for i in range(n)],
                        columns=values)


def brute_force(table: pd.DataFrame, fold_of: dict[str, int], reference: float | None) -> dict[str, tuple[float, float]]:
    """Independently: for each query, the value with the best mean over queries of OTHER folds, and its score there."""
    out = {}
    for q in table.index:
        others = [p for p in table.index if fold_of[p] != fold_of[q]]
        means = {v: sum(table.loc[p, v] for p in others) / len(others) for v in table.columns}
        top = max(means.values())
        tied = [v for v in table.columns if means[v] >= top - 1e-12]
        best = min(tied, key=lambda v: (abs(v - reference), v)) if reference is not None else min(tied)
        out[q] = (best, float(table.loc[q, best]))
    return out


@pytest.mark.parametrize("n, folds, seed", [(23, 5, 0), (10, 3, 7), (5, 5, 1), (4, 10, 2)])
def test_every_query_scored_once_at_a_value_chosen_without_it(n, folds, seed):
    values = [0.3, 0.6, 1.0, 1.25]
    table = random_table(n, values, seed)
    cv = cross_validate(table, reference=1.0, folds=folds, seed=seed)
    assert cv.folds == min(folds, n)
    # each query in exactly one fold, fold sizes within one of each other
    assert sorted(cv.fold_of) == sorted(table.index)
    sizes = np.bincount(list(cv.fold_of.values()))
    assert len(sizes) == cv.folds and sizes.max() - sizes.min() <= 1
    # scored exactly once: one assembled score per query, none missing
    assert list(cv.per_query.index) == list(table.index) and not cv.per_query.isna().any()
    want = brute_force(table, cv.fold_of, reference=1.0)
    for q in table.index:
        assert cv.value_of[q] == want[q][0]
        assert cv.per_query[q] == want[q][1]
        assert cv.value_of[q] == cv.chosen[cv.fold_of[q]]
    assert cv.score == pytest.approx(np.mean([want[q][1] for q in table.index]))


def test_a_query_cannot_choose_its_own_value():
    # q0 alone is best at 0.3; every other query prefers 1.0: q0 must be scored at 1.0 (chosen without it)
    table = pd.DataFrame({0.3: [1.0] + [0.0] * 9, 1.0: [0.0] + [0.5] * 9}, index=[f"q{i}" for i in range(10)])
    cv = cross_validate(table, reference=1.0, folds=10, seed=0)
    assert cv.value_of["q0"] == 1.0 and cv.per_query["q0"] == 0.0
    # the oracle on all queries (0.3 has mean 0.1, 1.0 has 0.45) agrees here, but q0's own column never counts
    assert cv.score == pytest.approx(0.45)


def test_deterministic_by_seed_and_independent_of_row_order():
    table = random_table(40, [0.5, 0.8, 1.0], seed=3)
    a = cross_validate(table, 1.0, folds=5, seed=11)
    b = cross_validate(table.iloc[::-1], 1.0, folds=5, seed=11)
    assert a.fold_of == b.fold_of and a.chosen == b.chosen and a.value_of == b.value_of
    assert a.per_query.sort_index().equals(b.per_query.sort_index())
    c = cross_validate(table, 1.0, folds=5, seed=12)
    assert c.fold_of != a.fold_of  # another seed deals other folds
    assert fold_assignment(list(table.index), 5, 11) == a.fold_of


def test_ties_go_to_the_reference_and_refusals():
    assert choose_best({0.5: 0.3, 1.0: 0.3, 1.25: 0.3}, 1.0) == 1.0
    assert choose_best({0.5: 0.3, 0.9: 0.3}, 1.0) == 0.9
    assert choose_best({2.0: 0.1, 3.0: 0.1}, None) == 2.0
    for bad in (1, 0, True):
        with pytest.raises(QLogError, match="folds"):
            fold_assignment(["a", "b", "c"], bad)
    with pytest.raises(QLogError, match="at least 2 queries"):
        fold_assignment(["a"], 5)
    with pytest.raises(QLogError, match="unique"):
        fold_assignment(["a", "a", "b"], 2)
    with pytest.raises(QLogError, match="missing"):
        cross_validate(pd.DataFrame({1.0: [0.1, None]}, index=["a", "b"]), 1.0)


@pytest.mark.jvm
def test_sweep_reports_the_cross_validated_choice(tmp_path, stdlib_index, stdlib_code, stdlib_qrels):
    from qlog_pyserini.eval.significance import compare_scores
    from qlog_pyserini.sweep.run import SweepSettings, run_sweep

    out = tmp_path / "sweep"
    settings = SweepSettings(grid=(0.3, 0.6), hits=20, resamples=300, folds=4, cv_seed=5)
    s = run_sweep(stdlib_index, stdlib_code[1], stdlib_qrels, out, settings, progress=False)
    assert s["family"] == s["name"]  # no family given: its own
    per_query = pd.read_csv(out / "per_query.csv", index_col=0)
    per_query.index = per_query.index.astype(str)
    grid = per_query[["q0.3", "q0.6", "q1"]].rename(columns={"q0.3": 0.3, "q0.6": 0.6, "q1": 1.0})
    want = brute_force(grid, per_query["cv_fold"].to_dict(), reference=1.0)
    assert per_query["cv_q"].to_dict() == {q: v for q, (v, _) in want.items()}
    assert per_query["cv_score"].to_dict() == {q: x for q, (_, x) in want.items()}
    assert s["cv"]["folds"] == 4 and s["cv"]["score"] == pytest.approx(per_query["cv_score"].mean())
    assert s["cv"]["score"] <= grid.mean().max() + 1e-12  # the oracle is the in-sample maximum
    assert abs(grid.mean().max() - s["oracle_score"]) < 5e-5  # (trec_eval's aggregate has 4 decimals)
    again = compare_scores(per_query["q1"], per_query["cv_score"], resamples=300, seed=0)
    assert s["cv"]["comparison"]["p_randomization"] == again.p_randomization
    saved = json.loads((out / "summary.json").read_text())
    assert saved["cv"]["chosen"] == s["cv"]["chosen"] and "two-sided randomization" in saved["p_text"]


def test_group_folds_keep_each_group_whole_and_are_deterministic():
    from qlog_pyserini.sweep.crossval import group_fold_assignment

    group_of = {f"{repo}-{i}": repo for repo, n in (("a", 9), ("b", 4), ("c", 4), ("d", 2), ("e", 1), ("f", 1))
                for i in range(n)}
    folds = group_fold_assignment(group_of, 3, seed=1)
    assert set(folds) == set(group_of)
    for repo in "abcdef":
        assert len({folds[q] for q, g in group_of.items() if g == repo}) == 1
    sizes = sorted(sum(1 for f in folds.values() if f == k) for k in range(3))
    assert sizes == [6, 6, 9]  # the largest group alone; the rest as even as whole groups allow
    assert folds == group_fold_assignment(dict(reversed(list(group_of.items()))), 3, seed=1)
    assert len(set(group_fold_assignment({"x": "a", "y": "b"}, 5).values())) == 2  # capped at the groups
    with pytest.raises(QLogError, match="at least 2 groups"):
        group_fold_assignment({"x": "a", "y": "a"}, 5)


def test_cross_validate_tuple_points_with_given_folds():
    """A grid over several parameters: columns are (k1, b, q) points; ties go to the point nearest the reference."""
    table = pd.DataFrame({(0.9, 0.4, 1.0): [0.5, 0.5, 0.2, 0.2], (1.2, 0.75, 1.0): [0.5, 0.5, 0.9, 0.1],
                          (0.9, 0.4, 0.5): [0.1, 0.1, 0.8, 0.8]}, index=["a", "b", "c", "d"])
    folds = {"a": 0, "b": 0, "c": 1, "d": 1}
    cv = cross_validate(table, (0.9, 0.4, 1.0), fold_of=folds)
    # fold 0 is chosen on c, d: (0.9, 0.4, 0.5) has mean 0.8; fold 1 on a, b: BM25 and the engines' default tie
    # at 0.5, and the tie goes to the reference
    assert cv.chosen == ((0.9, 0.4, 0.5), (0.9, 0.4, 1.0))
    assert cv.per_query.tolist() == [0.1, 0.1, 0.2, 0.2]
    assert cv.value_of["c"] == (0.9, 0.4, 1.0) and cv.record()["chosen_counts"] == {"0.9/0.4/0.5": 1, "0.9/0.4/1": 1}
    with pytest.raises(QLogError, match="at least 2 folds"):
        cross_validate(table, (0.9, 0.4, 1.0), fold_of={q: 0 for q in "abcd"})
