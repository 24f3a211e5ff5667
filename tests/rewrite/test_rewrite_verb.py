"""The rewrite verb's contract on bad or unusual input: topics from a pipe, fields the index does not have, one
field where an engine searches one, a password in the URL, Tantivy's N with deleted documents, and a run streamed
rather than held in memory."""

from __future__ import annotations

import os
import subprocess
import sys
import tracemalloc
from pathlib import Path

import pytest
from conftest import run_verb

from qlog_pyserini.formats.trec import read_run

pytestmark = pytest.mark.jvm

QUERIES = ("z0040 z0025", "z0010 z0002 z0001", "z0040 z0040 z0025 z0010", "nowhere z0001")


def _topics(path: Path, count: int) -> Path:
    path.write_text("".join(f"q{i}\t{QUERIES[i % len(QUERIES)]}\n" for i in range(count)))
    return path


def _child_env() -> dict[str, str]:
    return {**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parents[2])}


def test_topics_from_a_pipe_give_the_run_of_the_file(tiny_index, tmp_path) -> None:
    topics = _topics(tmp_path / "t.tsv", 12)
    common = [sys.executable, "-m", "qlog_pyserini.rewrite", "--engine", "lucene", "--index", str(tiny_index),
              "--q", "0.7", "--hits", "20", "--quiet"]
    subprocess.run([*common, "--topics", str(topics), "--output", str(tmp_path / "file.txt")], check=True,
                   env=_child_env())
    piped = subprocess.run([*common, "--topics", "/dev/stdin", "--output", str(tmp_path / "pipe.txt")],
                           input=topics.read_bytes(), capture_output=True, env=_child_env())
    assert piped.returncode in (0, 2), piped.stderr
    if piped.returncode == 2:  # refusing a pipe is allowed, as one error line; an empty run is not
        assert piped.stderr.decode().startswith("error: ") and not (tmp_path / "pipe.txt").exists()
        return
    want = read_run(tmp_path / "file.txt")
    assert len(want) == 12 and read_run(tmp_path / "pipe.txt") == want


def test_a_field_the_lucene_index_lacks_is_an_error(tiny_index, tmp_path) -> None:
    topics = _topics(tmp_path / "t.tsv", 3)
    done = run_verb("rewrite", "--engine", "lucene", "--index", tiny_index, "--topics", topics, "--q", "0.7",
                    "--field", "nosuch", "--output", tmp_path / "run.txt")
    assert done.returncode == 2 and done.stderr.startswith("error: ") and "'nosuch'" in done.stderr, done.stderr
    assert not (tmp_path / "run.txt").exists()
    done = run_verb("rewrite", "--engine", "lucene", "--index", tiny_index, "--topics", topics, "--q", "0.7",
                    "--field", "contents", "--output", tmp_path / "run.txt")
    assert done.returncode == 0 and len(read_run(tmp_path / "run.txt")) == 3


@pytest.mark.parametrize("engine", ["lucene", "tantivy"])
def test_a_second_field_is_refused_where_one_is_searched(tiny_index, tmp_path, engine: str) -> None:
    done = run_verb("rewrite", "--engine", engine, "--index", tiny_index, "--topics", _topics(tmp_path / "t.tsv", 2),
                    "--q", "0.7", "--field", "contents", "--field", "title", "--output", tmp_path / "run.txt")
    assert done.returncode == 2 and "searches one field" in done.stderr, done.stderr
    assert not (tmp_path / "run.txt").exists()


@pytest.mark.parametrize("engine", ["elasticsearch", "opensearch", "solr"])
def test_a_password_in_the_url_is_never_printed(tmp_path, engine: str) -> None:
    # port 1 on loopback: nothing listens, the first request fails and its message names the server
    done = run_verb("rewrite", "--engine", engine, "--url", "http://reader:s3cr3t@127.0.0.1:1", "--collection", "c",
                    "--topics", _topics(tmp_path / "t.tsv", 2), "--q", "0.7", "--output", tmp_path / "run.txt")
    assert done.returncode == 2 and done.stderr.startswith("error: "), done.stderr
    assert "s3cr3t" not in done.stderr + done.stdout and "***@127.0.0.1:1" in done.stderr, done.stderr


def test_rewrite_run_is_streamed_not_held(tiny_index, tmp_path) -> None:
    """Python's peak allocation over a run of 1,000 queries stays that of a run of 100 (one query's hits at a
    time), where holding every query's hits grows with the run (tens of thousands of hits, megabytes, against
    a peak near 120 KB)."""
    from qlog_pyserini.rewrite.__main__ import main

    peaks = {}
    for count in (100, 1000):
        topics = _topics(tmp_path / f"t{count}.tsv", count)
        tracemalloc.start()
        try:
            assert main(["--engine", "lucene", "--index", str(tiny_index), "--topics", str(topics), "--q", "0.7",
                         "--hits", "60", "--output", str(tmp_path / f"run{count}.txt"), "--quiet"]) == 0
            peaks[count] = tracemalloc.get_traced_memory()[1]
        finally:
            tracemalloc.stop()
        assert len(read_run(tmp_path / f"run{count}.txt")) == count
    assert peaks[1000] < 2 * peaks[100], peaks


def test_tantivy_n_counts_deleted_documents(tmp_path) -> None:
    """Tantivy's BM25 counts a deleted document in N until a merge drops it: the boosts must use that N."""
    tantivy = pytest.importorskip("tantivy", reason="the tantivy package is not installed (extra: rewrite)")
    from qlog_pyserini.errors import QLogError
    from qlog_pyserini.rewrite.boosts import term_weight
    from qlog_pyserini.rewrite.tantivy_index import TantivyRewriter

    builder = tantivy.SchemaBuilder()
    builder.add_text_field("id", stored=True, tokenizer_name="raw")
    builder.add_text_field("body")
    builder.add_integer_field("year", indexed=True)
    schema = builder.build()
    index = tantivy.Index(schema)
    writer = index.writer(heap_size=15_000_000, num_threads=1)
    texts = ["parse json", "json body", "write file", "parse file", "other words", "json json file"]
    for i, text in enumerate(texts):
        writer.add_document(tantivy.Document(id=f"d{i}", body=text))
    writer.commit()
    writer.delete_documents_by_term("id", "d4")
    writer.delete_documents_by_term("id", "d3")
    writer.commit()
    index.reload()
    searcher = index.searcher()
    assert searcher.num_docs == 4  # live documents; Tantivy's BM25 still counts 6
    r = TantivyRewriter(index, "body", 0.5)
    boosts = {b.term: b for b in r.boosts("json file", searcher)}
    assert boosts["json"].doc_count == 6 and boosts["json"].df == 3 and boosts["file"].df == 3
    assert boosts["json"].boost == pytest.approx(term_weight(3, 6, 0.5))
    # the rewritten query's score of each matching document is the sum of boost * Tantivy's own BM25 per term
    for score, address in r.search("json file", 10):
        plain = {t: searcher.search(tantivy.Query.term_query(schema, "body", t), 10).hits for t in ("json", "file")}
        want = sum(boosts[t].boost * s for t in plain for s, a in plain[t] if a == address)
        assert score == pytest.approx(want, rel=1e-6)
    for field in ("nosuch", "year"):
        with pytest.raises(QLogError, match=field):
            TantivyRewriter(index, field, 0.5)
