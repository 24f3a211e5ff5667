"""Topics from a pipe (``-``, ``/dev/stdin``, ``<(cat topics.tsv)``) are read once, then checked and searched from
the same topics in memory: every verb that reads topics gives from a pipe what it gives from the file.

A pipe can be read once only; a verb that checked the topics in one pass and searched them in a second found the
second pass empty (or holding what the first pass's read buffer had not taken)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import ROOT, TINY_N

pytestmark = pytest.mark.jvm  # the verbs search a real (tiny) index


def _topics(n: int) -> str:
    return "".join(f"q{i:02d}\tz0010 f{i:03d}x0 f{i:03d}x1\n" for i in range(n))


def _qrels(n: int) -> str:
    return "".join(f"q{i:02d} 0 doc/{i:03d}.go:F{i} 1\n" for i in range(n))


def _piped(how: str, args: list[str], text: str, cwd: Path) -> subprocess.CompletedProcess:
    """``python -m qlog_pyserini.<args>`` with the topics given through a pipe, the way ``how`` names it."""
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    cmd = [sys.executable, "-m", *args]
    if how == "fd":  # bash's <(cat topics.tsv): a pipe's read end as /dev/fd/N
        read, write = os.pipe()
        os.write(write, text.encode())
        os.close(write)
        try:
            return subprocess.run([a.replace("PIPE", f"/dev/fd/{read}") for a in cmd], pass_fds=(read,), env=env,
                                  cwd=cwd, capture_output=True, text=True, timeout=600)
        finally:
            os.close(read)
    path = "-" if how == "dash" else "/dev/stdin"
    return subprocess.run([a.replace("PIPE", path) for a in cmd], input=text, env=env, cwd=cwd,
                          capture_output=True, text=True, timeout=600)


def _from_file(args: list[str], text: str, cwd: Path) -> subprocess.CompletedProcess:
    (cwd / "topics.tsv").write_text(text)
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    return subprocess.run([sys.executable, "-m", *[a.replace("PIPE", str(cwd / "topics.tsv")) for a in args]],
                          env=env, cwd=cwd, capture_output=True, text=True, timeout=600)


@pytest.mark.parametrize("n", [1, 50])
@pytest.mark.parametrize("how", ["stdin", "dash", "fd"])
def test_search_reads_piped_topics_once(tiny_index, tmp_path, how, n):
    assert n <= TINY_N
    args = ["qlog_pyserini.search", "--index", str(tiny_index), "--topics", "PIPE", "--hits", "5", "--output", "run.txt"]
    (tmp_path / "file").mkdir()
    (tmp_path / "pipe").mkdir()
    want = _from_file(args, _topics(n), tmp_path / "file")
    got = _piped(how, args, _topics(n), tmp_path / "pipe")
    assert want.returncode == 0 and got.returncode == 0, (want.stderr[-2000:], got.stderr[-2000:])
    run = (tmp_path / "pipe" / "run.txt").read_text()
    assert run == (tmp_path / "file" / "run.txt").read_text()
    assert len({line.split()[0] for line in run.splitlines()}) == n


@pytest.mark.parametrize("how", ["stdin", "fd"])
def test_rewrite_reads_piped_topics_once(tiny_index, tmp_path, how):
    args = ["qlog_pyserini.rewrite", "--engine", "lucene", "--q", "0.5", "--index", str(tiny_index), "--topics", "PIPE",
            "--hits", "5", "--output", "run.txt"]
    (tmp_path / "file").mkdir()
    (tmp_path / "pipe").mkdir()
    want = _from_file(args, _topics(50), tmp_path / "file")
    got = _piped(how, args, _topics(50), tmp_path / "pipe")
    assert want.returncode == 0 and got.returncode == 0, (want.stderr[-2000:], got.stderr[-2000:])
    run = (tmp_path / "pipe" / "run.txt").read_text()
    assert run and run == (tmp_path / "file" / "run.txt").read_text()


def test_sweep_reads_piped_topics_once(tiny_index, tmp_path):
    (tmp_path / "qrels.txt").write_text(_qrels(50))
    args = ["qlog_pyserini.sweep", "--index", str(tiny_index), "--topics", "PIPE", "--qrels", str(tmp_path / "qrels.txt"),
            "--q-grid", "0.5", "--hits", "10", "--resamples", "10", "--no-auto", "--out", "sw", "--quiet"]
    (tmp_path / "file").mkdir()
    (tmp_path / "pipe").mkdir()
    want = _from_file(args, _topics(50), tmp_path / "file")
    got = _piped("fd", args, _topics(50), tmp_path / "pipe")
    assert want.returncode == 0 and got.returncode == 0, (want.stderr[-2000:], got.stderr[-2000:])
    summaries = [json.loads((tmp_path / side / "sw" / "summary.json").read_text()) for side in ("file", "pipe")]
    assert summaries[0]["judged_queries"] == summaries[1]["judged_queries"] == 50
    assert (tmp_path / "pipe" / "sw" / "per_query.csv").read_text() == \
        (tmp_path / "file" / "sw" / "per_query.csv").read_text()


def test_read_topics_reads_a_pipe_once(tmp_path):
    from qlog_pyserini.formats.topics import TopicStream, read_topics

    read, write = os.pipe()
    os.write(write, _topics(50).encode())
    os.close(write)
    try:
        topics = read_topics(f"/dev/fd/{read}")
    finally:
        os.close(read)
    assert list(topics) == [f"q{i:02d}" for i in range(50)]
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    import threading

    writer = threading.Thread(target=lambda: fifo.write_text(_topics(30)))
    writer.start()
    stream = TopicStream(fifo)
    writer.join()
    assert len(stream) == 30 and [q for q, _ in stream.items()] == [f"q{i:02d}" for i in range(30)]
    assert [q for q, _ in stream.items()] == [f"q{i:02d}" for i in range(30)]  # a second pass: from memory


# --- a sweep measures the queries it searched ---------------------------------------------------------------

def test_sweep_measures_only_the_searched_judged_queries(tiny_index, tmp_path):
    # the topics are 10 of the 30 judged queries (a subset, as a dev split of a larger qrels)
    (tmp_path / "t.tsv").write_text(_topics(10))
    (tmp_path / "qrels.txt").write_text(_qrels(30))
    (tmp_path / "qrels10.txt").write_text(_qrels(10))
    from conftest import run_verb

    proc = run_verb("sweep", "--index", tiny_index, "--topics", tmp_path / "t.tsv", "--qrels", tmp_path / "qrels.txt",
                    "--q-grid", "0.5", "--hits", "10", "--resamples", "10", "--out", tmp_path / "sw")
    assert proc.returncode == 0, proc.stderr[-3000:]
    summary = json.loads((tmp_path / "sw" / "summary.json").read_text())
    assert summary["judged_queries"] == 10 and summary["qrels_queries"] == 30
    assert "10 of the 30 judged queries" in proc.stderr + proc.stdout
    per_query = (tmp_path / "sw" / "per_query.csv").read_text().splitlines()
    assert [line.split(",")[0] for line in per_query[1:]] == [f"q{i:02d}" for i in range(10)]
    # the reference: BM25's run of the 10 topics scored by trec_eval against their own 10 judgments
    assert run_verb("search", "--index", tiny_index, "--topics", tmp_path / "t.tsv", "--hits", "10",
                    "--output", tmp_path / "bm25.txt").returncode == 0
    evaluated = run_verb("eval", "--qrels", tmp_path / "qrels10.txt", "--run", tmp_path / "bm25.txt",
                         "--metrics", "ndcg_cut.10")
    assert float(evaluated.stdout.split()[1]) == pytest.approx(summary["baseline_score"], abs=1e-4)


@pytest.mark.parametrize("metric", ["ndcg_cut.10", "bpref"])  # measured in process, and by the trec_eval binary
def test_a_judged_query_the_topics_lack_is_not_searched_and_not_an_error(tiny_index, tmp_path, metric):
    (tmp_path / "t.tsv").write_text(_topics(5))
    (tmp_path / "qrels.txt").write_text(_qrels(6))
    from conftest import run_verb

    proc = run_verb("sweep", "--index", tiny_index, "--topics", tmp_path / "t.tsv", "--qrels", tmp_path / "qrels.txt",
                    "--q-grid", "0.5", "--hits", "10", "--resamples", "10", "--metric", metric,
                    "--out", tmp_path / "sw")
    assert proc.returncode == 0 and "Traceback" not in proc.stderr, proc.stderr[-3000:]
    summary = json.loads((tmp_path / "sw" / "summary.json").read_text())
    assert (summary["queries"], summary["judged_queries"], summary["qrels_queries"]) == (5, 5, 6)
    assert len((tmp_path / "sw" / "per_query.csv").read_text().splitlines()) == 1 + 5
