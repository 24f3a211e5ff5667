"""The label-free q rule: clipping and its edges, the API on a real index, and --q auto through the search CLI."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest
from conftest import ROOT  # noqa: E402

from qlog_pyserini.errors import QLogError
from qlog_pyserini.formats.trec import read_run
from qlog_pyserini.predict.rule import (
    DEFAULT_C,
    DEFAULT_Q_MIN,
    DEFAULT_SHRINK_DOCS,
    DEFAULT_STEP,
    DEFAULT_VARIANT,
    PAPER_C,
    PAPER_Q_MIN,
    Prediction,
    RuleSettings,
    auto_q,
    describe,
    keeps_bm25,
    predict_from_stats,
    predict_index,
    predict_q,
    q_from_h,
    round_toward_one,
    shrink_weight,
)
from qlog_pyserini.stats.statistics import corpus_stats

# the paper's rule, as the options express it
PAPER = {"c": PAPER_C, "q_min": PAPER_Q_MIN, "shrink_docs": 0, "step": 0.0}


def test_paper_constants():
    assert (PAPER_C, PAPER_Q_MIN) == (7.28, 0.05)
    assert DEFAULT_VARIANT == "sample-df-slope" and DEFAULT_STEP == 0.05 and DEFAULT_Q_MIN >= 0.5


def test_floor_the_rule_never_goes_below_q_min_nor_above_bm25():
    for h in (0.0, 0.01, 0.1, 0.3, 1.0, 10.0, 1e9):
        for docs in (0, 1, 500, 5_000, 50_000, 10**9):
            q = auto_q(h, docs)
            assert DEFAULT_Q_MIN <= q <= 1.0
    assert auto_q(1e9, 10**12, shrink_docs=0) == DEFAULT_Q_MIN  # huge evidence on a huge corpus: exactly the floor
    assert auto_q(-1.0, 10_000) == 1.0  # a negative feature cannot push q above BM25


def test_zipf_like_vocabulary_gives_bm25():
    # h = max(0, s - 2) is 0 for a Zipf(1) or flatter df distribution, as natural-language text has
    for docs in (500, 3_000, 100_000):
        assert auto_q(0.0, docs) == 1.0


def test_shrinkage_toward_bm25_on_small_corpora():
    assert shrink_weight(2000, 2000) == 0.5 and shrink_weight(10, 0) == 1.0 and shrink_weight(0, 500) == 0.0
    h = 0.2
    q0 = q_from_h(h, DEFAULT_C, DEFAULT_Q_MIN)
    qs = [auto_q(h, n, step=0.0) for n in (0, 100, 500, 2_000, 10_000, 100_000, 10**7)]
    assert qs[0] == 1.0  # no documents, no evidence: BM25
    assert all(a >= b for a, b in zip(qs, qs[1:]))  # more documents, more of the move kept
    for n, q in zip((0, 100, 500, 2_000, 10_000, 100_000, 10**7), qs):
        w = n / (n + DEFAULT_SHRINK_DOCS)
        assert q == pytest.approx(1 - w * (1 - q0))  # exactly the documented shrinkage
    assert qs[-1] == pytest.approx(q0, abs=1e-3)  # a huge corpus keeps (almost) the whole move
    # the same feature value moves a 500-document corpus at most half as far as a 2,000-document one,
    # and with the default n0 = 2000, a 500-document corpus keeps only a fifth of the move
    assert (1 - qs[2]) == pytest.approx((1 - q0) * 500 / (500 + DEFAULT_SHRINK_DOCS))
    with pytest.raises(ValueError, match="illegal shrink_docs"):
        shrink_weight(10, -1)
    with pytest.raises(ValueError, match="illegal docs"):
        shrink_weight(None, 10)


def test_rounding_goes_toward_bm25_onto_the_grid():
    assert round_toward_one(0.71, 0.05) == 0.75
    assert round_toward_one(0.7000000001, 0.05) == 0.7  # float noise is not a step
    assert round_toward_one(0.6999, 0.05) == 0.7
    assert round_toward_one(0.99, 0.05) == 1.0 and round_toward_one(0.42, 0.0) == 0.42
    for h in (0.05, 0.13, 0.27):
        for docs in (700, 4_000, 60_000):
            q = auto_q(h, docs)
            assert q >= auto_q(h, docs, step=0.0) - 1e-12  # never away from BM25
            assert abs(q / 0.05 - round(q / 0.05)) < 1e-9  # on the 0.05 grid


def test_h_zero_gives_bm25_paper_form():
    assert q_from_h(0.0) == 1.0
    assert q_from_h(0.0, c=100.0, q_min=0.3) == 1.0


def test_huge_h_gives_q_min():
    assert q_from_h(1e9) == 0.05
    assert q_from_h(1.0, c=7.28, q_min=0.2) == 0.2


def test_linear_part_and_the_exact_edges():
    assert q_from_h(0.05) == pytest.approx(1 - 7.28 * 0.05)  # 0.636
    assert q_from_h(0.1, c=5.0, q_min=0.0) == pytest.approx(0.5)
    assert q_from_h(0.95 / 7.28) == pytest.approx(0.05)  # lands on q_min
    assert q_from_h(0.95 / 7.28 + 1e-6) == 0.05  # just past it: clipped
    assert q_from_h(-0.1) == 1.0  # a negative feature would push q above 1: clipped at BM25
    assert q_from_h(0.1, c=0.0) == 1.0


@pytest.mark.parametrize("kwargs, name", [({"h": float("nan")}, "h"), ({"h": 0.1, "c": float("inf")}, "c"),
                                          ({"h": 0.1, "q_min": 1.5}, "q_min"), ({"h": "x"}, "h")])
def test_bad_rule_arguments(kwargs, name):
    with pytest.raises(ValueError, match=f"illegal {name} value"):
        q_from_h(**kwargs)


def synthetic_stats(sample: bool = True) -> dict:
    return {"index": "synthetic",
            "h_tok": {"df1-token-share": 0.2, "df1-types-per-token": 0.1, "df1-type-share": 0.7, "hapax-per-token": 0.05,
                      "sample-df1-token-share": 0.3 if sample else None, "sample-df1-types-per-token": None,
                      "sample-df1-type-share": None, "sample-hapax-per-token": 0.08 if sample else None},
            "df_slope": {"full": 2.25, "sample": 2.3 if sample else None}, "documents": 4000,
            "sample_error": None if sample else "no term vectors"}


def test_predict_from_stats_reads_the_chosen_variant():
    p = predict_from_stats(synthetic_stats(), variant="hapax-per-token", **PAPER)
    assert p == Prediction(q=pytest.approx(1 - 7.28 * 0.05), h_tok=0.05, variant="hapax-per-token", c=7.28, q_min=0.05,
                           docs=4000, shrink_docs=0, step=0.0, weight=1.0)
    p = predict_from_stats(synthetic_stats(), variant="df1-types-per-token", c=2.0, q_min=0.3, shrink_docs=0, step=0)
    assert (p.q, p.h_tok, p.c, p.q_min) == (pytest.approx(0.8), 0.1, 2.0, 0.3)
    assert predict_from_stats(synthetic_stats(), variant="df1-type-share", **PAPER).q == 0.05
    # the default rule: the sample df slope 2.3 gives h = 0.3, shrunk by 4000 / (4000 + n0), rounded up
    p = predict_from_stats(synthetic_stats())
    w = 4000 / (4000 + DEFAULT_SHRINK_DOCS)
    want = round_toward_one(1 - w * (1 - max(DEFAULT_Q_MIN, 1 - DEFAULT_C * 0.3)), 0.05)
    assert (p.variant, p.h_tok, p.c, p.weight, p.q) == (DEFAULT_VARIANT, pytest.approx(0.3), DEFAULT_C,
                                                        pytest.approx(w), pytest.approx(want))


def test_df_slope_rule_needs_its_own_c():
    with pytest.raises(QLogError, match="no published constant"):
        predict_from_stats(synthetic_stats(), variant="df-slope")
    p = predict_from_stats(synthetic_stats(), variant="df-slope", c=2.0, q_min=0.05, shrink_docs=0, step=0)
    assert p.h_tok == pytest.approx(0.25) and p.q == pytest.approx(0.5)


def test_unavailable_and_unknown_variants():
    with pytest.raises(QLogError, match="not available.*no term vectors"):
        predict_from_stats(synthetic_stats(sample=False), variant="sample-hapax-per-token")
    # the default feature needs the sample; without it there is no evidence, and the rule says BM25
    p = predict_from_stats(synthetic_stats(sample=False))
    assert p.q == 1.0 and "not available (no term vectors): BM25" in describe(p)
    with pytest.raises(QLogError, match="unknown h_tok variant 'nope'"):
        predict_from_stats(synthetic_stats(), variant="nope")


def test_predict_q_on_an_index(tiny_index):
    from qlog_pyserini.stats.statistics import corpus_stats

    stats = corpus_stats(tiny_index)
    h = stats["hapax_types"] / stats["tokens"]
    p = predict_q(tiny_index, variant="hapax-per-token", **PAPER)
    assert p.variant == "hapax-per-token" and p.h_tok == h and p.q == max(0.05, min(1.0, 1 - 7.28 * h))
    assert "h[hapax-per-token]" in describe(p) and f"{p.q:.6g}" in describe(p)
    assert predict_q(tiny_index, c=0.0, variant="hapax-per-token").q == 1.0
    d = predict_q(tiny_index)  # a handful of documents: too few for the df slope, so BM25
    assert d.docs == stats["documents"] and d.variant == DEFAULT_VARIANT and d.q == 1.0 and d.note


@pytest.mark.parametrize("rule", [RuleSettings(), RuleSettings(q_min=0.3, shrink_docs=2000, step=0.1),
                                  RuleSettings(step=0.0), RuleSettings(shrink_docs=0)])
def test_keeps_bm25_is_the_largest_corpus_no_feature_can_move(rule):
    # the rule itself at the strongest feature (q0 = q_min) is the reference: keeps_bm25 must agree at every size
    strongest = 10.0 / (DEFAULT_C if rule.c is None else rule.c)
    sizes = range(1, 20_000, 7)
    agrees = [keeps_bm25(n, rule) == (auto_q(strongest, n, q_min=rule.q_min, shrink_docs=rule.shrink_docs,
                                             step=rule.step) == 1.0) for n in sizes]
    assert all(agrees)
    kept = [n for n in sizes if keeps_bm25(n, rule)]
    assert (kept == [] if rule.shrink_docs == 0 or rule.step == 0 else kept == list(sizes)[:len(kept)] and kept)


def test_predict_index_skips_the_statistics_only_where_the_answer_is_bm25(tiny_index, stdlib_index):
    docs = corpus_stats(tiny_index)["documents"]
    skipped = predict_index(tiny_index, docs)
    assert skipped.q == 1.0 and skipped.note and "whatever the feature" in describe(skipped)
    assert predict_index(tiny_index, docs, RuleSettings(shrink_docs=0)) == predict_q(tiny_index, shrink_docs=0)
    # a count the shrinkage cannot keep at 1 is read from the index, as predict_q reads it
    assert not keeps_bm25(10**6) and predict_index(stdlib_index, 10**6) == predict_q(stdlib_index)


def cli(verb: str, *args: str) -> subprocess.CompletedProcess:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    return subprocess.run([sys.executable, "-m", f"qlog_pyserini.{verb}", *map(str, args)],
                          capture_output=True, text=True, env=env, timeout=600)


def test_search_cli_q_auto_end_to_end(tmp_path, stdlib_index, stdlib_code):
    # without shrinkage the rule moves this small code corpus away from BM25 (with it, 381 documents keep BM25)
    expected = predict_q(stdlib_index, shrink_docs=0)
    assert DEFAULT_Q_MIN <= expected.q < 1 and predict_q(stdlib_index).q == 1.0
    out = tmp_path / "run.txt"
    proc = cli("search", "--index", stdlib_index, "--topics", stdlib_code[1], "--output", out, "--q", "auto",
               "--auto-shrink-docs", "0", "--hits", "10")
    assert proc.returncode == 0, proc.stderr
    assert describe(expected) in proc.stderr  # h_tok and the chosen q are logged
    assert f"q={expected.q!r}" in proc.stderr  # and the installed similarity uses exactly that q
    assert out.read_text().split("\n", 1)[0].endswith(f" qlog-bm25-q{expected.q:g}-lucene")

    from qlog_pyserini.formats.topics import read_topics
    from qlog_pyserini.lucene.searcher import QLogSearcher

    topics = read_topics(stdlib_code[1])
    qid = next(iter(topics))
    api = QLogSearcher(stdlib_index, q=expected.q).search(topics[qid], 10)
    assert [h.docid for h in read_run(out)[qid]] == [h.docid for h in api]


def test_search_cli_q_auto_options(tmp_path, stdlib_index, stdlib_code):
    out = tmp_path / "run.txt"
    proc = cli("search", "--index", stdlib_index, "--topics", stdlib_code[1], "--output", out, "--q", "AUTO",
               "--auto-c", "0", "--hits", "3", "--run-tag", "mine")
    assert proc.returncode == 0, proc.stderr
    assert "= 1\n" in proc.stderr and "q=1.0," in proc.stderr
    assert out.read_text().split("\n", 1)[0].endswith(" mine")
    proc = cli("search", "--index", stdlib_index, "--topics", stdlib_code[1], "--output", out, "--q", "auto",
               "--auto-variant", "df1-type-share", "--auto-q-min", "0.2", "--hits", "3")
    assert proc.returncode == 0, proc.stderr
    assert "h[df1-type-share]" in proc.stderr and "= 0.2\n" not in proc.stderr  # shrunk toward 1 and rounded up
    proc = cli("search", "--index", stdlib_index, "--topics", stdlib_code[1], "--output", out, "--q", "auto",
               "--auto-variant", "df1-type-share", "--auto-q-min", "0.2", "--auto-shrink-docs", "0",
               "--auto-step", "0", "--hits", "3")
    assert proc.returncode == 0, proc.stderr
    assert "= 0.2\n" in proc.stderr  # without shrinkage and rounding, the paper's form hits its floor


@pytest.mark.parametrize("extra, needle", [
    (("--similarity", "bm25"), "--q applies to --similarity qlog only"),
    (("--auto-variant", "nope"), "unknown h_tok variant"),
    (("--auto-variant", "df-slope"), "no published constant"),
    (("--auto-q-min", "2"), "illegal q_min value"),
])
def test_search_cli_q_auto_refusals(tmp_path, stdlib_index, stdlib_code, extra, needle):
    out = tmp_path / "run.txt"
    proc = cli("search", "--index", stdlib_index, "--topics", stdlib_code[1], "--output", out, "--q", "auto", *extra)
    lines = [l for l in proc.stderr.splitlines() if l.strip()]
    assert proc.returncode == 2 and lines[-1].startswith("error: ") and needle in lines[-1], proc.stderr
    assert "Traceback" not in proc.stderr and not out.exists()


def test_predict_cli(stdlib_index):
    proc = cli("predict", "--index", stdlib_index)
    assert proc.returncode == 0, proc.stderr
    out = json.loads(proc.stdout)
    pred = predict_q(stdlib_index)
    assert out["feature"] == DEFAULT_VARIANT and out["q"] == pred.q and out["feature_value"] == pred.h_tok
    assert "h_tok" not in out and "variant" not in out  # the feature is named for what it is
    # the slope the default feature is computed from is printed and recorded
    slope = corpus_stats(stdlib_index)["df_slope"]["sample"]
    assert out["df_slope"]["sample"] == slope
    assert (f"df slope s = {slope:.4g} on the sample" if slope is not None else "df slope s = n/a") in proc.stderr
    assert out["q_by_variant_at_paper_c"]["hapax-per-token"] == predict_q(stdlib_index, variant="hapax-per-token",
                                                                         **PAPER).q


def test_dead_zone_h0():
    assert auto_q(0.08, 100_000, c=3.0, h0=0.1, shrink_docs=0) == 1.0  # inside the dead zone: no evidence
    assert auto_q(0.2, 100_000, c=3.0, h0=0.1, shrink_docs=0, step=0) == pytest.approx(0.7)  # 3 * (0.2 - 0.1)
    with pytest.raises(ValueError, match="illegal h0"):
        auto_q(0.2, 100, h0=-0.1)
