"""``solr configset --out`` and ``solr sweep --out``: output folders under the rule every verb keeps (a non-empty
folder replaced only with ``--overwrite``, and only when this tool wrote everything in it), checked before any
request; a loopback HTTP server stands in for Solr's select handler."""

from __future__ import annotations

import zipfile
from io import BytesIO

import pytest

from qlog_pyserini.errors import QLogError
from qlog_pyserini.formats.trec import read_run
from qlog_pyserini.solr.__main__ import main
from qlog_pyserini.solr.client import SolrClient
from qlog_pyserini.solr.configset import ConfigSet, zip_folder
from qlog_pyserini.solr.workflow import sweep_q


def test_configset_out_is_replaced_only_with_overwrite_and_only_if_ours(tmp_path):
    out = tmp_path / "cs"
    assert main(["configset", "--out", str(out), "--q", "0.5"]) == 0
    with pytest.raises(QLogError, match=r"exists and is not empty; pass --overwrite"):
        main(["configset", "--out", str(out), "--q", "0.3"])
    assert ConfigSet(q=0.5).files()["schema.xml"] == (out / "schema.xml").read_text()
    assert main(["configset", "--out", str(out), "--q", "0.3", "--overwrite"]) == 0
    assert ConfigSet(q=0.3).files()["schema.xml"] == (out / "schema.xml").read_text()
    # the output's marker is not uploaded with the configset
    with zipfile.ZipFile(BytesIO(zip_folder(out))) as z:
        assert sorted(z.namelist()) == sorted(ConfigSet(q=0.3).files())
    (out / "notes.txt").write_text("mine")
    with pytest.raises(QLogError, match="notes.txt"):
        main(["configset", "--out", str(out), "--overwrite"])
    assert (out / "notes.txt").read_text() == "mine"


def test_a_users_configset_folder_is_never_replaced(tmp_path):
    out = tmp_path / "theirs"
    out.mkdir()
    (out / "schema.xml").write_text("<schema name='theirs'/>")
    with pytest.raises(QLogError):
        main(["configset", "--out", str(out), "--overwrite"])
    assert (out / "schema.xml").read_text() == "<schema name='theirs'/>"


class _SelectOnly(SolrClient):
    """A client whose collection administration is a no-op: the select requests go to the loopback server."""

    def config_name(self, collection: str) -> str:
        return collection

    def has_config_file(self, collection: str, name: str) -> bool:
        return True

    def upload_configset(self, name: str, zip_bytes: bytes) -> None:
        pass

    def reload_collection(self, name: str) -> None:
        pass


@pytest.fixture
def sweep_inputs(tmp_path):
    topics, qrels = tmp_path / "t.tsv", tmp_path / "q.txt"
    topics.write_text("1\tparse json\n")
    qrels.write_text("1 0 d1 1\n")
    return topics, qrels


def test_sweep_out_is_published_whole_and_replaced_only_with_overwrite(fake_select, tmp_path, sweep_inputs):
    url = fake_select(lambda form: [{"id": "d2", "score": 2.0}, {"id": "d1", "score": 1.0}])
    topics, qrels = sweep_inputs
    out = tmp_path / "sweep"
    with _SelectOnly(url) as client:
        rows = sweep_q(client, "c", ConfigSet(), [0.5, 1.0], topics, qrels, out, k=10, metrics=("recip_rank",))
        assert [(row["q"], row["recip_rank"]) for row in rows] == [(0.5, 0.5), (1.0, 0.5)]
        assert sorted(p.name for p in out.iterdir()) == [".qlog-pyserini.json", "metrics.csv", "run.q0.5.txt",
                                                          "run.q1.txt"]
        assert [h.docid for h in read_run(out / "run.q1.txt")["1"]] == ["d2", "d1"]
        seen = len(fake_select.seen)
        with pytest.raises(QLogError, match=r"exists and is not empty; pass --overwrite"):
            sweep_q(client, "c", ConfigSet(), [0.7], topics, qrels, out, k=10)
        assert len(fake_select.seen) == seen  # refused before any request
        sweep_q(client, "c", ConfigSet(), [0.7], topics, qrels, out, k=10, metrics=("recip_rank",), overwrite=True)
        assert sorted(p.name for p in out.iterdir()) == [".qlog-pyserini.json", "metrics.csv", "run.q0.7.txt"]


def test_sweep_refuses_a_folder_it_did_not_write_before_any_request(fake_select, tmp_path, sweep_inputs):
    url = fake_select(lambda form: [])
    topics, qrels = sweep_inputs
    out = tmp_path / "mine"
    out.mkdir()
    (out / "notes.txt").write_text("mine")
    for extra in ([], ["--overwrite"]):
        with pytest.raises(QLogError, match="pass --overwrite" if not extra else "not a solr-sweep folder this tool"):
            main(["sweep", "--solr", url, "--collection", "c", "--topics", str(topics), "--qrels", str(qrels),
                  "--out", str(out), *extra])
    assert fake_select.seen == [] and (out / "notes.txt").read_text() == "mine"


def test_each_subcommand_runs_from_one_table():
    import argparse

    from qlog_pyserini.solr.__main__ import SUBCOMMANDS, build_parser

    sub = next(a for a in build_parser()._actions if isinstance(a, argparse._SubParsersAction))
    assert set(sub.choices) == set(SUBCOMMANDS)
