"""The library integrations given what their users write: a keyword misspelt, q set after construction, a model
saved and loaded by the library's own functions, an empty tokenized corpus, documents that are not text.

q is never lost without a word, never compounded, and bad input is a :class:`QLogError` (or the library's own
validation error) naming it, never plain BM25, a NaN score or a raw AttributeError.
"""

from __future__ import annotations

import numpy as np
import pytest

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
