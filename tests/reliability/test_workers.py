"""Worker processes die with the verb that started them, a ``kill -9`` included, and the temporaries of a
killed download are removed by the next run."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

from conftest import ROOT
from oracles import wait_gone
from reliability.reliability_helpers import children_of


def _python_children(pid: int) -> list[int]:
    out = []
    for c in children_of(pid):
        try:
            if b"python" in Path(f"/proc/{c}/cmdline").read_bytes().split(b"\0")[0]:
                out.append(c)
        except OSError:
            continue
    return out


def _wait(condition, proc: subprocess.Popen, timeout: float = 240.0) -> None:
    deadline = time.monotonic() + timeout
    while not condition():
        assert proc.poll() is None, f"exited ({proc.returncode}) before it could be killed"
        assert time.monotonic() < deadline, "timed out waiting for the workers"
        time.sleep(0.05)


def test_pool_workers_die_with_a_killed_parent(tmp_path):
    # each task marks that a worker runs it, then blocks: the parent is killed while both workers are busy
    script = textwrap.dedent(f"""
        import time
        from qlog_pyserini.system.processes import process_pool
        pool = process_pool(2)
        task = "import pathlib, os, time; pathlib.Path({str(tmp_path)!r}, str(os.getpid())).touch(); time.sleep(60)"
        futures = [pool.submit(exec, task, {{}}) for _ in range(2)]
        time.sleep(600)
    """)
    proc = subprocess.Popen([sys.executable, "-c", script], env={**os.environ, "PYTHONPATH": str(ROOT)})
    _wait(lambda: len(list(tmp_path.iterdir())) >= 2, proc)
    family = children_of(proc.pid)  # the workers and multiprocessing's resource tracker
    proc.send_signal(signal.SIGKILL)
    proc.wait()
    assert wait_gone(family, timeout=20) == [], "a worker or the resource tracker outlived its parent"


def test_corpus_workers_die_with_a_killed_verb(tmp_path):
    src = tmp_path / "src"
    src.mkdir()
    body = "".join(f'def f{j}(x):\n    """Return x plus {j} for the caller."""\n    return x + {j}\n\n\n' for j in range(200))
    for i in range(400):
        (src / f"m{i}.py").write_text(body)
    proc = subprocess.Popen([sys.executable, "-m", "qlog_pyserini.corpus", "--source", str(src), "--out",
                             str(tmp_path / "out"), "--workers", "2", "--quiet"],
                            env={**os.environ, "PYTHONPATH": str(ROOT)}, stderr=subprocess.DEVNULL)
    _wait(lambda: len(_python_children(proc.pid)) >= 2, proc)
    family = children_of(proc.pid)
    proc.send_signal(signal.SIGKILL)
    proc.wait()
    assert wait_gone(family, timeout=20) == [], "corpus workers outlived the killed verb"


def test_a_killed_downloads_temporary_is_removed_by_the_next_run(tmp_path):
    from qlog_pyserini.fetch.debian import PackageInfo, apt_download

    dead = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True,
                          text=True).stdout.strip()
    stale = tmp_path / f".download.partial-{dead}-abc123"
    stale.mkdir()
    (stale / "half.deb").write_bytes(b"x" * 1000)
    mine = tmp_path / ".download.keep"  # not of our pattern: never touched
    mine.mkdir()
    result = apt_download([PackageInfo("qlog-no-such-package", "0.0", "all", 0, "0" * 64)], tmp_path)
    assert isinstance(result["qlog-no-such-package"], str)  # apt-get could not get it
    assert not stale.exists() and mine.is_dir()
    assert sorted(p.name for p in tmp_path.iterdir()) == [".download.keep"]
