"""The Python API answers bad arguments with QLogError, never a raw JavaException or TypeError nor a search for
"None"; flags that contradict each other, or would run for ever, are refused before any work; ``--quiet`` is
quiet and a closed pipe is not a traceback."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest
from conftest import ROOT, run_verb
from reliability.reliability_helpers import assert_one_error

from qlog_pyserini.errors import QLogError

pytestmark = pytest.mark.jvm


@pytest.fixture
def searcher(tiny_index):
    from qlog_pyserini import QLogSearcher

    with QLogSearcher(tiny_index) as s:
        yield s


@pytest.mark.parametrize("call, needle", [
    (lambda s: s.search(None), "query must be a string"),
    (lambda s: s.search(b"z0001"), "query must be a string"),
    (lambda s: s.search("z0001 \ud800"), "lone surrogate"),
    (lambda s: s.batch_search("abc", ["a", "b", "c"]), "queries must be a list of strings"),
    (lambda s: s.batch_search(["z0001", None], ["a", "b"]), "query must be a string"),
    (lambda s: s.batch_search(["z0001"], "a"), "qids must be a list of strings"),
    (lambda s: s.batch_search(["z0001", "z0002 \ud800"], ["a", "b"]), "query 'z0002 .ud800' holds a lone surrogate"),
    (lambda s: s.batch_search(["z0001", "z0002"], ["a", "b c"]), "qid 'b c' contains whitespace"),
    (lambda s: s.batch_search(["z0001", "z0002"], ["a", "b\x00"]), "qid 'b.x00' contains whitespace or a NUL"),
    (lambda s: s.batch_search(["z0001", "z0002"], ["a", ""]), "empty qid"),
    (lambda s: s.batch_search(["z0001", "z0002"], ["a", 7]), "empty qid"),
    (lambda s: s.set_similarity(None), "similarity must be a model name"),
    (lambda s: s.set_similarity(42), "similarity must be a model name"),
])
def test_bad_api_arguments_are_qlog_errors(searcher, call, needle):
    with pytest.raises(QLogError, match=needle):
        call(searcher)


def test_a_searcher_of_none_is_a_qlog_error():
    from qlog_pyserini import QLogSearcher

    with pytest.raises(QLogError, match="index must be a folder path, not NoneType"):
        QLogSearcher(None)


def test_every_call_after_close_says_closed(tiny_index):
    from qlog_pyserini import QLogSearcher

    s = QLogSearcher(tiny_index)
    docid = s.search("z0001")[0].docid
    s.close()
    s.close()  # twice is harmless
    for call in (lambda: s.search("z0001"), lambda: s.batch_search(["z0001"], ["q"]), lambda: s.doc_text(docid),
                 lambda: s.explain("z0001", docid), lambda: s.set_q(0.5), lambda: s.similarity):
        with pytest.raises(QLogError, match="is closed"):
            call()


@pytest.mark.parametrize("flags", [["--q", "0.5", "--similarity", "dph"], ["--qld", "--q", "0.5"],
                                   ["--q", "0.5", "--similarity", "bm25"]])
def test_q_with_a_model_without_q_is_refused(flags, tiny_index, tmp_path):
    topics = tmp_path / "t.tsv"
    topics.write_text("q1\tz0001\n")
    proc = run_verb("search", "--index", tiny_index, "--topics", topics, "--output", tmp_path / "r.txt", *flags)
    assert_one_error(proc, "--q applies to --similarity qlog only")
    assert not (tmp_path / "r.txt").exists()


@pytest.fixture
def judged(tmp_path):
    (tmp_path / "qrels.txt").write_text("q1 0 d1 1\nq2 0 d2 1\n")
    (tmp_path / "a.txt").write_text("q1 Q0 d1 1 2.0 a\nq2 Q0 d3 1 1.0 a\n")
    (tmp_path / "b.txt").write_text("q1 Q0 d1 1 2.0 b\nq2 Q0 d2 1 1.0 b\n")
    return tmp_path


@pytest.mark.parametrize("flags, needle", [(["--resamples", str(10**12)], "--resamples must be an integer from 1"),
                                           (["--resamples", "0"], "--resamples must be an integer from 1"),
                                           (["--metric", "P.5,10"], "gives several values")])
def test_compare_refuses_before_any_work(flags, needle, judged):
    proc = run_verb("compare", "--qrels", judged / "qrels.txt", "--runs", judged / "a.txt", judged / "b.txt", *flags,
                timeout=120)
    assert_one_error(proc, needle)


def test_sweep_quiet_prints_no_q_auto_line(tiny_index, tmp_path):
    (tmp_path / "t.tsv").write_text("q1\tz0001 z0002\nq2\tz0010\n")
    (tmp_path / "qrels.txt").write_text("q1 0 doc/000.go:F0 1\nq2 0 doc/006.go:F6 1\n")
    proc = run_verb("sweep", "--index", tiny_index, "--topics", tmp_path / "t.tsv", "--qrels", tmp_path / "qrels.txt",
                "--q-grid", "0.5,1", "--hits", "5", "--resamples", "10", "--out", tmp_path / "sw", "--quiet")
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert "q auto" not in proc.stderr, proc.stderr


def test_a_closed_pipe_is_not_a_traceback(tiny_index):
    proc = subprocess.Popen([sys.executable, "-m", "qlog_pyserini.stats", "--index", str(tiny_index), "--sample-ids"],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, env={**os.environ, "PYTHONPATH": str(ROOT)})
    proc.stdout.close()  # `| head -0`: the reader is gone before the first line
    err = proc.stderr.read().decode()
    proc.wait(timeout=300)
    assert "Traceback" not in err and "BrokenPipeError" not in err, err


# --- model parameters: a keyword the model does not take is refused, not ignored -----------------------

@pytest.mark.parametrize("name, params, needle", [
    ("qld", {"muu": 500}, "'muu'"),
    ("bm25", {"k1": 1.2, "bb": 0.3}, "'bb'"),
    ("qlog", {"q": 0.5, "Q": 0.7}, "'Q'"),
    ("dph", {"mu": 500}, "'mu'"),
    ("bm25", {"gamma": 2.0}, "'gamma'"),
])
def test_a_keyword_the_model_does_not_take_is_refused(searcher, name, params, needle):
    before = searcher.similarity
    with pytest.raises(QLogError, match=needle):
        searcher.set_similarity(name, **params)
    with pytest.raises(QLogError, match=needle):
        searcher.make_similarity(name, **params)
    assert searcher.similarity == before  # nothing installed


def test_the_keywords_each_model_takes_are_installed(searcher):
    searcher.set_similarity("qld", mu=500)
    assert searcher.similarity == "LM Dirichlet(500.000000)"
    searcher.set_similarity("bm25", k1=1.2, b=0.3)
    assert searcher.similarity == "BM25(k1=1.2,b=0.3)"


# --- the PyTerrier retriever: parameters checked when set, missing queries refused -------------------

@pytest.fixture
def retriever_class():
    pytest.importorskip("pyterrier")
    from qlog_pyserini.pyterrier import QLogRetriever

    return QLogRetriever


@pytest.mark.parametrize("params, needle", [
    ({"k1": -1}, "illegal k1 value"), ({"b": 2}, "illegal b value"), ({"threads": 0}, "illegal threads value"),
    ({"mu": -5, "similarity": "qld"}, "illegal mu value"), ({"gamma": 0, "similarity": "idf-gamma"}, "illegal gamma"),
    ({"num_results": 0}, "illegal num_results value"),
])
def test_a_bad_retriever_parameter_fails_at_construction(searcher, retriever_class, params, needle):
    with pytest.raises(QLogError, match=needle):
        retriever_class(searcher, **params)


@pytest.mark.parametrize("name, value, needle", [
    ("k1", -1, "illegal k1 value"), ("b", 2, "illegal b value"), ("threads", 0, "illegal threads value"),
    ("mu", -5, "illegal mu value"), ("q", 9, "illegal q value"),
])
def test_a_bad_retriever_attribute_fails_when_assigned_and_keeps_the_old_value(searcher, retriever_class, name, value,
                                                                              needle):
    r = retriever_class(searcher)
    old = getattr(r, name)
    with pytest.raises(QLogError, match=needle):
        setattr(r, name, value)
    assert getattr(r, name) == old
    if name != "threads":  # not one pt.GridSearch varies
        with pytest.raises(QLogError, match=needle):
            r.set_parameter(name, value)
        assert getattr(r, name) == old


@pytest.mark.parametrize("missing", [None, float("nan"), "pd.NA"])
def test_a_missing_query_in_a_frame_is_refused_naming_its_qid(searcher, retriever_class, missing):
    import pandas as pd

    frame = pd.DataFrame({"qid": ["q1", "q2"], "query": pd.Series(["z0001", pd.NA if missing == "pd.NA" else missing],
                                                                  dtype=object)})
    with pytest.raises(QLogError, match="query of qid 'q2' is missing"):
        retriever_class(searcher).transform(frame)
