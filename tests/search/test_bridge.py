"""The array bridge (``search_batch``, BatchResults, runs written by Java) against Anserini's sorted search.

The oracle is Anserini's own sorted search, one query at a time (``search_query`` of the query
Anserini's generator builds: its full (score, docid) sort, then its score rounding and 1e-6 tie
steps). The batch path must give the same docids in the same order; its scores may differ only
where a tie step is lost in float rounding (then they are the next float down), and its run text
may differ from Pyserini's only where Pyserini's text does not read as strictly decreasing 32-bit
floats.
"""

from __future__ import annotations

import io
import json

import numpy as np
import pytest

from qlog_pyserini.formats.topics import read_topics
from qlog_pyserini.formats.trec import Hit, format_run_lines, to_dict
from qlog_pyserini.lucene.searcher import QLogSearcher

pytestmark = pytest.mark.jvm


def oracle(searcher: QLogSearcher, queries: list[str], qids: list[str], k: int) -> dict[str, list[Hit]]:
    """Anserini's hits: its sorted search of each query as its generator parses it, under the installed model."""
    return {qid: searcher.search_query(searcher.java.parse(query), k=k) for qid, query in zip(qids, queries)}


def strictly_decreasing(hits: list[Hit]) -> list[Hit]:
    """The new path's rule, computed independently: a score not below the one above is its next float down."""
    out: list[Hit] = []
    for h in hits:
        score = h.score
        if out and not np.float32(score) < np.float32(out[-1].score):
            score = float(np.nextafter(np.float32(out[-1].score), np.float32(-np.inf)))
        out.append(Hit(h.docid, score, h.lucene_docid))
    return out


def pyserini_lines(qid: str, hits: list[Hit]) -> list[str]:
    """Pyserini's run writer: every score printed with 6 decimals, nothing else."""
    return [f"{qid} Q0 {h.docid} {r} {h.score:.6f} t\n" for r, h in enumerate(hits, 1)]


def check_against_oracle(searcher: QLogSearcher, topics: dict[str, str], k: int) -> int:
    """Asserts the batch path equals the oracle; returns how many run lines differ from Pyserini's text."""
    qids = list(topics)
    queries = [topics[q] for q in qids]
    want = oracle(searcher, queries, qids, k)
    got = searcher.batch_search(queries, qids, k=k, threads=2)
    assert list(got) == qids
    differ = 0
    run_lines: list[str] = []
    for qid in qids:
        hits = got[qid]  # built from the arrays at each access: once per query here (k = 1000: a million hits)
        expected = strictly_decreasing(want[qid])
        assert [h.docid for h in hits] == [h.docid for h in expected], qid
        assert [h.score for h in hits] == [h.score for h in expected], qid
        assert [h.lucene_docid for h in hits] == [h.lucene_docid for h in want[qid]], qid
        written = list(format_run_lines(qid, hits, "t"))
        run_lines += written
        theirs = pyserini_lines(qid, want[qid])
        for i, (mine, pyserini) in enumerate(zip(written, theirs)):
            if mine != pyserini:
                differ += 1
                # only where Pyserini's text is ambiguous to trec_eval, or the line above already moved
                here, above = (np.float32(float(line.split()[4])) for line in (pyserini, theirs[i - 1]))
                assert i > 0 and (not here < above or written[i - 1] != theirs[i - 1]), (mine, pyserini)
    # the Java writer writes what the Python reference writes
    assert got.run_bytes("t") == "".join(run_lines).encode()
    return differ


@pytest.mark.parametrize("q", [1.0, 0.7, 0.3])
@pytest.mark.parametrize("k", [10, 1000])
def test_batches_equal_anserinis_sorted_search_on_csn_ruby(csn_ruby, q, k):
    prepared, index = csn_ruby
    topics = read_topics(prepared / "topics.tsv")
    with QLogSearcher(index, q=q) as s:
        check_against_oracle(s, topics, k)


@pytest.fixture(scope="module")
def tied_index(tmp_path_factory):
    """Documents in groups of identical text (so equal scores at every q), docids in the reverse of
    Lucene's doc order, so Lucene's own tie order (doc number) and Anserini's (docid) disagree."""
    from qlog_pyserini.index import build_index

    folder = tmp_path_factory.mktemp("tied")
    with open(folder / "corpus.jsonl", "w") as f:
        for i in range(60):
            group = i % 4
            text = " ".join(["alpha"] * (1 + group) + ["beta", f"g{group}w"] + ["pad"] * (i % 2))
            f.write(json.dumps({"id": f"d{99 - i:03d}", "contents": text}) + "\n")
    build_index(folder / "corpus.jsonl", folder / "index", threads=1, progress=False)
    return folder / "index"


@pytest.mark.parametrize("q", [1.0, 0.5])
@pytest.mark.parametrize("k", [1, 3, 7, 15, 16, 40, 1000])
def test_ties_at_the_cut_off(tied_index, q, k):
    topics = {"t1": "alpha beta", "t2": "beta", "t3": "alpha g2w", "t4": "pad beta g1w", "t5": "nothing"}
    with QLogSearcher(tied_index, q=q) as s:
        check_against_oracle(s, topics, k)
        hits = s.batch_search(["beta"], ["x"], k=k)["x"]
        # every document has "beta": the cut-off splits a tie for most k; the kept ones are the smallest docids
        assert len(hits) == min(k, 60)


def test_columnar_views(tied_index):
    with QLogSearcher(tied_index) as s:
        got = s.batch_search(["alpha", "beta", "nothing"], ["a", "b", "c"], k=5)
        hits = {qid: got[qid] for qid in got}
        assert got == hits and got["c"] == [] and len(got) == 3 and "b" in got and "z" not in got
        assert got.to_dict() == to_dict(hits)
        frame = got.to_frame()
        assert list(frame.columns) == ["qid", "docno", "rank", "score"]
        assert frame["qid"].tolist() == ["a"] * 5 + ["b"] * 5
        assert frame["docno"].tolist() == [h.docid for h in hits["a"] + hits["b"]]
        assert frame["rank"].tolist() == [1, 2, 3, 4, 5] * 2
        assert frame["score"].tolist() == [h.score for h in hits["a"] + hits["b"]]
        assert s.search("alpha", k=5) == hits["a"]


def test_run_written_by_java_equals_the_python_writer(tied_index, tmp_path):
    from qlog_pyserini.system.outputs import atomic_output

    with QLogSearcher(tied_index, q=0.3) as s:
        got = s.batch_search(["alpha beta", "beta", "nothing"], ["a", "b", "c"], k=50)
        want = "".join(line for qid in got for line in format_run_lines(qid, got[qid], "tag")).encode()
        with atomic_output(tmp_path / "run.txt", "wb") as f:
            got.write_run(f, "tag")
            got.write_run(f, "tag")  # appended, not overwritten
        assert (tmp_path / "run.txt").read_bytes() == want + want
        buffer = io.BytesIO()  # a stream without a file descriptor gets the same bytes
        got.write_run(buffer, "tag")
        assert buffer.getvalue() == want
        ms = got.run_bytes("tag", "msmarco").decode()
        assert ms == "".join(f"{qid}\t{h.docid}\t{r}\n" for qid in got for r, h in enumerate(got[qid], 1))


def test_per_query_q_equals_one_q_at_a_time(tied_index, csn_ruby):
    _, index = csn_ruby
    with QLogSearcher(index) as s:
        topics = read_topics(csn_ruby[0] / "topics.tsv")
        qids = list(topics)[:40]
        queries = [topics[q] for q in qids]
        qs = [(0.3, 1.0, 0.7)[i % 3] for i in range(len(qids))]
        mixed = s.batch_search(queries, qids, k=100, threads=2, q=qs)
        for value in (0.3, 1.0, 0.7):
            s.set_q(value)
            alone = s.batch_search(queries, qids, k=100)
            for qid, q in zip(qids, qs):
                if q == value:
                    assert mixed[qid] == alone[qid]
        assert s.q == 0.7  # a per-query batch leaves the installed model alone


@pytest.mark.parametrize("output_format", ["trec", "msmarco"])
def test_run_streamed_in_batches_equals_one_call(csn_ruby, tmp_path, output_format):
    from qlog_pyserini.formats.trec import write_run
    from qlog_pyserini.lucene.batch import write_topics_run

    prepared, index = csn_ruby
    topics = read_topics(prepared / "topics.tsv")
    with QLogSearcher(index, q=0.5) as s:
        one = s.batch_search([topics[q] for q in topics], list(topics), k=100, threads=2)
        write_run(tmp_path / "one.txt", one, "t", output_format=output_format)
        for size in (7, 64, len(topics) + 1):
            written = write_topics_run(s, topics, tmp_path / f"run{size}.txt", "t", hits=100, threads=2,
                                       progress=False, batch_size=size, output_format=output_format)
            assert (tmp_path / f"run{size}.txt").read_bytes() == (tmp_path / "one.txt").read_bytes(), size
            assert written.lines == one.num_hits


def test_streamed_run_drops_as_pyserini(tied_index, tmp_path):
    from qlog_pyserini.formats.trec import write_run
    from qlog_pyserini.lucene.batch import drop_hits, write_topics_run

    topics = {"d099": "alpha beta", "d050": "beta", "x": "nothing"}
    with QLogSearcher(tied_index) as s:
        hits = {qid: s.search(text, k=100) for qid, text in topics.items()}
        write_run(tmp_path / "want.txt", drop_hits(hits, remove_query=True), "t")
        written = write_topics_run(s, topics, tmp_path / "got.txt", "t", hits=100, progress=False, batch_size=2,
                                   remove_query=True, remove_duplicates=True)
        assert (tmp_path / "got.txt").read_bytes() == (tmp_path / "want.txt").read_bytes()
        assert written.unanswered == 1 and written.lines == 118


def _grid_models(s: QLogSearcher) -> list:
    return [s.make_similarity("qlog", q=q) for q in (0.05, 0.3, 0.7, 1.0, 1.5)] + [
        s.make_similarity("qlog", q=0.5, idf_form="rsj"), s.make_similarity("bm25"),
        s.make_similarity("idf-gamma", gamma=2.0), s.make_similarity("dph")]


def _same_as_a_pass_per_model(s: QLogSearcher, queries: list[str], qids: list[str], k: int) -> None:
    """search_grid's batches against batch_search with each model installed: arrays equal, run bytes equal."""
    models = _grid_models(s)
    grid = s.search_grid(queries, qids, models, k=k, threads=2)
    assert len(grid) == len(models)
    for model, got in zip(models, grid):
        s.set_similarity(model)
        want = s.batch_search(queries, qids, k=k, threads=2)
        what = f"{s.similarity} k={k}"
        assert np.array_equal(got.offsets, want.offsets), what
        assert np.array_equal(got.docs, want.docs), what
        assert np.array_equal(got.scores, want.scores), what
        assert got.run_bytes("t") == want.run_bytes("t"), what


@pytest.mark.parametrize("k", [1, 3, 16, 40, 1000])
def test_grid_ties_at_the_cut_off_equal_a_pass_per_model(tied_index, k):
    topics = {"t1": "alpha beta", "t2": "beta", "t3": "alpha g2w", "t4": "pad beta g1w", "t5": "nothing",
              "t6": "beta beta alpha"}
    with QLogSearcher(tied_index) as s:
        _same_as_a_pass_per_model(s, list(topics.values()), list(topics), k)


@pytest.mark.parametrize("k", [10, 1000])
def test_grid_on_real_code_equals_a_pass_per_model(stdlib_index, stdlib_code, k):
    topics = read_topics(stdlib_code[1])
    with QLogSearcher(stdlib_index) as s:
        _same_as_a_pass_per_model(s, [topics[q] for q in topics], list(topics), k)
        assert s.similarity.startswith("DPH")  # the grid itself installs nothing: the last set_similarity holds


def test_grid_with_csn_ruby_equals_a_pass_per_model(csn_ruby):
    prepared, index = csn_ruby
    topics = read_topics(prepared / "topics.tsv")
    with QLogSearcher(index) as s:
        _same_as_a_pass_per_model(s, [topics[q] for q in topics], list(topics), 100)


def test_grid_refusals(tied_index):
    from qlog_pyserini.errors import QLogError

    with QLogSearcher(tied_index) as s:
        with pytest.raises(QLogError, match="at least one model"):
            s.search_grid(["beta"], ["a"], [], k=5)
        with pytest.raises(QLogError, match="Similarity objects"):
            s.search_grid(["beta"], ["a"], ["qlog"], k=5)
        with pytest.raises(QLogError, match="illegal k"):
            s.search_grid(["beta"], ["a"], [s.make_similarity("bm25")], k=0)
        with pytest.raises(QLogError, match="illegal q value"):  # checked as set_qlog checks it
            s.make_similarity("qlog", q=float("nan"))
        unwritable = s.search_grid(["beta"], ["a"], [s.make_similarity("bm25")], k=5, writable=False)[0]
        assert unwritable["a"] == s.search_grid(["beta"], ["a"], [s.make_similarity("bm25")], k=5)[0]["a"]
        with pytest.raises(QLogError, match="not made by a Java batch"):
            unwritable.run_bytes("t")
