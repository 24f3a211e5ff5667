"""Refusals at the edges of the verbs and the library integrations: options that do not apply, values out of range,
evaluation inputs trec_eval would misread, bm25s and rank_bm25 models whose parameters no BM25 takes.

Bad input is one ``error:`` line, exit code 2, before any long work and with nothing written; a value that is
accepted gives the number an independent computation gives.
"""

from __future__ import annotations

import math

import pytest
from conftest import run_verb
from markdown_tables import row_of
from reliability.reliability_helpers import assert_one_error

from qlog_pyserini.errors import QLogError

pytestmark = pytest.mark.jvm


@pytest.fixture
def topics(tmp_path):
    path = tmp_path / "t.tsv"
    path.write_text("q1\tz0001 z0010\nq2\tz0025\n")
    return path


# --- the rewrite verb: an option of another engine is refused, not dropped --------------------------------------

SOLR = ["--engine", "solr", "--url", "http://127.0.0.1:9/solr", "--collection", "c"]


@pytest.mark.parametrize("args, needle", [
    ([*SOLR, "--k1", "1.2"], "--k1 does not apply to --engine solr"),
    ([*SOLR, "--b", "0.3"], "--b does not apply to --engine solr"),
    ([*SOLR, "--index", "IDX"], "--index does not apply to --engine solr"),
    (["--engine", "elasticsearch", "--url", "http://127.0.0.1:9", "--collection", "c", "--k1", "2"],
     "--k1 does not apply to --engine elasticsearch"),
    (["--engine", "lucene", "--index", "IDX", "--url", "http://127.0.0.1:9/solr"], "--url does not apply to --engine lucene"),
    (["--engine", "lucene", "--index", "IDX", "--collection", "c"], "--collection does not apply to --engine lucene"),
    (["--engine", "tantivy", "--index", "IDX", "--k1", "1.2"], "--k1 does not apply to --engine tantivy"),
])
def test_rewrite_refuses_an_option_its_engine_does_not_take(tiny_index, topics, tmp_path, args, needle):
    args = [tiny_index if a == "IDX" else a for a in args]
    proc = run_verb("rewrite", *args, "--q", "0.5", "--topics", topics, "--output", tmp_path / "r.txt")
    assert_one_error(proc, needle)
    assert not (tmp_path / "r.txt").exists()


def test_rewrite_refuses_print_with_output(tiny_index, topics, tmp_path):
    proc = run_verb("rewrite", "--engine", "lucene", "--index", tiny_index, "--q", "0.5", "--topics", topics,
                    "--output", tmp_path / "r.txt", "--print")
    assert_one_error(proc, "not both")
    assert proc.stdout == "" and not (tmp_path / "r.txt").exists()


def test_rewrite_on_lucene_takes_its_k1_and_b(tiny_index, topics, tmp_path):
    from qlog_pyserini.rewrite.lucene import LuceneRewriter

    proc = run_verb("rewrite", "--engine", "lucene", "--index", tiny_index, "--q", "0.5", "--topics", topics,
                    "--output", tmp_path / "r.txt", "--k1", "1.5", "--b", "0.2", "--run-tag", "t")
    assert proc.returncode == 0, proc.stderr
    first = (tmp_path / "r.txt").read_text().splitlines()[0].split()
    rewriter = LuceneRewriter(tiny_index, 0.5, k1=1.5, b=0.2)
    try:
        best = rewriter.search("z0001 z0010", k=1)[0]
    finally:
        rewriter.searcher.close()
    assert first[:3] == ["q1", "Q0", best.docid] and math.isclose(float(first[4]), best.score, rel_tol=1e-6)


@pytest.mark.parametrize("args, needle", [
    (["--engine", "lucene", "--q", "0.5"], "--engine lucene needs --index DIR"),
    (["--engine", "solr", "--q", "0.5"], "--engine solr needs --url and --collection"),
    (["--engine", "lucene", "--index", "IDX", "--q", "5"], "illegal q value"),
    (["--engine", "lucene", "--index", "IDX", "--q", "nan"], "illegal q value"),
    (["--engine", "lucene", "--index", "IDX", "--q", "0.5", "--hits", "0"], "illegal --hits value"),
    (["--engine", "lucene", "--index", "IDX", "--q", "0.5", "--k1", "-1"], "illegal k1 value"),
    (["--engine", "lucene", "--index", "IDX", "--q", "0.5", "--b", "2"], "illegal b value"),
    (["--engine", "lucene", "--index", "IDX", "--q", "0.5", "--idf-form", "xyz"], "illegal idf form"),
    (["--engine", "lucene", "--index", "IDX", "--q", "0.5", "--cache-entries", "-1"], "illegal cache size"),
    (["--engine", "tantivy", "--index", "IDX", "--q", "0.5"], "holds no Tantivy index"),
])
def test_rewrite_refuses_bad_values_in_one_line(tiny_index, topics, tmp_path, args, needle):
    args = [tiny_index if a == "IDX" else a for a in args]
    proc = run_verb("rewrite", *args, "--topics", topics, "--output", tmp_path / "r.txt")
    assert_one_error(proc, needle)
    assert not (tmp_path / "r.txt").exists()


def test_rewrite_refuses_an_output_that_is_its_topics(tiny_index, topics):
    before = topics.read_bytes()
    proc = run_verb("rewrite", "--engine", "lucene", "--index", tiny_index, "--q", "0.5", "--topics", topics,
                    "--output", topics)
    assert_one_error(proc, "an output may never be an input")
    assert topics.read_bytes() == before


# --- parameter edges of search and sweep -----------------------------------------------------------------------

@pytest.mark.parametrize("args, needle", [
    (["--hits", "0"], "illegal --hits value"), (["--hits", str(2**31)], "illegal --hits value"),
    (["--threads", "0"], "argument --threads: must be at least 1, got 0"), (["--batch-size", "0"], "--batch-size must be at least 1"),
    (["--k1", "nan"], "illegal k1 value"), (["--k1", "inf"], "illegal k1 value"), (["--b", "1.5"], "illegal b value"),
    (["--similarity", "bm25", "--q", "auto"], "bm25 has no q"),
])
def test_search_refuses_parameters_out_of_range_before_searching(tiny_index, topics, tmp_path, args, needle):
    proc = run_verb("search", "--index", tiny_index, "--topics", topics, "--output", tmp_path / "r.txt", *args)
    assert_one_error(proc, needle)
    assert proc.stderr.count("\n") == 1 and not (tmp_path / "r.txt").exists()


@pytest.mark.parametrize("missing", ["topics", "qrels"])
def test_sweep_refuses_a_missing_input_before_the_label_free_q_reads_the_index(tiny_index, topics, tmp_path, missing):
    qrels = tmp_path / "q.txt"
    qrels.write_text("q1 0 doc/000.go:F0 1\n")
    paths = {"topics": topics, "qrels": qrels, missing: tmp_path / "nope.txt"}
    proc = run_verb("sweep", "--index", tiny_index, "--topics", paths["topics"], "--qrels", paths["qrels"],
                    "--out", tmp_path / "sw")
    assert_one_error(proc, f"{missing} file '{tmp_path / 'nope.txt'}' not found")
    assert "q auto" not in proc.stderr and not (tmp_path / "sw").exists()


# --- evaluation inputs -----------------------------------------------------------------------------------------

RUN = "".join(f"{q} Q0 d{i} {i + 1} {10 - i} t\n" for q in ("q1", "q2") for i in range(5))


@pytest.fixture
def run_file(tmp_path):
    path = tmp_path / "run.txt"
    path.write_text(RUN)
    return path


def test_a_judged_query_the_run_does_not_answer_scores_zero(run_file, tmp_path):
    qrels = tmp_path / "qrels.txt"
    qrels.write_text("q1 0 d0 1\nq2 0 d3 2\nq3 0 d9 1\n")
    proc = run_verb("eval", "--run", run_file, "--qrels", qrels, "--metrics", "recip_rank")
    assert proc.returncode == 0, proc.stderr
    # trec_eval -c: every judged query counts; q1 finds its answer at rank 1, q2 at 4, q3 is not answered
    assert float(proc.stdout.split()[-1]) == pytest.approx((1 + 1 / 4 + 0) / 3, abs=5e-5)


@pytest.mark.parametrize("qrels, needle", [
    ("", "is empty"),
    ("q1 0 d0 0.5\nq2 0 d3 2\n", "grade '0.5' is not an integer"),
    ("q1 0 d0\n", "needs 4 columns"),
])
def test_qrels_trec_eval_would_misread_are_refused(run_file, tmp_path, qrels, needle):
    path = tmp_path / "qrels.txt"
    path.write_text(qrels)
    assert_one_error(run_verb("eval", "--run", run_file, "--qrels", path), needle)


def test_a_document_listed_twice_for_one_query_is_one_error_line(run_file, tmp_path):
    qrels = tmp_path / "qrels.txt"
    qrels.write_text("q1 0 d0 1\nq2 0 d3 2\n")
    twice = tmp_path / "twice.txt"
    twice.write_text(RUN + "q1 Q0 d0 6 1 t\n")
    assert_one_error(run_verb("eval", "--run", twice, "--qrels", qrels), "duplicate docs d0")


def test_compare_warns_when_the_runs_answer_different_queries(run_file, tmp_path):
    qrels = tmp_path / "qrels.txt"
    qrels.write_text("q1 0 d0 1\nq2 0 d3 2\n")
    half = tmp_path / "half.txt"
    half.write_text("".join(line + "\n" for line in RUN.splitlines() if line.startswith("q1 ")))
    proc = run_verb("compare", "--runs", run_file, half, "--qrels", qrels, "--metric", "recip_rank",
                    "--resamples", "200")
    assert proc.returncode == 0, proc.stderr
    assert "the runs answer different queries" in proc.stderr
    cells = row_of(proc.stdout, "recip_rank")
    # A: q1 at rank 1, q2 at rank 4; B answers q1 only, so q2 scores 0 there
    assert float(cells[1]) == pytest.approx((1 + 1 / 4) / 2, abs=5e-5) and float(cells[2]) == pytest.approx(0.5)


# --- the bm25s and rank_bm25 integrations: parameters no BM25 takes are refused --------------------------------

CORPUS = [["alpha", "beta"], ["alpha", "gamma"], ["delta"], ["alpha"]]


def _bm25s(**params):
    bm25s = pytest.importorskip("bm25s")
    model = bm25s.BM25(**params)
    model.index(CORPUS, show_progress=False)
    return model


@pytest.mark.parametrize("params, q, needle", [
    ({"k1": -1}, 0.5, "illegal k1 value"), ({"b": 2}, 0.5, "illegal b value"),
    ({}, float("nan"), "illegal q value"), ({}, True, "illegal q value"), ({}, float("inf"), "illegal q value"),
])
def test_bm25s_rescale_refuses_what_no_bm25_takes(params, q, needle):
    from qlog_pyserini.integrations import bm25s as qb

    with pytest.raises(QLogError, match=needle) as e:
        qb.rescale(_bm25s(**params), q)
    assert "\n" not in str(e.value)


@pytest.mark.parametrize("cls, params, needle", [
    ("QLogBM25Okapi", {"k1": -1}, "illegal k1 value"), ("QLogBM25Okapi", {"b": 2}, "illegal b value"),
    ("QLogBM25L", {"k1": float("nan")}, "illegal k1 value"), ("QLogBM25Plus", {"b": -0.1}, "illegal b value"),
    ("QLogBM25Okapi", {"q": float("nan")}, "illegal q value"),
])
def test_rank_bm25_classes_refuse_what_no_bm25_takes(cls, params, needle):
    pytest.importorskip("rank_bm25")
    from qlog_pyserini.integrations import rank_bm25 as qr

    with pytest.raises(QLogError, match=needle):
        getattr(qr, cls)(CORPUS, **{"q": 0.5, **params})


@pytest.mark.parametrize("cls", ["QLogBM25Okapi", "QLogBM25L", "QLogBM25Plus"])
def test_rank_bm25_classes_refuse_an_empty_corpus_in_one_line(cls):
    pytest.importorskip("rank_bm25")
    from qlog_pyserini.integrations import rank_bm25 as qr

    with pytest.raises(QLogError, match="holds no documents"):
        getattr(qr, cls)([], q=0.5)


def test_rank_bm25_set_q_refuses_nan_and_keeps_the_idf(monkeypatch):
    pytest.importorskip("rank_bm25")
    from qlog_pyserini.integrations import rank_bm25 as qr

    model = qr.QLogBM25Okapi(CORPUS, q=0.5)
    before = dict(model.idf)
    with pytest.raises(QLogError, match="illegal q value"):
        model.set_q(float("nan"))
    assert model.idf == before and model.q == 0.5
