"""Helpers the reliability tests share: run a verb as a user would, and check what it left behind."""

from __future__ import annotations

import contextlib
import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Iterator

from conftest import ROOT

# Root writes anywhere, so file-mode tests would prove nothing as root (CI runs as root). In a new user namespace
# as uid 65534 the process keeps owning root's files but loses root's capabilities, so mode bits hold again.
NOT_ROOT = ["unshare", "--user", "--map-user=65534", "--map-group=65534", "--"]


def can_drop_root() -> bool:
    """Whether this process is root and can run a child as uid 65534 in a user namespace."""
    if os.geteuid() != 0 or shutil.which("unshare") is None:
        return False
    return subprocess.run([*NOT_ROOT, "true"], capture_output=True).returncode == 0


def verb(name: str, *args: object, cwd: Path | None = None, timeout: float = 600,
         not_root: bool = False) -> subprocess.CompletedProcess:
    """``python -m qlog_pyserini.<name> args...`` in a fresh process, output captured; with ``not_root``, run by
    root, it runs as uid 65534 in a user namespace (see NOT_ROOT)."""
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    prefix = NOT_ROOT if not_root and can_drop_root() else []
    return subprocess.run([*prefix, sys.executable, "-m", f"qlog_pyserini.{name}", *map(str, args)],
                          capture_output=True, text=True, env=env, timeout=timeout, cwd=cwd)


def assert_one_error(proc: subprocess.CompletedProcess, needle: str = "") -> str:
    """Exit code 2, exactly one ``error:`` line (the last stderr line), no traceback; returns that line."""
    lines = [line for line in proc.stderr.splitlines() if line.strip()]
    errors = [line for line in lines if line.startswith("error: ")]
    assert proc.returncode == 2, (proc.returncode, proc.stderr[-3000:])
    assert len(errors) == 1 and lines[-1] == errors[0] and "Traceback" not in proc.stderr, proc.stderr[-3000:]
    assert needle in errors[0], errors[0]
    return errors[0]


def tree(folder: Path) -> dict[str, bytes | None]:
    """Every path under ``folder`` (hidden ones included) with its bytes (None for folders)."""
    return {str(p.relative_to(folder)): (None if p.is_dir() else p.read_bytes())
            for p in sorted(folder.rglob("*"))}


def children_of(pid: int) -> list[int]:
    """Pids of the live descendants of ``pid`` (from /proc)."""
    parents: dict[int, int] = {}
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                with open(f"/proc/{entry}/stat") as f:
                    parents[int(entry)] = int(f.read().rsplit(")", 1)[1].split()[1])
            except (OSError, IndexError, ValueError):
                continue
    out, todo = [], [pid]
    while todo:
        p = todo.pop()
        kids = [c for c, pp in parents.items() if pp == p]
        out += kids
        todo += kids
    return out


@contextlib.contextmanager
def small_tmpfs(folder: Path, size: str) -> Iterator[Path]:
    """A tmpfs of ``size`` (mount's size=, e.g. 1m) mounted at the new folder ``folder/small``, unmounted after;
    the test skips where mounting is not permitted."""
    import pytest

    mount = folder / "small"
    mount.mkdir()
    if subprocess.run(["mount", "-t", "tmpfs", "-o", f"size={size}", "tmpfs", str(mount)],
                      capture_output=True).returncode != 0:
        pytest.skip("cannot mount a tmpfs here")
    try:
        yield mount
    finally:
        subprocess.run(["umount", "-l", str(mount)], check=False)


@contextlib.contextmanager
def answering(body: str | bytes) -> Iterator[str]:
    """A loopback HTTP server answering every request with ``body`` as JSON; yields its ``/solr`` URL."""
    import http.server
    import threading

    data = body.encode() if isinstance(body, str) else body

    class Handler(http.server.BaseHTTPRequestHandler):
        def _answer(self) -> None:
            self.rfile.read(int(self.headers.get("Content-Length") or 0))
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        do_GET = do_POST = _answer

        def log_message(self, *args) -> None:
            pass

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    # serve_forever looks for shutdown() every poll_interval (0.5 s by default): each test would wait that long
    threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.01}, daemon=True).start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/solr"
    finally:
        server.shutdown()
        server.server_close()
