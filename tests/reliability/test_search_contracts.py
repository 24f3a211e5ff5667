"""The search contracts against a real JVM: scores a run can hold, identifiers, threads, clause limits, corrupt indexes.

Each test drives the real searcher (Anserini and Lucene through pyjnius) or the real verb (its ``main`` under
``run_cli``, as ``python -m`` runs it), and checks the contract the README's "Command line" section states.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import threading
from pathlib import Path

import pytest
from conftest import ROOT, run_verb
from reliability.reliability_helpers import assert_one_error, tree, verb

from qlog_pyserini.errors import QLogError
from qlog_pyserini.formats.topics import read_topics
from qlog_pyserini.formats.trec import read_run
from qlog_pyserini.lucene.searcher import QLogSearcher

pytestmark = pytest.mark.jvm


@pytest.fixture(scope="module")
def searcher(stdlib_index):
    s = QLogSearcher(stdlib_index)
    yield s
    s.close()


# --- parameters whose scores a run cannot represent are refused when installed --------

def test_idf_gamma_whose_scores_overflow_is_refused_at_construction(searcher):
    with pytest.raises(QLogError, match="above the 1e\\+06"):
        searcher.set_similarity("idf-gamma", gamma=50)
    with pytest.raises(QLogError, match="above the 1e\\+06"):
        searcher.set_similarity("idf-gamma", gamma=20)
    searcher.set_qlog(q=1.0)


def test_search_verb_refuses_gamma_50_in_one_line(tmp_path, stdlib_index, stdlib_code):
    proc = run_verb("search", "--index", stdlib_index, "--topics", stdlib_code[1], "--output", tmp_path / "r.txt",
                "--similarity", "idf-gamma", "--gamma", "50")
    assert_one_error(proc, "gamma")
    assert not (tmp_path / "r.txt").exists()


def test_low_q_is_refused_on_an_index_too_large_for_it(tmp_path):
    corpus = tmp_path / "c.jsonl"
    with open(corpus, "w") as f:
        for i in range(3000):
            f.write(json.dumps({"id": f"d{i}", "contents": f"common u{i}"}) + "\n")
    from qlog_pyserini.index import build_index

    build_index(corpus, tmp_path / "idx", progress=False)
    with QLogSearcher(tmp_path / "idx") as s:
        with pytest.raises(QLogError, match="N = 3000"):
            s.set_q(-1.0)  # ln_q of odds 2000 at q = -1 is 2e6 per term
        s.set_q(-0.5)
        assert s.search("u7 common", k=3)[0].docid == "d7"


# --- written scores strictly decrease at every q ---------------------------------------

@pytest.mark.parametrize("q", ["0.05", "0.3", "1", "2"])
def test_written_scores_strictly_decrease_within_each_query(tmp_path, stdlib_index, stdlib_code, q):
    out = tmp_path / "run.txt"
    proc = run_verb("search", "--index", stdlib_index, "--topics", stdlib_code[1], "--output", out, "--q", q,
                "--hits", "200", "--quiet")
    assert proc.returncode == 0, proc.stderr
    for qid, hits in read_run(out).items():
        scores = [h.score for h in hits]
        assert all(a > b for a, b in zip(scores, scores[1:])), (qid, scores)


# --- identifiers a run cannot hold -----------------------------------------------------

@pytest.fixture(scope="module")
def anserini_index_with_spaces(tmp_path_factory) -> Path:
    """An index built by Anserini's IndexCollection directly, from docids with whitespace (ours refuses them)."""
    from qlog_pyserini.lucene.indexer import anserini_index_command

    folder = tmp_path_factory.mktemp("spaced")
    (folder / "json").mkdir()
    with open(folder / "json" / "docs.jsonl", "w") as f:
        for docid in ("my doc", "your doc", "plain"):
            f.write(json.dumps({"id": docid, "contents": f"shared words {docid}"}) + "\n")
    subprocess.run(anserini_index_command(folder / "json", folder / "index", 1), check=True, capture_output=True)
    return folder / "index"


def test_api_refuses_hits_whose_docids_hold_whitespace(anserini_index_with_spaces):
    with QLogSearcher(anserini_index_with_spaces) as s:
        with pytest.raises(QLogError, match="'my doc'|'your doc'"):
            s.search("shared", k=10)  # several such documents: was "too many values to unpack"
        with pytest.raises(QLogError, match="'my doc'"):
            s.search("my", k=10)  # one such document: was a 7-column run line
        # the docid table is read and checked once per open index, so even a query that would not hit such a
        # document is refused: the index cannot give a TREC run, and the message says how to mend it
        with pytest.raises(QLogError, match="rebuild the index"):
            s.search("plain", k=10)


def test_search_verb_refuses_a_whitespace_docid_and_writes_nothing(tmp_path, anserini_index_with_spaces):
    topics = tmp_path / "t.tsv"
    topics.write_text("q1\tmy\n")
    before = tree(tmp_path)
    assert_one_error(run_verb("search", "--index", anserini_index_with_spaces, "--topics", topics,
                          "--output", tmp_path / "run.txt"), "my doc")
    assert tree(tmp_path) == before


@pytest.mark.parametrize("qid", ["q\t1", "q\n1", "q 1", ""])
def test_api_refuses_qids_a_run_cannot_hold(searcher, qid):
    with pytest.raises(QLogError, match="qid"):
        searcher.batch_search(["parse file"], [qid], k=5)


# --- one batch, one similarity --------------------------------------------------------

def test_a_batch_runs_under_the_similarity_installed_when_it_started(stdlib_index, stdlib_code):
    topics = read_topics(stdlib_code[1])
    queries = [t for t in topics.values()] * 4
    qids = [f"{i}" for i in range(len(queries))]
    with QLogSearcher(stdlib_index, q=1.0) as s:
        old = s.batch_search(queries, qids, k=20)
        s.set_q(0.1)
        new = s.batch_search(queries, qids, k=20)
        s.set_q(1.0)
        assert old != new
        stop = threading.Event()

        def flip() -> None:
            while not stop.is_set():
                s.set_q(0.1)
                s.set_q(1.0)

        flipper = threading.Thread(target=flip)
        flipper.start()
        try:
            mixed = [s.batch_search(queries, qids, k=20, threads=2) for _ in range(3)]
        finally:
            stop.set()
            flipper.join()
    for result in mixed:
        assert result == old or result == new, "a batch mixed two similarities"


# --- one error line, or no error at all --------------------------------------

def test_corrupt_index_is_one_error_line(tmp_path, stdlib_index, stdlib_code):
    broken = tmp_path / "broken"
    shutil.copytree(stdlib_index, broken)
    segments = next(p for p in broken.iterdir() if p.name.startswith("segments_"))
    segments.write_bytes(segments.read_bytes()[:20])
    with pytest.raises(QLogError, match="cannot open index"):
        QLogSearcher(broken)
    assert_one_error(run_verb("search", "--index", broken, "--topics", stdlib_code[1], "--output", tmp_path / "r.txt"),
                     "index")
    assert not (tmp_path / "r.txt").exists()
    # a fresh process: the bench verb's real entry point (python -m), which no other test starts
    assert_one_error(verb("bench", "--index", broken, "--topics", stdlib_code[1]), "cannot open index")
    qrels = tmp_path / "qrels.txt"
    qrels.write_text("".join(f"{q} 0 x 1\n" for q in read_topics(stdlib_code[1])))
    for auto in ([], ["--no-auto"]):
        assert_one_error(run_verb("sweep", "--index", broken, "--topics", stdlib_code[1], "--qrels", qrels,
                              "--out", tmp_path / "sw", *auto), "index")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["broken", "qrels.txt"]


def test_a_query_with_more_than_1024_distinct_terms_is_answered(searcher):
    long_query = " ".join(f"term{i}" for i in range(1500)) + " parse file"
    hits = searcher.search(long_query, k=5)
    assert hits and hits == searcher.search("parse file " + " ".join(f"term{i}" for i in range(1500)), k=5)
    batch = searcher.batch_search([long_query, "parse file"], ["long", "short"], k=5)
    assert batch["long"] == hits and batch["short"]


@pytest.mark.parametrize("k", [0, -1, 2**31, 1.5, True])
def test_api_search_refuses_an_impossible_k(searcher, k):
    with pytest.raises(QLogError, match="illegal k value"):
        searcher.search("parse file", k=k)


# --- short-lived threads do not leak Java threads -------------------------------------

def test_short_lived_threads_leave_no_java_thread(searcher):
    from qlog_pyserini.jvm.bridge import jclass

    mx = jclass("java.lang.management.ManagementFactory").getThreadMXBean()
    before = mx.getThreadCount()
    for _ in range(200):
        t = threading.Thread(target=searcher.search, args=("parse file", 3))
        t.start()
        t.join()
    assert mx.getThreadCount() - before < 10


# --- queries that get no hits are counted in the log ----------------------------------

def test_stopword_only_queries_are_counted(tmp_path, stdlib_index):
    topics = tmp_path / "t.tsv"
    topics.write_text("q1\tparse the file\nq2\tthe and of\nq3\t \n")
    proc = run_verb("search", "--index", stdlib_index, "--topics", topics, "--output", tmp_path / "r.txt")
    assert proc.returncode == 0, proc.stderr
    assert "1 queries have empty text" in proc.stderr and "1 more queries got no hits" in proc.stderr
    assert set(read_run(tmp_path / "r.txt")) == {"q1"}


# --- the heap limit -------------------------------------------------------------------

def test_qlog_java_opts_sets_the_heap_of_the_jvm():
    code = ("from qlog_pyserini.jvm.bridge import jclass; "
            "print(jclass('java.lang.Runtime').getRuntime().maxMemory())")
    env = {**os.environ, "PYTHONPATH": str(ROOT), "QLOG_JAVA_OPTS": "-Xmx96m"}
    out = subprocess.run([os.sys.executable, "-c", code], capture_output=True, text=True, env=env, timeout=300)
    assert out.returncode == 0, out.stderr
    assert int(out.stdout.split()[-1]) <= 96 * 2**20


# --- an index with no documents: one rule, one message, for every verb that reads an index ---------------------

@pytest.fixture(scope="module")
def empty_index(tmp_path_factory) -> Path:
    """A valid Lucene index (a commit, segments_N) holding no document, written by Lucene's own IndexWriter."""
    from qlog_pyserini.jvm.bridge import jclass

    folder = tmp_path_factory.mktemp("empty") / "index"
    folder.mkdir()
    directory = jclass("org.apache.lucene.store.FSDirectory").open(jclass("java.io.File")(str(folder)).toPath())
    writer = jclass("org.apache.lucene.index.IndexWriter")(directory, jclass("org.apache.lucene.index.IndexWriterConfig")())
    writer.commit()
    writer.close()
    directory.close()
    return folder


@pytest.mark.parametrize("name, args", [
    ("search", ["--topics", "T", "--output", "OUT"]),
    ("rewrite", ["--engine", "lucene", "--q", "0.5", "--topics", "T", "--output", "OUT"]),
    ("stats", []),
    ("predict", []),
    ("sweep", ["--topics", "T", "--qrels", "Q", "--out", "OUT"]),
])
def test_an_index_without_documents_is_refused_by_every_verb_in_the_same_words(empty_index, tmp_path, name, args):
    (tmp_path / "t.tsv").write_text("q1\tfoo\n")
    (tmp_path / "q.txt").write_text("q1 0 d1 1\n")
    swap = {"T": tmp_path / "t.tsv", "Q": tmp_path / "q.txt", "OUT": tmp_path / "out"}
    proc = run_verb(name, "--index", empty_index, *[swap.get(a, a) for a in args])
    assert_one_error(proc, f"index {str(empty_index)!r} holds no documents")
    assert not (tmp_path / "out").exists()
