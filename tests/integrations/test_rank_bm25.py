"""rank_bm25's classes with a q-log IDF, exact against a q-log BM25 written here from qlog_pyserini.formula on
rank_bm25's own inputs (the token lists it is given); LangChain's BM25Retriever on them."""

from __future__ import annotations

import argparse
import textwrap

import numpy as np
import pytest
from conftest import stdlib_functions

rank_bm25 = pytest.importorskip("rank_bm25")

from qlog_pyserini.errors import QLogError  # noqa: E402
from qlog_pyserini.formula import idf_q, ln_q  # noqa: E402
from qlog_pyserini.integrations.rank_bm25 import QLogBM25L, QLogBM25Okapi, QLogBM25Plus, from_model  # noqa: E402

K1, B, EPSILON = 1.5, 0.75, 0.25
QS = (1.0, 0.7, 0.3)


TEXTS, QUERIES = stdlib_functions((argparse, textwrap), queries=20)
DOCS = [t.split() for t in TEXTS]  # LangChain's default preprocessing: str.split
QUERY_WORDS = [q.split() + ["def", "return"] for q in QUERIES]  # with terms in more than half the documents


def document_frequencies(docs):
    df: dict[str, int] = {}
    for doc in docs:
        for term in set(doc):
            df[term] = df.get(term, 0) + 1
    return df


def reference_okapi_idf(docs, q, floor):
    """BM25Okapi's IDF, its outer log replaced by ln_q: negative values (odds below 1) floored at epsilon times
    the vocabulary's mean q-log IDF (``floor="epsilon"``, rank_bm25's rule) or at 0."""
    df = document_frequencies(docs)
    N = len(docs)
    raw = {t: float(ln_q((N - n + 0.5) / (n + 0.5), q)) for t, n in df.items()}
    low = EPSILON * sum(raw.values()) / len(raw) if floor == "epsilon" else 0.0
    return {t: (low if v < 0 else v) for t, v in raw.items()}


def reference_scores(kind, query, docs, q, floor="epsilon", idf_form=None, delta=None):
    N = len(docs)
    avgdl = sum(map(len, docs)) / N
    df = document_frequencies(docs)
    if kind == "okapi":
        # "rsj" is BM25Okapi's own odds: its own rule, epsilon floor included
        idf = ({t: float(idf_q(n, N, q, idf_form)) for t, n in df.items()} if idf_form == "lucene"
               else reference_okapi_idf(docs, q, floor))
    elif kind == "l":
        idf = {t: max(0.0, float(ln_q((N + 1) / (n + 0.5), q))) for t, n in df.items()}
    else:
        idf = {t: max(0.0, float(ln_q((N + 1) / n, q))) for t, n in df.items()}
    scores = np.zeros(N)
    for term in query:
        for d, doc in enumerate(docs):
            f, norm = doc.count(term), 1 - B + B * len(doc) / avgdl
            if kind == "okapi":
                part = f * (K1 + 1) / (f + K1 * norm)
            elif kind == "l":  # rank_bm25's BM25L, as it computes it (its tf part is multiplied by f)
                c = f / norm
                part = f * (K1 + 1) * (c + delta) / (K1 + c + delta)
            else:
                part = delta + f * (K1 + 1) / (K1 * norm + f)
            scores[d] += idf.get(term, 0.0) * part
    return scores


CLASSES = {"okapi": (rank_bm25.BM25Okapi, QLogBM25Okapi, {}), "l": (rank_bm25.BM25L, QLogBM25L, {"delta": 0.5}),
           "plus": (rank_bm25.BM25Plus, QLogBM25Plus, {"delta": 1})}


def test_the_queries_hold_terms_in_more_than_half_the_documents():
    df = document_frequencies(DOCS)
    assert df["def"] > len(DOCS) / 2 and df["return"] > len(DOCS) / 2


@pytest.mark.parametrize("kind", CLASSES)
def test_the_reference_at_q_1_is_rank_bm25_itself(kind):
    plain_cls, _, options = CLASSES[kind]
    model = plain_cls(DOCS)
    for query in QUERY_WORDS[:6]:
        np.testing.assert_allclose(model.get_scores(query), reference_scores(kind, query, DOCS, 1.0, **options),
                                   rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("q", QS)
@pytest.mark.parametrize("kind", CLASSES)
def test_qlog_classes_are_qlog_bm25(kind, q):
    plain_cls, cls, options = CLASSES[kind]
    model = cls(DOCS, q=q)
    for query in QUERY_WORDS:
        np.testing.assert_allclose(model.get_scores(query), reference_scores(kind, query, DOCS, q, **options),
                                   rtol=1e-12, atol=1e-12)
    if q == 1.0:  # rank_bm25's own computation
        assert model.idf == plain_cls(DOCS).idf
        assert np.array_equal(model.get_scores(QUERY_WORDS[0]), plain_cls(DOCS).get_scores(QUERY_WORDS[0]))


@pytest.mark.parametrize("q", QS)
def test_okapi_floors_and_odds_forms(q):
    for options in ({"floor": "zero"}, {"idf_form": "lucene"}, {"idf_form": "rsj"}):
        model = QLogBM25Okapi(DOCS, q=q, **options)
        for query in QUERY_WORDS[:8]:
            np.testing.assert_allclose(model.get_scores(query), reference_scores("okapi", query, DOCS, q, **options),
                                       rtol=1e-12, atol=1e-12)
    # the epsilon floor follows the mean q-log IDF, which the many rare terms dominate: as q falls, a term in
    # every document gains on a term in a tenth of them
    df = document_frequencies(DOCS)
    mid = min(df, key=lambda t: (abs(df[t] - len(DOCS) / 10), t))

    def floored_share(q):
        model = QLogBM25Okapi(DOCS, q=q)
        return model.idf["def"] / model.idf[mid]
    assert floored_share(0.3) > floored_share(0.7) > floored_share(1.0)


def test_set_q_and_from_model_need_no_corpus():
    model = QLogBM25Okapi(DOCS, q=0.3)
    model.set_q(0.7)
    assert model.idf == QLogBM25Okapi(DOCS, q=0.7).idf
    model.set_q(1.0)
    assert model.idf == rank_bm25.BM25Okapi(DOCS).idf
    for plain_cls, cls, _ in CLASSES.values():
        copy = from_model(plain_cls(DOCS), 0.3)
        assert type(copy) is cls and copy.idf == cls(DOCS, q=0.3).idf
    assert from_model(rank_bm25.BM25Okapi(DOCS), 0.3, floor="zero").idf == QLogBM25Okapi(DOCS, q=0.3, floor="zero").idf


def test_refusals_are_one_line():
    for call, words in ((lambda: QLogBM25L(DOCS, q=0.7, idf_form="lucene"), "not a log of odds"),
                        (lambda: QLogBM25Plus(DOCS, q=0.7, idf_form="rsj"), "not a log of odds"),
                        (lambda: QLogBM25Okapi(DOCS, q=5), "illegal q value"),
                        (lambda: QLogBM25Okapi(DOCS, floor="none"), "illegal floor"),
                        (lambda: from_model(object(), 0.5), "not a rank_bm25")):
        with pytest.raises(QLogError, match=words) as e:
            call()
        assert "\n" not in str(e.value)


def test_langchain_retriever_with_q():
    pytest.importorskip("langchain_community")
    from langchain_community.retrievers import BM25Retriever

    from qlog_pyserini.integrations.langchain import QLogBM25Retriever

    ids = [f"f{i}" for i in range(len(TEXTS))]
    plain = BM25Retriever.from_texts(TEXTS, ids=ids, k=5)
    same = QLogBM25Retriever.from_texts(TEXTS, ids=ids, k=5)
    retriever = QLogBM25Retriever.from_texts(TEXTS, ids=ids, k=5, q=0.3)
    for query in QUERIES[:8]:
        assert [d.id for d in same.invoke(query)] == [d.id for d in plain.invoke(query)]
        scores = reference_scores("okapi", query.split(), DOCS, 0.3)
        got = [int(d.id[1:]) for d in retriever.invoke(query)]
        assert len(got) == 5
        # the top five of the reference, in its order (rank_bm25 breaks ties by argsort; tied scores may swap)
        assert [round(scores[i], 9) for i in got] == sorted((round(s, 9) for s in scores), reverse=True)[:5]
    retriever.set_q(1.0)
    assert retriever.q == 1.0 and [d.id for d in retriever.invoke(QUERIES[0])] == [d.id for d in plain.invoke(QUERIES[0])]
    from langchain_core.documents import Document
    docs = QLogBM25Retriever.from_documents([Document(page_content=t, id=i) for t, i in zip(TEXTS, ids)], q=0.7, k=3)
    assert docs.q == 0.7 and len(docs.invoke(QUERIES[1])) == 3


def test_label_free_q_agrees_between_rank_bm25_and_bm25s():
    bm25s = pytest.importorskip("bm25s")
    from qlog_pyserini.integrations.labelfree import bm25s_stats, rank_bm25_stats

    tokens = bm25s.tokenize(TEXTS, stopwords="en", return_ids=False, show_progress=False)
    model = bm25s.BM25()
    model.index(bm25s.tokenize(TEXTS, stopwords="en", show_progress=False), show_progress=False)
    a, b = bm25s_stats(model, 50, 2), rank_bm25_stats(rank_bm25.BM25Okapi(tokens), 50, 2)
    assert a["df_slope"] == b["df_slope"] and a["df_histogram"] == b["df_histogram"]
