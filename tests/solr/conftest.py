"""A loopback HTTP server that stands in for Solr's ``/select`` in the tests that need no real Solr."""

from __future__ import annotations

import json
import threading
import urllib.parse
from http.server import BaseHTTPRequestHandler, HTTPServer
from typing import Callable, Iterator

import pytest


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
