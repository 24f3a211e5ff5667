"""A killed verb leaves no child process and no temporary behind.

Real processes, real signals: ``index``, ``search`` and ``sweep`` are started as a user would,
killed at the moment their temporary exists (and, for ``index``, while Anserini's Java indexer
runs as a child), and then checked: no descendant survives, and after SIGTERM no temporary is
left; after SIGKILL the temporary the kernel could not let us remove is removed by the next run.
"""

from __future__ import annotations

import json
import os
import random
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from conftest import ROOT, run_verb
from oracles import wait_gone
from reliability.reliability_helpers import assert_one_error, children_of, tree

pytestmark = pytest.mark.jvm

DOCS = 30_000
QUERIES = 600


def _start(name: str, *args: object) -> subprocess.Popen:
    # stdout and stderr go to files: a pipe nobody reads until the end could fill up and block the verb.
    import tempfile

    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    err = tempfile.TemporaryFile("w+")
    # -X faulthandler: if a verb ever hangs, SIGABRT from the test prints every thread's stack.
    proc = subprocess.Popen([sys.executable, "-X", "faulthandler", "-m", f"qlog_pyserini.{name}", *map(str, args)],
                            stdout=subprocess.DEVNULL, stderr=err, text=True, env=env)
    proc.stderr = _Rewound(err)
    return proc


class _Rewound:
    """The stderr file of a started verb, read from its start."""

    def __init__(self, f) -> None:
        self.f = f

    def read(self) -> str:
        self.f.seek(0)
        return self.f.read()


def _wait_for(condition, proc: subprocess.Popen, timeout: float = 300.0) -> None:
    deadline = time.monotonic() + timeout
    while not condition():
        if proc.poll() is not None:
            raise AssertionError(f"exited ({proc.returncode}) before it could be killed: {proc.stderr.read()[-2000:]}")
        if time.monotonic() > deadline:
            proc.kill()
            raise AssertionError("timed out waiting for the moment to kill")
        time.sleep(0.02)


def _hidden(folder: Path, name: str) -> list[Path]:
    return sorted(p for p in folder.iterdir() if p.name.startswith(f".{name}."))


def _java_children(pid: int) -> list[int]:
    """The Java processes below ``pid``, but for the short ``java <options> -version`` that checks $QLOG_JAVA_OPTS."""
    out = []
    for c in children_of(pid):
        try:
            argv = [a.decode(errors="replace") for a in Path(f"/proc/{c}/cmdline").read_bytes().split(b"\0") if a]
            if argv and "java" in argv[0] and argv[-1] != "-version":
                out.append(c)
        except OSError:
            continue
    return out


@pytest.fixture(scope="module")
def big(tmp_path_factory) -> dict[str, Path]:
    """A corpus big enough that indexing and searching take seconds: 30,000 documents, 600 queries."""
    rng = random.Random(13)
    vocab = [f"w{i}" for i in range(20_000)]
    folder = tmp_path_factory.mktemp("big")
    corpus, topics, qrels = folder / "corpus.jsonl", folder / "topics.tsv", folder / "qrels.txt"
    with open(corpus, "w") as f:
        for i in range(DOCS):
            f.write(json.dumps({"id": f"d{i}", "contents": " ".join(rng.choices(vocab[:5000] if i % 2 else vocab, k=40))}) + "\n")
    with open(topics, "w") as t, open(qrels, "w") as q:
        for i in range(QUERIES):
            t.write(f"q{i}\t{' '.join(rng.choices(vocab[:3000], k=6))}\n")
            q.write(f"q{i} 0 d{rng.randrange(DOCS)} 1\n")
    index = folder / "index"
    proc = run_verb("index", "--corpus", corpus, "--index", index, "--threads", "2", "--quiet")
    assert proc.returncode == 0, proc.stderr
    return {"corpus": corpus, "topics": topics, "qrels": qrels, "index": index, "folder": folder}


@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGKILL])
def test_killed_index_leaves_no_java_child_and_no_staging(big, tmp_path, sig):
    out = tmp_path / "idx"
    proc = _start("index", "--corpus", big["corpus"], "--index", out, "--threads", "1")
    _wait_for(lambda: bool(_java_children(proc.pid)), proc)
    java = _java_children(proc.pid)
    assert _hidden(tmp_path, "idx"), "the staging folder exists while Java indexes"
    proc.send_signal(sig)
    proc.wait(timeout=240)
    assert wait_gone(java, timeout=20) == [], "the Java indexer outlived its parent"
    assert not out.exists()
    if sig == signal.SIGTERM:
        assert proc.returncode == 128 + signal.SIGTERM
        assert proc.stderr.read().strip().splitlines()[-1].startswith("error: terminated by SIGTERM")
        assert _hidden(tmp_path, "idx") == []
    else:
        stale = _hidden(tmp_path, "idx")
        assert stale, "SIGKILL cannot be caught: the staging folder stays until the next run"
        small = tmp_path / "small.jsonl"
        small.write_text(json.dumps({"id": "a", "contents": "hello world"}) + "\n")
        again = run_verb("index", "--corpus", small, "--index", out, "--threads", "1", "--quiet")
        assert again.returncode == 0, again.stderr
        assert "left behind by an earlier run" in again.stderr
        assert _hidden(tmp_path, "idx") == [] and (out / ".qlog-pyserini.json").is_file()


@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGKILL])
def test_killed_search_leaves_no_temporary_run(big, tmp_path, sig):
    out = tmp_path / "run.txt"
    proc = _start("search", "--index", big["index"], "--topics", big["topics"], "--output", out, "--q", "0.3",
                  "--hits", "1000", "--threads", "2", "--quiet")
    _wait_for(lambda: bool(_hidden(tmp_path, "run.txt")), proc)
    proc.send_signal(sig)
    proc.wait(timeout=240)
    assert wait_gone(children_of(proc.pid), timeout=10) == []
    assert not out.exists()
    if sig == signal.SIGTERM:
        assert proc.returncode == 128 + signal.SIGTERM
        assert _hidden(tmp_path, "run.txt") == []
    else:
        assert _hidden(tmp_path, "run.txt"), "SIGKILL cannot be caught: the temporary stays until the next run"
        (tmp_path / "one.tsv").write_text("q1\tw1 w2\n")
        again = run_verb("search", "--index", big["index"], "--topics", tmp_path / "one.tsv", "--output", out,
                         "--quiet")
        assert again.returncode == 0, again.stderr
        assert _hidden(tmp_path, "run.txt") == [] and out.is_file()


@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGKILL])
def test_killed_sweep_leaves_no_staging_and_no_child(big, tmp_path, sig):
    out = tmp_path / "sw"
    proc = _start("sweep", "--index", big["index"], "--topics", big["topics"], "--qrels", big["qrels"],
                  "--out", out, "--q-grid", "0.3,0.5,1", "--no-auto", "--hits", "1000", "--threads", "2",
                  "--resamples", "200", "--quiet", "--keep-runs")
    # Killed once the first run is written (--keep-runs: the sign that the grid passes are under way).
    _wait_for(lambda: any(p.is_dir() and any((p / "runs").glob("run.*")) for p in _hidden(tmp_path, "sw")), proc)
    kids = children_of(proc.pid)
    proc.send_signal(sig)
    try:
        proc.wait(timeout=240)
    except subprocess.TimeoutExpired:
        proc.send_signal(signal.SIGABRT)
        proc.wait(timeout=30)
        raise AssertionError(f"did not exit after {sig.name}: {proc.stderr.read()[-6000:]}") from None
    assert wait_gone(kids + children_of(proc.pid), timeout=20) == []
    assert not out.exists(), (proc.returncode, proc.stderr.read()[-3000:])
    if sig == signal.SIGTERM:
        assert proc.returncode == 128 + signal.SIGTERM
        assert _hidden(tmp_path, "sw") == []
    else:
        assert _hidden(tmp_path, "sw")
        small_topics = tmp_path / "t.tsv"
        small_topics.write_text("q1\tw1 w2\nq2\tw3\n")
        again = run_verb("sweep", "--index", big["index"], "--topics", small_topics, "--qrels", big["qrels"],
                     "--out", out, "--q-grid", "0.5", "--no-auto", "--hits", "10", "--resamples", "50", "--quiet")
        assert again.returncode == 0, again.stderr
        assert _hidden(tmp_path, "sw") == [] and (out / "summary.json").is_file()


# --- a folder another process's IndexWriter holds open is not replaced ------------------------------------------

_HOLD_WRITER = """
import sys
from qlog_pyserini.jvm.bridge import jclass
directory = jclass("org.apache.lucene.store.FSDirectory").open(jclass("java.io.File")(sys.argv[1]).toPath())
writer = jclass("org.apache.lucene.index.IndexWriter")(directory, jclass("org.apache.lucene.index.IndexWriterConfig")())
print("ready", flush=True)
sys.stdin.readline()
writer.commit()  # fails with AlreadyClosedException if the folder was replaced under it
writer.close()
print("committed", flush=True)
"""


@pytest.mark.jvm
def test_index_overwrite_refuses_a_folder_whose_write_lock_another_writer_holds(tiny_corpus, tmp_path):
    index = tmp_path / "idx"
    assert run_verb("index", "--corpus", tiny_corpus, "--index", index, "--threads", "1").returncode == 0
    holder = subprocess.Popen([sys.executable, "-c", _HOLD_WRITER, str(index)], stdin=subprocess.PIPE,
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                              env={**os.environ, "PYTHONPATH": str(ROOT)})
    try:
        assert holder.stdout.readline().strip() == "ready", holder.stderr.read()
        before = tree(index)
        proc = run_verb("index", "--corpus", tiny_corpus, "--index", index, "--threads", "1", "--overwrite")
        assert_one_error(proc, "write.lock")
        assert f"process {holder.pid}" in proc.stderr
        assert tree(index) == before
        out, err = holder.communicate("go\n", timeout=120)
        assert holder.returncode == 0 and out.strip() == "committed", err[-2000:]
    finally:
        holder.kill()
        holder.wait()


# --- a killed JVM leaves no attach socket (/tmp/.java_pid<pid>) behind ------------------------------------------

def _attach_socket(pid: int) -> Path:
    return Path("/tmp") / f".java_pid{pid}"  # HotSpot's attach listener: always in /tmp, whatever java.io.tmpdir


def test_a_killed_indexer_jvm_leaves_no_attach_socket(big, tmp_path):
    proc = _start("index", "--corpus", big["corpus"], "--index", tmp_path / "idx", "--threads", "1")
    _wait_for(lambda: bool(_java_children(proc.pid)), proc)
    java = _java_children(proc.pid)
    time.sleep(2)  # the JVM is up: with -Xrs the attach listener would have made its socket by now
    proc.send_signal(signal.SIGKILL)
    proc.wait(timeout=240)
    assert wait_gone(java, timeout=20) == []
    assert [p for p in java if _attach_socket(p).exists()] == []


_EMBEDDED = """
from qlog_pyserini.jvm.bridge import jclass
jclass("java.lang.System").getProperty("java.version")
print("up", flush=True)
import time
time.sleep(600)
"""


def test_a_killed_embedded_jvm_leaves_no_attach_socket():
    proc = subprocess.Popen([sys.executable, "-c", _EMBEDDED], stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                            text=True, env={**os.environ, "PYTHONPATH": str(ROOT)})
    try:
        assert proc.stdout.readline().strip() == "up"
        time.sleep(2)
    finally:
        proc.kill()
        proc.wait()
    assert not _attach_socket(proc.pid).exists()
