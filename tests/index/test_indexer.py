"""The `index` verb's library: the corpus Anserini reads (in place when it can), and an index published whole."""

from __future__ import annotations

import gzip

import pytest
from conftest import run_verb

from qlog_pyserini.errors import QLogError
from qlog_pyserini.lucene.indexer import build_index, collection_folder
from qlog_pyserini.lucene.searcher import QLogSearcher

pytestmark = pytest.mark.jvm

QUERIES = ["z0001 z0010", "z0025 z0040", "z0002"]


def _hits(index_dir) -> list[list[tuple[str, float]]]:
    with QLogSearcher(index_dir) as s:
        runs = s.batch_search(QUERIES, [f"q{i}" for i in range(len(QUERIES))], k=100)
        return [[(h.docid, h.score) for h in hits] for hits in runs.values()]


def test_index_reads_an_anserini_corpus_in_place_and_builds_the_same_index(tmp_path, tiny_corpus):
    folder = tmp_path / "json"
    assert collection_folder([tiny_corpus], folder) == len(tiny_corpus.read_text().splitlines())
    (link,) = folder.iterdir()
    assert link.is_symlink() and link.resolve() == tiny_corpus.resolve()  # linked, not copied
    packed = tmp_path / "corpus.jsonl.gz"
    packed.write_bytes(gzip.compress(tiny_corpus.read_bytes()))
    converted = tmp_path / "gz-json"
    collection_folder([packed], converted)
    assert not any(p.is_symlink() for p in converted.iterdir())
    for name, corpus in (("in-place", tiny_corpus), ("converted", packed)):
        proc = run_verb("index", "--corpus", corpus, "--index", tmp_path / name, "--quiet", "--threads", "1")
        assert proc.returncode == 0, proc.stderr[-2000:]
    in_place = _hits(tmp_path / "in-place")
    assert any(in_place) and in_place == _hits(tmp_path / "converted")


def test_a_failed_build_publishes_nothing_and_leaves_no_staging_folder(tmp_path):
    empty = tmp_path / "empty.jsonl"
    empty.write_text("\n")
    out = tmp_path / "work"
    out.mkdir()
    with pytest.raises(QLogError, match="holds no documents"):
        build_index(empty, out / "index", threads=1, progress=False)
    assert list(out.iterdir()) == []
