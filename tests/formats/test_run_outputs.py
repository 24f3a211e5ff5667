"""Runs in the forms other tools read: {qid: {docid: score}} (ir_measures, ranx) and MS MARCO run files."""

from __future__ import annotations

import pytest

from qlog_pyserini.errors import QLogError
from qlog_pyserini.formats.trec import Hit, read_run, to_dict, write_run


def test_to_dict_keeps_the_first_score_of_each_docid():
    results = {"q1": [Hit("a", 3.0, 7), Hit("b", 2.5), Hit("a", 1.0)], "q2": []}
    assert to_dict(results) == {"q1": {"a": 3.0, "b": 2.5}, "q2": {}}


def test_lucene_docid_is_carried_but_not_compared():
    assert Hit("a", 1.0, 5).lucene_docid == 5 and Hit("a", 1.0).lucene_docid == -1
    assert Hit("a", 1.0, 5) == Hit("a", 1.0)


def test_msmarco_run_is_qid_docid_rank(tmp_path):
    path = tmp_path / "run.tsv"
    write_run(path, {"q1": [Hit("d9", 2.0), Hit("d3", 1.0)], "q2": [Hit("d1", 0.5)]}, "tag", output_format="msmarco")
    assert path.read_text() == "q1\td9\t1\nq1\td3\t2\nq2\td1\t1\n"


def test_trec_run_round_trips_and_unknown_format_is_refused(tmp_path):
    path = tmp_path / "run.txt"
    write_run(path, {"q1": [Hit("d9", 2.0), Hit("d3", 1.0)]}, "tag")
    assert to_dict(read_run(path)) == {"q1": {"d9": 2.0, "d3": 1.0}}
    with pytest.raises(QLogError, match="unknown output format 'kilt'"):
        write_run(tmp_path / "x.txt", {}, "tag", output_format="kilt")
    assert not (tmp_path / "x.txt").exists()
