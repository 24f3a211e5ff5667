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


def test_run_columns_are_the_per_hit_run_lines_with_every_repair():
    """format_run_columns (vectorised scores, one identifier check) against run_lines over Hits, on batches
    full of ties and lost tie steps (scores of 16 and more), negative scores and queries without hits."""
    import numpy as np

    from qlog_pyserini.formats.trec import format_run_columns, run_lines

    rng = np.random.default_rng(5)
    repaired = 0
    for _ in range(300):
        qids = [f"q{i}" for i in range(int(rng.integers(1, 6)))]
        counts = rng.integers(0, 60, len(qids))
        offsets = np.concatenate([[0], np.cumsum(counts)])
        base = rng.choice([0.5, 5.0, 17.0, 40.0, 300.0, -2.0])
        parts = []
        for c in counts:
            v = np.sort(rng.normal(base, abs(base) * 0.01, c).astype(np.float32))[::-1]
            if c and rng.random() < 0.5:
                v[rng.random(c) < 0.4] = v[0]
                v = np.round(np.sort(v)[::-1], 4).astype(np.float32)
            parts.append(v)
        scores = np.concatenate(parts)
        docids = [f"d{x}" for x in rng.integers(0, 10**6, len(scores))]
        results = {q: [Hit(d, s) for d, s in zip(docids[offsets[i]:offsets[i + 1]], scores[offsets[i]:offsets[i + 1]].tolist())]
                   for i, q in enumerate(qids)}
        for fmt in ("trec", "msmarco"):
            want = "".join(run_lines(results, "tag", qids, fmt))
            assert format_run_columns(qids, offsets, docids, scores, "tag", fmt) == want
        written = [line.split()[4] for line in "".join(run_lines(results, "tag", qids)).splitlines()]
        repaired += sum(w != f"{s:.6f}" for w, s in zip(written, scores.tolist()))
    assert repaired > 100  # the strictly-decreasing repair really ran


def test_columns_run_frame_is_the_per_hit_run_frame():
    """columns_run_frame (PyTerrier's retriever) against run_frame over Hits: same rows, ranks and written scores."""
    import numpy as np
    import pandas as pd

    from qlog_pyserini.formats.frames import columns_run_frame, run_frame

    rng = np.random.default_rng(11)
    for _ in range(100):
        qids = [f"q{i}" for i in range(int(rng.integers(1, 5)))]
        counts = rng.integers(0, 40, len(qids))
        offsets = np.concatenate([[0], np.cumsum(counts)])
        base = rng.choice([0.5, 17.0, 300.0, -2.0])
        parts = []
        for c in counts:
            v = np.sort(rng.normal(base, abs(base) * 0.01, c).astype(np.float32))[::-1]
            v[rng.random(c) < 0.3] = v[0] if c else v
            parts.append(np.round(np.sort(v)[::-1], 4).astype(np.float32))
        scores = np.concatenate(parts)
        docnos = [f"d{x}" for x in rng.integers(0, 10**6, len(scores))]
        results = {q: [Hit(d, s) for d, s in zip(docnos[offsets[i]:offsets[i + 1]], scores[offsets[i]:offsets[i + 1]].tolist())]
                   for i, q in enumerate(qids)}
        pd.testing.assert_frame_equal(columns_run_frame(qids, offsets, docnos, scores), run_frame(results, qids))


def test_run_columns_refuse_what_run_lines_refuse():
    import numpy as np

    from qlog_pyserini.formats.trec import format_run_columns

    scores = np.array([2.0, 1.0], dtype=np.float32)
    for docids, message in ((["a b", "c"], "docid 'a b' \\(query 'q'\\) contains whitespace"),
                            (["a", "c\n"], "docid 'c\\\\n'"), (["a", ""], "empty docid")):
        with pytest.raises(QLogError, match=message):
            format_run_columns(["q"], np.array([0, 2]), docids, scores, "tag")
    with pytest.raises(QLogError, match="not finite"):
        format_run_columns(["q"], np.array([0, 2]), ["a", "b"], np.array([np.inf, 1.0], dtype=np.float32), "tag")
    with pytest.raises(QLogError, match="qid 'a q'"):
        format_run_columns(["a q"], np.array([0, 2]), ["a", "b"], scores, "tag")
