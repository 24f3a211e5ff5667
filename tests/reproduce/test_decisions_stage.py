"""The decisions stage: each registered decision's pools are the per-instance values of the issues and held-out
stages' own sweeps, pooled again here, and the verdict is the registered rule applied to the pooled MRR."""

from __future__ import annotations

import json

import pandas as pd
import pytest
from instances.gitrepos import module_history
from markdown_tables import markdown_rows

from qlog_pyserini.reproduce import decisions, held_out, issues
from qlog_pyserini.reproduce.cache import Config
from qlog_pyserini.sweep.instances import LOCALIZED

BASE, CAND = f"{LOCALIZED}auto", f"{LOCALIZED}auto+history"


def _frame(base: list[float], cand: list[float]) -> pd.DataFrame:
    """A per-instance table with both configurations' Hit@1 (1 where the reciprocal rank is 1) and MRR."""
    return pd.DataFrame({f"{BASE}:recip_rank": base, f"{CAND}:recip_rank": cand,
                         f"{BASE}:success.1": [float(v == 1) for v in base],
                         f"{CAND}:success.1": [float(v == 1) for v in cand]},
                        index=[f"i{k}" for k in range(len(base))])  # the same ids in every set


def _frames(shared: tuple[list[float], list[float]], history: tuple[list[float], list[float]]) -> dict:
    groups = {g: {} for g in decisions.GROUPS}
    groups[decisions.SHARED] = {"c": _frame(*shared)}
    groups[decisions.HISTORIES] = {"history-x": _frame(*history)}
    return groups


DECISION = decisions.Decision("test", "0000000", "auto", "auto+history",
                              (decisions.Pool("all", (decisions.SHARED, decisions.HISTORIES), "rise"),
                               decisions.Pool("shared", (decisions.SHARED,), "hold")))


def test_the_rule_is_applied_to_the_pooled_mrr_of_every_analyzer():
    # shared: 1, 0.5 -> 1, 1 (rises by 0.25); history: 1, 1 -> 0.5, 1 (falls by 0.25): pooled over both, level
    level = _frames(([1, 0.5], [1, 1]), ([1, 1], [0.5, 1]))
    text, record = decisions.decision_section(DECISION, {"default": level, "identifier": level}, resamples=200)
    first = record["pools"][0]
    assert first["instances"] == 4  # the two sets' instance ids repeat: pooled by set and id
    assert first["recip_rank"]["baseline"] == pytest.approx(3.5 / 4)
    assert first["recip_rank"]["candidate"] == pytest.approx(3.5 / 4)
    assert first["success.1"]["baseline"] == pytest.approx(3 / 4) and first["rule_met"] is False  # level: no rise
    assert record["outcome"] == "not adopted" and "**By that rule: not adopted.**" in text
    # the history loses less: the pool rises, and the shared sets do not fall, under both analyzers
    better = _frames(([1, 0.5], [1, 1]), ([1, 1], [1, 0.75]))
    text, record = decisions.decision_section(DECISION, {"default": better, "identifier": better}, resamples=200)
    assert [p["rule_met"] for p in record["pools"]] == [True, True, True, True]
    assert record["outcome"] == "adopted"
    # under one analyzer only it is not enough
    text, record = decisions.decision_section(DECISION, {"default": better, "identifier": level}, resamples=200)
    assert record["outcome"] == "not adopted"
    rows = [r for r in markdown_rows(text) if r[0] == "all"]
    assert [r[-1] for r in rows] == ["rises: yes", "rises: no"]


def test_a_decision_must_name_swept_configurations():
    wrong = decisions.Decision("test", "0000000", "auto", "auto+nothing", DECISION.pools)
    with pytest.raises(ValueError, match="auto\\+nothing"):
        decisions.decision_section(wrong, {"default": _frames(([1], [1]), ([1], [1]))}, resamples=10)


@pytest.mark.jvm
def test_the_stage_pools_the_issues_and_held_out_sweeps(tmp_path, monkeypatch):
    repos = tmp_path / "repos"
    heads = {"demo__dev": module_history(repos, "demo__dev", ("parser", "writer", "reader")),
             "demo__held": module_history(repos, "demo__held", ("loader", "cache", "router", "queue"))}
    monkeypatch.setattr(issues, "HISTORY_REPOSITORIES", {"python": (("demo__dev", heads["demo__dev"]),)})
    monkeypatch.setattr(held_out, "ROUNDS", (
        held_out.Round("held-out", "Held out", {"python": (("demo__held", heads["demo__held"]),)}, held_out.SAMPLE),))
    monkeypatch.setattr(decisions, "GROUPS", (decisions.SHARED, decisions.HISTORIES, "held-out"))
    monkeypatch.setattr(decisions, "DECISIONS", (decisions.Decision(
        "History", "0000000", "auto", "auto+history",
        (decisions.Pool("development", (decisions.HISTORIES, "held-out"), "rise"),
         decisions.Pool("shared", (decisions.SHARED,), "hold"))),))
    cfg = Config(quick=True, work=tmp_path / "work", out=tmp_path / "out", cache=tmp_path / "cache",
                 shared=tmp_path / "none", languages=(), queries=1, max_docs=None, grid=[0.5, 1.0],
                 forms=("lucene",), scaling=(), ablation=(), threads=1, resamples=200, go_target=0,
                 repos=repos, command="scripts/reproduce --quick --stages decisions")
    (tmp_path / "out").mkdir()
    assert decisions.run(cfg, []) is None
    [record] = json.loads((tmp_path / "out" / "decisions.json").read_text())
    md = (tmp_path / "out" / "decisions.md").read_text()
    # no shared set here: only the development pool, under both analyzers, from the sets' own per_query.csv
    assert [(p["pool"], p["analyzer"]) for p in record["pools"]] == [("development", "default"),
                                                                     ("development", "identifier")]
    for pool in record["pools"]:
        kind = issues.analyzer_folder("issue-sweeps", pool["analyzer"])
        joined = pd.concat(pd.read_csv(tmp_path / "work" / kind / f"history-{name}" / "per_query.csv", index_col=0)
                           for name in heads)
        assert pool["instances"] == len(joined) == 7
        for measure in ("success.1", "recip_rank"):
            assert pool[measure]["baseline"] == pytest.approx(joined[f"{BASE}:{measure}"].mean())
            assert pool[measure]["candidate"] == pytest.approx(joined[f"{CAND}:{measure}"].mean())
        rose = pool["recip_rank"]["candidate"] > pool["recip_rank"]["baseline"]
        assert pool["rule_met"] is rose
    assert record["outcome"] == ("adopted" if all(p["rule_met"] for p in record["pools"]) else "not adopted")
    assert f"**By that rule: {record['outcome']}.**" in md
    assert {r[1] for r in markdown_rows(md) if r[0] in ("histories", "held-out")} == {"history-demo__dev",
                                                                                      "history-demo__held"}
