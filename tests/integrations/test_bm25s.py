"""bm25s rescaled to q-log BM25, exact against a q-log BM25 written here from qlog_pyserini.formula on bm25s's own
tokens; the LlamaIndex retriever on it, the token-budget packer and the label-free q from a bm25s index."""

from __future__ import annotations

import argparse
import json
import textwrap

import numpy as np
import pytest
from conftest import stdlib_functions

bm25s = pytest.importorskip("bm25s")

from qlog_pyserini.errors import QLogError  # noqa: E402
from qlog_pyserini.formula import idf_q, ln_q  # noqa: E402
from qlog_pyserini.integrations import bm25s as qb  # noqa: E402
from qlog_pyserini.integrations.idf import BM25S_IDF  # noqa: E402

K1, B, DELTA = 0.9, 0.4, 0.5
METHODS = ("robertson", "lucene", "atire", "bm25l", "bm25+")
QS = (1.0, 0.7, 0.3)


TEXTS, QUERIES = stdlib_functions((argparse, json.decoder, json.encoder, textwrap), queries=25)


def tokens(texts: list[str]) -> list[list[str]]:
    return bm25s.tokenize(texts, stopwords="en", return_ids=False, show_progress=False)


def build(method: str, **options) -> "bm25s.BM25":
    model = bm25s.BM25(k1=K1, b=B, delta=DELTA, method=method, **options)
    model.index(bm25s.tokenize(TEXTS, stopwords="en", show_progress=False), show_progress=False)
    return model


# --- the independent reference: q-log BM25 of each bm25s method, term by term -----------------------------

def reference_idf(method: str, n: float, N: int, q: float, idf_form: str | None = None) -> float:
    """q-log of the argument of bm25s's own IDF (its scoring.py), or the project's odds form ``idf_form``."""
    if idf_form is not None:
        return float(idf_q(n, N, q, idf_form))
    if method == "robertson":
        return float(idf_q(n, N, q, "rsj"))  # bm25s clips the odds at 1, formula floors ln_q at 0: the same
    if method == "lucene":
        return float(idf_q(n, N, q, "lucene"))
    argument = {"atire": N / n, "bm25l": (N + 1) / (n + 0.5), "bm25+": (N + 1) / n}[method]
    return max(0.0, float(ln_q(argument, q)))


def reference_tf(method: str, f: float, dl: float, avgdl: float, k1: float = K1, b: float = B) -> float:
    norm = 1 - b + b * dl / avgdl
    if method in ("robertson", "lucene"):
        return f / (k1 * norm + f)
    if method == "atire":
        return f * (k1 + 1) / (f + k1 * norm)
    if method == "bm25l":
        c = f / norm
        return (k1 + 1) * (c + DELTA) / (k1 + c + DELTA)
    return (k1 + 1) * f / (k1 * norm + f) + DELTA  # bm25+


def reference_scores(method: str, query: list[str], docs: list[list[str]], q: float,
                     idf_form: str | None = None, k1: float = K1, b: float = B) -> np.ndarray:
    """Sum over the query's terms (repeats included, unknown ones left out, as bm25s does) of idf_q * tf part;
    BM25L and BM25+ score absent terms too (their tf part at f = 0)."""
    N = len(docs)
    avgdl = sum(map(len, docs)) / N
    df: dict[str, int] = {}
    for doc in docs:
        for term in set(doc):
            df[term] = df.get(term, 0) + 1
    scores = np.zeros(N)
    for term in (t for t in query if t in df):
        idf = reference_idf(method, df[term], N, q, idf_form)
        for d, doc in enumerate(docs):
            f = doc.count(term)
            if f or method in ("bm25l", "bm25+"):
                scores[d] += idf * reference_tf(method, f, len(doc), avgdl, k1, b)
    return scores


@pytest.fixture(scope="module")
def corpus_tokens() -> list[list[str]]:
    return tokens(TEXTS)


@pytest.fixture(scope="module")
def query_tokens() -> list[list[str]]:
    return tokens(QUERIES)


def test_the_corpus_has_terms_in_more_than_half_the_documents(corpus_tokens):
    # robertson's clip, the rsj floor and BM25Okapi's epsilon floor are exercised only by such terms
    N = len(corpus_tokens)
    common = [t for t in {t for doc in corpus_tokens for t in doc} if sum(t in doc for doc in corpus_tokens) > N / 2]
    assert common and N > 150


@pytest.mark.parametrize("method", METHODS)
def test_the_reference_at_q_1_is_bm25s_itself(method, corpus_tokens, query_tokens):
    model = build(method)
    for query in query_tokens[:8]:
        np.testing.assert_allclose(model.get_scores(query), reference_scores(method, query, corpus_tokens, 1.0),
                                   rtol=2e-6, atol=1e-6)


@pytest.mark.parametrize("q", QS)
@pytest.mark.parametrize("method", METHODS)
def test_rescale_is_qlog_bm25(method, q, corpus_tokens, query_tokens):
    model = build(method)
    plain = model.scores["data"].copy()
    assert qb.rescale(model, q) is model and model.qlog.q == q
    if q == 1.0:
        assert np.array_equal(model.scores["data"], plain)  # bit-identical
    for query in query_tokens:
        np.testing.assert_allclose(model.get_scores(query), reference_scores(method, query, corpus_tokens, q),
                                   rtol=2e-6, atol=1e-6)


@pytest.mark.parametrize("q", QS)
def test_the_other_odds_form_where_the_idf_is_a_log_of_odds(q, corpus_tokens, query_tokens):
    for method, form in (("lucene", "rsj"), ("lucene", "lucene"), ("robertson", "rsj")):
        model = qb.rescale(build(method), q, idf_form=form)
        for query in query_tokens[:10]:
            np.testing.assert_allclose(model.get_scores(query),
                                       reference_scores(method, query, corpus_tokens, q, idf_form=form),
                                       rtol=2e-6, atol=1e-6)


def test_idf_table_is_bm25s_own_idf():
    # each entry's plain IDF against the function bm25s scores with (bm25s.scoring, selected by method name)
    from bm25s.scoring import _select_idf_scorer

    N = 1000
    for method, idf in BM25S_IDF.items():
        own = _select_idf_scorer(method)
        for n in (1, 2, 10, 499, 500, 501, 900, 1000):
            assert idf.plain(np.array([n]), N)[0] == pytest.approx(own(n, N), rel=1e-15, abs=1e-15), (method, n)


def test_scipy_csc_backend_and_numba_retrieval_agree(corpus_tokens, query_tokens):
    model = qb.rescale(build("robertson", csc_backend="scipy"), 0.3)
    query = query_tokens[0]
    np.testing.assert_allclose(model.get_scores(query), reference_scores("robertson", query, corpus_tokens, 0.3),
                               rtol=2e-6, atol=1e-6)
    pytest.importorskip("numba")
    fast = qb.rescale(build("lucene", backend="numba"), 0.5)
    slow = qb.rescale(build("lucene"), 0.5)
    ids = bm25s.tokenize(QUERIES[:5], stopwords="en", return_ids=False, show_progress=False)
    a, sa = fast.retrieve(ids, k=10, show_progress=False)
    b, sb = slow.retrieve(ids, k=10, show_progress=False)
    np.testing.assert_array_equal(sa, sb)


def test_rescale_again_starts_from_the_plain_scores():
    model = build("bm25+")
    plain, plain_absent = model.scores["data"], model.nonoccurrence_array.copy()
    fresh = qb.rescale(build("bm25+"), 0.7)
    qb.rescale(model, 0.3)
    qb.rescale(model, 0.7)
    assert np.array_equal(model.scores["data"], fresh.scores["data"])
    assert np.array_equal(model.nonoccurrence_array, fresh.nonoccurrence_array)
    qb.rescale(model, 1.0)
    assert model.scores["data"] is plain and np.array_equal(model.nonoccurrence_array, plain_absent)


@pytest.mark.parametrize("mmap", [False, True])
def test_save_and_load_keep_q(tmp_path, mmap, query_tokens):
    model = qb.rescale(build("bm25l"), 0.7)
    qb.save(model, tmp_path / "index", show_progress=False)
    assert json.loads((tmp_path / "index" / qb.STATE_FILE).read_text())["q"] == 0.7
    loaded = qb.load(tmp_path / "index", mmap=mmap, show_progress=False)
    assert loaded.qlog.q == 0.7 and loaded.qlog.idf_form is None
    for query in query_tokens[:5]:
        assert np.array_equal(loaded.get_scores(query), model.get_scores(query))
    # bm25s's own loader (and LlamaIndex's) reads the q-log scores too
    assert np.array_equal(bm25s.BM25.load(tmp_path / "index").scores["data"], model.scores["data"])
    # and the loaded model re-applies exactly, to another q and back to BM25
    assert np.array_equal(qb.rescale(loaded, 0.3).scores["data"], qb.rescale(build("bm25l"), 0.3).scores["data"])
    plain = build("bm25l")
    qb.rescale(loaded, 1.0)
    assert np.array_equal(loaded.scores["data"], plain.scores["data"])
    assert np.array_equal(loaded.nonoccurrence_array, plain.nonoccurrence_array)


def test_a_plain_model_saved_loads_plain(tmp_path):
    qb.save(build("lucene"), tmp_path / "plain", show_progress=False)
    loaded = qb.load(tmp_path / "plain", show_progress=False)
    assert loaded.qlog.q == 1.0 and not (tmp_path / "plain" / qb.PLAIN_DATA_FILE).exists()


@pytest.mark.parametrize("method, form, words", [
    ("atire", "lucene", "not a log of odds"), ("bm25l", "rsj", "not a log of odds"),
    ("bm25+", "lucene", "not a log of odds"), ("robertson", "lucene", "clipped at 0"),
])
def test_odds_forms_are_refused_where_they_cannot_apply(method, form, words):
    with pytest.raises(QLogError, match=words) as e:
        qb.rescale(build(method), 0.7, idf_form=form)
    assert "\n" not in str(e.value)


def test_bad_input_is_refused_in_one_line():
    with pytest.raises(QLogError, match="illegal q value"):
        qb.rescale(build("lucene"), 7)
    with pytest.raises(QLogError, match="no score matrix"):
        qb.rescale(bm25s.BM25(), 0.7)
    odd = build("lucene")
    odd.idf_method = "tfidf"
    with pytest.raises(QLogError, match="unknown bm25s idf method"):
        qb.rescale(odd, 0.7)
    with pytest.raises(QLogError, match="illegal idf form"):
        qb.rescale(build("lucene"), 0.7, idf_form="bm25")


def test_scale_columns_in_blocks_is_one_multiplication():
    rng = np.random.default_rng(3)
    counts = rng.integers(0, 9, size=500)
    indptr = np.concatenate([[0], np.cumsum(counts)])
    data = rng.random(int(indptr[-1])).astype(np.float32)
    factors = rng.random(500) * 3
    expected = (data.astype(float) * np.repeat(factors, counts)).astype(np.float32)
    for block in (1, 7, 64, 10 ** 6):
        assert np.array_equal(qb.scale_columns(data, indptr, factors, block=block), expected)


# --- LlamaIndex -------------------------------------------------------------------------------------------

def test_llamaindex_retriever_with_q(tmp_path):
    pytest.importorskip("llama_index.retrievers.bm25")
    import Stemmer
    from llama_index.core.schema import TextNode
    from llama_index.retrievers.bm25 import BM25Retriever

    from qlog_pyserini.integrations.llamaindex import QLogBM25Retriever

    nodes = [TextNode(text=t, id_=f"f{i}") for i, t in enumerate(TEXTS)]
    plain = BM25Retriever.from_defaults(nodes=nodes, similarity_top_k=10)
    same = QLogBM25Retriever.from_defaults(nodes=nodes, similarity_top_k=10)
    retriever = QLogBM25Retriever.from_defaults(nodes=nodes, similarity_top_k=10, q=0.3)
    # LlamaIndex's own tokens: bm25s's tokenizer with its English stemmer, stopwords and pattern
    stem = Stemmer.Stemmer("english")
    docs = bm25s.tokenize(TEXTS, stopwords="en", stemmer=stem, return_ids=False, show_progress=False)
    for query in QUERIES[:5]:
        expected = [(n.node.node_id, n.score) for n in plain.retrieve(query)]
        assert [(n.node.node_id, n.score) for n in same.retrieve(query)] == expected  # q = 1: LlamaIndex's ranking
        words = bm25s.tokenize(query, stemmer=stem, return_ids=False, show_progress=False)[0]
        # LlamaIndex builds bm25s.BM25() with its defaults: method lucene, k1 1.5, b 0.75
        reference = reference_scores("lucene", words, docs, 0.3, k1=1.5, b=0.75)
        got = retriever.retrieve(query)
        assert got, query
        for hit in got:
            assert hit.score == pytest.approx(reference[int(hit.node.node_id[1:])], rel=2e-6)
    retriever.persist(str(tmp_path / "persisted"))
    again = QLogBM25Retriever.from_persist_dir(str(tmp_path / "persisted"))
    assert again.q == 0.3
    assert [(n.node.node_id, n.score) for n in again.retrieve(QUERIES[0])] == \
           [(n.node.node_id, n.score) for n in retriever.retrieve(QUERIES[0])]


# --- the label-free q ------------------------------------------------------------

def test_label_free_q_from_a_bm25s_index(corpus_tokens):
    from qlog_pyserini.integrations.labelfree import bm25s_stats, df_histogram, predict_bm25s, sample_rows
    from qlog_pyserini.predict.rule import predict_from_stats

    model = build("lucene")
    stats = bm25s_stats(model, sample_docs=100, seed=1)
    rows = sample_rows(len(corpus_tokens), 100, 1)
    sample_df: dict[str, int] = {}
    for r in rows.tolist():
        for t in set(corpus_tokens[r]):
            sample_df[t] = sample_df.get(t, 0) + 1
    by_hand = [0] * 12
    for n in sample_df.values():
        by_hand[n.bit_length() - 1] += 1
    while by_hand and by_hand[-1] == 0:
        by_hand.pop()
    assert df_histogram(np.array(list(sample_df.values()))) == by_hand
    full = [0] * 12
    for doc_set in [{t for doc in corpus_tokens for t in doc}]:
        for t in doc_set:
            full[sum(t in set(doc) for doc in corpus_tokens).bit_length() - 1] += 1
    while full[-1] == 0:
        full.pop()
    assert stats["df_histogram"] == full and stats["documents"] == len(corpus_tokens)
    assert predict_bm25s(model, 100, 1) == predict_from_stats(stats)
    assert 0.65 <= predict_bm25s(model).q <= 1.0
