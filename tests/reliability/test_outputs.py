"""An output folder is replaced only when this tool wrote it.

``--overwrite`` never deletes ``.``, ``..``, a folder holding an input, or a folder that does not
carry our marker (or, for a Lucene index written by Anserini or Pyserini, nothing but Lucene's files).
Every refusal is one ``error:`` line before any work, and the folder is left exactly as it was.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from conftest import run_verb
from reliability.reliability_helpers import assert_one_error, tree, verb

from qlog_pyserini.errors import QLogError
from qlog_pyserini.lucene.indexer import INDEX_OUTPUT
from qlog_pyserini.system.outputs import MARKER, check_output_dir, is_owned, publish_dir, staging_dir, sweep_stale


@pytest.fixture
def work(tmp_path: Path) -> Path:
    """A user's working folder: a corpus, topics, qrels and a personal file."""
    (tmp_path / "corpus.jsonl").write_text(json.dumps({"id": "d1", "contents": "parse the file"}) + "\n")
    (tmp_path / "topics.tsv").write_text("q1\tparse file\n")
    (tmp_path / "qrels.txt").write_text("q1 0 d1 1\n")
    (tmp_path / "keep.txt").write_text("mine")
    return tmp_path


def _fake_index(folder: Path) -> Path:
    # Enough for the index check (a segments_N file); every refusal below happens before Lucene opens it.
    folder.mkdir()
    (folder / "segments_1").write_bytes(b"")
    return folder


@pytest.mark.parametrize("target", [".", "..", "sub/.."])
def test_index_overwrite_refuses_current_folder_and_parents(work, target):
    (work / "sub").mkdir()
    before = tree(work)
    proc = run_verb("index", "--corpus", "corpus.jsonl", "--index", target, "--overwrite", "--quiet", cwd=work)
    assert_one_error(proc, "--index")
    assert tree(work) == before


def test_index_overwrite_refuses_a_folder_that_is_not_an_index(work):
    folder = work / "notes"
    folder.mkdir()
    (folder / "keep.txt").write_text("precious")
    before = tree(work)
    proc = run_verb("index", "--corpus", work / "corpus.jsonl", "--index", folder, "--overwrite", "--quiet")
    assert_one_error(proc, "not an index folder this tool wrote")
    assert tree(work) == before


def test_index_refuses_the_corpus_folder_itself(work):
    corpus_dir = work / "corpus"
    corpus_dir.mkdir()
    (corpus_dir / "docs.jsonl").write_text(json.dumps({"id": "d1", "contents": "x"}) + "\n")
    before = tree(work)
    proc = run_verb("index", "--corpus", corpus_dir, "--index", corpus_dir, "--overwrite", "--quiet")
    assert_one_error(proc, "input")
    assert tree(work) == before


@pytest.mark.parametrize("target", [".", ".."])
def test_sweep_overwrite_refuses_current_folder_and_parents(work, target):
    _fake_index(work / "idx")
    before = tree(work)
    proc = run_verb("sweep", "--index", "idx", "--topics", "topics.tsv", "--qrels", "qrels.txt", "--out", target,
                "--overwrite", "--quiet", cwd=work)
    assert_one_error(proc, "--out")
    assert tree(work) == before


def test_sweep_overwrite_refuses_a_folder_that_is_not_a_sweep(work):
    _fake_index(work / "idx")
    (work / "results").mkdir()
    (work / "results" / "paper.md").write_text("draft")
    before = tree(work)
    proc = run_verb("sweep", "--index", work / "idx", "--topics", work / "topics.tsv", "--qrels", work / "qrels.txt",
                "--out", work / "results", "--overwrite", "--quiet")
    assert_one_error(proc, "not a sweep folder this tool wrote")
    assert tree(work) == before


def test_sweep_refuses_the_folder_holding_its_index(work):
    _fake_index(work / "data" / "idx") if (work / "data").mkdir() is None else None
    (work / "data" / "topics.tsv").write_text("q1\tparse\n")
    before = tree(work)
    proc = run_verb("sweep", "--index", work / "data" / "idx", "--topics", work / "topics.tsv", "--qrels",
                work / "qrels.txt", "--out", work / "data", "--overwrite", "--quiet")
    assert_one_error(proc, "input")
    assert tree(work) == before


@pytest.mark.parametrize("target", [".", ".."])
def test_corpus_overwrite_refuses_current_folder_and_parents(work, target):
    (work / "src").mkdir()
    (work / "src" / "a.py").write_text('def f(x):\n    """Double the value of x."""\n    return 2 * x\n')
    before = tree(work)
    proc = run_verb("corpus", "--source", "src", "--out", target, "--overwrite", "--quiet", cwd=work)
    assert_one_error(proc, "--out")
    assert tree(work) == before


def test_corpus_refuses_the_source_folder(work):
    (work / "src").mkdir()
    (work / "src" / "a.py").write_text('def f(x):\n    """Double the value of x."""\n    return 2 * x\n')
    before = tree(work)
    proc = run_verb("corpus", "--source", work / "src", "--out", work / "src", "--overwrite", "--quiet")
    assert_one_error(proc, "input")
    assert tree(work) == before


def test_prepare_refuses_the_folder_holding_its_input(work):
    before = tree(work)
    proc = run_verb("prepare", "--format", "trec", "--corpus", work / "corpus.jsonl", "--topics", work / "topics.tsv",
                "--qrels", work / "qrels.txt", "--out", work, "--overwrite")
    assert_one_error(proc, "--out")
    assert tree(work) == before


def test_check_output_dir_rules(work, monkeypatch):
    monkeypatch.chdir(work)
    with pytest.raises(QLogError, match="home"):
        check_output_dir(Path.home(), "index", overwrite=True)
    with pytest.raises(QLogError, match="is /"):
        check_output_dir("/", "sweep", overwrite=True)
    with pytest.raises(QLogError, match="current folder"):
        check_output_dir(".", "sweep", overwrite=True)
    with pytest.raises(QLogError, match="is empty"):
        check_output_dir("", "sweep")
    with pytest.raises(QLogError, match="not a folder"):
        check_output_dir(work / "keep.txt", "index", overwrite=True)
    with pytest.raises(QLogError, match="does not exist"):
        check_output_dir(work / "missing" / "x", "corpus")
    assert check_output_dir(work / "new", "index") == work / "new"


def test_owned_folders_are_replaced_and_marked(work):
    out = work / "out"
    stage = staging_dir(out, "building")
    (stage / "a.txt").write_text("1")
    publish_dir(stage, out, "sweep")
    assert json.loads((out / MARKER).read_text())["kind"] == "sweep" and is_owned(out, "sweep")
    assert not is_owned(out, INDEX_OUTPUT)  # a marker says which kind of output it is
    check_output_dir(out, "sweep", overwrite=True)  # ours: may be replaced
    with pytest.raises(QLogError, match="not an index folder"):
        check_output_dir(out, INDEX_OUTPUT, overwrite=True)
    stage = staging_dir(out, "building")
    (stage / "b.txt").write_text("2")
    publish_dir(stage, out, "sweep", overwrite=True)
    assert sorted(p.name for p in out.iterdir()) == [MARKER, "b.txt"]
    assert [p.name for p in work.iterdir() if p.name.startswith(".")] == []


def test_an_anserini_index_without_marker_counts_as_an_index(work):
    idx = _fake_index(work / "idx")
    (idx / "_0.cfs").write_bytes(b"")
    (idx / "write.lock").write_bytes(b"")
    assert is_owned(idx, INDEX_OUTPUT)
    (idx / "keep.txt").write_text("x")
    assert not is_owned(idx, INDEX_OUTPUT)


def test_stale_temporaries_of_dead_processes_are_swept_live_ones_kept(work):
    import os
    import subprocess
    import sys

    dead = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True,
                          text=True).stdout.strip()
    stale_dir = work / f".out.sweep-{dead}-abc123"
    stale_dir.mkdir()
    stale_file = work / f".run.txt.tmp-{dead}-xyz.tmp"
    stale_file.write_text("half")
    live = work / f".out.sweep-{os.getpid()}-def456"
    live.mkdir()
    other = work / f".other.sweep-{dead}-abc123"
    other.mkdir()
    assert sweep_stale(work, "out") == [stale_dir]
    assert sweep_stale(work, "run.txt") == [stale_file]
    assert live.is_dir() and other.is_dir() and (work / "keep.txt").is_file()


@pytest.mark.parametrize("target", ["/", ".", ".."])
def test_reproduce_refuses_a_work_folder_it_does_not_own(work, target):
    before = tree(work)
    assert_one_error(run_verb("reproduce", "--quick", "--work", target, cwd=work), "--work")
    assert tree(work) == before


def test_reproduce_refuses_a_work_folder_holding_other_files(work):
    (work / "w" / "quick").mkdir(parents=True)
    (work / "w" / "quick" / "notes.md").write_text("mine")
    before = tree(work)
    assert_one_error(run_verb("reproduce", "--quick", "--work", work / "w"), "not a reproduce folder")
    assert tree(work) == before


def test_demo_refuses_a_work_folder_that_is_not_a_demo(work):
    (work / "d").mkdir()
    (work / "d" / "notes.md").write_text("mine")
    before = tree(work)
    # a fresh process: the demo verb's real entry point (python -m), which no other test starts
    assert_one_error(verb("demo", "--work", work / "d"), "not a demo folder")
    assert tree(work) == before


# --- --overwrite's publish: the old output or the new one, whenever a signal comes ------------------------------

def _published(work: Path, text: str) -> Path:
    out = work / "out"
    stage = staging_dir(out, "building")
    (stage / "a.txt").write_text(text)
    return stage


@pytest.mark.parametrize("exchange", [True, False])  # the atomic exchange, and the two renames where it is missing
def test_a_signal_while_publishing_leaves_the_old_or_the_new_output(work, monkeypatch, exchange):
    import os
    import signal

    from qlog_pyserini.system import outputs, signals
    from qlog_pyserini.system.signals import Terminated, install_signal_handlers

    publish_dir(_published(work, "old"), work / "out", "sweep")
    if not exchange:
        monkeypatch.setattr(outputs, "exchange_paths", lambda a, b: False)
    real_replace = os.replace

    # raise_signal: to this thread, at once (os.kill may reach another thread, the JVM's, and act later)
    def replace_then_signal(src, dst):  # SIGTERM arrives right after the first rename of the publish
        real_replace(src, dst)
        signal.raise_signal(signal.SIGTERM)

    handlers = {s: signal.getsignal(s) for s in (signal.SIGTERM, signal.SIGHUP)}
    # the handler remembers the signal for popen (a process that got SIGTERM starts no child); not past this test
    monkeypatch.setattr(signals, "pending_signal", None)
    install_signal_handlers()
    monkeypatch.setattr(outputs.os, "replace", replace_then_signal)
    stage = _published(work, "new")
    try:
        with pytest.raises(Terminated):
            publish_dir(stage, work / "out", "sweep", overwrite=True)
            signal.raise_signal(signal.SIGTERM)  # the exchange renames nothing: the signal comes after it
    finally:
        monkeypatch.setattr(outputs.os, "replace", real_replace)
        for s, handler in handlers.items():
            signal.signal(s, handler)
    assert (work / "out" / "a.txt").read_text() in ("old", "new")


def test_a_killed_publish_has_its_old_output_put_back_not_deleted(work):
    import subprocess
    import sys

    dead = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True,
                          text=True).stdout.strip()
    aside = work / f".out.old-{dead}-abc123"
    (aside / "x").mkdir(parents=True)
    (aside / "x" / "a.txt").write_text("old")  # kill -9 between the renames: the old output aside, none in place
    sweep_stale(work, "out")
    assert (work / "out" / "a.txt").read_text() == "old" and not aside.exists()
