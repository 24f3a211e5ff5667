"""The files rule (``--q auto-files`` on an instance set): its choices worked out by hand on small score tables."""

from __future__ import annotations

import math

import pandas as pd
import pytest

from qlog_pyserini.errors import QLogError
from qlog_pyserini.predict.files import (
    FILES_MIN_LENGTH,
    FILES_Q,
    FilesRule,
    files_rule_for,
    fit_files_rule,
    held_out_rules,
    scored_at,
)
from qlog_pyserini.predict.rule import RuleSettings

GRID = (0.0, 300.0, 1000.0)


def _table(groups: dict[str, dict[float, list[float]]]) -> tuple[pd.DataFrame, dict[str, str]]:
    """Scores per instance and q from ``{group: {q: [score of each instance]}}``."""
    rows, group_of = {}, {}
    for group, by_q in groups.items():
        for i in range(len(next(iter(by_q.values())))):
            qid = f"{group}-{i}"
            rows[qid] = {q: values[i] for q, values in by_q.items()}
            group_of[qid] = group
    return pd.DataFrame.from_dict(rows, orient="index"), group_of


def _fit(scores, lengths, group_of, **kw):
    return fit_files_rule(scores, lengths, group_of, q_floor=0.5, length_grid=GRID, **kw)


def test_the_best_mean_gain_among_rules_that_keep_every_group_within_the_tolerance():
    # group A: long files (2,000 tokens); B: short ones (100). Relative changes against q = 1 (means 0.5, 0.4):
    # A +20% at 0.6, +10% at 0.8; B -10% at 0.6, -0.25% at 0.8
    scores, group_of = _table({"A": {1.0: [0.4, 0.6], 0.6: [0.5, 0.7], 0.8: [0.45, 0.65]},
                               "B": {1.0: [0.4, 0.4], 0.6: [0.36, 0.36], 0.8: [0.399, 0.399]}})
    lengths = {"A-0": 2000, "A-1": 2000, "B-0": 100, "B-1": 100}
    # a length of 300 or 1,000 moves A alone: +10% mean at 0.6 (B unchanged); the most cautious such rule is
    # the longest length, 1,000 (A still reaches it)
    assert _fit(scores, lengths, group_of, min_group=2) == FilesRule(q=0.6, min_length=1000)
    # every file the same length: the length cannot tell A from B, so 0.6 (B -10%) is out and 0.8 (+4.875%) wins
    same = dict.fromkeys(lengths, 2000)
    assert _fit(scores, same, group_of, min_group=2) == FilesRule(q=0.8, min_length=1000)
    # nothing may be lost: 0.8 is out too, and nothing is left but BM25 everywhere
    assert _fit(scores, same, group_of, min_group=2, tolerance=0.0) == FilesRule(q=1.0, min_length=math.inf)
    # with no bound on the loss, 0.6 everywhere (+5%) beats 0.8 (+4.875%) when no caution is asked, and
    # loses to it within 0.2 points
    assert _fit(scores, same, group_of, min_group=2, tolerance=1.0, caution=0.0) == FilesRule(q=0.6, min_length=1000)
    assert _fit(scores, same, group_of, min_group=2, tolerance=1.0) == FilesRule(q=0.8, min_length=1000)


def test_within_the_caution_the_most_cautious_rule_is_taken_and_the_floor_holds():
    scores, group_of = _table({"A": {1.0: [0.5], 0.5: [0.6], 0.7: [0.599], 0.3: [0.9]}})
    lengths = {"A-0": 500}
    # q = 0.3 is below the floor; +20% at 0.5 and +19.8% at 0.7: inside a caution of 0.003, outside one of 0.001
    assert _fit(scores, lengths, group_of, min_group=1, caution=0.003) == FilesRule(q=0.7, min_length=300)
    assert _fit(scores, lengths, group_of, min_group=1, caution=0.001) == FilesRule(q=0.5, min_length=300)
    assert fit_files_rule(scores, lengths, group_of, q_floor=0.2, length_grid=GRID, min_group=1).q == 0.3


def test_a_small_group_is_scored_but_never_constrains_and_bm25_is_the_fallback():
    scores, group_of = _table({"big": {1.0: [0.5] * 3, 0.5: [0.6] * 3}, "tiny": {1.0: [0.5], 0.5: [0.1]}})
    lengths = dict.fromkeys(scores.index, 50)
    never = FilesRule(q=1.0, min_length=math.inf)
    assert _fit(scores, lengths, group_of, min_group=3) == FilesRule(q=0.5, min_length=0)  # tiny is ignored
    assert _fit(scores, lengths, group_of, min_group=1) == never  # counted, it rules every q < 1 out
    assert _fit(scores, lengths, group_of, min_group=4) == never  # no group large enough


def test_held_out_each_unit_gets_the_rule_fitted_without_its_instances_and_is_scored_by_it():
    scores, group_of = _table({"A": {1.0: [0.5, 0.5], 0.5: [0.7, 0.7]}, "B": {1.0: [0.5, 0.5], 0.5: [0.4, 0.4]}})
    lengths = dict.fromkeys(scores.index, 400)
    unit_of = {"A-0": "r1", "A-1": "r1", "B-0": "r2", "B-1": "r2"}
    held = held_out_rules(scores, lengths, unit_of, group_of, q_floor=0.5, length_grid=GRID, min_group=1)
    # without r2 nothing says q = 0.5 hurts; without r1 nothing says it helps
    assert held == {"r1": FilesRule(q=1.0, min_length=math.inf), "r2": FilesRule(q=0.5, min_length=300)}
    assert scored_at(scores, lengths, held["r2"]).to_dict() == {"A-0": 0.7, "A-1": 0.7, "B-0": 0.4, "B-1": 0.4}
    assert scored_at(scores, lengths, FilesRule(q=0.5, min_length=401)).eq(0.5).all()


def test_the_shipped_rule_its_prediction_and_refusals():
    rule = FilesRule()
    assert (rule.q, rule.min_length) == (FILES_Q, FILES_MIN_LENGTH) and 0 < FILES_Q < 1
    assert rule.q_for(FILES_MIN_LENGTH) == FILES_Q and rule.q_for(FILES_MIN_LENGTH - 1) == 1.0
    long, short = rule.predict(FILES_MIN_LENGTH * 2), rule.predict(1.0)
    assert long.q == FILES_Q and long.variant == "files" and ">=" in long.note and short.q == 1.0 and "<" in short.note
    assert files_rule_for(RuleSettings()) == rule
    with pytest.raises(QLogError, match="--auto-"):
        files_rule_for(RuleSettings(c=3.0))
    for bad in ({"q": 0}, {"q": 1.5}, {"q": math.nan}, {"q": "0.7"}, {"min_length": -1}):
        with pytest.raises(QLogError):
            FilesRule(**bad)
    with pytest.raises(QLogError, match="reference"):
        fit_files_rule(pd.DataFrame({0.5: [0.1]}, index=["x"]), {"x": 1}, {"x": "g"})
