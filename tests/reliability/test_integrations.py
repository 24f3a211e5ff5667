"""The library integrations given what their users write: a keyword misspelt, q set after construction, a model
saved and loaded by the library's own functions, an empty tokenized corpus, documents that are not text.

q is never lost without a word, never compounded, and bad input is a :class:`QLogError` (or the library's own
validation error) naming it, never plain BM25, a NaN score or a raw AttributeError.
"""

from __future__ import annotations

import argparse
import textwrap

import numpy as np
import pytest
from conftest import stdlib_functions

from qlog_pyserini.errors import QLogError

TEXTS = ["def parse config file", "read the config file", "write a file to disk", "parse json text",
         "other words entirely", "config of the parser", "the file reader"]


def _langchain():
    pytest.importorskip("langchain_community")
    pytest.importorskip("rank_bm25")
    from qlog_pyserini.integrations.langchain import QLogBM25Retriever
    return QLogBM25Retriever


def test_langchain_refuses_a_keyword_it_does_not_take():
    from pydantic import ValidationError

    retriever = _langchain()
    with pytest.raises(ValidationError, match="qq"):
        retriever.from_texts(TEXTS, qq=0.7)


def test_langchain_keeps_q_given_to_its_constructor_and_takes_q_assigned():
    from rank_bm25 import BM25Okapi

    from qlog_pyserini.integrations.rank_bm25 import QLogBM25Okapi

    cls = _langchain()
    built = cls.from_texts(TEXTS, k=3)
    reference = QLogBM25Okapi([t.split() for t in TEXTS], q=0.7)
    retriever = cls(vectorizer=BM25Okapi([t.split() for t in TEXTS]), docs=built.docs, q=0.7, k=3)
    assert retriever.q == 0.7
    assert np.array_equal(retriever.vectorizer.get_scores(["parse", "file"]), reference.get_scores(["parse", "file"]))
    retriever.q = 0.5
    reference.set_q(0.5)
    assert retriever.q == 0.5 and retriever.vectorizer.q == 0.5
    assert np.array_equal(retriever.vectorizer.get_scores(["parse", "file"]), reference.get_scores(["parse", "file"]))
    with pytest.raises(QLogError, match="illegal q value"):
        retriever.q = float("nan")
    assert retriever.q == 0.5 and retriever.vectorizer.q == 0.5


@pytest.mark.parametrize("name", ["QLogBM25Okapi", "QLogBM25L", "QLogBM25Plus"])
def test_rank_bm25_refuses_a_corpus_of_empty_documents_not_nan_scores(name):
    pytest.importorskip("rank_bm25")
    from qlog_pyserini.integrations import rank_bm25

    with pytest.raises(QLogError, match="2 documents hold no tokens"):
        getattr(rank_bm25, name)([[], []], q=0.7)


CODE, _ = stdlib_functions((argparse, textwrap), queries=1)


def _bm25s(method: str = "lucene"):
    bm25s = pytest.importorskip("bm25s")
    model = bm25s.BM25(method=method)
    model.index(bm25s.tokenize(CODE, show_progress=False), show_progress=False)
    return bm25s, model


@pytest.mark.parametrize("method", ["lucene", "robertson", "atire", "bm25l", "bm25+"])
def test_bm25s_scores_rescaled_then_saved_by_bm25s_are_refused_not_compounded(tmp_path, method):
    from qlog_pyserini.integrations.bm25s import load, rescale

    bm25s, model = _bm25s(method)
    plain = model.scores["data"].copy()
    model.save(tmp_path / "plain", show_progress=False)
    again = load(tmp_path / "plain")  # plain scores saved by bm25s: rescaled as any plain model
    assert np.array_equal(rescale(again, 0.5).qlog.plain_data, plain)
    rescale(model, 0.7)
    model.save(tmp_path / "rescaled", show_progress=False)
    for loaded in (load(tmp_path / "rescaled"), bm25s.BM25.load(tmp_path / "rescaled")):
        with pytest.raises(QLogError, match="rescaling them would compound q"):
            rescale(loaded, 0.5)


def test_bm25s_state_saved_before_bm25s_saved_other_scores_is_refused(tmp_path):
    from qlog_pyserini.integrations.bm25s import load, rescale, save

    _, model = _bm25s()
    save(rescale(model, 0.7), tmp_path / "index")
    assert load(tmp_path / "index").qlog.q == 0.7
    rescale(model, 0.5).save(tmp_path / "index", show_progress=False)  # bm25s's own save: q 0.5 not recorded
    with pytest.raises(QLogError, match="were saved again after it"):
        load(tmp_path / "index")


def test_llamaindex_scores_persisted_by_llamaindex_are_refused_not_compounded(tmp_path):
    pytest.importorskip("llama_index.retrievers.bm25")
    from llama_index.core.schema import TextNode
    from llama_index.retrievers.bm25 import BM25Retriever

    from qlog_pyserini.integrations.llamaindex import QLogBM25Retriever

    retriever = QLogBM25Retriever.from_defaults(nodes=[TextNode(text=t) for t in CODE], q=0.7)
    BM25Retriever.persist(retriever, str(tmp_path / "own"))  # LlamaIndex's persist: no q-log state
    with pytest.raises(QLogError, match="rescaling them would compound q"):
        QLogBM25Retriever.from_persist_dir(str(tmp_path / "own"))
    with pytest.raises(QLogError, match="rescaling them would compound q"):
        QLogBM25Retriever(existing_bm25=BM25Retriever.from_persist_dir(str(tmp_path / "own")).bm25, q=0.5)
