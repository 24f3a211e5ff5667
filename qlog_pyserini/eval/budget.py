"""Recall@K-tokens: does a relevant document reach an agent whose context holds K tokens?

A code agent reads retrieved files into a context window of limited size, so what matters is
not the rank of the first relevant document but how many tokens precede it. The walk that
defines the measure, for each query and each budget K:

1. Go down the ranked list in rank order, keeping a running total of tokens.
2. Admit a document if the total plus its token count is at most K (a document that exactly
   fills the budget is admitted; documents are whole, never truncated).
3. **Stop at the first document that does not fit.** Nothing after it is admitted, even a
   shorter one that would still fit: this models filling a context window in rank order,
   where a consumer that skipped ahead would be re-ranking.
4. The query is a hit (1.0) when an admitted document has a grade > 0 in the qrels, else 0.0.

Queries are those of the qrels; a query the run lacks (or whose qrels hold no grade > 0) is a
miss, as trec_eval ``-c`` counts it. Queries only in the run are ignored. The aggregate is the
mean over queries: the share of queries whose context receives at least one relevant document
(with one relevant document per query, as in CodeSearchNet, this is exactly recall).

Tokens are counted offline by :func:`code_token_count` (see :data:`CODE_TOKEN_PATTERN`);
any ``str -> int`` counter (a model's real tokenizer, say) can be plugged in instead.
"""

from __future__ import annotations

import re
from typing import Callable, Iterable, Mapping, Sequence

import numpy as np
import pandas as pd

from qlog_pyserini.errors import QLogError
from qlog_pyserini.formats.trec import Hit

DEFAULT_BUDGETS: tuple[int, ...] = (8192,)

#: One token per identifier (``[A-Za-z_][A-Za-z0-9_]*``), per number (``[0-9]+(?:\.[0-9]+)?``,
#: so ``3.14`` is one token and ``1e5`` is ``1`` + ``e5``), and per any other non-space character
#: (``(``, ``.``, ``"``, each byte of ``->`` and ``==``, each non-ASCII letter). Whitespace is free.
CODE_TOKEN_PATTERN = r"[A-Za-z_][A-Za-z0-9_]*|[0-9]+(?:\.[0-9]+)?|\S"
_CODE_TOKEN_RE = re.compile(CODE_TOKEN_PATTERN)


def code_token_count(text: str) -> int:
    """Number of matches of :data:`CODE_TOKEN_PATTERN` in ``text``.

    ``x = foo(1.5)`` is 6 tokens: ``x``, ``=``, ``foo``, ``(``, ``1.5``, ``)``.
    """
    return sum(1 for _ in _CODE_TOKEN_RE.finditer(text))


def _check_budgets(budgets: Iterable[int]) -> list[int]:
    out: list[int] = []
    for k in budgets:
        if isinstance(k, bool) or not isinstance(k, (int, np.integer)) or k < 1:
            raise QLogError(f"illegal token budget: {k!r}, must be an integer >= 1")
        if int(k) in out:
            raise QLogError(f"token budget {int(k)} is given twice")
        out.append(int(k))
    if not out:
        raise QLogError("at least one token budget is needed")
    return out


def tokens_to_first_relevant(hits: Sequence[Hit], relevant: set[str], tokens: Callable[[str], int],
                             limit: float = float("inf")) -> float:
    """Tokens a rank-order walk holds once it has admitted the first relevant document.

    That is the sum of the token counts of every document up to and including the first one in
    ``relevant``. A budget K admits it exactly when this sum is <= K (the running total only
    grows, so the stop-at-first-overflow walk admits precisely the prefix whose sum is <= K).
    Returns ``inf`` when no relevant document is ranked, or once the sum exceeds ``limit``
    (no budget that large is asked for, so later texts need not be read).
    """
    total = 0
    for hit in hits:
        total += tokens(hit.docid)
        if total > limit:
            return float("inf")
        if hit.docid in relevant:
            return float(total)
    return float("inf")


def recall_at_token_budgets(run: Mapping[str, Sequence[Hit]], qrels: Mapping[str, Mapping[str, int]],
                            doc_text: Mapping[str, str] | Callable[[str], str],
                            budgets: Iterable[int] = DEFAULT_BUDGETS,
                            count_tokens: Callable[[str], int] = code_token_count) -> pd.DataFrame:
    """Per-query hits (1.0/0.0) at each token budget; see the module docstring for the walk.

    ``run`` is ``{qid: [Hit, ...]}`` in rank order (as :func:`qlog_pyserini.formats.trec.read_run`
    gives), ``qrels`` is ``{qid: {docid: grade}}``, ``doc_text`` maps a docid to its text (a
    mapping, or a function such as an index lookup). Returns a DataFrame indexed by qid (qrels
    order) with one column per budget, labelled by the integer budget.
    Each document's text is fetched and counted at most once.
    """
    ks = _check_budgets(budgets)
    lookup = doc_text.__getitem__ if isinstance(doc_text, Mapping) else doc_text
    cache: dict[str, int] = {}

    def tokens(docid: str) -> int:
        n = cache.get(docid)
        if n is None:
            try:
                text = lookup(docid)
            except KeyError:
                raise QLogError(f"no text for document {docid!r}, ranked in the run") from None
            n = count_tokens(text)
            if isinstance(n, bool) or not isinstance(n, (int, np.integer)) or n < 0:
                raise QLogError(f"token counter returned {n!r} for document {docid!r}; it must return an integer >= 0")
            cache[docid] = n = int(n)
        return n

    limit = max(ks)
    needed = {}
    for qid, judged in qrels.items():
        relevant = {d for d, g in judged.items() if g > 0}
        needed[qid] = tokens_to_first_relevant(run.get(qid, ()), relevant, tokens, limit) if relevant else float("inf")
    need = pd.Series(needed, dtype=float)
    table = pd.DataFrame({k: (need <= k).astype(float) for k in ks}, index=need.index)
    table.index.name = "qid"
    return table


def recall_at_budgets(per_query: pd.DataFrame) -> pd.Series:
    """Recall@K-tokens per budget: the mean over queries of :func:`recall_at_token_budgets`' table."""
    if per_query.empty:
        raise QLogError("no queries to average")
    return per_query.mean(axis=0).rename("recall")
