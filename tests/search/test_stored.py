"""Stored texts by Lucene doc number: the texts QLogSearcher.doc_text gives by docid."""

from __future__ import annotations

import numpy as np
import pytest

from qlog_pyserini.errors import QLogError
from qlog_pyserini.lucene.searcher import QLogSearcher, text_of_raw
from qlog_pyserini.lucene.stored import StoredTexts

pytestmark = pytest.mark.jvm


def test_texts_by_doc_number_equal_doc_text_by_docid_in_any_order(stdlib_index):
    with QLogSearcher(stdlib_index) as searcher:
        ids = searcher.docids.ids
        numbers = np.random.default_rng(5).permutation(len(ids))
        texts = StoredTexts(searcher)(numbers)
        assert texts == [searcher.doc_text(ids[n]) for n in numbers.tolist()]
        assert all(texts) and StoredTexts(searcher)([]) == []
        with pytest.raises(QLogError, match="doc numbers must lie in"):
            StoredTexts(searcher)([len(ids)])
    with pytest.raises(QLogError, match="closed"):
        StoredTexts(searcher)([0])


def test_text_of_raw_reads_contents_of_a_json_object_only():
    assert text_of_raw('{"id": "a", "contents": "def f(x)"}') == "def f(x)"
    assert text_of_raw('{"id": "a"}') == '{"id": "a"}'
    assert text_of_raw('["a", "b"]') == '["a", "b"]'
    assert text_of_raw("plain text") == "plain text"


def test_texts_are_the_corpus_texts_outside_the_basic_plane_too(tmp_path):
    # the corpus file is the reference: accents, CJK, an emoji (two UTF-16 units in Java) and a NUL-free
    # control character must come back as they were written
    import json

    from qlog_pyserini.index import build_index

    contents = ["plain ascii words", "caf\u00e9 na\u00efve \u00fcber", "\u6587\u5b57 kanji \u5b57",
                "emoji \U0001F600 and \U00010348 gothic", "tab\tand\x0bvertical"]
    corpus = tmp_path / "corpus.jsonl"
    corpus.write_text("".join(json.dumps({"id": f"d{i}", "contents": c}) + "\n" for i, c in enumerate(contents)),
                      encoding="utf-8")
    build_index(corpus, tmp_path / "index", threads=1, progress=False)
    with QLogSearcher(tmp_path / "index") as searcher:
        ids = searcher.docids.ids.tolist()
        texts = StoredTexts(searcher)(np.arange(len(ids))[::-1])
        assert texts == [contents[int(ids[n][1:])] for n in range(len(ids))][::-1]
