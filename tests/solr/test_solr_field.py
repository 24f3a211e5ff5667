"""``solr search --field``: the field reaches Solr's select request (a loopback HTTP server stands in for Solr)."""

from __future__ import annotations

import json
import threading
import urllib.parse
from http.server import BaseHTTPRequestHandler, HTTPServer

import pytest

from qlog_pyserini.errors import QLogError
from qlog_pyserini.formats.trec import read_run
from qlog_pyserini.solr.__main__ import main


class _Select(BaseHTTPRequestHandler):
    seen: list[dict] = []

    def do_POST(self) -> None:  # noqa: N802 (http.server's name)
        body = self.rfile.read(int(self.headers["Content-Length"])).decode()
        form = {k: v[0] for k, v in urllib.parse.parse_qs(body).items()}
        _Select.seen.append(form)
        docs = [{"id": "d1", "score": 2.5}, {"id": "d2", "score": 1.0}]
        payload = json.dumps({"response": {"numFound": 2, "docs": docs}}).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(payload)))
        self.end_headers()
        self.wfile.write(payload)

    def log_message(self, *args) -> None:
        pass


@pytest.fixture
def solr_url():
    server = HTTPServer(("127.0.0.1", 0), _Select)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    _Select.seen = []
    yield f"http://127.0.0.1:{server.server_port}/solr"
    server.shutdown()
    server.server_close()


def test_search_field_reaches_the_select_request(solr_url, tmp_path):
    topics = tmp_path / "t.tsv"
    topics.write_text("1\tparse json\n")
    out = tmp_path / "run.txt"
    assert main(["search", "--solr", solr_url, "--collection", "c", "--topics", str(topics), "--output", str(out),
                 "--field", "body_txt", "--quiet"]) == 0
    assert [s["df"] for s in _Select.seen] == ["body_txt"]
    assert _Select.seen[0]["q"] == "parse\\ json"  # escaped as SolrJ's escapeQueryChars
    assert [h.docid for h in read_run(out)["1"]] == ["d1", "d2"]
    main(["search", "--solr", solr_url, "--collection", "c", "--topics", str(topics), "--output", str(out), "--quiet"])
    assert _Select.seen[-1]["df"] == "contents"  # the default: our configset's field


def test_bad_field_is_refused_before_any_request(solr_url, tmp_path):
    topics = tmp_path / "t.tsv"
    topics.write_text("1\tparse json\n")
    with pytest.raises(QLogError, match="illegal field name"):
        main(["search", "--solr", solr_url, "--collection", "c", "--topics", str(topics),
              "--output", str(tmp_path / "r.txt"), "--field", "a b"])
    assert _Select.seen == []
