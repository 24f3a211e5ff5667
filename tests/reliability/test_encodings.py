"""Inputs whose encoding or layout a reader could get silently wrong: a byte-order mark before a run or
qrels, a lone surrogate escaped in JSON, a BEIR folder given as a corpus. Each is checked against an
independent reference: trec_eval on the same file without the mark, the index built from the corpus file alone.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from conftest import ROOT, run_verb
from oracles import wait_gone
from reliability.reliability_helpers import assert_one_error, children_of, tree

from qlog_pyserini.eval.trec_eval import trec_eval

pytestmark = pytest.mark.jvm

BOM = b"\xef\xbb\xbf"


@pytest.fixture
def judged(tmp_path: Path) -> tuple[Path, Path]:
    qrels = tmp_path / "qrels.txt"
    run = tmp_path / "run.txt"
    qrels.write_text("q1 0 d1 1\nq2 0 d2 1\nq3 0 d3 1\n")
    run.write_text("q1 Q0 d1 1 3.0 t\nq1 Q0 d9 2 2.0 t\nq2 Q0 d8 1 3.0 t\nq2 Q0 d2 2 2.0 t\nq3 Q0 d3 1 1.0 t\n")
    return qrels, run


def _with_bom(path: Path) -> Path:
    marked = path.with_name("bom-" + path.name)
    marked.write_bytes(BOM + path.read_bytes())
    return marked


@pytest.mark.parametrize("which", ["run", "qrels", "both"])
def test_a_byte_order_mark_changes_no_metric(which, judged):
    qrels, run = judged
    expected = trec_eval(qrels, run, metrics=["recip_rank", "ndcg_cut.10"])
    q = _with_bom(qrels) if which in ("qrels", "both") else qrels
    r = _with_bom(run) if which in ("run", "both") else run
    got = trec_eval(q, r, metrics=["recip_rank", "ndcg_cut.10"])
    assert got.aggregate == expected.aggregate
    assert got.per_query.equals(expected.per_query)
    assert list(got.per_query.index) == ["q1", "q2", "q3"]


def test_eval_verb_reads_a_run_with_a_byte_order_mark(judged, tmp_path):
    qrels, run = judged
    plain = run_verb("eval", "--qrels", qrels, "--run", run, "--metrics", "recip_rank")
    marked = run_verb("eval", "--qrels", qrels, "--run", _with_bom(run), "--metrics", "recip_rank")
    assert plain.returncode == marked.returncode == 0, marked.stderr
    assert marked.stdout == plain.stdout and "0.8333" in plain.stdout


def test_a_killed_eval_leaves_no_trec_eval_binary_in_the_java_temp_folder(tmp_path):
    """The binary is extracted once into our cache, never into java.io.tmpdir where a kill would strand it."""
    javatmp = tmp_path / "javatmp"
    javatmp.mkdir()
    qrels, run = tmp_path / "qrels.txt", tmp_path / "run.txt"
    with open(qrels, "w") as q, open(run, "w") as r:
        for i in range(400):
            q.write(f"q{i} 0 d{i} 1\n")
            r.writelines(f"q{i} Q0 d{j} {j + 1} {1000 - j}.0 t\n" for j in range(1000))
    env = {**os.environ, "PYTHONPATH": str(ROOT), "JAVA_TOOL_OPTIONS": f"-Djava.io.tmpdir={javatmp}"}
    proc = subprocess.Popen([sys.executable, "-m", "qlog_pyserini.eval", "--qrels", str(qrels), "--run", str(run)],
                            env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    deadline = time.monotonic() + 120
    # Killed while the binary runs: extracted into java.io.tmpdir by Anserini's wrapper, or running from our cache.
    while proc.poll() is None and time.monotonic() < deadline:
        if any(javatmp.iterdir()) or any(b"trec_eval-" in _cmdline(c) for c in children_of(proc.pid)):
            break
        time.sleep(0.005)
    family = children_of(proc.pid)
    proc.send_signal(signal.SIGKILL)
    proc.wait()
    assert wait_gone(family, timeout=20) == []  # its children die with it (PR_SET_PDEATHSIG)
    assert list(javatmp.iterdir()) == []


def _cmdline(pid: int) -> bytes:
    try:
        return Path(f"/proc/{pid}/cmdline").read_bytes()
    except OSError:
        return b""


# ---------------------------------------------------------------------------------------------
# Lone surrogates


def test_a_lone_surrogate_in_a_corpus_is_one_error_naming_the_line(tmp_path):
    corpus = tmp_path / "corpus.jsonl"
    corpus.write_text('{"id": "d1", "contents": "parse"}\n{"id": "d2", "contents": "bad \\ud800 text"}\n')
    before = tree(tmp_path)
    line = assert_one_error(run_verb("index", "--corpus", corpus, "--index", tmp_path / "idx", "--quiet"), "surrogate")
    assert f"{corpus}:2" in line
    assert tree(tmp_path) == before


@pytest.mark.parametrize("field", ["_id", "text"])
def test_a_lone_surrogate_in_a_query_is_one_error_naming_the_line(field, tmp_path, tiny_index):
    topics = tmp_path / "queries.jsonl"
    query = {"_id": "q1", "text": "z0001"}
    query[field] += "\ud800"
    topics.write_text('{"_id": "q0", "text": "z0002"}\n' + json.dumps(query) + "\n")
    before = tree(tmp_path)
    proc = run_verb("search", "--index", tiny_index, "--topics", topics, "--output", tmp_path / "r.txt")
    line = assert_one_error(proc, "surrogate")
    assert f"{topics}:2" in line
    assert tree(tmp_path) == before


# ---------------------------------------------------------------------------------------------
# What `index` reads


def _docs_of(index_dir: Path, tmp_path: Path, topics: Path, name: str) -> str:
    run = tmp_path / f"{name}.txt"
    proc = run_verb("search", "--index", index_dir, "--topics", topics, "--output", run, "--hits", "100", "--quiet")
    assert proc.returncode == 0, proc.stderr[-2000:]
    return run.read_text()


def test_a_beir_folder_contributes_its_corpus_only(tmp_path):
    beir = tmp_path / "beir"
    (beir / "qrels").mkdir(parents=True)
    docs = [{"_id": f"d{i}", "title": "", "text": f"parse token{i} file"} for i in range(6)]
    queries = [{"_id": f"q{i}", "text": f"parse token{i}"} for i in range(6)]
    (beir / "corpus.jsonl").write_text("".join(json.dumps(d) + "\n" for d in docs))
    (beir / "queries.jsonl").write_text("".join(json.dumps(q) + "\n" for q in queries))
    (beir / "qrels" / "test.tsv").write_text("query-id\tcorpus-id\tscore\n" + "".join(f"q{i}\td{i}\t1\n" for i in range(6)))
    (beir / ".qlog-pyserini.json").write_text('{"kind": "corpus"}\n')
    proc = run_verb("index", "--corpus", beir, "--index", tmp_path / "from-folder", "--threads", "1")
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert "indexed 6 documents" in proc.stderr  # the closing line, which --quiet would silence
    reference = run_verb("index", "--corpus", beir / "corpus.jsonl", "--index", tmp_path / "from-file", "--quiet",
                     "--threads", "1")
    assert reference.returncode == 0, reference.stderr[-2000:]
    topics = beir / "queries.jsonl"
    run = _docs_of(tmp_path / "from-folder", tmp_path, topics, "folder")
    assert run == _docs_of(tmp_path / "from-file", tmp_path, topics, "file").replace("file.txt", "folder.txt")
    assert not any(line.split()[2].startswith("q") for line in run.splitlines())
