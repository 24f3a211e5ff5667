"""prepare --format irds: an ir_datasets dataset from the local cache, never the network.

The datasets here are tiny ones built in the test and registered with ir_datasets' own registry,
from its own TSV/TREC formats; one of them points at a URL to show that nothing is downloaded.
"""

from __future__ import annotations

import itertools
import json

import pytest

from qlog_pyserini.errors import QLogError
from qlog_pyserini.formats.topics import read_topics
from qlog_pyserini.formats.trec import read_qrels

ir_datasets = pytest.importorskip("ir_datasets")
_ids = itertools.count()


def register(tmp_path, docs, queries, qrels, remote_docs: bool = False) -> str:
    from ir_datasets.datasets.base import Dataset
    from ir_datasets.formats import TrecQrels, TsvDocs, TsvQueries
    from ir_datasets.util import Download, LocalDownload, RequestsDownload

    folder = tmp_path / f"irds-{next(_ids)}"
    folder.mkdir()
    (folder / "docs.tsv").write_text("".join(f"{d}\t{t}\n" for d, t in docs.items()))
    (folder / "queries.tsv").write_text("".join(f"{q}\t{t}\n" for q, t in queries.items()))
    (folder / "qrels.txt").write_text("".join(f"{q} 0 {d} {g}\n" for q, ds in qrels.items() for d, g in ds.items()))
    docs_dlc = (Download([RequestsDownload("https://ir-datasets.invalid/docs.tsv")], cache_path=str(folder / "absent.tsv"))
                if remote_docs else LocalDownload(folder / "docs.tsv"))
    name = f"qlog-test/{folder.name}"
    ir_datasets.registry.register(name, Dataset(TsvDocs(docs_dlc), TsvQueries(LocalDownload(folder / "queries.tsv")),
                                                TrecQrels(LocalDownload(folder / "qrels.txt"), {0: "no", 1: "yes"})))
    return name


@pytest.fixture(autouse=True)
def irds_home(tmp_path, monkeypatch):
    monkeypatch.setenv("IR_DATASETS_HOME", str(tmp_path / "irds-home"))


DOCS = {"d1": "parse the json body", "d2": "open a socket", "d3": "read a config file"}
QUERIES = {"q1": "json parsing", "q2": "socket", "q3": "never judged"}
QRELS = {"q1": {"d1": 1}, "q2": {"d2": 1, "d3": 0}}


def test_prepare_irds_writes_corpus_topics_and_qrels(tmp_path):
    from qlog_pyserini.prepare.__main__ import main

    name = register(tmp_path, DOCS, QUERIES, QRELS)
    out = tmp_path / "out"
    assert main(["--format", "irds", "--dataset", name, "--out", str(out)]) == 0
    docs = {}
    for shard in sorted((out / "corpus").glob("*.jsonl")):
        for line in shard.read_text().splitlines():
            row = json.loads(line)
            docs[row["id"]] = row["contents"]
    assert docs == DOCS
    assert read_topics(out / "topics.tsv") == {"q1": "json parsing", "q2": "socket"}  # unjudged q3 dropped
    assert read_qrels(out / "qrels.txt") == QRELS
    manifest = json.loads((out / "manifest.json").read_text())
    assert manifest["format"] == "irds" and manifest["notes"]["dataset"] == name
    assert manifest["notes"]["queries_without_qrels_dropped"] == 1


def test_a_dataset_not_in_the_cache_is_refused_not_downloaded(tmp_path):
    from qlog_pyserini.prepare.datasets import prepare_irds

    name = register(tmp_path, DOCS, QUERIES, QRELS, remote_docs=True)
    with pytest.raises(QLogError, match=r"not in the local ir_datasets cache.*would download https://ir-datasets.invalid"):
        prepare_irds(name, tmp_path / "out")
    assert not (tmp_path / "out").exists()


def test_unknown_dataset_and_wrong_flags_are_one_line_errors(tmp_path):
    from qlog_pyserini.prepare.__main__ import main
    from qlog_pyserini.prepare.datasets import prepare_irds

    with pytest.raises(QLogError, match="ir_datasets has no dataset 'no/such/dataset'"):
        prepare_irds("no/such/dataset", tmp_path / "out")
    with pytest.raises(QLogError, match="--format irds takes --dataset ID"):
        main(["--format", "irds", "--out", str(tmp_path / "out")])
    with pytest.raises(QLogError, match="--dataset only applies to --format irds"):
        main(["--format", "beir", "--input", str(tmp_path), "--dataset", "x", "--out", str(tmp_path / "out")])
