"""Recall@K-tokens on hand-made rankings whose token counts are known."""

from __future__ import annotations

import pandas as pd
import pytest

from qlog_pyserini.errors import QLogError
from qlog_pyserini.eval.budget import code_token_count, recall_at_budgets, recall_at_token_budgets
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
