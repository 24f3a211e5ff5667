"""The per-query label-free q: its arithmetic against the corpus rule it builds on."""

from __future__ import annotations

import pytest

from qlog_pyserini.errors import QLogError
from qlog_pyserini.predict.query_rule import (
    QueryRuleSettings,
    corpus_move,
    distribution,
    is_auto_query,
    query_q,
    query_qs,
    rarity,
)
from qlog_pyserini.predict.rule import Prediction, auto_q, predict_from_stats


def _prediction(h: float, docs: int) -> Prediction:
    stats = {"documents": docs, "h_tok": {}, "df_slope": {"full": None, "sample": 2.0 + h}}
    return predict_from_stats(stats)


@pytest.mark.parametrize("h,docs", [(0.0, 3000), (0.1, 6000), (0.23, 19000), (0.4, 50000), (0.05, 500)])
def test_corpus_move_is_the_corpus_rule_before_rounding(h, docs):
    pred = _prediction(h, docs)
    move = corpus_move(pred)
    # the corpus rule rounds 1 - move up to the 0.05 grid: the same q, computed independently by rule.auto_q
    assert pred.q == auto_q(h, docs) == pytest.approx(min(1.0, -(-round((1 - move) / 0.05, 6) // 1) * 0.05))
    assert 0 <= move <= 1 - pred.q + 0.05


def test_text_corpus_stays_bm25_for_every_query():
    pred = _prediction(0.0, 3204)  # Zipf(1) vocabulary: the corpus rule says BM25
    assert corpus_move(pred) == 0
    assert query_qs([[1], [1, 2, 3], [500], []], pred) == [1.0, 1.0, 1.0, 1.0]


def test_the_move_follows_the_rarest_term():
    rule = QueryRuleSettings(rare_df=5, gain=3.0, q_floor=0.4)
    assert rarity([1, 900], 5) == 1 and rarity([5], 5) == 1 and rarity([40, 10], 5) == 0.5
    assert rarity([0, 0], 5) == 0 and rarity([], 5) == 0 and rarity([0, 20], 5) == 0.25  # absent terms do not count
    assert query_q([3, 40, 900], 0.1, rule) == 0.7  # 1 - 3 * 0.1
    assert query_q([10, 40], 0.1, rule) == 0.85  # 1 - 3 * 0.1 * 0.5
    assert query_q([500], 0.1, rule) == 1.0  # 1 - 0.003, rounded up to the grid: BM25
    assert query_q([0, 0], 0.1, rule) == 1.0
    assert query_q([1], 0.105, rule) == 0.7  # 0.685 rounded up toward BM25
    assert query_q([1], 0.3, rule) == 0.4  # floored
    assert query_q([1], 0.0, rule) == 1.0


def test_distribution_and_names():
    assert distribution([1.0, 0.7, 1.0, 0.75]) == {"0.7": 1, "0.75": 1, "1": 2}
    assert is_auto_query(" Auto-Query ") and not is_auto_query("auto")


def test_refusals():
    for bad in (dict(rare_df=0), dict(rare_df=1.5), dict(gain=-1), dict(q_floor=1.2), dict(gain=float("nan")),
                dict(step=2)):
        with pytest.raises(QLogError):
            QueryRuleSettings(**bad)
    with pytest.raises(QLogError, match="corpus move"):
        query_q([1], 1.5)


@pytest.mark.jvm
def test_search_cli_q_auto_query_end_to_end(tmp_path, stdlib_index, stdlib_code):
    import os
    import subprocess
    import sys

    from conftest import ROOT

    from qlog_pyserini.formats.topics import read_topics
    from qlog_pyserini.formats.trec import read_run
    from qlog_pyserini.lucene.searcher import QLogSearcher
    from qlog_pyserini.predict.per_query import query_doc_freqs
    from qlog_pyserini.predict.rule import predict_q

    out = tmp_path / "run.txt"
    proc = subprocess.run([sys.executable, "-m", "qlog_pyserini.search", "--index", str(stdlib_index), "--topics",
                           str(stdlib_code[1]), "--output", str(out), "--q", "auto-query", "--auto-shrink-docs", "0",
                           "--hits", "10", "--threads", "2"],
                          capture_output=True, text=True, env={**os.environ, "PYTHONPATH": str(ROOT)}, timeout=600)
    assert proc.returncode == 0, proc.stderr
    assert "q auto-query: corpus move" in proc.stderr
    run = read_run(out)
    assert out.read_text().split("\n", 1)[0].endswith(" qlog-bm25-qauto-query-lucene")
    topics = read_topics(stdlib_code[1])
    prediction = predict_q(stdlib_index, shrink_docs=0)
    with QLogSearcher(stdlib_index) as s:
        qs = query_qs(query_doc_freqs(s, list(topics.values())), prediction)
        assert len(set(qs)) >= 2  # queries with rare terms move, the others stay at or near BM25
        for (qid, text), q in zip(topics.items(), qs):
            s.set_q(q)
            assert [h.docid for h in run.get(qid, [])] == [h.docid for h in s.search(text, 10)], (qid, q)


@pytest.mark.jvm
def test_search_cli_q_auto_query_refuses_other_models(tmp_path, stdlib_index, stdlib_code):
    import os
    import subprocess
    import sys

    from conftest import ROOT

    out = tmp_path / "run.txt"
    proc = subprocess.run([sys.executable, "-m", "qlog_pyserini.search", "--index", str(stdlib_index), "--topics",
                           str(stdlib_code[1]), "--output", str(out), "--q", "auto-query", "--similarity", "bm25"],
                          capture_output=True, text=True, env={**os.environ, "PYTHONPATH": str(ROOT)}, timeout=600)
    lines = [l for l in proc.stderr.splitlines() if l.strip()]
    assert proc.returncode == 2 and lines[-1].startswith("error: ") and "qlog only" in lines[-1], proc.stderr
    assert not out.exists()


@pytest.mark.jvm
def test_search_cli_auto_query_options_reach_the_rule(tmp_path, stdlib_index, stdlib_code):
    """The rule's constants from the command line: gain 0 is BM25 for every query; a floor of 1 too; and the
    chosen q values follow rare_df and the floor as query_qs computes them with those settings."""
    from qlog_pyserini.formats.topics import read_topics
    from qlog_pyserini.lucene.searcher import QLogSearcher
    from qlog_pyserini.predict.per_query import query_doc_freqs
    from qlog_pyserini.predict.rule import RuleSettings, predict_with
    from qlog_pyserini.search.__main__ import main

    def run(name, *extra):
        main(["--index", str(stdlib_index), "--topics", str(stdlib_code[1]), "--output", str(tmp_path / name),
              "--hits", "20", "--run-tag", "t", "--quiet", "--auto-shrink-docs", "0", *extra])
        return (tmp_path / name).read_bytes()

    bm25 = run("bm25.txt", "--q", "1")
    assert run("gain0.txt", "--q", "auto-query", "--auto-query-gain", "0") == bm25
    assert run("floor1.txt", "--q", "auto-query", "--auto-query-floor", "1") == bm25
    mine = QueryRuleSettings(rare_df=50, gain=5.0, q_floor=0.3)
    got = run("mine.txt", "--q", "auto-query", "--auto-query-rare-df", "50", "--auto-query-gain", "5",
              "--auto-query-floor", "0.3")
    topics = read_topics(stdlib_code[1])
    with QLogSearcher(stdlib_index) as s:
        prediction = predict_with(stdlib_index, RuleSettings(shrink_docs=0))
        qs = query_qs(query_doc_freqs(s, list(topics.values())), prediction, mine)
        default_qs = query_qs(query_doc_freqs(s, list(topics.values())), prediction)
        assert qs != default_qs and min(qs) < min(default_qs)  # the settings changed the choice
        from qlog_pyserini.formats.trec import write_run
        from qlog_pyserini.predict.per_query import batch_search_per_query

        write_run(tmp_path / "want.txt", batch_search_per_query(s, list(topics.values()), list(topics), qs, k=20),
                  "t", qids=list(topics))
    assert got == (tmp_path / "want.txt").read_bytes()


@pytest.mark.parametrize("option, value", [("--auto-query-floor", "1.5"), ("--auto-query-rare-df", "0"),
                                           ("--auto-query-gain", "-1"), ("--auto-query-gain", "nan")])
def test_search_cli_auto_query_option_refusals(tmp_path, option, value):
    from qlog_pyserini.search.__main__ import main

    (tmp_path / "index").mkdir()
    topics = tmp_path / "t.tsv"
    topics.write_text("1\tparse json\n", encoding="utf-8")
    out = tmp_path / "out" / "run.txt"
    out.parent.mkdir()
    with pytest.raises(QLogError, match=f"^illegal {option} value"):  # before any index is opened
        main(["--index", str(tmp_path / "index"), "--topics", str(topics), "--output", str(out), "--q",
              "auto-query", option, value])
    assert list(out.parent.iterdir()) == []
