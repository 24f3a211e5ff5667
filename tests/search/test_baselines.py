"""Each baseline similarity's Lucene score against a hand computation of its formula."""

from __future__ import annotations

import math

import pytest
from conftest import TINY_N, tiny_documents

from qlog_pyserini.errors import QLogError
from qlog_pyserini.formula import bm25_tf
from qlog_pyserini.lucene.searcher import QLogSearcher
from qlog_pyserini.lucene.similarities import MODELS, make_similarity, model

pytestmark = pytest.mark.jvm  # every test here starts the JVM or runs Java

DOCS = tiny_documents()
TOTAL = sum(map(len, DOCS.values()))
AVGDL = TOTAL / TINY_N


def stats(term: str, docid: str) -> tuple[int, int, int, int]:
    """(tf, dl, n, F) for a term in a document of the synthetic corpus."""
    toks = DOCS[docid]
    n = sum(1 for t in DOCS.values() if term in t)
    F = sum(t.count(term) for t in DOCS.values())
    return toks.count(term), len(toks), n, F


def lucene_score(searcher: QLogSearcher, term: str, docid: str) -> float:
    return float(searcher.explain(term, docid).split(" = ", 1)[0])


def hand_bm25(tf, dl, n, F, k1=0.9, b=0.4):
    return math.log(1 + (TINY_N - n + 0.5) / (n + 0.5)) * float(bm25_tf(tf, dl, AVGDL, k1, b))


def hand_idf_gamma(tf, dl, n, F, gamma):
    return math.log(1 + (TINY_N - n + 0.5) / (n + 0.5)) ** gamma * float(bm25_tf(tf, dl, AVGDL, 0.9, 0.4))


def hand_qld(tf, dl, n, F, mu=1000.0):
    p_c = (F + 1) / (TOTAL + 1)  # Lucene's default collection model
    return max(0.0, math.log(1 + tf / (mu * p_c)) + math.log(mu / (dl + mu)))


def hand_inl2(tf, dl, n, F, c=1.0):
    tfn = tf * math.log2(1 + c * AVGDL / dl)
    return math.log2((TINY_N + 1) / (n + 0.5)) * (1 - 1 / (1 + tfn))  # Lucene 8+ In with AfterEffectL


def hand_dph(tf, dl, n, F):
    f = tf / dl
    norm = (1 - f) ** 2 / (tf + 1)
    value = norm * (tf * math.log2((tf * AVGDL / dl) * (TINY_N / F)) + 0.5 * math.log2(2 * math.pi * tf * (1 - f)))
    return max(0.0, value)


CASES = [
    ("bm25", {}, hand_bm25),
    ("idf-gamma", {"gamma": 2.5}, lambda *a: hand_idf_gamma(*a, gamma=2.5)),
    ("idf-gamma", {"gamma": 1.0}, hand_bm25),
    ("qld", {"mu": 1000.0}, hand_qld),
    ("qld", {"mu": 50.0}, lambda *a: hand_qld(*a, mu=50.0)),
    ("dfr", {}, hand_inl2),
    ("dph", {}, hand_dph),
]


@pytest.mark.parametrize("name,params,hand", CASES, ids=[f"{c[0]}-{c[1]}" for c in CASES])
def test_baseline_matches_hand_computation(tiny_index, name, params, hand):
    s = QLogSearcher(tiny_index)
    s.set_similarity(name, **params)
    checked = 0
    for term in ("z0001", "z0002", "z0010", "z0025"):
        for docid, toks in list(DOCS.items()):
            if term in toks and checked < 40:
                want = hand(*stats(term, docid))
                got = lucene_score(s, term, docid)
                assert math.isclose(got, want, rel_tol=1e-5, abs_tol=1e-6), (name, term, docid, got, want)
                checked += 1
    assert checked >= 20


def test_models_table_and_validation():
    assert set(MODELS) == {"bm25", "qlog", "idf-gamma", "qld", "dfr", "dph"}
    assert model("qlog").sweep_parameter == "q" and model("idf-gamma").sweep_parameter == "gamma"
    with pytest.raises(QLogError, match="unknown similarity 'okapi'"):
        model("okapi")
    with pytest.raises(QLogError, match="illegal gamma value"):
        make_similarity("idf-gamma", gamma=0)
    with pytest.raises(QLogError, match="illegal mu value"):
        make_similarity("qld", mu=float("nan"))


def test_dph_is_non_negative_when_a_term_fills_its_document(tmp_path):
    import json

    from qlog_pyserini.lucene.indexer import build_index

    corpus = tmp_path / "c.jsonl"
    rows = [{"id": "full", "contents": "zz01 zz01 zz01"}] + [{"id": f"d{i}", "contents": f"zz01 w{i}x y{i}x"} for i in range(5)]
    corpus.write_text("".join(json.dumps(r) + "\n" for r in rows))
    build_index(corpus, tmp_path / "idx", progress=False)
    s = QLogSearcher(tmp_path / "idx")
    s.set_similarity("dph")
    hits = s.search("zz01", 10)
    assert len(hits) == 6 and all(h.score >= -1e-4 for h in hits)
    assert "full" in {h.docid for h in hits}


def test_dph_scores_every_match_where_pruning_would_skip_its_best_document(tmp_path):
    # DPH is not monotone in tf ("zz01 zz01 zz01" scores 0, "zz01 zz01" in a longer document more), so
    # Lucene's block-max pruning, which bounds a postings block by its dominant (freq, norm) pairs,
    # would skip the block holding the best document (java: TestDPHSimilarity) once 1,000 hits are
    # counted (Lucene's threshold). The searcher scores every match under DPH: its top hit is the best
    # by the hand formula, at k = 1 as at k = 1000.
    import json

    from qlog_pyserini.lucene.indexer import build_index

    texts = {f"d{i}": "zz01 " + " ".join(f"p{i}q{j}" for j in range(39)) for i in range(2000)}
    texts["d1300"], texts["d1301"] = "zz01 zz01 zz01", "zz01 zz01 y1q y2q y3q y4q"
    corpus = tmp_path / "c.jsonl"
    corpus.write_text("".join(json.dumps({"id": d, "contents": t}) + "\n" for d, t in texts.items()))
    build_index(corpus, tmp_path / "idx", progress=False)
    lengths = {d: len(t.split()) for d, t in texts.items()}
    avgdl, F = sum(lengths.values()) / len(lengths), sum(t.split().count("zz01") for t in texts.values())

    def dph(d: str) -> float:
        tf, dl = texts[d].split().count("zz01"), lengths[d]
        f = tf / dl
        if f >= 1:
            return 0.0
        norm = (1 - f) ** 2 / (tf + 1)
        return max(0.0, norm * (tf * math.log2((tf * avgdl / dl) * (len(texts) / F)) + 0.5 * math.log2(2 * math.pi * tf * (1 - f))))

    best = max(texts, key=dph)
    assert best == "d1301"
    s = QLogSearcher(tmp_path / "idx")
    s.set_similarity("dph")
    assert [h.docid for h in s.search("zz01", 1)] == [best]
    assert s.search("zz01", 1000)[0].docid == best
    assert s.batch_search(["zz01"], ["q"], k=1)["q"][0].docid == best
