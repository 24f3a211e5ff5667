"""QLogBM25Similarity in Lucene against the numpy reference of the formula, and its contract."""

from __future__ import annotations

import math
import re

import numpy as np
import pytest
from conftest import TINY_DFS, TINY_N, tiny_documents

from qlog_pyserini.formula import bm25_tf, idf_q, ln_q, odds_lucene, odds_rsj, qlog_bm25
from qlog_pyserini.jvm.bridge import jclass
from qlog_pyserini.lucene.searcher import QLogSearcher

pytestmark = pytest.mark.jvm  # every test here starts the JVM or runs Java

QS = (0.05, 0.3, 0.7, 1.0, 1.5)
FORMS = ("lucene", "rsj")


# --- the Python reference itself -------------------------------------------------------------

def test_ln_q_matches_closed_form_and_its_limit():
    x = np.array([1.0, 1.5, 7.0, 1234.5])
    for q in (0.05, 0.5, 1.5, 2.0):
        assert np.allclose(ln_q(x, q), (x ** (1 - q) - 1) / (1 - q), rtol=1e-12)
    assert np.allclose(ln_q(x, 1.0), np.log(x))
    # expm1 form: no cancellation next to q = 1
    for eps in (1e-6, -1e-6, 1e-10):
        assert np.allclose(ln_q(x, 1 + eps), np.log(x), atol=1e-5)


def test_idf_non_negative_decreasing_in_df_and_growing_as_q_falls():
    N = 10_000
    n = np.arange(1, N + 1)
    for form in FORMS:
        for q in QS:
            idf = idf_q(n, N, q, form)
            assert (idf >= 0).all()
            assert (np.diff(idf) <= 1e-12).all(), (form, q)
        rare = [float(idf_q(1, N, q, form)) for q in sorted(QS)]
        assert all(a > b for a, b in zip(rare, rare[1:])), form  # smaller q, larger rare-term idf
    # rsj odds fall below 1 past N/2: floored at 0
    assert float(idf_q(N - 1, N, 0.5, "rsj")) == 0.0
    assert float(idf_q(N - 1, N, 0.5, "lucene")) > 0.0


def test_q1_lucene_form_is_lucene_bm25_idf():
    for n, N in ((1, 10), (5, 1000), (999, 1000)):
        assert math.isclose(float(idf_q(n, N, 1.0)), math.log(1 + (N - n + 0.5) / (n + 0.5)), rel_tol=1e-15)


# --- Java against the reference --------------------------------------------------------------

def test_java_lnq_and_odds_match_python():
    Sim = jclass("io.qlog.similarities.QLogBM25Similarity")
    Form = jclass("io.qlog.similarities.QLogBM25Similarity$IdfForm")
    for q in QS + (1 + 1e-6, 1 - 1e-6, -0.5, 3.0):
        for x in (1.0001, 2.0, 17.5, 1e6):
            assert math.isclose(Sim.lnQ(x, q), float(ln_q(x, q)), rel_tol=1e-12, abs_tol=1e-15)
    for n, N in ((1, 100), (60, 100), (100, 100)):
        assert math.isclose(Sim.odds(n, N, Form.LUCENE), odds_lucene(n, N), rel_tol=1e-15)
        assert math.isclose(Sim.odds(n, N, Form.RSJ), odds_rsj(n, N), rel_tol=1e-15)


def _explained_score(searcher: QLogSearcher, query: str, docid: str) -> float:
    return float(searcher.explain(query, docid).split(" = ", 1)[0])


@pytest.mark.parametrize("form", FORMS)
@pytest.mark.parametrize("q", QS)
def test_lucene_scores_equal_numpy_reference(tiny_index, q, form):
    docs = tiny_documents()
    avgdl = sum(map(len, docs.values())) / TINY_N
    s = QLogSearcher(tiny_index, q=q, idf_form=form)
    for df in TINY_DFS:
        term = f"z{df:04d}"
        holders = [d for d, toks in docs.items() if term in toks]
        expected_idf = float(idf_q(df, TINY_N, q, form))
        hits = s.search(term, k=100)
        if expected_idf == 0.0:
            # rsj floor: the term matches but adds nothing (Anserini then separates the tied
            # zeros by -1e-6 per rank so trec_eval keeps its order)
            assert len(hits) == df and all(abs(h.score) < 1e-4 for h in hits)
            continue
        assert sorted(h.docid for h in hits) == sorted(holders)
        for docid in holders[:4]:
            toks = docs[docid]
            want = float(qlog_bm25(toks.count(term), len(toks), avgdl, df, TINY_N, q, form))
            got = _explained_score(s, term, docid)
            assert math.isclose(got, want, rel_tol=2e-6), (term, docid, got, want)
        # the run's scores are Anserini's view of the same values: rounded to 4 decimals, ties
        # separated by 1e-6 steps
        for h in hits[:3]:
            toks = docs[h.docid]
            want = float(qlog_bm25(toks.count(term), len(toks), avgdl, df, TINY_N, q, form))
            assert abs(h.score - want) <= 6e-5


def test_multi_term_query_sums_term_scores(tiny_index):
    docs = tiny_documents()
    avgdl = sum(map(len, docs.values())) / TINY_N
    s = QLogSearcher(tiny_index, q=0.3)
    docid = next(d for d, t in docs.items() if "z0001" in t)
    toks = docs[docid]
    want = sum(float(qlog_bm25(toks.count(f"z{df:04d}"), len(toks), avgdl, df, TINY_N, 0.3))
               for df in TINY_DFS if f"z{df:04d}" in toks)
    query = " ".join(f"z{df:04d}" for df in TINY_DFS)
    assert math.isclose(_explained_score(s, query, docid), want, rel_tol=5e-6)


def test_q_near_one_is_continuous(tiny_index):
    s = QLogSearcher(tiny_index, q=1.0)
    base = _explained_score(s, "z0002 z0010", "doc/000.go:F0")
    for q in (1 + 1e-6, 1 - 1e-6):
        s.set_q(q)
        assert abs(_explained_score(s, "z0002 z0010", "doc/000.go:F0") - base) < 1e-5


def test_explain_names_formula_q_and_form(tiny_index):
    s = QLogSearcher(tiny_index, q=0.3, idf_form="rsj")
    text = s.explain("z0002", "doc/000.go:F0")
    assert "ln_q(x) = (x^(1-q) - 1) / (1 - q)" in text
    assert "q = 0.3" in text and "form rsj" in text and "max(0, ln_q(x))" in text
    n = re.search(r"(\d+) = n, number of documents containing term", text)
    assert n and int(n.group(1)) == 2
    assert s.similarity == "QLogBM25(k1=0.9,b=0.4,q=0.3,form=rsj)"


def test_constructor_validates_parameters():
    from jnius import JavaException

    Sim = jclass("io.qlog.similarities.QLogBM25Similarity")
    for bad_q in (float("nan"), float("inf"), float("-inf")):
        with pytest.raises(JavaException, match="illegal q value"):
            Sim(0.9, 0.4, bad_q, "lucene")
    with pytest.raises(JavaException, match="illegal idf form: bm99"):
        Sim(0.9, 0.4, 0.5, "bm99")
    with pytest.raises(JavaException, match="illegal b value"):
        Sim(0.9, 1.5, 0.5, "lucene")
    assert Sim(0.9, 0.4, 0.5, "RSJ").toString() == "QLogBM25(k1=0.9,b=0.4,q=0.5,form=rsj)"


def test_tf_part_is_lucene_bm25():
    # Lucene >= 8: freq / (freq + k1 * (1 - b + b * dl / avgdl)), written as 1 - 1 / (1 + freq / norm)
    f, dl, avgdl, k1, b = 3.0, 20.0, 12.5, 0.9, 0.4
    assert math.isclose(float(bm25_tf(f, dl, avgdl, k1, b)), f / (f + k1 * (1 - b + b * dl / avgdl)), rel_tol=1e-12)
