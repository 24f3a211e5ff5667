"""A reverse proxy on loopback that forwards only what a read-only Elasticsearch/OpenSearch role may call on one
index, and records anything else.

    python tests/rewrite/readonly_proxy.py UPSTREAM INDEX[,INDEX...] PORT_FILE LOG_FILE

Forwarded (the ``read`` index privilege, ``indices:data/read/*``), for each INDEX: ``GET|POST /INDEX/_search``,
``GET|POST /INDEX/_msearch`` whose every header names no other index, ``GET|POST /INDEX/_field_caps``. Anything
else is answered 403 and its method and path appended to LOG_FILE, which a test asserts empty. Each forwarded
request carries ``X-Opaque-Id: qlog-readonly-proxy``, so the engine's tasks show which actions it ran for them.
The port it listens on is written to PORT_FILE once it is listening; it runs until killed.
"""

from __future__ import annotations

import json
import os
import re
import sys
import threading
import urllib.error
import urllib.request
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import urlsplit

OPAQUE_ID = "qlog-readonly-proxy"


def allowed(method: str, path: str, body: bytes, indexes: set[str]) -> str | None:
    """None when a read-only role on ``indexes`` may send this request, else why not."""
    route = urlsplit(path).path
    m = re.fullmatch(r"/([^/]+)/(_search|_msearch|_field_caps)", route)
    if method not in ("GET", "POST") or not m:
        return "not a read endpoint"
    index = m.group(1)
    if index not in indexes:
        return f"another index: {index}"
    if m.group(2) == "_msearch":
        lines = [line for line in body.decode("utf-8").split("\n") if line.strip()]
        for header in lines[0::2]:
            named = json.loads(header).get("index")
            if named not in (None, index, [index]):
                return f"_msearch names another index: {named}"
    return None


def serve(upstream: str, indexes: str, port_file: str, log_file: str) -> None:
    lock = threading.Lock()

    class Handler(BaseHTTPRequestHandler):
        def _handle(self) -> None:
            body = self.rfile.read(int(self.headers.get("Content-Length") or 0))
            why = allowed(self.command, self.path, body, set(indexes.split(",")))
            if why:
                with lock, open(log_file, "a") as f:
                    f.write(f"{self.command} {self.path}: {why}\n")
                self._answer(403, b'{"error": "refused by the read-only proxy"}', [("Content-Type", "application/json")])
                return
            headers = {k: v for k, v in self.headers.items()
                       if k.lower() not in ("host", "content-length", "connection", "transfer-encoding")}
            headers["X-Opaque-Id"] = OPAQUE_ID
            request = urllib.request.Request(upstream.rstrip("/") + self.path, data=body or None, method=self.command,
                                             headers=headers)
            try:
                with urllib.request.urlopen(request, timeout=300) as r:
                    self._answer(r.status, r.read(), r.headers.items())
            except urllib.error.HTTPError as e:
                self._answer(e.code, e.read(), e.headers.items())

        def _answer(self, status: int, data: bytes, headers) -> None:
            self.send_response(status)
            for name, value in headers:  # the engine's own (the Elasticsearch client checks X-Elastic-Product)
                if name.lower() not in ("content-length", "transfer-encoding", "connection"):
                    self.send_header(name, value)
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        do_GET = do_POST = do_PUT = do_DELETE = do_HEAD = do_PATCH = _handle

        def log_message(self, *args) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    with open(port_file + ".tmp", "w") as f:
        f.write(str(server.server_address[1]))
    os.replace(port_file + ".tmp", port_file)
    server.serve_forever()


if __name__ == "__main__":
    serve(*sys.argv[1:5])
