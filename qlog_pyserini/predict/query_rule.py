"""Label-free q per query (``--q auto-query``): the corpus rule's move away from BM25, given only to the
queries that carry the evidence it rests on.

The corpus rule (:mod:`qlog_pyserini.predict.rule`, ``--q auto``) gives every query the same q, but q < 1
pays only when the query names a rare term of its target (an identifier): this rule keeps the corpus
rule's evidence and decides per query how much of it to use, by how rare the query's rarest term is::

    m      = 1 - q_corpus                       the corpus rule's move, before its rounding (0 on text)
    df     = the smallest document frequency among the query's terms that occur in the index
    e      = min(1, D / df)                     1 for a term in at most D documents, falling as 1/df
    q      = max(q_floor, 1 - a * m * e), rounded up to a multiple of 0.05 (toward BM25)

D = DEFAULT_RARE_DF, a = DEFAULT_GAIN, q_floor = DEFAULT_Q_FLOOR, chosen by leave-one-family-out; what
each does and the evidence: ``docs/adaptive-q.md``. A corpus whose statistics say BM25 (m = 0) stays BM25
for every query, and so does a query none of whose terms occurs in the index.
The term statistics are those of the searched field, read for each query as the searcher parses it
(:func:`qlog_pyserini.predict.per_query.query_doc_freqs`), so the rule costs one dictionary lookup per
query term on top of the corpus rule's statistics pass.

    >>> from qlog_pyserini.predict.query_rule import query_q
    >>> query_q([1, 40, 900], 0.1)    # a term in one document: q = max(0.6, 1 - 3 * 0.1 * 1)
    0.7
    >>> query_q([40, 900], 0.2)       # rarest term in 40 documents: 1 - 3 * 0.2 * 5 / 40, rounded up
    0.95
"""

from __future__ import annotations

import math
from collections import Counter
from dataclasses import dataclass
from typing import Sequence

from qlog_pyserini.errors import QLogError
from qlog_pyserini.predict.rule import DEFAULT_STEP, Prediction, round_toward_one

AUTO_QUERY = "auto-query"
DEFAULT_RARE_DF = 5
DEFAULT_GAIN = 3.0
DEFAULT_Q_FLOOR = 0.6


@dataclass(frozen=True)
class QueryRuleSettings:
    """The per-query rule's constants (see the module docstring)."""

    rare_df: int = DEFAULT_RARE_DF
    gain: float = DEFAULT_GAIN
    q_floor: float = DEFAULT_Q_FLOOR
    step: float = DEFAULT_STEP

    def __post_init__(self) -> None:
        if isinstance(self.rare_df, bool) or not isinstance(self.rare_df, int) or self.rare_df < 1:
            raise QLogError(f"illegal rare_df value: {self.rare_df!r}, must be an integer >= 1")
        for name, low in (("gain", 0.0), ("q_floor", 0.0)):
            value = getattr(self, name)
            if not isinstance(value, (int, float)) or not math.isfinite(value) or value < low:
                raise QLogError(f"illegal {name} value: {value!r}, must be a finite number >= {low:g}")
        if self.q_floor > 1:
            raise QLogError(f"illegal q_floor value: {self.q_floor!r}, must be at most 1")
        round_toward_one(1.0, self.step)  # checks step


def corpus_move(prediction: Prediction) -> float:
    """1 - q of the corpus rule before its rounding: ``w * (1 - clip(1 - c * max(0, h - h0), q_min, 1))``."""
    if prediction.note:  # no evidence at all (no statistics): BM25
        return 0.0
    q0 = min(1.0, max(prediction.q_min, 1.0 - prediction.c * max(0.0, prediction.h_tok - prediction.h0)))
    return prediction.weight * (1.0 - q0)


def rarity(doc_freqs: Sequence[int], rare_df: int = DEFAULT_RARE_DF) -> float:
    """``min(1, rare_df / df)`` for the query's rarest term in the index (df > 0); 0 when none occurs."""
    present = [df for df in doc_freqs if df > 0]
    return min(1.0, rare_df / min(present)) if present else 0.0


def query_q(doc_freqs: Sequence[int], move: float, rule: QueryRuleSettings = QueryRuleSettings()) -> float:
    """The q of one query whose terms have document frequencies ``doc_freqs``, on a corpus whose rule
    moves q by ``move`` (:func:`corpus_move`) away from 1."""
    if not math.isfinite(move) or not 0 <= move <= 1:
        raise QLogError(f"illegal corpus move: {move!r}, must be in [0, 1]")
    e = rarity(doc_freqs, rule.rare_df)
    if move == 0 or e == 0:
        return 1.0
    return round_toward_one(max(rule.q_floor, 1.0 - rule.gain * move * e), rule.step)


def query_qs(doc_freqs: Sequence[Sequence[int]], prediction: Prediction,
             rule: QueryRuleSettings = QueryRuleSettings()) -> list[float]:
    """:func:`query_q` for every query, on the corpus ``prediction`` describes."""
    move = corpus_move(prediction)
    return [query_q(dfs, move, rule) for dfs in doc_freqs]


def distribution(qs: Sequence[float]) -> dict[str, int]:
    """How many queries got each q, as ``{"0.7": 412, "1": 588}`` in ascending q."""
    return {f"{q:g}": n for q, n in sorted(Counter(qs).items())}


def describe(qs: Sequence[float], prediction: Prediction, rule: QueryRuleSettings = QueryRuleSettings()) -> str:
    """One log line: the corpus move, the rule and the q values it chose."""
    move = corpus_move(prediction)
    chosen = ", ".join(f"{n} at q = {q}" for q, n in distribution(qs).items())
    return (f"q auto-query: corpus move 1 - q = {move:.4g}; q = max({rule.q_floor:g}, 1 - {rule.gain:g} * {move:.4g} "
            f"* min(1, {rule.rare_df} / df)), df the query's rarest term's, rounded up to a multiple of {rule.step:g}: "
            f"{chosen}")


def is_auto_query(text: str) -> bool:
    """Whether a ``--q`` value asks for the per-query label-free q."""
    return str(text).strip().lower() == AUTO_QUERY
