"""``solr search --field``: the field reaches Solr's select request (a loopback HTTP server stands in for Solr)."""

from __future__ import annotations

import pytest
from conftest import run_verb

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


def test_threads_do_not_change_the_run(fake_select, tmp_path):
    # each query's answer depends on its text, so a run whose answers were matched to the wrong query differs
    url = fake_select(lambda form: [{"id": f"{form['q']}-{i}", "score": 10.0 - i} for i in range(3)])
    topics = tmp_path / "t.tsv"
    topics.write_text("".join(f"q{i}\tword{i}\n" for i in range(150)))  # more than one written chunk
    runs = {}
    for threads in (1, 4):
        runs[threads] = tmp_path / f"run{threads}.txt"
        assert main(["search", "--solr", url, "--collection", "c", "--topics", str(topics),
                     "--output", str(runs[threads]), "--threads", str(threads), "--quiet"]) == 0
    assert runs[1].read_bytes() == runs[4].read_bytes()
    assert [h.docid for h in read_run(runs[4])["q7"]] == ["word7-0", "word7-1", "word7-2"]
    assert all(form["distrib.singlePass"] == "true" for form in fake_select.seen)


@pytest.mark.parametrize("command", ["search", "sweep"])
@pytest.mark.parametrize("threads", ["0", "1025", "two"])
def test_bad_threads_are_refused_before_any_request(solr_url, fake_select, tmp_path, threads, command):
    topics, qrels, out = tmp_path / "t.tsv", tmp_path / "q.txt", tmp_path / "out"
    topics.write_text("1\tparse json\n")
    qrels.write_text("1 0 d1 1\n")
    where = ["--output", str(out)] if command == "search" else ["--qrels", str(qrels), "--out", str(out)]
    proc = run_verb("solr", command, "--solr", solr_url, "--collection", "c", "--topics", topics, *where,
                    "--threads", threads)
    # one error line naming the option (the shared --threads for a non-number or below 1, the client's above its cap),
    # exit 2
    assert proc.returncode == 2 and proc.stderr.startswith("error:") and proc.stderr.count("\n") == 1, proc.stderr
    assert ("illegal threads value" if threads == "1025" else "argument --threads") in proc.stderr
    assert fake_select.seen == [] and not out.exists()
