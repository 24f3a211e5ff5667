"""Leave-one-family-out of the per-query rule, on synthetic per-query tables whose answers are known."""

from __future__ import annotations

import pandas as pd
import pytest

from qlog_pyserini.errors import QLogError
from qlog_pyserini.lolo.per_query import (
    QueryEvidence,
    candidate_rules,
    fit_query_rule,
    leave_one_family_out_query,
    query_family,
    rule_qs,
    score_rule,
)
from qlog_pyserini.predict.query_rule import QueryRuleSettings
from qlog_pyserini.predict.rule import predict_from_stats

GRID = [round(0.3 + 0.05 * i, 10) for i in range(15)]  # 0.3 .. 1.0


def corpus(name: str, h: float, docs: int, rare_best: float, common_best: float, kind: str = "code",
           n: int = 20) -> QueryEvidence:
    """Half the queries have a term in one document and score best at ``rare_best``, the others (every
    term in 500 documents) at ``common_best``; each query's curve is a tent of height 0.2 over 0.4."""
    rows, dfs = {}, {}
    for i in range(n):
        rare = i % 2 == 0
        best = rare_best if rare else common_best
        rows[f"q{i}"] = {q: round(0.4 + 0.2 * max(0.0, 1 - abs(q - best) / 0.4), 6) for q in GRID}
        dfs[f"q{i}"] = [1, 300] if rare else [500, 800]
    scores = pd.DataFrame.from_dict(rows, orient="index")
    prediction = predict_from_stats({"documents": docs, "h_tok": {}, "df_slope": {"full": None, "sample": 2.0 + h}})
    mean = scores.mean()
    return QueryEvidence(name, query_family(name), kind, docs, scores, dfs, prediction, float(mean.idxmax()))


def test_families_join_query_variants_and_subsamples():
    assert query_family("jdk-unnamed") == query_family("jdk-named") == query_family("jdk") == "jdk"
    assert query_family("python-code-2k") == "python-code-2k"  # size subsamples: the family the sweep records


def test_rule_scores_are_grid_lookups_per_query():
    e = corpus("a", 0.3, 50000, rare_best=0.5, common_best=1.0)
    rule = QueryRuleSettings(rare_df=5, gain=2.0, q_floor=0.4)
    qs = rule_qs(e, rule)
    # corpus move 1 - q before rounding: w = 50000 / 55000, q0 = clip(1 - 2.5 * 0.3, 0.65, 1) = 0.65
    move = 50000 / 55000 * 0.35
    assert qs["q0"] == pytest.approx(max(0.4, -(-round((1 - 2 * move) / 0.05, 6) // 1) * 0.05))
    assert qs["q1"] == 1.0  # 1 - 2 * move * 5/500 rounds up to 1
    row = score_rule(e, rule)
    want = sum(e.scores.at[qid, q] for qid, q in qs.items()) / len(qs)
    assert row.m_query == pytest.approx(want) and row.m_base == pytest.approx(e.scores[1.0].mean())
    assert row.m_pq_oracle == pytest.approx(0.6)  # every query reaches its tent's top on the grid
    assert sum(row.q_distribution.values()) == 20


def test_fit_prefers_gain_but_never_breaks_a_training_corpus():
    # code corpora whose rare-term queries gain from q = 0.5; a text-like corpus where they lose
    good = [corpus("a", 0.3, 50000, 0.5, 1.0), corpus("b", 0.25, 20000, 0.55, 1.0)]
    hurt = corpus("c", 0.3, 50000, 1.0, 1.0)
    candidates = candidate_rules(rare_dfs=(1, 5), gains=(0.0, 0.5, 1.0, 2.0), q_floors=(0.4, 0.6))
    rule = fit_query_rule(good, candidates)
    assert all(score_rule(e, rule).rel_change > 0 for e in good)
    safe = fit_query_rule(good + [hurt], candidates)
    assert score_rule(hurt, safe).rel_change >= -0.0025
    assert sum(1 - q for q in rule_qs(hurt, safe).values()) < sum(1 - q for q in rule_qs(hurt, rule).values())


def test_leave_one_family_out_never_sees_the_held_out_family():
    a, a_variant = corpus("a", 0.3, 50000, 0.5, 1.0), corpus("a-unnamed", 0.3, 50000, 0.5, 1.0)
    b = corpus("b", 0.3, 50000, 1.0, 1.0)  # nothing to gain: trained on b alone, the fit stays cautious
    rows = leave_one_family_out_query([a, a_variant, b], candidate_rules())
    by_name = {r.name: r for r in rows}
    assert by_name["a"].rule == fit_query_rule([b], candidate_rules())
    assert by_name["b"].rule == fit_query_rule([a, a_variant], candidate_rules())
    with pytest.raises(QLogError, match="two families"):
        leave_one_family_out_query([a, a_variant], candidate_rules())


def test_off_grid_q_is_an_error():
    e = corpus("a", 0.3, 50000, 0.5, 1.0)
    with pytest.raises(QLogError, match="not a point of the sweep's grid"):
        e.score({qid: 0.1 for qid in e.scores.index})


def test_a_coarse_grid_skips_the_per_query_report_before_reading_any_index(tmp_path):
    """reproduce --quick's grid (0.1, 0.3, ...) holds few of the 0.05 steps the rule picks: the report says so."""
    from qlog_pyserini.lolo.fit import Sweep
    from qlog_pyserini.lolo.per_query import per_query_report

    def sweep(name: str, grid: list[float]) -> Sweep:
        folder = tmp_path / name
        folder.mkdir()
        (folder / "per_query.csv").write_text("qid," + ",".join(f"q{q:g}" for q in grid) + "\n")
        # no index exists: reading any term statistics would fail
        return Sweep(name, tmp_path / "no-index", tmp_path / "t.tsv", tmp_path / "qrels", "ndcg_cut.10",
                     {q: 0.5 for q in grid}, 0.5, 1.0, 0.5, folder=folder)

    fine = sweep("fine", GRID)
    coarse = sweep("coarse", [0.1, 0.3, 0.5, 0.7, 1.0])
    text, payload = per_query_report([fine, coarse], "ndcg_cut.10", ())
    assert "Not evaluated: the grid of the sweep of coarse lacks" in text and "fine" not in text.split("lacks")[0]
    assert payload == {}
