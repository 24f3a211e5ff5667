"""python -m qlog_pyserini.search and .index end to end, and every bad input the CLIs must refuse cleanly."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import ROOT, run_verb

from qlog_pyserini.formats.trec import read_run

pytestmark = pytest.mark.jvm  # every test here starts the JVM or runs Java


def fresh(verb: str, *args: object) -> subprocess.CompletedProcess:
    """The verb as a user starts it: ``python -m`` in a new interpreter (and a new JVM)."""
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    return subprocess.run([sys.executable, "-m", f"qlog_pyserini.{verb}", *map(str, args)],
                          capture_output=True, text=True, env=env, timeout=600)


def cli(verb: str, *args: object) -> subprocess.CompletedProcess:
    """The verb's ``main`` under ``run_cli``, in this process: the same code as ``fresh``, without a JVM start."""
    return run_verb(verb, *args)


def one_error_line(proc: subprocess.CompletedProcess, needle: str) -> None:
    assert proc.returncode != 0
    # progress bars may precede it, but the failure itself is one line, last, and no traceback
    lines = [l for l in proc.stderr.splitlines() if l.strip()]
    errors = [l for l in lines if l.startswith("error: ")]
    assert len(errors) == 1 and lines[-1] == errors[0] and "Traceback" not in proc.stderr, proc.stderr
    assert needle in errors[0], errors[0]


def test_search_cli_writes_trec_run_equal_to_api(tmp_path, stdlib_index, stdlib_code):
    out = tmp_path / "run.txt"
    proc = fresh("search", "--index", stdlib_index, "--topics", stdlib_code[1], "--output", out,
               "--q", "0.3", "--hits", "20", "--threads", "2", "--run-tag", "mytag")
    assert proc.returncode == 0, proc.stderr
    assert "QLogBM25(k1=0.9,b=0.4,q=0.3,form=lucene)" in proc.stderr  # the log names the similarity
    lines = out.read_text().splitlines()
    first = lines[0].split()
    assert len(first) == 6 and first[1] == "Q0" and first[3] == "1" and first[5] == "mytag"
    run = read_run(out)
    from qlog_pyserini.formats.topics import read_topics
    from qlog_pyserini.lucene.searcher import QLogSearcher

    topics = read_topics(stdlib_code[1])
    qid = next(iter(topics))
    api = QLogSearcher(stdlib_index, q=0.3).search(topics[qid], 20)
    assert [h.docid for h in run[qid]] == [h.docid for h in api]
    assert all(abs(a.score - b.score) < 1e-6 for a, b in zip(run[qid], api))
    # ranks are 1..n within each query and scores never increase down the list
    for hits in run.values():
        assert all(a.score >= b.score for a, b in zip(hits, hits[1:]))


def test_search_cli_rsj_form_and_default_tag(tmp_path, stdlib_index, stdlib_code):
    out = tmp_path / "run.txt"
    proc = cli("search", "--index", stdlib_index, "--topics", stdlib_code[1], "--output", out,
               "--q", "0.5", "--idf-form", "rsj", "--hits", "5", "--quiet")
    assert proc.returncode == 0, proc.stderr
    assert out.read_text().split("\n", 1)[0].endswith(" qlog-bm25-q0.5-rsj")


@pytest.fixture()
def topics_tsv(tmp_path) -> Path:
    p = tmp_path / "topics.tsv"
    p.write_text("q1\tparse a json document\nq2\twrap text to a width\n")
    return p


def _refused(tmp_path, needle: str, *args: str) -> None:
    out = tmp_path / "run.txt"
    proc = cli("search", *args, "--output", out) if "--output" not in args else cli("search", *args)
    one_error_line(proc, needle)
    assert not out.exists()
    assert not [p for p in tmp_path.iterdir() if p.name.startswith(".run.txt")]  # no temp left either


def test_search_cli_missing_index(tmp_path, topics_tsv):
    _refused(tmp_path, "does not exist", "--index", tmp_path / "missing", "--topics", topics_tsv)


def test_search_cli_not_a_lucene_index(tmp_path, topics_tsv):
    (tmp_path / "notindex").mkdir()
    _refused(tmp_path, "not a Lucene index", "--index", tmp_path / "notindex", "--topics", topics_tsv)


def test_search_cli_bad_q(tmp_path, stdlib_index, topics_tsv):
    for bad in ("nan", "inf", "-inf"):
        _refused(tmp_path, "illegal q value", "--index", stdlib_index, "--topics", topics_tsv, f"--q={bad}")


def test_search_cli_unknown_idf_form(tmp_path, stdlib_index, topics_tsv):
    _refused(tmp_path, "illegal idf form", "--index", stdlib_index, "--topics", topics_tsv, "--idf-form", "okapi")


def test_search_cli_malformed_topics_names_the_line(tmp_path, stdlib_index):
    bad = tmp_path / "bad.tsv"
    bad.write_text("q1\tfine query\nthis line has no tab\n")
    _refused(tmp_path, ":2", "--index", stdlib_index, "--topics", bad)


def test_search_cli_unreadable_topics(tmp_path, stdlib_index):
    _refused(tmp_path, "not found", "--index", stdlib_index, "--topics", tmp_path / "nope.tsv")


def test_search_cli_duplicate_qids(tmp_path, stdlib_index):
    dup = tmp_path / "dup.tsv"
    dup.write_text("q1\tparse json\nq2\twrap text\nq1\tagain\n")
    _refused(tmp_path, "q1", "--index", stdlib_index, "--topics", dup)


def test_search_cli_output_folder_missing(tmp_path, stdlib_index, topics_tsv):
    out = tmp_path / "no-such-folder" / "run.txt"
    proc = cli("search", "--index", stdlib_index, "--topics", topics_tsv, "--output", out)
    one_error_line(proc, "does not exist")
    assert not out.parent.exists()


def test_search_cli_empty_query_gets_no_lines(tmp_path, stdlib_index):
    topics = tmp_path / "t.tsv"
    topics.write_text("q1\tparse json\nq2\t\nq3\tthe of\n")
    out = tmp_path / "run.txt"
    proc = cli("search", "--index", stdlib_index, "--topics", topics, "--output", out, "--hits", "3")
    assert proc.returncode == 0, proc.stderr
    assert "warning: 1 queries have empty text" in proc.stderr
    assert set(read_run(out)) == {"q1"}


def test_search_cli_beir_queries_jsonl(tmp_path, stdlib_index):
    q = tmp_path / "queries.jsonl"
    q.write_text(json.dumps({"_id": "<dbpedia:Foo>", "text": "decode json"}) + "\n")
    out = tmp_path / "run.txt"
    proc = cli("search", "--index", stdlib_index, "--topics", q, "--output", out, "--hits", "2")
    assert proc.returncode == 0, proc.stderr
    assert out.read_text().startswith("<dbpedia:Foo> Q0 ")


# --- index CLI ---------------------------------------------------------------------------------

def test_index_cli_beir_corpus_with_unusual_docids(tmp_path):
    corpus = tmp_path / "corpus.jsonl"
    rows = [{"_id": "<dbpedia:Foo>", "title": "Foo", "text": "handleWebSocketUpgrade upgrades a socket"},
            {"_id": "a/b.go:12", "title": "", "text": "func parseJSONValue reads a value"},
            {"_id": "c#3", "title": "x", "text": "plain words about sockets"}]
    corpus.write_text("".join(json.dumps(r) + "\n" for r in rows))
    proc = fresh("index", "--corpus", corpus, "--index", tmp_path / "idx", "--threads", "1")
    assert proc.returncode == 0, proc.stderr
    from qlog_pyserini.lucene.searcher import QLogSearcher

    s = QLogSearcher(tmp_path / "idx", q=0.5)
    assert s.num_docs == 3
    assert s.search("handlewebsocketupgrade", 5)[0].docid == "<dbpedia:Foo>"
    assert s.search("parsejsonvalue", 5)[0].docid == "a/b.go:12"
    # ... and through a run file and trec_eval
    topics = tmp_path / "topics.tsv"
    topics.write_text("q:1\thandleWebSocketUpgrade\nq/2\tparseJSONValue reads\n")
    qrels = tmp_path / "qrels.txt"
    qrels.write_text("q:1 0 <dbpedia:Foo> 1\nq/2 0 a/b.go:12 1\n")
    proc = cli("search", "--index", tmp_path / "idx", "--topics", topics, "--output", tmp_path / "run.txt", "--q", "0.5")
    assert proc.returncode == 0, proc.stderr
    from qlog_pyserini.eval.trec_eval import trec_eval

    ev = trec_eval(qrels, tmp_path / "run.txt", metrics=["recip_rank"])
    assert ev.aggregate["recip_rank"] == 1.0 and list(ev.per_query.index) == ["q:1", "q/2"]


def test_index_cli_refuses_whitespace_docid_and_leaves_nothing(tmp_path):
    corpus = tmp_path / "corpus.jsonl"
    corpus.write_text(json.dumps({"id": "ok", "contents": "a"}) + "\n" + json.dumps({"id": "my doc", "contents": "b"}) + "\n")
    proc = cli("index", "--corpus", corpus, "--index", tmp_path / "idx")
    one_error_line(proc, "whitespace")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["corpus.jsonl"]


def test_index_cli_missing_corpus_and_existing_index(tmp_path, tiny_corpus):
    one_error_line(cli("index", "--corpus", tmp_path / "nope.jsonl", "--index", tmp_path / "idx"), "does not exist")
    (tmp_path / "full").mkdir()
    (tmp_path / "full" / "keep.txt").write_text("x")
    one_error_line(cli("index", "--corpus", tiny_corpus, "--index", tmp_path / "full"), "--overwrite")
    assert (tmp_path / "full" / "keep.txt").exists()


def test_search_cli_baseline_by_name(tmp_path, stdlib_index, topics_tsv):
    out = tmp_path / "run.txt"
    proc = cli("search", "--index", stdlib_index, "--topics", topics_tsv, "--output", out,
               "--similarity", "idf-gamma", "--gamma", "2", "--hits", "3")
    assert proc.returncode == 0, proc.stderr
    assert "IdfPowerBM25(k1=0.9,b=0.4,gamma=2.0)" in proc.stderr
    assert out.read_text().split("\n", 1)[0].endswith(" bm25-idf-gamma2")
    (tmp_path / "bad").mkdir()
    _refused(tmp_path / "bad", "unknown similarity", "--index", stdlib_index, "--topics", topics_tsv,
             "--similarity", "okapi")
