"""``solr search`` against a server that answers JSON which is not Solr's, or that is not there: one
``error:`` line, and a password given in the URL never appears in any message.

The server is a real HTTP server on the loopback interface (reliability_helpers.answering), answering
every request with the body the test gives it, so the client's own HTTP stack, JSON decoding and checks are what is tested.
"""

from __future__ import annotations

import socket

import pytest
from conftest import run_verb
from reliability.reliability_helpers import answering, assert_one_error, tree

from qlog_pyserini.errors import QLogError
from qlog_pyserini.solr.client import SolrClient

NOT_SOLR = ["[]", '{"responseHeader": {}}', "42", '{"response": {"docs": [{"id": null, "score": 1.0}]}}',
            '{"response": {"docs": [{"id": "d1", "score": null}]}}', '{"response": {"docs": {"id": "d1"}}}',
            '{"response": {"docs": [{"id": "d1", "score": "NaN"}]}}', '"just a string"']


@pytest.mark.parametrize("body", NOT_SOLR)
def test_json_that_is_not_solr_is_one_error_line(body, tmp_path):
    topics = tmp_path / "topics.tsv"
    topics.write_text("q1\tparse file\n")
    before = tree(tmp_path)
    with answering(body) as url:
        proc = run_verb("solr", "search", "--solr", url, "--collection", "c", "--topics", topics,
                    "--output", tmp_path / "r.txt")
    assert_one_error(proc, "not a Solr response")
    assert tree(tmp_path) == before


@pytest.mark.parametrize("body", NOT_SOLR[:3])
def test_every_client_call_checks_the_answer(body):
    with answering(body) as url, SolrClient(url) as client:
        for call in (client.collections, lambda: client.config_name("c"), lambda: client.count("c"),
                     lambda: client.search("c", "parse")):
            with pytest.raises(QLogError, match="not a Solr response"):
                call()


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def test_a_password_in_the_url_is_never_printed(tmp_path):
    topics = tmp_path / "topics.tsv"
    topics.write_text("q1\tparse file\n")
    url = f"http://admin:s3cr3t-pw@127.0.0.1:{_free_port()}/solr"
    for argv in (["search", "--solr", url, "--collection", "c", "--topics", topics, "--output", tmp_path / "r.txt"],
                 ["deploy", "--solr", url, "--collection", "c"]):
        proc = run_verb("solr", *argv)
        line = assert_one_error(proc, "cannot reach Solr")
        assert "s3cr3t-pw" not in proc.stderr + proc.stdout and "admin" not in line
        assert "***@127.0.0.1" in line


def test_redact_url():
    from qlog_pyserini.solr.client import redact_url

    assert redact_url("https://u:p@h:8983/solr") == "https://***@h:8983/solr"
    assert redact_url("http://h/solr") == "http://h/solr"
    assert redact_url("http://a@b:c@h/solr") == "http://***@h/solr"
