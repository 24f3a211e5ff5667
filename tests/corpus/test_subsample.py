"""Nested subsamples of a prepared benchmark: seeded, nested, within the relevant share, family recorded."""

from __future__ import annotations

import json

import pytest

from qlog_pyserini.corpus.subsample import choose, subsample, subsample_name
from qlog_pyserini.errors import QLogError
from qlog_pyserini.formats.documents import iter_documents, write_json_collection
from qlog_pyserini.formats.topics import read_topics, write_topics_tsv
from qlog_pyserini.formats.trec import read_qrels, write_qrels


@pytest.fixture
def prepared(tmp_path):
    """A benchmark of 200 documents and 60 queries, query i's own document d<i> relevant (q5 also d199)."""
    src = tmp_path / "cosqa" / "prepared"
    src.mkdir(parents=True)
    write_json_collection(((f"d{i}", f"text {i}") for i in range(200)), src / "corpus")
    write_topics_tsv(src / "topics.tsv", {f"q{i}": f"query {i}" for i in range(60)})
    qrels = {f"q{i}": {f"d{i}": 1} for i in range(60)}
    qrels["q5"]["d199"] = 2
    qrels["q7"] = {"d7": 0}  # judged, nothing relevant: never a subsample's query
    write_qrels(src / "qrels.txt", qrels)
    (src / "manifest.json").write_text("{}")
    return src


def test_names():
    assert [subsample_name("cosqa", n) for n in (500, 2000, 10_000, 1500)] == ["cosqa-500", "cosqa-2k", "cosqa-10k",
                                                                            "cosqa-1500"]


def test_subsamples_are_nested_and_keep_their_answers(prepared, tmp_path):
    small = subsample(prepared, tmp_path / "s50", 50, max_queries=100)
    large = subsample(prepared, tmp_path / "s100", 100, max_queries=100)
    docs = {n: {d for d, _ in iter_documents(tmp_path / n / "corpus")} for n in ("s50", "s100")}
    topics = {n: list(read_topics(tmp_path / n / "topics.tsv")) for n in ("s50", "s100")}
    assert len(docs["s50"]) == 50 and len(docs["s100"]) == 100
    assert docs["s50"] < docs["s100"]  # nested
    assert topics["s100"][:len(topics["s50"])] == topics["s50"]  # the queries a prefix of one order
    for name, share_of in (("s50", 50), ("s100", 100)):
        qrels = read_qrels(tmp_path / name / "qrels.txt")
        assert list(qrels) == topics[name] and "q7" not in qrels
        relevant = {d for q in qrels for d, g in qrels[q].items() if g > 0}
        assert relevant <= docs[name] and len(relevant) <= 0.2 * share_of  # at most a fifth are answers
        assert all(g > 0 for q in qrels for g in qrels[q].values())
    assert (small["family"], large["documents"], large["queries"]) == ("cosqa", 100, len(topics["s100"]))
    assert json.loads((tmp_path / "s100" / "manifest.json").read_text())["family"] == "cosqa"


def test_choice_depends_on_the_seed_only():
    qrels = {f"q{i}": {f"d{i}": 1} for i in range(40)}
    docids = [f"d{i}" for i in range(300)]
    a = choose(qrels, list(qrels), docids, 100, 10, seed=3)
    assert a == choose(qrels, list(reversed(qrels)), list(reversed(docids)), 100, 10, seed=3)
    assert a != choose(qrels, list(qrels), docids, 100, 10, seed=4)
    assert len(a[0]) == 10 and len(a[1]) == 100


def test_refusals(prepared, tmp_path):
    with pytest.raises(QLogError, match="has 200 documents: no subsample of 200"):
        subsample(prepared, tmp_path / "x", 200)
    with pytest.raises(QLogError, match="is not a prepared benchmark"):
        subsample(tmp_path, tmp_path / "y", 10)
    subsample(prepared, tmp_path / "z", 50)
    with pytest.raises(QLogError, match="exists and is not empty"):
        subsample(prepared, tmp_path / "z", 60)
    assert subsample(prepared, tmp_path / "z", 60, overwrite=True)["documents"] == 60
    assert not [p for p in tmp_path.iterdir() if p.name.startswith(".")]  # no staging folder left behind
