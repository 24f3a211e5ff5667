"""The held-out stage on two small Python repositories made here: each history is swept under both analyzers, and
the per-language figures are the per-instance values of the sets' own sweeps, pooled and averaged again here."""

from __future__ import annotations

import json

import pandas as pd
import pytest
from conftest import SHARED_DATA
from instances.gitrepos import module_history
from markdown_tables import has_cells, markdown_rows

from qlog_pyserini.reproduce import held_out
from qlog_pyserini.reproduce.cache import Config
from qlog_pyserini.reproduce.localization import AUTO, CONFIGURATIONS

pytestmark = pytest.mark.jvm

TOPICS = ("parser", "writer", "reader", "loader", "cache", "router")


def test_held_out_stage_reports_each_language_from_its_sets_sweeps(tmp_path, monkeypatch):
    repos = tmp_path / "repos"
    heads = {name: module_history(repos, name, topics)
             for name, topics in (("demo__one", TOPICS[:4]), ("demo__two", TOPICS[2:]))}
    first = held_out.Round("held-out", "Held out", {"python": tuple(heads.items()),
                                                    "go": (("demo__absent", heads["demo__one"]),)}, held_out.SAMPLE)
    second = held_out.Round("held-out-2", "Held out again", {"python": (("demo__one", heads["demo__one"]),)},
                            held_out.SAMPLE_2)
    monkeypatch.setattr(held_out, "ROUNDS", (first, second))
    cfg = Config(quick=True, work=tmp_path / "work", out=tmp_path / "out", cache=tmp_path / "cache",
                 shared=tmp_path / "none", languages=(), queries=1, max_docs=None, grid=[0.5, 1.0],
                 forms=("lucene",), scaling=(), ablation=(), threads=1, resamples=200, go_target=0,
                 repos=repos, command="scripts/reproduce --quick --stages held-out")
    (tmp_path / "out").mkdir()
    assert held_out.run(cfg, []) is None
    md = (tmp_path / "out" / "held-out.md").read_text()
    record = json.loads((tmp_path / "out" / "held-out.json").read_text())
    assert [a["analyzer"] for a in record["analyzers"]] == ["default", "identifier"]
    # the absent repository is passed over; both present ones are read at their pinned revision
    for name, head in heads.items():
        assert has_cells(md, name.replace("__", "/"), "python", head, "4")
    assert "**Held out, then seen:**" in md and "In-sample" not in md
    # each round writes its own files, from its own repositories, saying what its figures are
    second_md = (tmp_path / "out" / "held-out-2.md").read_text()
    assert second_md.startswith("# Held out again") and held_out.SAMPLE_2 in second_md
    assert has_cells(second_md, "demo/one", "python", heads["demo__one"], "4") and "demo/two" not in second_md
    assert json.loads((tmp_path / "out" / "held-out-2.json").read_text())["languages"][0]["instances"] == 4
    for entry in record["languages"]:
        assert entry["language"] == "python" and entry["instances"] == 8
        kind = "issue-sweeps" + ("" if entry["analyzer"] == "default" else "-identifier")
        pooled = pd.concat(pd.read_csv(tmp_path / "work" / kind / f"history-{name}" / "per_query.csv", index_col=0)
                           for name in heads)
        for measure in ("success.1", "recip_rank"):
            for system in ("bm25", "engine", "bm25_cv", AUTO):
                assert entry[measure]["means"][system] == pytest.approx(pooled[f"{system}:{measure}"].mean())
            assert 0 < entry[measure]["p"]["bm25_cv"] <= 1
    # every configuration's MRR per set, read back from the file: each is its set's own per-instance mean
    levers = [r for r in markdown_rows(md.split("## Each lever, per set (MRR)")[1]) if r[0] == "identifier"]
    frame = pd.read_csv(tmp_path / "work" / "issue-sweeps-identifier" / "history-demo__two" / "per_query.csv",
                        index_col=0)
    [row] = [r for r in levers if r[1] == "history-demo__two"]
    assert len(row) == 5 + len(CONFIGURATIONS)
    assert float(row[-1]) == pytest.approx(frame[f"{AUTO}:recip_rank"].mean(), abs=5e-5)
    # each message names its module's one function: every system finds it first
    assert record["languages"][0]["recip_rank"]["means"][AUTO] == 1.0


def test_held_out_stage_skips_without_its_repositories(tmp_path):
    cfg = Config(quick=True, work=tmp_path / "work", out=tmp_path / "out", cache=tmp_path / "cache",
                 shared=tmp_path / "none", languages=(), queries=1, max_docs=None, grid=[1.0], forms=("lucene",),
                 scaling=(), ablation=(), threads=1, resamples=1, go_target=0, repos=tmp_path / "none")
    assert held_out.run(cfg, []) is None and not (tmp_path / "out").exists()


def test_no_held_out_repository_is_development_data():
    from qlog_pyserini.reproduce.issues import HISTORY_REPOSITORIES

    rounds = [{repo.lower() for entries in r.repositories.values() for repo, _ in entries} for r in held_out.ROUNDS]
    held = set().union(*rounds)
    developed = {repo.lower() for entries in HISTORY_REPOSITORIES.values() for repo, _ in entries}
    # no repository in two rounds, none a development history
    assert [len(r) for r in rounds] == [8, 8, 8, 8] and len(held) == 32 and held.isdisjoint(developed)
    for r in held_out.ROUNDS:
        # two a language, in the languages of the issue's own held-out sets, each pinned at a full commit
        assert {language: len(entries) for language, entries in r.repositories.items()} == {
            "python": 2, "go": 2, "rust": 2, "cpp": 2}
        assert all(len(sha) == 40 for entries in r.repositories.values() for _, sha in entries)
    assert held_out.FILES == ("held-out.md", "held-out.json", "held-out-2.md", "held-out-2.json", "held-out-3.md",
                              "held-out-3.json", "held-out-4.md", "held-out-4.json")
    if (SHARED_DATA / "issues").is_dir():  # nor a repository of the shared Multi-SWE-bench sets
        names = {p.name.removesuffix("_dataset.jsonl").lower()
                 for p in (SHARED_DATA / "issues").glob("*/*_dataset.jsonl")}
        assert names and held.isdisjoint(names)
