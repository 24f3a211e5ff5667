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
from qlog_pyserini.qpred.rule import (
    DEFAULT_Q_MIN,
    DEFAULT_VARIANT,
    PAPER_C,
    Prediction,
    describe,
    predict_from_stats,
    predict_q,
    q_from_h,
)


def test_paper_constants():
    assert (PAPER_C, DEFAULT_Q_MIN) == (7.28, 0.05)


def test_h_zero_gives_bm25():
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
            "df_slope": {"full": 2.25, "sample": None}, "sample_error": None if sample else "no term vectors"}


def test_predict_from_stats_reads_the_chosen_variant():
    p = predict_from_stats(synthetic_stats())
    assert p == Prediction(q=pytest.approx(1 - 7.28 * 0.05), h_tok=0.05, variant=DEFAULT_VARIANT, c=7.28, q_min=0.05)
    p = predict_from_stats(synthetic_stats(), variant="df1-types-per-token", c=2.0, q_min=0.3)
    assert (p.q, p.h_tok, p.c, p.q_min) == (pytest.approx(0.8), 0.1, 2.0, 0.3)
    assert predict_from_stats(synthetic_stats(), variant="df1-type-share").q == 0.05


def test_df_slope_rule_needs_its_own_c():
    with pytest.raises(QLogError, match="no published constant"):
        predict_from_stats(synthetic_stats(), variant="df-slope")
    p = predict_from_stats(synthetic_stats(), variant="df-slope", c=2.0)
    assert p.h_tok == pytest.approx(0.25) and p.q == pytest.approx(0.5)


def test_unavailable_and_unknown_variants():
    with pytest.raises(QLogError, match="not available.*no term vectors"):
        predict_from_stats(synthetic_stats(sample=False), variant="sample-hapax-per-token")
    with pytest.raises(QLogError, match="not available"):
        predict_from_stats(synthetic_stats(), variant="sample-df-slope", c=1.0)
    with pytest.raises(QLogError, match="unknown h_tok variant 'nope'"):
        predict_from_stats(synthetic_stats(), variant="nope")


def test_predict_q_on_an_index(tiny_index):
    from qlog_pyserini.qpred.statistics import corpus_stats

    stats = corpus_stats(tiny_index)
    h = stats["hapax_types"] / stats["tokens"]
    p = predict_q(tiny_index)
    assert p.variant == "hapax-per-token" and p.h_tok == h and p.q == max(0.05, min(1.0, 1 - 7.28 * h))
    assert "h_tok[hapax-per-token]" in describe(p) and f"{p.q:.6g}" in describe(p)
    assert predict_q(tiny_index, c=0.0).q == 1.0


def cli(verb: str, *args: str) -> subprocess.CompletedProcess:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    return subprocess.run([sys.executable, "-m", f"qlog_pyserini.{verb}", *map(str, args)],
                          capture_output=True, text=True, env=env, timeout=600)


def test_search_cli_q_auto_end_to_end(tmp_path, stdlib_index, stdlib_code):
    expected = predict_q(stdlib_index)
    assert 0.05 < expected.q < 1  # a code corpus: the rule moves away from BM25 without hitting the clip
    out = tmp_path / "run.txt"
    proc = cli("search", "--index", stdlib_index, "--topics", stdlib_code[1], "--output", out, "--q", "auto",
               "--hits", "10", "--quiet")
    assert proc.returncode == 0, proc.stderr
    assert describe(expected) in proc.stderr  # h_tok and the chosen q are logged
    assert f"q={expected.q!r}" in proc.stderr  # and the installed similarity uses exactly that q
    assert out.read_text().split("\n", 1)[0].endswith(f" qlog-bm25-q{expected.q:g}-lucene")

    from qlog_pyserini.formats.topics import read_topics
    from qlog_pyserini.search.searcher import QLogSearcher

    topics = read_topics(stdlib_code[1])
    qid = next(iter(topics))
    api = QLogSearcher(stdlib_index, q=expected.q).search(topics[qid], 10)
    assert [h.docid for h in read_run(out)[qid]] == [h.docid for h in api]


def test_search_cli_q_auto_options(tmp_path, stdlib_index, stdlib_code):
    out = tmp_path / "run.txt"
    proc = cli("search", "--index", stdlib_index, "--topics", stdlib_code[1], "--output", out, "--q", "AUTO",
               "--auto-c", "0", "--hits", "3", "--quiet", "--run-tag", "mine")
    assert proc.returncode == 0, proc.stderr
    assert "= 1\n" in proc.stderr and "q=1.0," in proc.stderr
    assert out.read_text().split("\n", 1)[0].endswith(" mine")
    proc = cli("search", "--index", stdlib_index, "--topics", stdlib_code[1], "--output", out, "--q", "auto",
               "--auto-variant", "df1-type-share", "--auto-q-min", "0.2", "--hits", "3", "--quiet")
    assert proc.returncode == 0, proc.stderr
    assert "h_tok[df1-type-share]" in proc.stderr and "= 0.2\n" in proc.stderr


@pytest.mark.parametrize("extra, needle", [
    (("--similarity", "bm25"), "--q auto applies to --similarity qlog only"),
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
    assert out["variant"] == DEFAULT_VARIANT and out["q"] == predict_q(stdlib_index).q
    assert out["q_by_variant_at_paper_c"]["hapax-per-token"] == out["q"]
