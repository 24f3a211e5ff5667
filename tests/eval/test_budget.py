"""Recall@K-tokens on hand-made rankings whose token counts are known."""

from __future__ import annotations

import random

import numpy as np
import pandas as pd
import pytest

from qlog_pyserini.errors import QLogError
from qlog_pyserini.eval.budget import (
    TokenCounts,
    code_token_count,
    recall_at_budgets,
    recall_at_token_budgets,
    recall_from_arrays,
    recall_of_runs,
)
from qlog_pyserini.eval.metrics import DocidTable, QrelsArrays, RunArrays
from qlog_pyserini.formats.trec import Hit


def words(n: int) -> str:
    """A text of exactly n code tokens (n identifiers)."""
    return " ".join(["w"] * n)


@pytest.mark.parametrize("text, expected", [
    # def add_one ( x ) : return x + 1.5 # ok
    ("def add_one(x):\n    return x+1.5  # ok", 12),
    # a - > b = = 0 x1F ;
    ("a->b == 0x1F;", 9),
    # 1 e5 ; 3.14 ; 2 . (a trailing dot is not part of the number)
    ("1e5; 3.14; 2.", 7),
    # s = " hi there " . strip ( ) — quotes and dot are one token each
    ('s = "hi there".strip()', 10),
    # na ï ve : a non-ASCII letter is its own token
    ("naïve", 3),
    ("   \n\t ", 0),
])
def test_code_token_count(text, expected):
    assert code_token_count(text) == expected


TEXTS = {"d4": words(4), "d5": words(5), "d6": words(6), "d2": words(2), "big": words(20), "d1": words(1)}


def ranking(*docids: str) -> list[Hit]:
    return [Hit(d, float(len(docids) - i)) for i, d in enumerate(docids)]


RUN = {
    "exact": ranking("d4", "d6", "d1"),      # relevant d6: 4 + 6 = 10, fits budget 10 exactly
    "third": ranking("d4", "d5", "d2"),      # relevant d2: 4 + 5 + 2 = 11
    "blocked": ranking("d4", "big", "d2"),   # relevant d2 after a 20-token doc: the walk stops there
    "first_big": ranking("big", "d1"),       # relevant big alone is 20 tokens
    "unjudged": ranking("d1"),               # qrels hold only a grade-0 doc for it
    "run_only": ranking("d1"),               # not in the qrels: ignored
}
QRELS = {
    "exact": {"d6": 1},
    "third": {"d2": 2, "d4": 0},             # d4 is judged but not relevant
    "blocked": {"d2": 1},
    "first_big": {"big": 1},
    "unjudged": {"d1": 0},
    "absent": {"d1": 1},                     # judged but the run has no ranking for it
}
# By hand, budgets 10, 11, 26.
EXPECTED = {
    "exact":     [1.0, 1.0, 1.0],
    "third":     [0.0, 1.0, 1.0],
    "blocked":   [0.0, 0.0, 1.0],   # 4 + 20 + 2 = 26; skipping 'big' at 10 would have made it a hit
    "first_big": [0.0, 0.0, 1.0],
    "unjudged":  [0.0, 0.0, 0.0],
    "absent":    [0.0, 0.0, 0.0],
}


def test_budget_walk_by_hand():
    table = recall_at_token_budgets(RUN, QRELS, TEXTS, budgets=(10, 11, 26))
    assert list(table.columns) == [10, 11, 26]
    assert table.index.name == "qid"
    assert list(table.index) == list(QRELS)
    assert table.to_dict(orient="index") == {q: dict(zip([10, 11, 26], v)) for q, v in EXPECTED.items()}
    agg = recall_at_budgets(table)
    assert agg.to_dict() == {10: 1 / 6, 11: 2 / 6, 26: 4 / 6}


def test_default_budget_is_8192():
    table = recall_at_token_budgets({"q": ranking("d1")}, {"q": {"d1": 1}}, TEXTS)
    assert list(table.columns) == [8192]
    assert table.loc["q", 8192] == 1.0


def test_callable_text_and_custom_counter_each_doc_read_once():
    calls: list[str] = []

    def text(docid: str) -> str:
        calls.append(docid)
        return "x" * int(docid[1:])

    run = {"q1": ranking("c3", "c5", "c2"), "q2": ranking("c5", "c3", "c2")}
    qrels = {"q1": {"c2": 1}, "q2": {"c2": 1}}
    # Counting characters: q1 needs 3 + 5 + 2 = 10 and q2 5 + 3 + 2 = 10.
    table = recall_at_token_budgets(run, qrels, text, budgets=(9, 10), count_tokens=len)
    assert table.to_dict(orient="index") == {"q1": {9: 0.0, 10: 1.0}, "q2": {9: 0.0, 10: 1.0}}
    assert sorted(calls) == ["c2", "c3", "c5"]


def test_documents_past_the_largest_budget_are_not_read():
    run = {"q": ranking("big", "nowhere")}
    table = recall_at_token_budgets(run, {"q": {"nowhere": 1}}, TEXTS, budgets=(10,))
    assert table.loc["q", 10] == 0.0
    with pytest.raises(QLogError, match="no text for document 'nowhere'"):
        recall_at_token_budgets(run, {"q": {"nowhere": 1}}, TEXTS, budgets=(100,))


@pytest.mark.parametrize("budgets", [(0,), (10, 10), (), (2.5,)])
def test_bad_budgets(budgets):
    with pytest.raises(QLogError):
        recall_at_token_budgets(RUN, QRELS, TEXTS, budgets=budgets)


def test_bad_counter():
    with pytest.raises(QLogError, match="token counter"):
        recall_at_token_budgets(RUN, QRELS, TEXTS, count_tokens=lambda s: -1)


def test_aggregate_of_empty_table_is_an_error():
    with pytest.raises(QLogError):
        recall_at_budgets(pd.DataFrame(columns=[10]))


def per_hit_recall_at_token_budgets(run, qrels, doc_text, budgets, count_tokens=code_token_count):
    """A plain per-query, per-hit Python walk: the oracle the array walk must equal."""
    cache: dict[str, int] = {}

    def tokens(docid):
        if docid not in cache:
            cache[docid] = count_tokens(doc_text(docid))
        return cache[docid]

    limit = max(budgets)
    needed = {}
    for qid, judged in qrels.items():
        relevant = {d for d, g in judged.items() if g > 0}
        total, need = 0, float("inf")
        for hit in (run.get(qid, ()) if relevant else ()):
            total += tokens(hit.docid)
            if total > limit:
                break
            if hit.docid in relevant:
                need = float(total)
                break
        needed[qid] = need
    need = pd.Series(needed, dtype=float)
    table = pd.DataFrame({k: (need <= k).astype(float) for k in budgets}, index=need.index)
    table.index.name = "qid"
    return table


def random_case(seed: int):
    rng = random.Random(seed)
    docs = {f"d{i}": words(rng.choice([0, 1, 3, 8, 20, 50, 120])) for i in range(80)}
    run = {f"q{i}": [Hit(d, 1.0) for d in rng.sample(sorted(docs), rng.randint(0, 30))] for i in range(60)}
    qrels = {f"q{i}": {d: rng.choice([0, 1, 2]) for d in rng.sample(sorted(docs), rng.randint(1, 4))}
             for i in range(10, 75)}  # q0-q9 only in the run, q60-q74 only in the qrels
    return run, qrels, docs


@pytest.mark.parametrize("seed", range(6))
def test_array_walk_equals_the_per_hit_walk_and_reads_no_more(seed):
    run, qrels, docs = random_case(seed)
    budgets = (8, 30, 100, 400)
    read_by_arrays: list[str] = []
    read_per_hit: list[str] = []
    arrays = recall_at_token_budgets(run, qrels, lambda d: read_by_arrays.append(d) or docs[d], budgets=budgets)
    per_hit = per_hit_recall_at_token_budgets(run, qrels, lambda d: read_per_hit.append(d) or docs[d], budgets)
    pd.testing.assert_frame_equal(arrays, per_hit)
    # Each text once, and only texts the per-hit walk reads too: it also walks rankings holding no
    # relevant document to their end, which the array walk knows in advance to be misses.
    assert len(read_by_arrays) == len(set(read_by_arrays)) and set(read_by_arrays) <= set(read_per_hit)


@pytest.mark.parametrize("seed", range(4))
def test_one_walk_over_several_runs_equals_a_walk_per_run(seed):
    run, qrels, docs = random_case(seed)
    table = DocidTable(sorted(docs))
    judged = QrelsArrays.build(qrels, table)
    rng = random.Random(seed)
    runs = [run, {q: hits[::-1] for q, hits in run.items()}, {},
            {q: rng.sample(hits, len(hits)) for q, hits in list(run.items())[::2]}]
    arrays = [RunArrays.from_hits(r, table) for r in runs]
    reads: list[str] = []
    together = recall_of_runs(arrays, judged, TokenCounts(table, lambda d: reads.append(d) or docs[d]), (8, 100, 400))
    assert len(reads) == len(set(reads))  # each text read once over all the runs
    for r, got in zip(arrays, together):
        alone = recall_from_arrays(r, judged, TokenCounts(table, docs), budgets=(8, 100, 400))
        assert np.array_equal(got, alone.to_numpy())
    assert recall_of_runs([], judged, TokenCounts(table, docs)) == []


def test_token_counts_are_kept_across_runs_of_one_index():
    run, qrels, docs = random_case(1)
    table = DocidTable(sorted(docs))
    reads: list[str] = []
    counts = TokenCounts(table, lambda d: reads.append(d) or docs[d])
    judged = QrelsArrays.build(qrels, table)
    arrays = RunArrays.from_hits(run, table)
    first = recall_from_arrays(arrays, judged, counts, budgets=(30, 400))
    n = len(reads)
    reversed_run = RunArrays.from_hits({q: hits[::-1] for q, hits in run.items()}, table)
    recall_from_arrays(reversed_run, judged, counts, budgets=(30, 400))
    again = recall_from_arrays(arrays, judged, counts, budgets=(30, 400))
    pd.testing.assert_frame_equal(first, again)
    assert len(reads) == len(set(reads)) and len(reads) >= n  # each text fetched once over all runs
    assert (counts.counts[counts.counts >= 0] == [code_token_count(docs[d]) for d in
                                                  table.docids[counts.counts >= 0]]).all()


@pytest.mark.jvm
def test_real_runs_csn_ruby_equal_the_per_hit_walk(csn_ruby):
    from qlog_pyserini.formats.topics import read_topics
    from qlog_pyserini.formats.trec import read_qrels
    from qlog_pyserini.lucene.batch import search_topics
    from qlog_pyserini.lucene.searcher import QLogSearcher

    data, index = csn_ruby
    topics, qrels = read_topics(data / "topics.tsv"), read_qrels(data / "qrels.txt")
    searcher = QLogSearcher(index)
    for q in (1.0, 0.3):
        searcher.set_q(q)
        run = search_topics(searcher, topics, hits=100, threads=2, progress=False)
        budgets = (512, 2048, 8192)
        new = recall_at_token_budgets(run, qrels, searcher.doc_text, budgets=budgets)
        pd.testing.assert_frame_equal(new, per_hit_recall_at_token_budgets(run, qrels, searcher.doc_text, budgets))
        assert 0.2 < new[8192].mean() < 1.0


def test_texts_by_key_give_the_same_walk_and_are_asked_for_in_key_order():
    """texts_of (many documents per call, by key, as an index's stored fields are read) against doc_text."""
    run, qrels, docs = random_case(3)
    table = DocidTable(sorted(docs))
    calls: list[list[int]] = []

    def texts_of(keys):
        calls.append(keys.tolist())
        return [docs[table.docids[k]] for k in keys.tolist()]

    judged = QrelsArrays.build(qrels, table)
    arrays = RunArrays.from_hits(run, table)
    by_key = recall_from_arrays(arrays, judged, TokenCounts(table, texts_of=texts_of), budgets=(8, 100, 400))
    by_docid = recall_from_arrays(arrays, judged, TokenCounts(table, docs), budgets=(8, 100, 400))
    pd.testing.assert_frame_equal(by_key, by_docid)
    pd.testing.assert_frame_equal(by_key, per_hit_recall_at_token_budgets(run, qrels, docs.__getitem__, (8, 100, 400)))
    read = [k for call in calls for k in call]
    assert all(call == sorted(set(call)) for call in calls) and len(read) == len(set(read))
    with pytest.raises(QLogError, match="not both"):
        TokenCounts(table, docs, texts_of=texts_of)
    with pytest.raises(QLogError, match="give doc_text or texts_of"):
        TokenCounts(table)
    with pytest.raises(QLogError, match="1 texts for 2 documents"):
        TokenCounts(table, texts_of=lambda keys: ["x"]).of(np.array([0, 1]))


def test_every_relevant_document_must_fit():
    """"Every relevant fits": the walk must reach the last relevant document; one unranked relevant is a miss."""
    run = {"both": ranking("d4", "d1", "d5", "d6"),    # relevant d1 (4 + 1 = 5) and d6 (4 + 1 + 5 + 6 = 16)
           "missing": ranking("d4", "d1", "d2"),       # relevant d1 and d6; d6 is not ranked
           "one": ranking("d2", "d5"),                 # a single relevant document: every = any
           "absent_doc": ranking("d1")}                # relevant d1 and a file the index lacks
    qrels = {"both": {"d1": 1, "d6": 1, "d2": 0}, "missing": {"d1": 1, "d6": 1}, "one": {"d5": 1},
             "absent_doc": {"d1": 1, "gone": 1}}
    budgets = (5, 15, 16, 100)
    every = recall_at_token_budgets(run, qrels, TEXTS, budgets, every=True)
    anyone = recall_at_token_budgets(run, qrels, TEXTS, budgets)
    assert every.loc["both"].tolist() == [0.0, 0.0, 1.0, 1.0]
    assert anyone.loc["both"].tolist() == [1.0, 1.0, 1.0, 1.0]
    assert every.loc["missing"].tolist() == [0.0] * 4 and anyone.loc["missing"].tolist() == [1.0] * 4
    assert every.loc["one"].tolist() == anyone.loc["one"].tolist() == [0.0, 1.0, 1.0, 1.0]
    assert every.loc["absent_doc"].tolist() == [0.0] * 4 and anyone.loc["absent_doc"].tolist() == [1.0] * 4
    # the columnar walk of a whole run (not only the relevant prefix) agrees, alone and with another run
    arrays = RunArrays.from_hits(run)
    table = arrays.docids
    judged = QrelsArrays.build(qrels, table)
    alone = recall_from_arrays(arrays, judged, TokenCounts(table, TEXTS), budgets, every=True)
    pd.testing.assert_frame_equal(alone, every.reindex(alone.index))
    both = recall_of_runs([arrays, arrays], judged, TokenCounts(table, TEXTS), budgets, every=True)
    assert all(np.array_equal(t, alone.to_numpy()) for t in both)
