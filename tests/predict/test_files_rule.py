"""The files rule (``--q auto`` on an instance set): its choice worked out by hand on small score tables."""

from __future__ import annotations

import math

import pandas as pd
import pytest

from qlog_pyserini.errors import QLogError
from qlog_pyserini.predict.files import FILES_Q, files_auto_q, files_prediction, fit_files_q, held_out_qs
from qlog_pyserini.predict.rule import RuleSettings


def _table(groups: dict[str, dict[float, list[float]]]) -> tuple[pd.DataFrame, dict[str, str]]:
    """Scores per instance and q from ``{group: {q: [score of each instance]}}``."""
    rows, group_of = {}, {}
    for group, by_q in groups.items():
        for i in range(len(next(iter(by_q.values())))):
            qid = f"{group}-{i}"
            rows[qid] = {q: values[i] for q, values in by_q.items()}
            group_of[qid] = group
    return pd.DataFrame.from_dict(rows, orient="index"), group_of


def test_the_best_mean_gain_among_the_q_that_keep_every_group_within_the_tolerance():
    # relative changes against q = 1 (means 0.5 and 0.4): A +40% / +20% / +10%, B -10% / -0.25% / +0%
    scores, group_of = _table({"A": {1.0: [0.4, 0.6], 0.3: [0.6, 0.8], 0.6: [0.5, 0.7], 0.8: [0.45, 0.65]},
                               "B": {1.0: [0.4, 0.4], 0.3: [0.36, 0.36], 0.6: [0.399, 0.399], 0.8: [0.4, 0.4]}})
    # q = 0.3 has the best mean (+15%) but costs B 10%; q = 0.6 (+9.875%) beats q = 0.8 (+5%)
    assert fit_files_q(scores, group_of, min_group=2) == 0.6
    # with no bound on the loss, the best mean wins; with none allowed at all, 0.6 is out too
    assert fit_files_q(scores, group_of, min_group=2, tolerance=1.0) == 0.3
    assert fit_files_q(scores, group_of, min_group=2, tolerance=0.0) == 0.8


def test_within_the_caution_the_q_nearest_bm25_is_taken():
    scores, group_of = _table({"A": {1.0: [0.5], 0.5: [0.6], 0.7: [0.599]}})
    # +20% at 0.5 and +19.8% at 0.7: 0.2 points apart, inside a caution of 0.003 and outside one of 0.001
    assert fit_files_q(scores, group_of, min_group=1, caution=0.003) == 0.7
    assert fit_files_q(scores, group_of, min_group=1, caution=0.001) == 0.5


def test_a_small_group_is_scored_but_never_constrains_and_bm25_is_the_fallback():
    scores, group_of = _table({"big": {1.0: [0.5] * 3, 0.5: [0.6] * 3}, "tiny": {1.0: [0.5], 0.5: [0.1]}})
    assert fit_files_q(scores, group_of, min_group=3) == 0.5  # tiny (1 instance) loses 80% and is ignored
    assert fit_files_q(scores, group_of, min_group=1) == 1.0  # counted, it rules every q < 1 out
    assert fit_files_q(scores, group_of, min_group=4) == 1.0  # no group large enough: BM25


def test_held_out_each_unit_gets_the_q_fitted_without_its_instances():
    scores, group_of = _table({"A": {1.0: [0.5, 0.5], 0.5: [0.7, 0.7]}, "B": {1.0: [0.5, 0.5], 0.5: [0.4, 0.4]}})
    unit_of = {"A-0": "r1", "A-1": "r1", "B-0": "r2", "B-1": "r2"}
    # without r2 nothing says q = 0.5 hurts; without r1 nothing says it helps
    assert held_out_qs(scores, unit_of, group_of, min_group=1) == {"r1": 1.0, "r2": 0.5}


def test_the_shipped_q_is_a_prediction_the_search_log_names_and_corpus_rule_options_are_refused():
    prediction = files_prediction()
    assert prediction.q == FILES_Q and 0 < FILES_Q < 1 and prediction.variant == "files" and math.isnan(prediction.h_tok)
    assert "issue -> files" in prediction.note
    assert files_auto_q(RuleSettings()) == FILES_Q
    with pytest.raises(QLogError, match="--auto-"):
        files_auto_q(RuleSettings(c=3.0))
    for bad in (0, 1.5, math.nan, "0.7"):
        with pytest.raises(QLogError):
            files_prediction(bad)
    with pytest.raises(QLogError, match="reference"):
        fit_files_q(pd.DataFrame({0.5: [0.1]}, index=["x"]), {"x": "g"})
