"""One call for agents: rank files or chunks by q-log BM25 and pack them, whole, into a token budget.

    >>> from qlog_pyserini.integrations.context import pack_context                    # doctest: +SKIP
    >>> files = {str(p): p.read_text() for p in Path("src").rglob("*.py")}              # doctest: +SKIP
    >>> for item in pack_context("where is the websocket upgrade handled", files, budget=8000): print(item.id)   # doctest: +SKIP

The walk is Recall@K-tokens' (:mod:`qlog_pyserini.eval.budget`): down the ranking, a document is admitted while
the running total stays within the budget, and the walk stops at the first one that does not fit (a context filled
in rank order; skipping ahead would re-rank). Tokens are counted by
:func:`qlog_pyserini.eval.budget.code_token_count` or any ``str -> int`` counter. Ranking is bm25s with Lucene's
BM25 (k1 0.9, b 0.4, English stopwords) rescaled to q; ``q="auto"`` is the label-free q of these documents
(:func:`qlog_pyserini.integrations.labelfree.predict_bm25s`), BM25 (q = 1) for a small set.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable, Mapping, Sequence

import numpy as np

from qlog_pyserini.errors import QLogError
from qlog_pyserini.eval.budget import check_budgets, code_token_count
from qlog_pyserini.formula import DEFAULT_B, DEFAULT_K1
from qlog_pyserini.predict.rule import AUTO


@dataclass(frozen=True)
class Packed:
    """One admitted document: its id, text, q-log BM25 score and token count."""

    id: str
    text: str
    score: float
    tokens: int


def pack_context(query: str, documents: Mapping[str, str] | Sequence[str], budget: int = 8192,
                 q: float | str = AUTO, *, count_tokens: Callable[[str], int] = code_token_count,
                 stopwords: str | None = "en") -> list[Packed]:
    """The documents matching ``query`` (score > 0) in q-log BM25 order, as many as fit in ``budget`` tokens.

    ``documents``: ``{id: text}`` (file paths, chunk ids) or a list of texts (ids ``"0"``, ``"1"``, ...).
    """
    import bm25s

    from qlog_pyserini.integrations.bm25s import rescale
    from qlog_pyserini.integrations.labelfree import predict_bm25s

    (limit,) = check_budgets([budget])
    if not isinstance(query, str):
        raise QLogError(f"the query must be a string, not {type(query).__name__}")
    if isinstance(documents, (str, bytes)) or not isinstance(documents, (Mapping, Sequence)):
        raise QLogError("documents must be {id: text} or a list of texts, not " + type(documents).__name__)
    ids, texts = (list(documents), list(documents.values())) if isinstance(documents, Mapping) else \
        ([str(i) for i in range(len(documents))], list(documents))
    if not texts:
        raise QLogError("no documents to rank")
    bad = next((i for i, t in enumerate(texts) if not isinstance(t, str)), None)
    if bad is not None:
        raise QLogError(f"document {ids[bad]!r} is {type(texts[bad]).__name__}, not a string")
    model = bm25s.BM25(k1=DEFAULT_K1, b=DEFAULT_B, method="lucene")
    model.index(bm25s.tokenize(texts, stopwords=stopwords, show_progress=False), show_progress=False)
    rescale(model, predict_bm25s(model).q if q == AUTO else q)
    query_ids = model.get_tokens_ids(bm25s.tokenize([query], stopwords=stopwords, show_progress=False,
                                                    return_ids=False)[0])
    scores = model.get_scores_from_ids(query_ids) if query_ids else np.zeros(len(texts))
    order = np.lexsort((np.arange(len(texts)), -scores))  # score descending, ties in the documents' order
    packed: list[Packed] = []
    used = 0
    for i in order.tolist():
        if scores[i] <= 0:
            break
        n = count_tokens(texts[i])
        if used + n > limit:
            break
        used += n
        packed.append(Packed(ids[i], texts[i], float(scores[i]), n))
    return packed
