"""``solr deploy`` and ``solr sweep`` never replace a configset this tool did not write, which other
collections may share (Solr's ``_default``), unless ``--force``; and they say which collections use it.

Against the session's real 2-node MiniSolrCloudCluster (``solr_url`` in conftest.py), with a shared
configset that two collections were created from, uploaded without our marker as anyone's would be.
"""

from __future__ import annotations

import io
import subprocess
import sys
import zipfile

import pytest
from conftest import ROOT

from qlog_pyserini.solr.client import SolrClient
from qlog_pyserini.solr.configset import ConfigSet

pytestmark = [pytest.mark.jvm, pytest.mark.solr]


def _foreign_zip() -> bytes:
    """A configset someone else wrote: ours with a different q and without our marker."""
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as z:
        for name, text in ConfigSet(q=1.0).files().items():
            if name != "qlog-pyserini.json":  # our marker (solr.configset.CONFIGSET_MARKER)
                z.writestr(name, text.replace("q-log BM25", "the team's shared schema"))
    return buffer.getvalue()


def _schema(client: SolrClient, collection: str) -> str:
    r = client.session.get(f"{client.url}/{collection}/admin/file", params={"file": "schema.xml"}, timeout=60)
    r.raise_for_status()
    return r.text


def _solr(*args) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "qlog_pyserini.solr", *map(str, args)], cwd=ROOT,
                          capture_output=True, text=True, timeout=900)


def test_a_shared_configset_is_refused_naming_its_users_and_replaced_only_with_force(solr_url, tmp_path):
    with SolrClient(solr_url) as client:
        client.upload_configset("shared", _foreign_zip())
        for name in ("team_a", "team_b"):
            client.create_collection(name, "shared")
        before = _schema(client, "team_b")
    assert "the team's shared schema" in before

    (tmp_path / "t.tsv").write_text("q1\tparse file\n")
    (tmp_path / "qrels.txt").write_text("q1 0 d1 1\n")
    for argv in (["deploy", "--solr", solr_url, "--collection", "team_a", "--q", "0.5"],
                 ["sweep", "--solr", solr_url, "--collection", "team_a", "--topics", tmp_path / "t.tsv",
                  "--qrels", tmp_path / "qrels.txt", "--q-grid", "0.5", "--out", tmp_path / "sw"]):
        proc = _solr(*argv)
        errors = [line for line in proc.stderr.splitlines() if line.startswith("error: ")]
        assert proc.returncode == 2 and len(errors) == 1, proc.stderr[-3000:]
        assert "configset 'shared', which this tool did not write" in errors[0]
        assert "(team_a, team_b)" in errors[0] and "--force" in errors[0]
        with SolrClient(solr_url) as client:
            assert _schema(client, "team_b") == before, "the shared configset was replaced"

    proc = _solr("deploy", "--solr", solr_url, "--collection", "team_a", "--q", "0.5", "--force")
    assert proc.returncode == 0 and "team_a: reloaded" in proc.stdout, proc.stderr[-3000:]
    with SolrClient(solr_url) as client:
        assert "q=0.5" in _schema(client, "team_b")  # shared: --force changed both, as the message warned


def test_our_own_configset_is_replaced_without_force(solr_url):
    assert _solr("deploy", "--solr", solr_url, "--collection", "ours", "--q", "0.7").returncode == 0
    proc = _solr("deploy", "--solr", solr_url, "--collection", "ours", "--q", "0.3")
    assert proc.returncode == 0 and "ours: reloaded" in proc.stdout, proc.stderr[-3000:]
    with SolrClient(solr_url) as client:
        assert "q=0.3" in _schema(client, "ours")
