"""The Tantivy rewrite benchmark program: its three sides answer as their references, its report agrees
with its timings, and its command line checks its input before any work and writes only where told.

The reference of the BM25 side is Tantivy's own query parser (for queries without a repeated token, the
boolean query of SHOULD term queries it builds), that of both rewrite sides the library call a user makes
(``TantivyRewriter.search``); at q = 1 the rewrite is BM25 itself.
"""

from __future__ import annotations

import random
import statistics

import pytest
from markdown_tables import markdown_rows

from qlog_pyserini.errors import QLogError

tantivy = pytest.importorskip("tantivy", reason="the tantivy package is not installed (extra: rewrite)")

from qlog_pyserini.bench.tantivy_rewrite.__main__ import main  # noqa: E402
from qlog_pyserini.bench.tantivy_rewrite.measure import (  # noqa: E402
    BenchSettings,
    build_sides,
    measure,
    memory_index,
    report,
)
from qlog_pyserini.rewrite.tantivy_index import TantivyRewriter  # noqa: E402

WORDS = [f"w{i}" for i in range(40)]


def _documents(n: int = 120, seed: int = 7) -> list[tuple[str, str]]:
    # Zipf-like: a few words in most documents, many in few, so idf and the q-log boosts vary widely
    rng = random.Random(seed)
    weights = [1 / (r + 1) for r in range(len(WORDS))]
    return [(f"d{i}", " ".join(rng.choices(WORDS, weights, k=rng.randint(3, 25)))) for i in range(n)]


TEXTS = ["w0 w7", "w3 w12 w25", "w1 w1 w30", "w39 w2", "w5 w5 w5 w9", "nothing indexed here", "w17 w22 w0 w8"]


def _ids(searcher, hits) -> list[tuple[str, float]]:
    return [(searcher.doc(address)["id"][0], score) for score, address in hits]


@pytest.fixture(scope="module")
def index():
    return memory_index(_documents())


def test_each_side_answers_as_its_reference(index):
    idx, n_docs = index
    assert n_docs == 120
    sides = build_sides(idx, TEXTS, BenchSettings(q=0.7, k=5))
    assert "nothing indexed here" not in sides.texts and len(sides.texts) == len(TEXTS) - 1
    searcher, rewriter = idx.searcher(), TantivyRewriter(idx, "body", 0.7)
    differs = False
    for i, text in enumerate(sides.texts):
        bm25 = _ids(searcher, sides.search(0, i).hits)
        if len(set(text.split())) == len(text.split()):  # the parser keeps a repeated token once
            parsed = _ids(searcher, searcher.search(idx.parse_query(text, ["body"]), 5).hits)
            assert [d for d, _ in bm25] == [d for d, _ in parsed], text
            assert [s for _, s in bm25] == pytest.approx([s for _, s in parsed], rel=1e-6), text
        want = _ids(searcher, rewriter.search(text, 5))
        for side in (1, 2):
            got = _ids(searcher, sides.search(side, i).hits)
            assert [d for d, _ in got] == [d for d, _ in want], (side, text)
            assert [s for _, s in got] == pytest.approx([s for _, s in want], rel=1e-6), (side, text)
        differs |= [s for _, s in want] != pytest.approx([s for _, s in bm25], rel=1e-6)
    assert differs  # q = 0.7 is not BM25: the sides compared are different queries


def test_at_q_1_the_rewrite_is_bm25(index):
    idx, _ = index
    sides = build_sides(idx, TEXTS, BenchSettings(q=1.0, k=5))
    searcher = idx.searcher()
    for i, text in enumerate(sides.texts):
        bm25 = _ids(searcher, sides.search(0, i).hits)
        for side in (1, 2):
            got = _ids(searcher, sides.search(side, i).hits)
            assert [d for d, _ in got] == [d for d, _ in bm25], text
            assert [s for _, s in got] == pytest.approx([s for _, s in bm25], rel=1e-6), text


def test_report_rows_and_medians_are_the_measured_rounds(index):
    idx, n_docs = index
    settings = BenchSettings(q=0.7, rounds=3, passes=2, warmup=0)
    sides = build_sides(idx, TEXTS, settings)
    rounds = measure(sides, settings)
    assert len(rounds) == 3
    for r in rounds:
        assert all(qps > 0 for qps in r.qps)
        # a ratio is BM25's time over the side's: the side's throughput over BM25's
        assert r.ratios == pytest.approx((r.qps[1] / r.qps[0], r.qps[2] / r.qps[0]), rel=1e-9)
        assert all(s > 0 for s in r.steady)
    text = report(rounds, n_docs, len(sides.texts), settings, "tiny")
    header, *rows = markdown_rows(text)
    assert header[:2] == ["round", "BM25 queries/s"] and len(header) == 8
    assert [int(row[0]) for row in rows] == [1, 2, 3]
    assert [int(row[1]) for row in rows] == [round(r.qps[0]) for r in rounds]
    assert [row[4] for row in rows] == [f"{r.ratios[0]:.3f}" for r in rounds]
    median = statistics.median(r.ratios[0] for r in rounds)
    assert f"rewrite (prebuilt) / BM25 **{median:.3f}**" in text
    assert "tiny: 120 documents" in text and f"{len(sides.texts)} queries, 2 passes" in text


def test_no_query_with_an_indexed_token_is_refused(index):
    with pytest.raises(QLogError, match="nothing to time"):
        build_sides(index[0], ["absent words only"], BenchSettings())


def _inputs(tmp_path):
    corpus = tmp_path / "corpus.jsonl"
    corpus.write_text("".join(f'{{"id": "{d}", "contents": "{t}"}}\n' for d, t in _documents(40)))
    topics = tmp_path / "topics.tsv"
    topics.write_text("".join(f"q{i}\t{t}\n" for i, t in enumerate(TEXTS)))
    return corpus, topics


def test_command_line_writes_its_report_where_told(tmp_path, capsys):
    corpus, topics = _inputs(tmp_path)
    out = tmp_path / "bench.md"
    assert main(["--corpus", str(corpus), "--topics", str(topics), "--rounds", "2", "--passes", "1",
                 "--warmup", "0", "--name", "tiny", "--output", str(out), "--quiet"]) == 0
    text = out.read_text()
    assert text == capsys.readouterr().out.removesuffix("\n")  # printed as written
    assert [row[0] for row in markdown_rows(text)[1:]] == ["1", "2"] and "tiny: 40 documents" in text
    assert sorted(p.name for p in tmp_path.iterdir()) == ["bench.md", "corpus.jsonl", "topics.tsv"]


@pytest.mark.parametrize("extra, message", [
    (["--rounds", "0"], "illegal rounds value: 0"),
    (["--q", "11"], "illegal q value: 11"),
    (["--k", "0"], "illegal k value: 0"),
    (["--output", "/nonexistent-folder/bench.md"], "nonexistent-folder"),
])
def test_command_line_refuses_bad_input_before_any_work(tmp_path, extra, message):
    corpus, topics = _inputs(tmp_path)
    with pytest.raises(QLogError, match=message):
        main(["--corpus", str(corpus), "--topics", str(topics), "--quiet", *extra])
    with pytest.raises(QLogError, match="does not exist"):
        main(["--corpus", str(tmp_path / "missing"), "--topics", str(topics), "--quiet"])
