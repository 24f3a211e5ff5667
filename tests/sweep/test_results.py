"""The typed sweep results: one reader that tells the two kinds of summary.json apart and refuses an unknown
schema, one writer, and the long per-point table of an instance-set sweep."""

from __future__ import annotations

import json

import pandas as pd
import pytest

from qlog_pyserini.errors import QLogError
from qlog_pyserini.sweep.baselines import point_text
from qlog_pyserini.sweep.results import (
    SCHEMA,
    InstanceSweepResult,
    SweepResult,
    per_point,
    read,
    record,
    scores_at,
    write,
)

PLAIN = {"name": "c", "family": "f", "parameter": "q", "metric": "ndcg_cut.10", "scores": {"0.5": 0.3, "1": 0.2},
         "baseline_score": 0.2, "oracle_value": 0.5, "seconds": 1.5}
INSTANCES = {"name": "s", "metric": "recip_rank", "k1": 0.9, "b": 0.4, "comparisons": {}, "seconds": 2.0}


def test_written_summary_reads_back_as_its_kind_with_kind_and_schema_first(tmp_path):
    for kind, summary, cls in ((SweepResult.KIND, PLAIN, SweepResult),
                               (InstanceSweepResult.KIND, INSTANCES, InstanceSweepResult)):
        folder = tmp_path / kind
        folder.mkdir()
        write(folder, record(kind, summary))
        saved = json.loads((folder / "summary.json").read_text())
        assert list(saved)[:2] == ["kind", "schema"] and (saved["kind"], saved["schema"]) == (kind, SCHEMA)
        assert {k: v for k, v in saved.items() if k not in ("kind", "schema")} == summary  # every key as given
        result = read(folder)
        assert type(result) is cls and result.kind == kind and dict(result) == saved and result.folder == folder
    plain = read(tmp_path / "sweep")
    assert (plain.scores, plain.oracle_value, plain.family, plain["metric"]) == ({0.5: 0.3, 1.0: 0.2}, 0.5, "f",
                                                                                  "ndcg_cut.10")


def test_a_summary_without_kind_is_read_by_its_keys(tmp_path):
    for name, summary, cls in (("plain", PLAIN, SweepResult), ("set", INSTANCES, InstanceSweepResult)):
        (tmp_path / name).mkdir()
        (tmp_path / name / "summary.json").write_text(json.dumps(summary))
        assert type(read(tmp_path / name)) is cls


@pytest.mark.parametrize("change, message", [({"schema": SCHEMA + 1}, "schema 2 is not one this version reads"),
                                             ({"kind": "grid"}, "unknown sweep kind 'grid'")])
def test_an_unknown_schema_or_kind_is_refused(tmp_path, change, message):
    (tmp_path / "summary.json").write_text(json.dumps({**PLAIN, **change}))
    with pytest.raises(QLogError, match=message):
        read(tmp_path)
    with pytest.raises(QLogError, match="no summary.json"):
        read(tmp_path / "absent")


def test_per_point_is_the_wide_file_in_long_format(tmp_path):
    write(tmp_path, record(InstanceSweepResult.KIND, INSTANCES))
    points = [(0.9, 0.4, 0.7), (0.9, 0.4, 1.0), (1.2, 0.75, 0.7)]
    wide = pd.DataFrame({point_text(p): [0.1 * i + j for j in (0.0, 0.5)] for i, p in enumerate(points)},
                        index=pd.Index(["b-2", "a-1"], name="qid"))
    wide.to_csv(tmp_path / "per_point.csv")
    long = per_point(tmp_path)
    assert list(long.columns) == ["qid", "k1", "b", "q", "measure", "value"] and len(long) == 6
    for row in long.itertuples():
        assert row.value == wide.at[row.qid, point_text((row.k1, row.b, row.q))] and row.measure == "recip_rank"
    at = scores_at(long, 0.9, 0.4)
    assert list(at.index) == ["b-2", "a-1"] and list(at.columns) == [0.7, 1.0]  # the file's order
    assert at.loc["a-1", 1.0] == wide.loc["a-1", "k1=0.9,b=0.4,q=1"]
