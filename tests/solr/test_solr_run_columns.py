"""The Solr verb's runs as columns: Anserini's score steps over a whole batch of queries, and the run written
chunk by chunk, against the per-hit references (a loopback HTTP server stands in for Solr)."""

from __future__ import annotations

import zlib

import numpy as np
import pytest

from qlog_pyserini.formats.trec import Hit, write_run
from qlog_pyserini.solr.client import SolrClient
from qlog_pyserini.solr.workflow import anserini_score_steps, search_topics, write_topics_run


def java_ties(raw: list[float]) -> list[float]:
    """io.qlog.search.AnseriniTies.adjust transcribed line by line, in float32: anserini (the tie test
    against the adjusted score above), then strictlyDecreasing."""
    out, anserini, tied = [], np.float32(0), 0
    for i, s in enumerate(raw):
        score = np.float32(np.floor(float(np.float32(s)) * 10000.0 + 0.5) / 10000.0)
        if i == 0 or np.float32(anserini - score) > np.float32(1e-4):
            tied = 0
        else:
            tied += 1
            score = np.float32(score - np.float32(1e-6) * np.float32(tied))
        anserini = score
        out.append(score)
    for i in range(1, len(out)):
        if not out[i] < out[i - 1]:
            out[i] = np.nextafter(out[i - 1], np.float32(-np.inf), dtype=np.float32)
    return [float(x) for x in out]


def ranked_scores(rng: np.random.Generator, n: int) -> np.ndarray:
    """``n`` float32 scores, descending, on a grid that makes ties, near-ties 1e-4 apart and lost tie steps."""
    base = rng.choice([0.3, 3.0, 17.0, 33.0, 70.0, 500.0])
    grid = rng.choice([1e-4, 5e-5, 2e-4, 1e-3])
    return np.sort((base + grid * rng.integers(0, 30, n)).astype(np.float32))[::-1]


def test_score_steps_over_a_batch_are_anserinis_query_by_query() -> None:
    rng = np.random.default_rng(3)
    stepped = 0
    for _ in range(400):
        lists = [ranked_scores(rng, int(rng.integers(0, 80))) for _ in range(int(rng.integers(1, 6)))]
        offsets = np.cumsum([0] + [len(v) for v in lists])
        got = anserini_score_steps(np.concatenate(lists), offsets)
        want = np.array([x for v in lists for x in java_ties(v.tolist())], dtype=np.float32)
        assert got.dtype == np.float32 and np.array_equal(got.view(np.int32), want.view(np.int32))
        rounded = np.concatenate([np.round(v.astype(np.float64), 4) for v in lists]).astype(np.float32)
        stepped += int((want != rounded).sum())
    assert stepped > 10_000  # the grid really makes ties, and steps that float rounding loses


def test_a_tie_after_a_lost_step_is_tested_against_anserinis_score_not_the_written_one() -> None:
    # At 33, floats are 3.8e-6 apart: the second score's 1e-6 step is lost (it becomes the next float down only
    # in the strictly-decreasing pass), and Anserini compares the third with the unstepped 33.0017.
    scores = np.array([33.0017, 33.0017, 33.0016, 33.0014, 33.0009], dtype=np.float32)
    got = anserini_score_steps(scores, np.array([0, 5]))
    assert [f"{x:.6f}" for x in got.tolist()] == ["33.001701", "33.001698", "33.001598", "33.001400", "33.000900"]
    assert got.tolist() == java_ties(scores.tolist())


def _answer(form: dict) -> list[dict]:
    """Hits drawn from a generator seeded by the query text, in Solr's order (score desc, id asc)."""
    rng = np.random.default_rng(zlib.crc32(form["q"].encode()))
    n = min(int(form["rows"]), int(rng.integers(0, 300)))
    ids = rng.choice(10**6, size=n, replace=False)
    return sorted(({"id": f"doc-{i}", "score": float(s)} for i, s in zip(ids, ranked_scores(rng, n))),
                  key=lambda d: (-d["score"], d["id"]))


@pytest.fixture
def client(fake_select):
    return SolrClient(fake_select(_answer))


def test_the_streamed_run_is_the_per_hit_run_line_for_line(client, tmp_path) -> None:
    topics = {f"q{i}": f"query number {i}" for i in range(150)}  # three chunks
    topics["empty"] = "   "
    reference = {qid: [Hit(h.docid, s) for h, s in zip(hits, java_ties([h.score for h in hits]))]
                 for qid, text in topics.items() for hits in [client.search("c", text, 1000)]}
    assert search_topics(client, "c", topics, 1000) == reference
    write_run(tmp_path / "reference.txt", reference, "qlog-solr", qids=list(topics))
    answered, seconds = write_topics_run(client, "c", topics, tmp_path / "run.txt", "qlog-solr", 1000)
    text = (tmp_path / "run.txt").read_text()
    assert text == (tmp_path / "reference.txt").read_text() and text.count("\n") > 10_000
    assert answered == sum(1 for hits in reference.values() if hits) and seconds > 0
