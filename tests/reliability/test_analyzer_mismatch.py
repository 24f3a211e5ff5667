"""An index built by Pyserini's (Anserini's) own indexer with another analyzer than the default (``-stemmer none``,
``-pretokenized``) is not searched with Porter stemming without a word: the analyzer is known, from the index or
from Pyserini's own flags (``--stemmer``, ``--pretokenized``), and a mismatch is refused.

The indexes are built by ``io.anserini.index.IndexCollection`` itself, with Pyserini's flags; the reference for
"searched right" is the same index searched with the analyzer it was built with, which finds the documents whose
words the queries repeat."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest
from conftest import run_verb
from reliability.reliability_helpers import assert_one_error

pytestmark = pytest.mark.jvm

# words whose Porter stems differ from the words: an index without stemming holds the words as written
WORDS = ("running connections generalized libraries parsing files handlers returning buffered requests "
         "arguments iterators callbacks formatting encoded decoding listeners matched tokens exceptions "
         "threads sockets writes reading caches deleted updates timers queues workers").split()


def _corpus(folder: Path) -> Path:
    folder.mkdir()
    with open(folder / "docs.jsonl", "w") as f:
        for i, word in enumerate(WORDS):
            others = " ".join(WORDS[(i + k) % len(WORDS)] for k in (3, 7, 11))
            f.write(json.dumps({"id": f"d{i}", "contents": f"the {word} of the {word} and {others}"}) + "\n")
    return folder


def _anserini_index(tmp_path: Path, name: str, *flags: str) -> Path:
    from qlog_pyserini.lucene.indexer import anserini_index_command

    corpus = _corpus(tmp_path / f"{name}-corpus")
    index = tmp_path / name
    cmd = anserini_index_command(corpus, index, threads=1) + list(flags)
    proc = subprocess.run(cmd, capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr[-2000:]
    return index


@pytest.fixture(scope="module")
def indexes(tmp_path_factory) -> dict[str, Path]:
    base = tmp_path_factory.mktemp("anserini")
    return {"porter": _anserini_index(base, "porter"), "none": _anserini_index(base, "none", "-stemmer", "none"),
            "pretokenized": _anserini_index(base, "pretok", "-pretokenized")}


@pytest.fixture
def topics(tmp_path) -> Path:
    path = tmp_path / "t.tsv"
    path.write_text("".join(f"q{i}\t{word}\n" for i, word in enumerate(WORDS)))
    return path


def _top_docs(run: Path) -> dict[str, str]:
    return {line.split()[0]: line.split()[2] for line in run.read_text().splitlines() if line.split()[3] == "1"}


def test_an_index_built_without_stemming_is_refused_under_porter(indexes, topics, tmp_path):
    proc = run_verb("search", "--index", indexes["none"], "--topics", topics, "--output", tmp_path / "run.txt")
    assert "--stemmer none" in assert_one_error(proc, "stemm")
    assert not (tmp_path / "run.txt").exists()


def test_an_index_built_pretokenized_is_refused_under_porter(indexes, topics, tmp_path):
    proc = run_verb("search", "--index", indexes["pretokenized"], "--topics", topics, "--output", tmp_path / "run.txt")
    assert "--pretokenized" in assert_one_error(proc)


@pytest.mark.parametrize("index, flags", [("none", ["--stemmer", "none"]), ("pretokenized", ["--pretokenized"]),
                                          ("porter", []), ("porter", ["--stemmer", "porter"])])
def test_the_analyzer_the_index_was_built_with_finds_every_document(indexes, topics, tmp_path, index, flags):
    run = tmp_path / "run.txt"
    proc = run_verb("search", "--index", indexes[index], "--topics", topics, "--output", run, *flags)
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert _top_docs(run) == {f"q{i}": f"d{i}" for i in range(len(WORDS))}


def test_a_flag_that_contradicts_the_index_is_refused(indexes, topics, tmp_path):
    proc = run_verb("search", "--index", indexes["porter"], "--topics", topics, "--output", tmp_path / "run.txt",
                    "--stemmer", "none")
    assert_one_error(proc, "stemm")


def test_the_api_knows_the_analyzer_too(indexes):
    from qlog_pyserini.errors import QLogError
    from qlog_pyserini.lucene.searcher import QLogSearcher

    with pytest.raises(QLogError, match="stemmer none"):
        QLogSearcher(indexes["none"])
    with QLogSearcher(indexes["none"], analyzer="nostem") as s:
        assert s.search("running")[0].docid == "d0"
