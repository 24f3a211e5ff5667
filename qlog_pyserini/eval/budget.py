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
4. The query is a hit (1.0) when an admitted document has a grade > 0 in the qrels, else 0.0
   ("at least one fits"). With ``every=True`` it is a hit only when every document with a grade
   > 0 in the qrels is admitted ("every relevant document fits": an issue whose fix changes three
   files needs all three in context), so a relevant document the run does not rank, or that is
   not in the index at all, makes it a miss.

Queries are those of the qrels; a query the run lacks (or whose qrels hold no grade > 0) is a
miss, as trec_eval ``-c`` counts it. Queries only in the run are ignored. The aggregate is the
mean over queries: the share of queries whose context receives at least one relevant document
(with one relevant document per query, as in CodeSearchNet, this is exactly recall).

Tokens are counted offline by :func:`code_token_count` (see :data:`CODE_TOKEN_PATTERN`);
any ``str -> int`` counter (a model's real tokenizer, say) can be plugged in instead.

:func:`recall_from_arrays` walks a columnar run (:class:`~qlog_pyserini.eval.metrics.RunArrays`)
with numpy, one rank at a time for every query at once; :class:`TokenCounts` keeps each
document's count in an array over the index's docid table, so a sweep counts a document once
whatever the number of queries and q values. :func:`recall_at_token_budgets` takes
``{qid: [Hit]}`` and converts it once.
"""

from __future__ import annotations

import re
from typing import Callable, Iterable, Mapping, Sequence

import numpy as np
import pandas as pd

from qlog_pyserini.errors import QLogError
from qlog_pyserini.eval.metrics import DocidTable, QrelsArrays, RunArrays
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
    return len(_CODE_TOKEN_RE.findall(text))


def check_budgets(budgets: Iterable[int]) -> list[int]:
    """The token budgets as a list of distinct integers >= 1; :class:`QLogError` naming a bad one."""
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


class TokenCounts:
    """Token counts of a docid table's documents, each counted at most once and kept as an array.

    ``counts[key]`` is -1 until the walk first reads document ``key``; then its text is fetched and
    counted with ``count_tokens``. The text comes from ``doc_text(docid)`` (a mapping or a function
    of the docid), or, with ``texts_of``, from ``texts_of(keys)``: the texts of many documents at
    once, by key (an index's Lucene doc numbers, see
    :class:`qlog_pyserini.lucene.stored.StoredTexts`), asked for in ascending key order. Keep one per
    open index: every run of a sweep (every q) then reads each document's text once, not once per
    query per q.
    """

    def __init__(self, docids: DocidTable, doc_text: Mapping[str, str] | Callable[[str], str] | None = None,
                 count_tokens: Callable[[str], int] = code_token_count, *,
                 texts_of: Callable[[np.ndarray], Sequence[str]] | None = None) -> None:
        if (doc_text is None) == (texts_of is None):
            raise QLogError("token counts need the documents' texts: give doc_text or texts_of, not both")
        self.docids = docids
        if texts_of is None:
            lookup = doc_text.__getitem__ if isinstance(doc_text, Mapping) else doc_text
            texts_of = lambda keys: [lookup(self.docids.docids[k]) for k in keys.tolist()]  # noqa: E731
        self._texts_of = texts_of
        self._count = count_tokens
        self.counts = np.full(len(docids), -1, dtype=np.int64)

    def of(self, keys: np.ndarray) -> np.ndarray:
        """Token counts of documents ``keys``, counting the ones not seen before."""
        new = np.unique(keys[self.counts[keys] < 0])
        if new.size:
            try:
                texts = self._texts_of(new)
            except KeyError as e:
                missing = e.args[0] if e.args else "?"
                raise QLogError(f"no text for document {missing!r}, ranked in the run") from None
            if len(texts) != new.size:
                raise QLogError(f"{len(texts)} texts for {new.size} documents")
            for key, text in zip(new.tolist(), texts):
                n = self._count(text)
                if isinstance(n, bool) or not isinstance(n, (int, np.integer)) or n < 0:
                    raise QLogError(f"token counter returned {n!r} for document {self.docids.docids[key]!r}; "
                                    "it must return an integer >= 0")
                self.counts[key] = int(n)
        return self.counts[keys]


def tokens_to_first_relevant(run: RunArrays, qrels: QrelsArrays, tokens: TokenCounts,
                             limit: float = float("inf"), every: bool = False) -> np.ndarray:
    """Per qrels query, the tokens a rank-order walk holds once it has admitted the first relevant document.

    That is the sum of the token counts of every document up to and including the first one with a
    grade > 0. A budget K admits it exactly when this sum is <= K (the running total only grows, so
    the stop-at-first-overflow walk admits precisely the prefix whose sum is <= K). ``inf`` when no
    relevant document is ranked, or once the sum exceeds ``limit``. The walk steps one rank at a
    time for all open queries together and reads only the documents the walk reaches: none after
    a query's first relevant document or its first overflow of ``limit``, none of a ranking that
    holds no relevant document (a miss whatever the counts). With ``every``, the walk goes to the
    query's last relevant document instead, and a ranking that lacks one of them is a miss.
    """
    position = qrels.query_positions(run.qids)
    return _per_qrels_query(_walk(run.offsets, run.docs, position, run, qrels, tokens, limit, every),
                            position, qrels)


def _per_qrels_query(found: np.ndarray, position: np.ndarray, qrels: QrelsArrays) -> np.ndarray:
    """Each ranking's tokens (``found``) at its qrels query's place (``position``; -1: none), ``inf`` elsewhere."""
    need = np.full(len(qrels.qids), np.inf)
    judged = position >= 0
    need[position[judged]] = found[judged]
    return need


def _walk(offsets: np.ndarray, docs: np.ndarray, position: np.ndarray, run: RunArrays, qrels: QrelsArrays,
          tokens: TokenCounts, limit: float, every: bool = False) -> np.ndarray:
    """:func:`tokens_to_first_relevant` per ranking of ``offsets``/``docs`` (``position``: each ranking's
    qrels query, -1 for none; ``run`` gives the docid table), ``inf`` where it is a miss."""
    starts = offsets[:-1]
    lex_rank = run.docids.lex_rank
    # Only judged documents can be relevant: grade those hits alone, not the whole run.
    candidates = np.flatnonzero(qrels.judged_lex[lex_rank[docs]])
    query = np.searchsorted(offsets, candidates, side="right") - 1
    judged = position[query] >= 0
    candidates, query = candidates[judged], query[judged]
    relevant = qrels.grades(position[query], lex_rank[docs[candidates]]) > 0
    # Hits are query-major, rank-minor: a query's first relevant hit is its first in array order.
    found_query, found_at = query[relevant], candidates[relevant]
    if every:
        # the walk's end is the last relevant hit, first in reversed order; a ranking holding fewer
        # relevant hits than the qrels' count of relevant documents can never admit them all
        queries, from_end, ranked = np.unique(found_query[::-1], return_index=True, return_counts=True)
        where = found_query.size - 1 - from_end
        complete = ranked >= qrels.num_rel[position[queries]]
        queries, where = queries[complete], where[complete]
    else:
        queries, where = np.unique(found_query, return_index=True)
    first = np.full(starts.size, -1, dtype=np.int64)
    first[queries] = found_at[where] - starts[queries]

    need = np.full(starts.size, np.inf)
    active = np.flatnonzero(first >= 0)  # judged rankings that rank a relevant document
    total = np.zeros(starts.size)
    r = 0
    while active.size:
        total[active] += tokens.of(docs[starts[active] + r])
        open_ = total[active] <= limit
        reached = open_ & (first[active] == r)
        need[active[reached]] = total[active[reached]]
        active = active[open_ & ~reached]
        r += 1
    return need


def recall_of_runs(runs: Sequence[RunArrays], qrels: QrelsArrays, tokens: TokenCounts,
                   budgets: Iterable[int] = DEFAULT_BUDGETS, every: bool = False) -> list[np.ndarray]:
    """:func:`recall_from_arrays`' tables, as arrays (qrels queries x budgets), of several runs of the same
    docid table in one walk: each rank step reads the documents of every run at once (a sweep's grid
    measures its models' runs of a batch of queries together). ``every``: see the module docstring."""
    ks = check_budgets(budgets)
    for run in runs:
        if not (run.docids is qrels.table is tokens.docids):
            raise QLogError("the run, the qrels and the token counts were built on different docid tables")
    if not runs:
        return []
    sizes = [run.qids.size for run in runs]
    offsets = np.concatenate([[0]] + [run.offsets[1:] + shift for run, shift in
                                      zip(runs, np.cumsum([0] + [run.docs.size for run in runs[:-1]]))])
    docs = np.concatenate([run.docs for run in runs])
    position = np.concatenate([qrels.query_positions(run.qids) for run in runs])
    found = _walk(offsets, docs, position, runs[0], qrels, tokens, max(ks), every)
    tables, at = [], 0
    for size in sizes:
        need = _per_qrels_query(found[at:at + size], position[at:at + size], qrels)
        tables.append(np.stack([(need <= k).astype(float) for k in ks], axis=1))
        at += size
    return tables


def recall_from_arrays(run: RunArrays, qrels: QrelsArrays, tokens: TokenCounts,
                       budgets: Iterable[int] = DEFAULT_BUDGETS, every: bool = False) -> pd.DataFrame:
    """Per-query hits (1.0/0.0) at each token budget for a columnar run (rank order); see the module docstring.

    ``qrels`` and ``tokens`` must be built on ``run``'s docid table; build both once per index and
    reuse them for every run. Rows are the qrels' queries in their order, one column per budget.
    ``every`` asks that every relevant document fit, not at least one.
    """
    ks = check_budgets(budgets)
    (table,) = recall_of_runs([run], qrels, tokens, ks, every)
    return pd.DataFrame(table, index=pd.Index(qrels.qids, name="qid"), columns=list(ks))


def recall_at_token_budgets(run: Mapping[str, Sequence[Hit]], qrels: Mapping[str, Mapping[str, int]],
                            doc_text: Mapping[str, str] | Callable[[str], str],
                            budgets: Iterable[int] = DEFAULT_BUDGETS,
                            count_tokens: Callable[[str], int] = code_token_count,
                            every: bool = False) -> pd.DataFrame:
    """Per-query hits (1.0/0.0) at each token budget; see the module docstring for the walk (and ``every``).

    ``run`` is ``{qid: [Hit, ...]}`` in rank order (as :func:`qlog_pyserini.formats.trec.read_run`
    gives), ``qrels`` is ``{qid: {docid: grade}}``, ``doc_text`` maps a docid to its text (a
    mapping, or a function such as an index lookup). Returns a DataFrame indexed by qid (qrels
    order) with one column per budget, labelled by the integer budget. Each document's text is
    fetched and counted at most once; :func:`recall_from_arrays` does the work.
    """
    ks = check_budgets(budgets)
    # The walk never reads past a query's first relevant document (its last, with ``every``), so only
    # that prefix is converted.
    prefixes: dict[str, Sequence[Hit]] = {}
    for qid, judged in qrels.items():
        relevant = {d for d, g in judged.items() if g > 0}
        hits = run.get(qid, ()) if relevant else ()
        at = [i + 1 for i, hit in enumerate(hits) if hit.docid in relevant]
        end = (at[-1] if len(at) == len(relevant) else 0) if every else (at[0] if at else 0)
        if end:
            prefixes[qid] = hits[:end]
    arrays = RunArrays.from_hits(prefixes)
    return recall_from_arrays(arrays, QrelsArrays.build(qrels, arrays.docids),
                              TokenCounts(arrays.docids, doc_text, count_tokens), ks, every)


def recall_at_budgets(per_query: pd.DataFrame) -> pd.Series:
    """Recall@K-tokens per budget: the mean over queries of :func:`recall_at_token_budgets`' table."""
    if per_query.empty:
        raise QLogError("no queries to average")
    return per_query.mean(axis=0).rename("recall")
