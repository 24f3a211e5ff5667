"""Corpus reading (BEIR and Anserini forms, files and folders), validation, and shard writing."""

from __future__ import annotations

import gzip
import json

import pytest
from oracles import load_texts

from qlog_pyserini.errors import QLogError
from qlog_pyserini.formats.documents import count_documents, iter_documents, write_json_collection


def jsonl(path, rows):
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    return path


def test_beir_and_anserini_lines(tmp_path):
    path = jsonl(tmp_path / "corpus.jsonl", [
        {"_id": "d1", "title": "Quicksort", "text": "def qsort(xs): ..."},
        {"_id": "d2", "title": "", "text": "no title here"},
        {"_id": "d3", "text": "title absent"},
        {"id": "d4", "contents": "anserini form"},
        {"_id": 5, "title": None, "text": "integer id, null title"},
    ])
    assert list(iter_documents(path)) == [
        ("d1", "Quicksort\ndef qsort(xs): ..."),
        ("d2", "no title here"),
        ("d3", "title absent"),
        ("d4", "anserini form"),
        ("5", "integer id, null title"),
    ]


def test_unusual_docids_survive(tmp_path):
    path = jsonl(tmp_path / "c.jsonl", [{"id": "<dbpedia:Foo>", "contents": "foo"},
                                        {"id": "a/b.go:12", "contents": "func f()"}])
    assert load_texts(path) == {"<dbpedia:Foo>": "foo", "a/b.go:12": "func f()"}


def test_folder_reads_corpus_files_in_name_order(tmp_path):
    jsonl(tmp_path / "b.jsonl", [{"id": "b1", "contents": "x"}])
    jsonl(tmp_path / "a.json", [{"id": "a1", "contents": "x"}, {"id": "a2", "contents": "y"}])
    with gzip.open(tmp_path / "c.jsonl.gz", "wt", encoding="utf-8") as f:
        f.write(json.dumps({"id": "c1", "contents": "zipped"}) + "\n\n")
    (tmp_path / "README.md").write_text("not a corpus file\n")
    assert [d for d, _ in iter_documents(tmp_path)] == ["a1", "a2", "b1", "c1"]
    assert count_documents(tmp_path) == 4


def test_count_documents_ignores_blank_lines(tmp_path):
    path = tmp_path / "c.jsonl"
    path.write_text('{"id": "1", "contents": "a"}\n\n   \n{"id": "2", "contents": "b"}', encoding="utf-8")
    assert count_documents(path) == 2


@pytest.mark.parametrize("lines, message", [
    (['{"id": "d1", "contents": "a"}', '{"id": "d2", "contents": '], r"c.jsonl:2: bad JSON"),
    (['{"id": "d1", "contents": "a"}', '{"contents": "no id"}'], r"c.jsonl:2: a document needs a string \"_id\" or \"id\""),
    (['{"id": "d1"}'], r"c.jsonl:1: document 'd1' needs \"contents\" \(Anserini\) or \"text\" \(BEIR\)"),
    (['{"id": "d1", "contents": "a"}', '{"id": "my doc", "contents": "b"}'], r"docid 'my doc' at .*c.jsonl:2 contains whitespace"),
    (['{"id": "", "contents": "a"}'], r"empty docid at .*c.jsonl:1"),
    (['{"id": "d1", "contents": 3}'], r"c.jsonl:1: \"contents\" of 'd1' must be a string"),
    (['[{"id": "d1", "contents": "a"},', '{"id": "d2", "contents": "b"}]'], r"c.jsonl:1: bad JSON.*JSON array"),
    (['"just a string"'], r"c.jsonl:1: expected a JSON object"),
    (['{"id": "d1", "contents": "a"}', '', '{"id": "d1", "contents": "b"}'],
     r"c.jsonl:3: duplicate docid 'd1' \(first at .*c.jsonl:1\)"),
])
def test_bad_lines_name_file_and_line(tmp_path, lines, message):
    path = tmp_path / "c.jsonl"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    with pytest.raises(QLogError, match=message):
        list(iter_documents(path))


def test_duplicate_across_files_names_both(tmp_path):
    jsonl(tmp_path / "a.jsonl", [{"id": "x", "contents": "1"}])
    jsonl(tmp_path / "b.jsonl", [{"id": "y", "contents": "2"}, {"id": "x", "contents": "3"}])
    with pytest.raises(QLogError, match=r"b.jsonl:2: duplicate docid 'x' \(first at .*a.jsonl:1\)"):
        list(iter_documents(tmp_path))


def test_missing_and_empty_corpus(tmp_path):
    with pytest.raises(QLogError, match=r"corpus '.*nope.jsonl' not found"):
        list(iter_documents(tmp_path / "nope.jsonl"))
    (tmp_path / "notes.txt").write_text("x")
    with pytest.raises(QLogError, match="holds no"):
        count_documents(tmp_path)


def test_write_json_collection_shards_and_round_trips(tmp_path):
    docs = [(f"d{i}", f"text {i}") for i in range(5)] + [("a/b.go:12", "ünïcode\nline")]
    out = tmp_path / "coll"
    assert write_json_collection(docs, out, shard_size=2) == 6
    assert sorted(p.name for p in out.iterdir()) == ["docs00.jsonl", "docs01.jsonl", "docs02.jsonl"]
    assert (out / "docs02.jsonl").read_text(encoding="utf-8").count("\n") == 2
    assert json.loads((out / "docs00.jsonl").read_text(encoding="utf-8").splitlines()[0]) == \
        {"id": "d0", "contents": "text 0"}
    assert list(iter_documents(out)) == docs


def test_write_json_collection_refuses_stale_shards(tmp_path):
    write_json_collection([("d1", "x")], tmp_path)
    with pytest.raises(QLogError, match="already holds collection shards"):
        write_json_collection([("d2", "y")], tmp_path)


def test_write_json_collection_rejects_bad_docids_and_keeps_no_partial_shard(tmp_path):
    with pytest.raises(QLogError, match=r"duplicate docid 'd1' \(document 4\)"):
        write_json_collection([("d1", "a"), ("d2", "b"), ("d3", "c"), ("d1", "again")], tmp_path, shard_size=3)
    # The first shard was complete; the failing one was never renamed into place.
    assert sorted(p.name for p in tmp_path.iterdir()) == ["docs00.jsonl"]
    with pytest.raises(QLogError, match="contains whitespace"):
        write_json_collection([("a b", "x")], tmp_path / "other")


def test_write_json_collection_validates_shard_size(tmp_path):
    with pytest.raises(ValueError, match="illegal shard_size: 0, must be an integer of at least 1"):
        write_json_collection([], tmp_path, shard_size=0)


def test_real_cacm_corpus(shared_data):
    path = shared_data / "cacm" / "cacm.json"
    texts = load_texts(path)
    assert len(texts) == 3204
    assert count_documents(path) == 3204
    assert "CACM-0001" in texts and "CACM-3204" in texts
