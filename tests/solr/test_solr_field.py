"""``solr search --field``: the field reaches Solr's select request (a loopback HTTP server stands in for Solr)."""

from __future__ import annotations

import pytest

from qlog_pyserini.errors import QLogError
from qlog_pyserini.formats.trec import read_run
from qlog_pyserini.solr.__main__ import main


@pytest.fixture
def solr_url(fake_select):
    return fake_select(lambda form: [{"id": "d1", "score": 2.5}, {"id": "d2", "score": 1.0}])


def test_search_field_reaches_the_select_request(solr_url, fake_select, tmp_path):
    topics = tmp_path / "t.tsv"
    topics.write_text("1\tparse json\n")
    out = tmp_path / "run.txt"
    assert main(["search", "--solr", solr_url, "--collection", "c", "--topics", str(topics), "--output", str(out),
                 "--field", "body_txt", "--quiet"]) == 0
    assert [s["df"] for s in fake_select.seen] == ["body_txt"]
    assert fake_select.seen[0]["q"] == "parse\\ json"  # escaped as SolrJ's escapeQueryChars
    assert [h.docid for h in read_run(out)["1"]] == ["d1", "d2"]
    main(["search", "--solr", solr_url, "--collection", "c", "--topics", str(topics), "--output", str(out), "--quiet"])
    assert fake_select.seen[-1]["df"] == "contents"  # the default: our configset's field


def test_bad_field_is_refused_before_any_request(solr_url, fake_select, tmp_path):
    topics = tmp_path / "t.tsv"
    topics.write_text("1\tparse json\n")
    with pytest.raises(QLogError, match="illegal field name"):
        main(["search", "--solr", solr_url, "--collection", "c", "--topics", str(topics),
              "--output", str(tmp_path / "r.txt"), "--field", "a b"])
    assert fake_select.seen == []
