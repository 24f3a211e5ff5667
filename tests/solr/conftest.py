"""The Solr tests' servers: one real 2-node MiniSolrCloudCluster for the session (``solr_url``), and a loopback
HTTP server that stands in for Solr's ``/select`` in the tests that need no real Solr (``fake_select``)."""

from __future__ import annotations

import json
import os
import queue
import shutil
import signal
import subprocess
import threading
import time
import urllib.parse
from http.server import BaseHTTPRequestHandler, HTTPServer
from pathlib import Path
from typing import Callable, Iterator

import pytest
from conftest import ROOT

from qlog_pyserini.errors import QLogError
from qlog_pyserini.jvm.toolchain import user_java_options

JAVA = ROOT / "java-similarity"




@pytest.fixture
def fake_select() -> Iterator[Callable[[Callable[[dict], list[dict]]], str]]:
    """``fake_select(answer)``: the URL of a loopback server whose ``/select`` answers each request's form
    (``q``, ``df``, ``rows``, ...) with the docs ``answer(form)`` returns; the forms seen are in ``.seen``."""
    servers: list[HTTPServer] = []

    def start(answer: Callable[[dict], list[dict]]) -> str:
        class Select(BaseHTTPRequestHandler):
            def do_POST(self) -> None:  # noqa: N802 (http.server's name)
                body = self.rfile.read(int(self.headers["Content-Length"])).decode()
                form = {k: v[0] for k, v in urllib.parse.parse_qs(body).items()}
                start.seen.append(form)
                docs = answer(form)
                payload = json.dumps({"response": {"numFound": len(docs), "docs": docs}}).encode()
                self.send_response(200)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(payload)))
                self.end_headers()
                self.wfile.write(payload)

            def log_message(self, *args) -> None:
                pass

        server = HTTPServer(("127.0.0.1", 0), Select)
        servers.append(server)
        # serve_forever looks for shutdown() every poll_interval (0.5 s by default): each test would wait that long
        threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.01}, daemon=True).start()
        return f"http://127.0.0.1:{server.server_port}/solr"

    start.seen = []
    yield start
    for server in servers:
        server.shutdown()
        server.server_close()


def _start_cluster(jdk, base: Path, log_path: Path) -> tuple[subprocess.Popen, str]:
    env = {**os.environ, "JAVA_HOME": str(jdk.home)}
    build = subprocess.run(
        ["mvn", "-q", "-B", "-f", str(JAVA / "pom.xml"), "-pl", "qlog-solr", "-am", "test-compile",
         "dependency:build-classpath", "-Dmdep.outputFile=target/test-classpath.txt", "-Dmdep.includeScope=test"],
        env=env, capture_output=True, text=True, timeout=1200)
    assert build.returncode == 0, f"mvn test-compile failed:\n{build.stdout[-2000:]}{build.stderr[-2000:]}"
    module = JAVA / "qlog-solr"
    classpath = os.pathsep.join([str(module / "target" / "test-classes"), str(module / "target" / "classes"),
                                 (module / "target" / "test-classpath.txt").read_text().strip()])
    log = open(log_path, "w")
    # stdin is the cluster's lifeline: MiniClusterLauncher shuts down when it closes (also if pytest dies)
    proc = subprocess.Popen(
        [str(jdk.java), *user_java_options(), "-Xmx1g", "-Djava.security.egd=file:/dev/./urandom", "-cp", classpath,
         "io.qlog.solr.MiniClusterLauncher", str(base), "2"],
        stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=log, text=True, start_new_session=True)
    lines: queue.Queue[str] = queue.Queue()
    threading.Thread(target=lambda: [lines.put(line) for line in proc.stdout], daemon=True).start()
    deadline = time.monotonic() + 300
    while time.monotonic() < deadline:
        try:
            line = lines.get(timeout=1)
        except queue.Empty:
            if proc.poll() is not None:
                break
            continue
        if line.startswith("SOLR_URL "):
            return proc, line.split()[1]
    _stop(proc)
    pytest.fail(f"MiniSolrCloudCluster did not start; see {log_path}")


def _stop(proc: subprocess.Popen) -> None:
    try:
        if proc.stdin:
            proc.stdin.close()
        proc.wait(timeout=90)
    except (subprocess.TimeoutExpired, OSError):
        pass
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()


@pytest.fixture(scope="session")
def solr_url(tmp_path_factory) -> Iterator[str]:
    """A 2-node MiniSolrCloudCluster started once for the session's Solr tests (Maven builds its classpath, the
    cluster takes seconds to come up): its URL; stopped at the end (skips without Maven or a JDK). Each test
    works in collections of its own names."""
    if shutil.which("mvn") is None:
        pytest.skip("Maven (mvn) is not installed: the MiniSolrCloudCluster runs from the Maven test classpath")
    from qlog_pyserini.jvm.toolchain import find_jdk
    try:
        jdk = find_jdk(21)
    except QLogError as e:
        pytest.skip(str(e))
    base = tmp_path_factory.mktemp("solrcloud")
    proc, url = _start_cluster(jdk, base / "nodes", base / "cluster.log")
    try:
        yield url
    finally:
        _stop(proc)
