"""Adversarial queries, threads sharing one searcher, indexes other tools wrote in odd shapes, and odd PyTerrier frames.

Each index here is built by Anserini's own ``IndexCollection`` (as Pyserini builds it), then changed with Lucene's own
``IndexWriter`` where the scenario needs it (deleted documents); the references are Anserini's BM25 searcher, the
same corpus indexed with every structure stored, the analyzer's own tokens, and one-thread runs.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import threading
import time
from pathlib import Path

import pytest
from conftest import run_verb
from oracles import anserini_bm25_searcher, hits_from_anserini
from reliability.reliability_helpers import assert_one_error

from qlog_pyserini.analysis.analyzers import analyze
from qlog_pyserini.errors import QLogError
from qlog_pyserini.formats.trec import read_run
from qlog_pyserini.jvm.bridge import jclass
from qlog_pyserini.search.searcher import QLogSearcher

pytestmark = pytest.mark.jvm

N = 60
DOCS = {f"d{i}": f"alpha beta{i % 5} gamma{i % 7} parse_config error{i}" for i in range(N)}
DELETED = ("d0", "d5", "d10")


def _anserini(corpus: Path, index: Path, *drop: str) -> subprocess.Popen:
    """Anserini's indexer building ``index`` with Pyserini's flags but ``drop``, started (the builds run at once)."""
    from qlog_pyserini.index.indexer import anserini_index_command

    cmd = [a for a in anserini_index_command(corpus, index, threads=1) if a not in drop]
    return subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)


def _writer(folder: Path):
    directory = jclass("org.apache.lucene.store.FSDirectory").open(jclass("java.io.File")(str(folder)).toPath())
    config = jclass("org.apache.lucene.index.IndexWriterConfig")()
    config.setMergePolicy(jclass("org.apache.lucene.index.NoMergePolicy").INSTANCE)  # deletions stay deletions
    return directory, jclass("org.apache.lucene.index.IndexWriter")(directory, config)


def _delete(folder: Path, docids) -> None:
    directory, writer = _writer(folder)
    term_query, term = jclass("org.apache.lucene.search.TermQuery"), jclass("org.apache.lucene.index.Term")
    for docid in docids:
        writer.deleteDocuments(term_query(term("id", docid)))  # one Query: pyjnius cannot pick a varargs overload
    writer.commit()
    writer.close()
    directory.close()


def _hand_made_index(folder: Path, field: str, sortable_ids: bool) -> Path:
    """A Lucene index whose words are in ``field``, docids stored in ``id``; with ``sortable_ids`` the ids are also
    doc values, as Anserini writes them (its searches break ties by them)."""
    folder.mkdir()
    directory, writer = _writer(folder)
    store = jclass("org.apache.lucene.document.Field$Store")
    for docid, text in list(DOCS.items())[:10]:
        doc = jclass("org.apache.lucene.document.Document")()
        doc.add(jclass("org.apache.lucene.document.StringField")("id", docid, store.YES))
        if sortable_ids:
            doc.add(jclass("org.apache.lucene.document.BinaryDocValuesField")(
                "id", jclass("org.apache.lucene.util.BytesRef")(docid.encode())))
        doc.add(jclass("org.apache.lucene.document.TextField")(field, text, store.NO))
        writer.addDocument(doc)
    writer.commit()
    writer.close()
    directory.close()
    return folder


@pytest.fixture(scope="module")
def indexes(tmp_path_factory) -> dict[str, Path]:
    base = tmp_path_factory.mktemp("odd")
    (base / "corpus").mkdir()
    (base / "corpus" / "docs.jsonl").write_text("".join(json.dumps({"id": k, "contents": v}) + "\n"
                                                        for k, v in DOCS.items()))
    full, bare = base / "full", base / "bare"
    builds = [_anserini(base / "corpus", full), _anserini(base / "corpus", bare, "-storePositions",
                                                            "-storeDocvectors", "-storeRaw")]
    for build in builds:
        _, err = build.communicate(timeout=300)
        assert build.returncode == 0, err[-2000:]
    deleted, emptied = base / "deleted", base / "emptied"
    shutil.copytree(full, deleted)
    shutil.copytree(full, emptied)
    _delete(deleted, DELETED)
    _delete(emptied, DOCS)
    (base / "t.tsv").write_text("q1\tbeta0 gamma0\nq2\talpha parse_config\nq3\terror5 beta0\n")
    (base / "q.txt").write_text("q1 0 d15 1\nq2 0 d1 1\nq3 0 d5 1\n")
    return {"full": full, "bare": bare, "deleted": deleted, "emptied": emptied,
            "text": _hand_made_index(base / "text", "text", sortable_ids=True),
            "unsortable": _hand_made_index(base / "unsortable", "contents", sortable_ids=False), "topics": base / "t.tsv", "qrels": base / "q.txt"}


@pytest.fixture(scope="module")
def searcher(indexes):
    with QLogSearcher(indexes["full"]) as s:
        yield s


def _ranked(hits) -> list[tuple[str, float]]:
    return [(h.docid, round(h.score, 5)) for h in hits]


# --- adversarial queries ---------------------------------------------------------------------------------------

def test_a_query_of_100k_characters_is_answered_as_its_words(searcher):
    long = "alpha " * 16_000 + "beta1"  # 100,000 characters
    started = time.monotonic()
    hits = searcher.search(long, k=N)
    assert time.monotonic() - started < 10
    # the same words once each rank the same documents: alpha is in every one, beta1 picks the first
    assert [h.docid for h in hits][:N // 5] == [h.docid for h in searcher.search("alpha beta1", k=N)][:N // 5]
    assert {h.docid for h in hits[:N // 5]} == {d for d, text in DOCS.items() if "beta1" in text.split()}


def test_a_punctuation_only_query_gets_no_hits_and_no_run_lines(indexes, tmp_path, searcher):
    assert searcher.search("!@#$%^&*()_+-=[]{}|;':\",./<>?`~\\", k=10) == []
    topics = tmp_path / "t.tsv"
    topics.write_text("q1\t!@#$%^&*()\nq2\tbeta0\n")
    proc = run_verb("search", "--index", indexes["full"], "--topics", topics, "--output", tmp_path / "r.txt")
    assert proc.returncode == 0, proc.stderr
    assert "1 more queries got no hits" in proc.stderr
    assert set(read_run(tmp_path / "r.txt")) == {"q2"}


@pytest.mark.parametrize("bomb", [
    "((((((alpha AND beta1) OR gamma2~2)^3 NOT \"x y\"~5 contents:* *:* alpha* [a TO z] /re.*x/",
    "*:*", "contents:*", "alpha*", "+beta1 -alpha", "id:d3", "((((((((((((((((beta2",
])
def test_lucene_query_syntax_is_text_not_a_query(searcher, bomb):
    # the reference: the analyzer's own tokens of the text, searched as a bag of words
    words = " ".join(analyze(bomb))
    got = searcher.search(bomb, k=N)
    assert _ranked(got) == _ranked(searcher.search(words, k=N)) if words else got == []
    assert len(got) < N or "alpha" in words.split()  # no match-all: only documents holding a word match


def test_control_characters_and_nul_in_a_query_are_answered_as_the_other_words(searcher):
    assert _ranked(searcher.search("beta1\x00\x01\x7f gamma3\t\r", k=20)) == _ranked(searcher.search("beta1 gamma3", k=20))


# --- threads sharing one searcher ------------------------------------------------------------------------------

QUERIES = [f"alpha beta{i % 5} gamma{i % 7}" for i in range(40)]
QIDS = [f"q{i}" for i in range(40)]


def test_eight_threads_batch_searching_one_searcher_get_the_one_thread_run(searcher):
    reference = searcher.batch_search(QUERIES, QIDS, k=10, threads=1)
    got: list = [None] * 8

    def run(j: int) -> None:
        got[j] = searcher.batch_search(QUERIES, QIDS, k=10, threads=2)

    workers = [threading.Thread(target=run, args=(j,)) for j in range(8)]
    for w in workers:
        w.start()
    for w in workers:
        w.join()
    assert all(g == reference for g in got)


def test_threads_calling_search_one_query_at_a_time_get_the_batch_hits(searcher):
    reference = searcher.batch_search(QUERIES, QIDS, k=10, threads=1)
    got: dict[int, dict] = {}

    def run(j: int) -> None:
        got[j] = {qid: searcher.search(q, k=10) for q, qid in zip(QUERIES, QIDS)}

    workers = [threading.Thread(target=run, args=(j,)) for j in range(6)]
    for w in workers:
        w.start()
    for w in workers:
        w.join()
    assert len(got) == 6 and all(g == reference for g in got.values())


def test_closing_a_searcher_another_thread_searches_is_an_error_in_that_thread(indexes):
    s = QLogSearcher(indexes["full"])
    errors: list[BaseException] = []
    started = threading.Event()

    def run() -> None:
        try:
            for _ in range(2000):
                started.set()
                s.batch_search(QUERIES, QIDS, k=10, threads=1)
        except BaseException as e:  # noqa: BLE001 - the test checks what it is
            errors.append(e)

    worker = threading.Thread(target=run)
    worker.start()
    started.wait(30)
    time.sleep(0.05)
    s.close()
    worker.join(60)
    assert not worker.is_alive()
    # Lucene's symptom of the close varies with the moment (AlreadyClosedException, a NullPointerException);
    # the error names the cause
    assert len(errors) == 1 and isinstance(errors[0], QLogError), errors
    assert str(errors[0]) in (f"this searcher of {str(indexes['full'])!r} was closed while it searched",
                              f"this searcher of {str(indexes['full'])!r} is closed"), errors


# --- odd indexes -----------------------------------------------------------------------------------------------

def test_deleted_documents_are_never_returned_and_bm25_is_anserinis(indexes, tmp_path):
    with QLogSearcher(indexes["deleted"]) as s:
        assert s.num_docs == N - len(DELETED)
        for query in ("beta0 gamma0", "error5 beta0", "alpha parse_config"):
            ours = s.search(query, k=N)
            assert not {h.docid for h in ours} & set(DELETED)
            theirs = hits_from_anserini(anserini_bm25_searcher(indexes["deleted"]).search(query, N))
            assert _ranked(ours) == _ranked(theirs)
    proc = run_verb("search", "--index", indexes["deleted"], "--topics", indexes["topics"], "--output",
                    tmp_path / "r.txt", "--hits", "100", "--q", "0.5")
    assert proc.returncode == 0, proc.stderr
    run = read_run(tmp_path / "r.txt")
    assert run and not {h.docid for hits in run.values() for h in hits} & set(DELETED)


@pytest.mark.parametrize("name, args", [
    ("search", ["--topics", "T", "--output", "OUT"]),
    ("stats", []),
])
def test_an_index_whose_documents_are_all_deleted_holds_no_documents(indexes, tmp_path, name, args):
    swap = {"T": indexes["topics"], "OUT": tmp_path / "out"}
    proc = run_verb(name, "--index", indexes["emptied"], *[swap.get(a, a) for a in args])
    assert_one_error(proc, "holds no documents")
    assert not (tmp_path / "out").exists()


def test_an_index_without_positions_or_vectors_gives_the_full_indexes_run(indexes, tmp_path):
    runs = {}
    for name in ("bare", "full"):
        proc = run_verb("search", "--index", indexes[name], "--topics", indexes["topics"], "--output",
                        tmp_path / f"{name}.txt", "--q", "0.5", "--run-tag", "t")
        assert proc.returncode == 0, proc.stderr
        runs[name] = (tmp_path / f"{name}.txt").read_text()
    assert runs["bare"] == runs["full"] and runs["bare"].count("\n") > 30


def test_rm3_on_an_index_without_document_vectors_is_one_error_line(indexes, tmp_path):
    proc = run_verb("search", "--index", indexes["bare"], "--topics", indexes["topics"], "--output",
                    tmp_path / "r.txt", "--rm3")
    assert_one_error(proc, "document vectors")
    assert not (tmp_path / "r.txt").exists()


@pytest.mark.parametrize("name, args, needle", [
    ("search", ["--topics", "T", "--output", "OUT"], "has no field 'contents' (it has id, text)"),
    ("sweep", ["--topics", "T", "--qrels", "Q", "--out", "OUT", "--no-auto", "--q-grid", "0.5"],
     "has no field 'contents' (it has id, text)"),
    ("rewrite", ["--engine", "lucene", "--q", "0.5", "--topics", "T", "--output", "OUT"],
     "has no document with a 'contents' field"),
    ("stats", [], "field 'contents' has no indexed terms"),
])
def test_an_index_without_the_contents_field_is_refused_not_searched_empty(indexes, tmp_path, name, args, needle):
    swap = {"T": indexes["topics"], "Q": indexes["qrels"], "OUT": tmp_path / "out"}
    proc = run_verb(name, "--index", indexes["text"], *[swap.get(a, a) for a in args])
    assert_one_error(proc, needle)
    assert not (tmp_path / "out").exists()


def test_fields_the_index_has_are_still_searched_by_name(indexes, tmp_path):
    proc = run_verb("search", "--index", indexes["text"], "--topics", indexes["topics"], "--output",
                    tmp_path / "r.txt", "--fields", "text=1")
    assert proc.returncode == 0, proc.stderr
    assert set(read_run(tmp_path / "r.txt")) == {"q1", "q2", "q3"}


def test_a_java_failure_of_a_fields_search_is_one_error_line(indexes, tmp_path):
    # Anserini's multi-field search sorts ties by the id doc values, which this index lacks
    proc = run_verb("search", "--index", indexes["unsortable"], "--topics", indexes["topics"], "--output",
                    tmp_path / "r.txt", "--fields", "contents=1")
    assert_one_error(proc, "search failed on")
    assert not (tmp_path / "r.txt").exists()


# --- PyTerrier frames ------------------------------------------------------------------------------------------

@pytest.fixture
def retriever(searcher):
    pytest.importorskip("pyterrier")
    from qlog_pyserini.pyterrier import QLogRetriever

    return QLogRetriever(searcher, num_results=5)


def test_an_empty_frame_gives_an_empty_result_frame_with_the_run_columns(retriever):
    import pandas as pd

    out = retriever.transform(pd.DataFrame({"qid": [], "query": []}))
    assert len(out) == 0 and list(out.columns) == ["qid", "query", "docno", "rank", "score"]


def test_a_qid_listed_twice_has_each_row_answered(retriever, searcher):
    import pandas as pd

    out = retriever.transform(pd.DataFrame({"qid": ["q1", "q1"], "query": ["beta0", "beta1"]}))
    reference = searcher.batch_search(["beta0", "beta1"], ["a", "b"], k=5)
    assert list(out["docno"]) == [h.docid for h in reference["a"]] + [h.docid for h in reference["b"]]
    assert list(out["query"]) == ["beta0"] * 5 + ["beta1"] * 5 and set(out["qid"]) == {"q1"}


def test_qids_that_are_numbers_are_kept_as_given(retriever):
    import pandas as pd

    out = retriever.transform(pd.DataFrame({"qid": [7, 8], "query": ["beta0", "beta1"]}))
    assert list(out["qid"].unique()) == [7, 8] and len(out) == 10


def test_a_rewritten_query_keeps_its_original_column(retriever, searcher):
    import pandas as pd

    out = retriever.transform(pd.DataFrame({"qid": ["q1"], "query": ["beta0"], "query_0": ["beta1 gamma3"]}))
    assert list(out["query_0"]) == ["beta1 gamma3"] * 5
    assert list(out["docno"]) == [h.docid for h in searcher.search("beta0", k=5)]


def test_a_frame_without_a_query_column_is_refused_before_searching(retriever):
    import pandas as pd
    import pyterrier as pt

    with pytest.raises(pt.validate.InputValidationError, match="query"):
        retriever.transform(pd.DataFrame({"qid": ["q1"]}))
