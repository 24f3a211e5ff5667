"""``provenance.json`` keeps each stage's last run: remaking one stage rewrites that stage's record and keeps the
others', so the file stays true of every table in ``results/``."""

from __future__ import annotations

import json

import pytest

from qlog_pyserini.reproduce import pipeline
from qlog_pyserini.reproduce.cache import Config


def _config(out, command: str, timings: dict[str, float]) -> Config:
    return Config(quick=True, work=out / "work", out=out, cache=out / "cache", shared=out / "none", languages=(),
                  queries=1, max_docs=None, grid=[0.5, 1.0], forms=("lucene",), scaling=(), ablation=(), threads=1,
                  resamples=1, go_target=0, command=command, timings=timings)


@pytest.fixture()
def fixed_run(monkeypatch):
    """provenance() without the JVM and the clock: the command it is given and a commit the test sets."""
    commit = {"id": "aaaaaaa"}
    monkeypatch.setattr(pipeline, "provenance", lambda command: {"command": command, "git_commit": commit["id"]})
    return commit


def test_a_stage_run_keeps_the_other_stages_records(tmp_path, fixed_run):
    (tmp_path / "provenance.json").write_text(json.dumps({"stages": ["issues"], "timings_seconds": {}}))
    # a record of the earlier, flat form names no stage's run: nothing of it is kept
    pipeline.write_provenance(_config(tmp_path, "reproduce --stages issues,held-out",
                                      {"corpora": 0.0, "issues": 30.0, "held-out": 50.0, "total": 50.0}),
                              ("issues", "held-out"))
    fixed_run["id"] = "bbbbbbb"
    pipeline.write_provenance(_config(tmp_path, "reproduce --stages held-out", {"held-out": 12.5, "total": 12.5}),
                              ("held-out",))
    record = json.loads((tmp_path / "provenance.json").read_text())
    assert record["about"] == pipeline.PROVENANCE_ABOUT
    # the stage that ran again has this run's record and seconds; the other keeps the earlier run's
    assert record["stages"] == {
        "issues": {"command": "reproduce --stages issues,held-out", "git_commit": "aaaaaaa", "grid": [0.5, 1.0],
                   "seconds": 30.0},
        "held-out": {"command": "reproduce --stages held-out", "git_commit": "bbbbbbb", "grid": [0.5, 1.0],
                     "seconds": 12.5}}


def test_records_follow_the_pipeline_order_and_drop_unknown_stages(tmp_path, fixed_run):
    (tmp_path / "provenance.json").write_text(json.dumps(
        {"stages": {"locate": {"seconds": 1}, "retired": {"seconds": 2}, "issues": "not a record"}}))
    pipeline.write_provenance(_config(tmp_path, "reproduce --stages main", {"corpora": 5.0, "main": 9.0}), ("main",))
    stages = json.loads((tmp_path / "provenance.json").read_text())["stages"]
    assert list(stages) == ["main", "locate"] and stages["main"]["seconds"] == 4.0
