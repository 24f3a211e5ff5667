"""trec_eval's per-query measures computed in process, from a run held as arrays.

:func:`evaluate` gives the same :class:`~qlog_pyserini.eval.trec_eval.EvalResult` as
:func:`~qlog_pyserini.eval.trec_eval.trec_eval` (``-c`` and ``-q`` as asked) for the measures
in :data:`SUPPORTED`, without writing a run file or starting a JVM, and with no Python loop over
hits: a sweep can score every q in the time numpy takes to sort and sum the hits once.

A run is a :class:`RunArrays`: per query (in ``qids``) a slice ``offsets[i]:offsets[i + 1]`` of
``docs`` (integer keys into a docid table, e.g. Lucene doc numbers into the index's external ids)
and ``scores`` (float32), in rank order. :meth:`RunArrays.from_hits` converts ``{qid: [Hit]}``
(what :func:`~qlog_pyserini.formats.trec.read_run` and ``batch_search`` return) once.

Each measure follows trec_eval 9 (``form_res_rels.c``, ``m_*.c``): its score order and tie-breaking,
relevance at grade >= 1, ``-c``. docs/evaluation.md gives every rule, and ``tests/eval/test_metrics.py``
checks the values against the trec_eval binary's on real runs.
"""

from __future__ import annotations

import functools
import threading
import weakref
from dataclasses import dataclass
from typing import Any, Mapping, Sequence

import numpy as np
import pandas as pd

from qlog_pyserini.errors import QLogError
from qlog_pyserini.eval.trec_eval import DEFAULT_CUTOFFS, DEFAULT_METRICS, EvalResult, check_metrics
from qlog_pyserini.formats.trec import Hit

#: trec_eval measures computed here; any other goes to the trec_eval binary.
SUPPORTED: tuple[str, ...] = ("ndcg_cut", "ndcg", "recip_rank", "map", "P", "recall", "success")
ORDERS = ("score", "rank")


class DocidTable:
    """External docids with their ``strcmp`` order, built once per index and shared by every run.

    ``lex_rank[key]`` is the position of ``docids[key]`` among the distinct docids sorted as
    trec_eval's ``strcmp`` sorts them (Python compares code points, the same order as UTF-8
    bytes); a docid present twice gets one rank, so two keys with one docid are one document.
    """

    def __init__(self, docids: Sequence[str] | np.ndarray) -> None:
        values = np.asarray(docids, dtype=object)
        if values.ndim != 1:
            raise QLogError(f"a docid table is one-dimensional, got shape {values.shape}")
        if values.size and isinstance(values[0], bytes):
            values = np.array([v.decode("utf-8") for v in values], dtype=object)
        self.docids = values
        order = np.argsort(values, kind="stable")
        ordered = values[order]
        new = np.ones(values.size, dtype=bool)
        new[1:] = ordered[1:] != ordered[:-1]
        ranks = np.cumsum(new) - 1
        self.lex_rank = np.empty(values.size, dtype=np.int64)
        self.lex_rank[order] = ranks
        self.distinct = ordered[new]
        self.repeats = bool(self.distinct.size < values.size)  # some docid is held by two keys

    def __len__(self) -> int:
        return int(self.docids.size)

    def ranks_of(self, docids: Sequence[str]) -> np.ndarray:
        """Lexicographic rank of each of ``docids`` in this table, -1 for one not in it."""
        wanted = np.asarray(list(docids), dtype=object)
        if wanted.size == 0 or self.distinct.size == 0:
            return np.full(wanted.size, -1, dtype=np.int64)
        pos = np.searchsorted(self.distinct, wanted)
        clipped = np.minimum(pos, self.distinct.size - 1)
        return np.where(self.distinct[clipped] == wanted, clipped, -1).astype(np.int64)


# One DocidTable (one sort of the ids) per search-side docid table, dropped with it.
_TABLES: "weakref.WeakKeyDictionary[Any, DocidTable]" = weakref.WeakKeyDictionary()
_TABLES_LOCK = threading.Lock()


def docid_table_for(source: Any) -> DocidTable:
    """The :class:`DocidTable` of a search-side docid table (an object whose ``ids`` are the docids by
    Lucene doc number), built on first use and kept while ``source`` lives, so every run of one open
    index (every q of a sweep) shares one sort of its ids."""
    with _TABLES_LOCK:
        table = _TABLES.get(source)
        if table is None:
            table = _TABLES[source] = DocidTable(source.ids)
        return table


@dataclass(frozen=True)
class RunArrays:
    """A run as columns: query ``i``'s hits are ``docs[offsets[i]:offsets[i+1]]`` (and ``scores``), in rank order.

    ``qids`` are unique; ``docs`` are integer keys into ``docids`` (a :class:`DocidTable`, or
    anything :class:`DocidTable` takes); ``scores`` are float32 (trec_eval reads a C float).
    ``distinct_docs`` promises that no key appears twice within one query (a Lucene top-k never
    returns a document twice), which spares :func:`evaluate` its check for a docid listed twice
    when the table holds every docid once.
    """

    qids: np.ndarray
    offsets: np.ndarray
    docs: np.ndarray
    scores: np.ndarray
    docids: DocidTable
    distinct_docs: bool = False

    def __post_init__(self) -> None:
        table = self.docids if isinstance(self.docids, DocidTable) else DocidTable(self.docids)
        qids = np.asarray(self.qids, dtype=object)
        offsets = np.asarray(self.offsets, dtype=np.int64)
        docs = np.asarray(self.docs, dtype=np.int64)
        scores = np.asarray(self.scores, dtype=np.float32)
        if offsets.shape != (qids.size + 1,) or (offsets.size and offsets[0] != 0) or np.any(np.diff(offsets) < 0):
            raise QLogError(f"offsets must rise from 0 in {qids.size + 1} steps, one more than the qids")
        if docs.shape != (int(offsets[-1]),) or scores.shape != docs.shape:
            raise QLogError(f"offsets end at {int(offsets[-1])} but there are {docs.size} docs and {scores.size} scores")
        if docs.size and (docs.min() < 0 or docs.max() >= len(table)):
            raise QLogError(f"doc keys must lie in [0, {len(table)}), the docid table's size")
        if not np.isfinite(scores).all():
            raise QLogError("a run's scores must be finite numbers")
        if len(set(qids.tolist())) != qids.size:
            raise QLogError("a run lists a query twice")
        for name, value in (("docids", table), ("qids", qids), ("offsets", offsets), ("docs", docs), ("scores", scores)):
            object.__setattr__(self, name, value)

    @classmethod
    def from_query_index(cls, query: np.ndarray, docs: np.ndarray, scores: np.ndarray,
                         qids: Sequence[str], docids: DocidTable | Sequence[str]) -> "RunArrays":
        """From per-hit query indexes into ``qids`` (hits of one query in rank order, queries in any order)."""
        query = np.asarray(query, dtype=np.int64)
        if query.size and (query.min() < 0 or query.max() >= len(qids)):
            raise QLogError(f"query indexes must lie in [0, {len(qids)})")
        order = np.argsort(query, kind="stable")
        offsets = np.concatenate(([0], np.cumsum(np.bincount(query, minlength=len(qids)))))
        return cls(np.asarray(qids, dtype=object), offsets, np.asarray(docs)[order], np.asarray(scores)[order], docids)

    @classmethod
    def from_batch(cls, batch: Any) -> "RunArrays":
        """From a columnar search result (:class:`qlog_pyserini.lucene.results.BatchResults` or any
        object with ``qids``, ``offsets``, ``docs``, ``scores`` and a ``table`` whose ``ids`` are the
        index's docids by Lucene doc number); no copy of the hits, one :class:`DocidTable` per index."""
        return cls(np.asarray(batch.qids, dtype=object), batch.offsets, batch.docs, batch.scores,
                   docid_table_for(batch.table), distinct_docs=True)

    @classmethod
    def from_hits(cls, run: Mapping[str, Sequence[Hit]], docids: DocidTable | None = None) -> "RunArrays":
        """From ``{qid: [Hit, ...]}`` in rank order; docids are looked up in ``docids`` or tabled here."""
        qids = [str(q) for q in run]
        counts = [len(hits) for hits in run.values()]
        names = [h.docid for hits in run.values() for h in hits]
        scores = np.fromiter((h.score for hits in run.values() for h in hits), dtype=np.float64, count=len(names))
        if docids is None:
            # A dict numbers the distinct docids in one pass; sorting a million Python strings would not.
            number: dict[str, int] = {}
            keys = np.fromiter((number.setdefault(d, len(number)) for d in names), dtype=np.int64, count=len(names))
            docids = DocidTable(list(number))
        else:
            keys = _keys_in(docids, names)
        offsets = np.concatenate(([0], np.cumsum(counts, dtype=np.int64)))
        # float64 -> float32 rounds as C's (float) atof(text) does, the score trec_eval compares.
        return cls(np.asarray(qids, dtype=object), offsets, np.asarray(keys, dtype=np.int64),
                   scores.astype(np.float32), docids)


def _keys_in(table: DocidTable, names: Sequence[str]) -> np.ndarray:
    lex = table.ranks_of(names)
    if np.any(lex < 0):
        missing = names[int(np.flatnonzero(lex < 0)[0])]
        raise QLogError(f"docid {missing!r} of the run is not in the docid table")
    first_key = np.empty(int(table.lex_rank.max()) + 1 if len(table) else 0, dtype=np.int64)
    first_key[table.lex_rank[::-1]] = np.arange(len(table) - 1, -1, -1)
    return first_key[lex]


@dataclass(frozen=True)
class QrelsArrays:
    """Judgments aligned with a :class:`DocidTable`: what :func:`evaluate` needs, built once per qrels and table."""

    qids: list[str]
    num_rel: np.ndarray          # judged documents with grade >= 1, per query
    judged_keys: np.ndarray      # sorted query * len(table) + lex rank, of judged docs in the table
    judged_grades: np.ndarray    # their grades, aligned with judged_keys
    ideal_query: np.ndarray      # positive grades, grouped by query, sorted descending in each
    ideal_grades: np.ndarray
    ideal_rank: np.ndarray       # 0-based position of each ideal grade within its query
    table: DocidTable
    judged_lex: np.ndarray       # per lex rank of the table: judged for some query (any grade)

    @classmethod
    def build(cls, qrels: Mapping[str, Mapping[str, int]], table: DocidTable) -> "QrelsArrays":
        """Table ``qrels`` (``{qid: {docid: grade}}``, as :func:`~qlog_pyserini.formats.trec.read_qrels`) for ``table``."""
        qids = [str(q) for q in qrels]
        counts = np.array([len(d) for d in qrels.values()], dtype=np.int64)
        query = np.repeat(np.arange(len(qids), dtype=np.int64), counts)
        grades = np.fromiter((int(g) for d in qrels.values() for g in d.values()), dtype=np.int64, count=int(counts.sum()))
        lex = table.ranks_of([str(doc) for d in qrels.values() for doc in d])
        width = max(len(table), 1)
        inside = lex >= 0
        keys = query[inside] * width + lex[inside]
        order = np.argsort(keys, kind="stable")
        positive = grades > 0
        ideal = np.lexsort((-grades[positive], query[positive]))
        ideal_query = query[positive][ideal]
        judged_lex = np.zeros(len(table.distinct), dtype=bool)
        judged_lex[lex[inside]] = True
        return cls(qids=qids,
                   num_rel=np.bincount(query[grades >= 1], minlength=len(qids)),
                   judged_keys=keys[order], judged_grades=grades[inside][order],
                   ideal_query=ideal_query, ideal_grades=grades[positive][ideal],
                   ideal_rank=_rank_in_group(ideal_query), table=table, judged_lex=judged_lex)

    def grades(self, query: np.ndarray, lex: np.ndarray) -> np.ndarray:
        """The grade of each (qrels query index, lexicographic docid rank) pair; 0 where not judged."""
        grade = np.zeros(np.size(lex), dtype=np.int64)
        if self.judged_keys.size:
            # a document no query judges has grade 0 everywhere: only the others are looked up
            maybe = np.flatnonzero(self.judged_lex[lex])
            keys = query[maybe] * max(len(self.table), 1) + lex[maybe]
            pos = np.minimum(np.searchsorted(self.judged_keys, keys), self.judged_keys.size - 1)
            hit = self.judged_keys[pos] == keys
            grade[maybe[hit]] = self.judged_grades[pos[hit]]
        return grade

    @functools.cached_property
    def _position(self) -> dict[str, int]:
        # built once: a sweep asks for the positions of every batch of every grid point
        return {q: i for i, q in enumerate(self.qids)}

    def query_positions(self, qids: np.ndarray) -> np.ndarray:
        """Index of each of ``qids`` among these qrels' queries, -1 for a query they do not judge."""
        position = self._position
        return np.array([position.get(q, -1) for q in np.asarray(qids, dtype=object).tolist()], dtype=np.int64)

    def ideal_dcg(self, cutoff: int | None) -> np.ndarray:
        """Per-query DCG of the ideal ranking, cut at ``cutoff`` (None: not cut)."""
        keep = slice(None) if cutoff is None else self.ideal_rank < cutoff
        gains = self.ideal_grades[keep] / np.log2(self.ideal_rank[keep] + 2.0)
        return np.bincount(self.ideal_query[keep], weights=gains, minlength=len(self.qids))


def _rank_in_group(group: np.ndarray) -> np.ndarray:
    """0-based position of each element within its run of equal ``group`` values (``group`` sorted)."""
    if group.size == 0:
        return np.zeros(0, dtype=np.int64)
    starts = np.flatnonzero(np.concatenate(([True], group[1:] != group[:-1])))
    sizes = np.diff(np.concatenate((starts, [group.size])))
    return np.arange(group.size, dtype=np.int64) - np.repeat(starts, sizes)


def parse_supported(metrics: str | Sequence[str]) -> list[tuple[str, str, int | None]]:
    """``(exposed name, measure, cutoff)`` for each value ``metrics`` asks for, as trec_eval names them.

    ``P.5,10`` gives ``P.5`` and ``P.10``; a bare cutoff measure gives trec_eval's default cutoffs.
    A measure not in :data:`SUPPORTED` is a :class:`QLogError` naming the trec_eval route.
    """
    out: list[tuple[str, str, int | None]] = []
    for metric in check_metrics(metrics):
        base, _, params = metric.partition(".")
        if base not in SUPPORTED:
            raise QLogError(f"metric {metric!r} is not computed in process (only {', '.join(SUPPORTED)}); "
                            "score the run file with trec_eval instead")
        if base not in DEFAULT_CUTOFFS:
            if params:
                raise QLogError(f"metric {metric!r}: {base} takes no parameters here")
            out.append((base, base, None))
            continue
        pieces = params.split(",") if params else [str(k) for k in DEFAULT_CUTOFFS[base]]
        for piece in pieces:
            if not piece.isdigit() or int(piece) < 1:
                raise QLogError(f"metric {metric!r}: cutoff {piece!r} must be a positive integer")
            name = f"{base}.{int(piece)}"
            if name not in [o[0] for o in out]:
                out.append((name, base, int(piece)))
    return out


def _as_run(run: RunArrays | Mapping[str, Sequence[Hit]], table: DocidTable | None) -> RunArrays:
    if isinstance(run, RunArrays):
        return run
    if all(hasattr(run, name) for name in ("offsets", "docs", "scores", "table")) and table is None:
        return RunArrays.from_batch(run)  # a columnar search batch: no Hit objects made
    return RunArrays.from_hits(run, table)


@dataclass(frozen=True)
class _Ranked:
    """The relevant hits of a run (grade >= 1; no other hit changes a measure here), in trec_eval's
    order: qrels query index, rank among all of the query's evaluated hits, grade."""

    query: np.ndarray
    rank: np.ndarray
    grade: np.ndarray
    present: np.ndarray  # per qrels query: the run retrieved something for it


def _trec_eval_order(query: np.ndarray, scores: np.ndarray, lex: np.ndarray, width: int) -> np.ndarray | None:
    """The permutation that puts hits grouped by query into trec_eval's order, or None if they are in it.

    A run whose scores strictly decrease as float32 (as ours are written) needs none; one whose
    scores only do not increase needs its ties reordered by docid descending, a stable sort of
    nearly sorted integers; anything else gets the full (query, score, docid) sort.
    """
    same = query[1:] == query[:-1]
    ahead = (scores[:-1] > scores[1:]) | ((scores[:-1] == scores[1:]) & (lex[:-1] > lex[1:]))
    if np.all(ahead | ~same):
        return None
    if np.all((scores[:-1] >= scores[1:]) | ~same):
        block = np.concatenate(([0], np.cumsum(~same | (scores[:-1] != scores[1:]))))
        return np.argsort(block * width - lex, kind="stable")
    # lexsort's last key is primary: query, then score descending, then docno descending (strcmp).
    return np.lexsort((-lex, -scores, query))


def _ranked(run: RunArrays, qrels: QrelsArrays, order: str) -> _Ranked:
    if order not in ORDERS:
        raise QLogError(f"unknown order {order!r}; choose one of {', '.join(ORDERS)}")
    if run.docids is not qrels.table:
        raise QLogError("the run and the qrels were tabled against different docid tables")
    per_hit = np.repeat(qrels.query_positions(run.qids), np.diff(run.offsets))
    keep = per_hit >= 0
    query, lex, scores = per_hit[keep], run.docids.lex_rank[run.docs[keep]], run.scores[keep]
    width = max(len(run.docids), 1)
    # Hits of one query are contiguous and in rank order (the run's layout); re-sort only where trec_eval would.
    idx = _trec_eval_order(query, scores, lex, width) if order == "score" else None
    if idx is not None:
        query, lex = query[idx], lex[idx]
    if query.size > 1 and not (run.distinct_docs and not run.docids.repeats):
        seen = np.sort(query * width + lex)
        dup = np.flatnonzero(seen[1:] == seen[:-1])
        if dup.size:
            k = int(seen[dup[0]])
            raise QLogError(f"query {qrels.qids[k // width]!r} lists docid "
                            f"{run.docids.distinct[k % width]!r} twice; trec_eval refuses such a run")
    grade = qrels.grades(query, lex)
    present = np.zeros(len(qrels.qids), dtype=bool)
    present[query] = True
    relevant = np.flatnonzero(grade >= 1)
    return _Ranked(query=query[relevant], rank=_rank_in_group(query)[relevant], grade=grade[relevant],
                   present=present)


def _measure(ranked: _Ranked, qrels: QrelsArrays, measure: str, cutoff: int | None) -> np.ndarray:
    n = len(qrels.qids)
    q, rank, grade = ranked.query, ranked.rank, ranked.grade  # relevant hits only, grouped by query in rank order
    relevant = np.ones(q.size, dtype=bool)

    def per_query(mask: np.ndarray, weights: np.ndarray | None = None) -> np.ndarray:
        return np.bincount(q[mask], weights=None if weights is None else weights[mask], minlength=n).astype(float)

    def divide(top: np.ndarray, bottom: np.ndarray) -> np.ndarray:
        out = np.zeros(n)
        np.divide(top, bottom, out=out, where=bottom > 0)
        return out

    if measure in ("ndcg", "ndcg_cut"):
        within = rank < cutoff if cutoff is not None else np.ones(rank.size, dtype=bool)
        gains = np.where(grade > 0, grade, 0) / np.log2(rank + 2.0)
        return divide(per_query(within & (grade > 0), gains), qrels.ideal_dcg(cutoff))
    if measure == "recip_rank":
        first = np.full(n, np.inf)
        np.minimum.at(first, q[relevant], rank[relevant] + 1.0)
        return 1.0 / first
    if measure == "map":
        # rel_so_far at each relevant hit: its place among its query's relevant hits, from 1.
        precision = (_rank_in_group(q) + 1.0) / (rank + 1.0)
        return divide(per_query(relevant, precision), qrels.num_rel.astype(float))
    found = per_query(relevant & (rank < cutoff))
    if measure == "P":
        return found / cutoff
    if measure == "recall":
        return divide(found, qrels.num_rel.astype(float))
    return (found > 0).astype(float)  # success


def metric_names(metrics: str | Sequence[str]) -> list[str]:
    """The column names :func:`evaluate` gives ``metrics`` (``P.5,10`` -> ``P.5``, ``P.10``), in order."""
    return [name for name, _, _ in parse_supported(metrics)]


def evaluate_arrays(run: RunArrays, qrels: QrelsArrays, metrics: str | Sequence[str] = DEFAULT_METRICS,
                    order: str = "score") -> tuple[np.ndarray, np.ndarray]:
    """:func:`evaluate`'s values as arrays, with no table made: ``(values, present)``, ``values`` one row per
    qrels query (their order) and one column per :func:`metric_names` name (0 where the run does not answer
    the query), ``present`` whether the run answers each qrels query. ``qrels`` is built on ``run``'s docid table.

    A sweep measures hundreds of runs of a few queries each; a table per run would cost more than the measures.
    """
    wanted = parse_supported(metrics)
    if not qrels.qids:
        raise QLogError("the qrels judge no query")
    ranked = _ranked(run, qrels, order)
    values = np.zeros((len(qrels.qids), len(wanted)))
    for j, (_, measure, cutoff) in enumerate(wanted):
        values[:, j] = np.where(ranked.present, _measure(ranked, qrels, measure, cutoff), 0.0)
    return values, ranked.present


def evaluate(run: RunArrays | Mapping[str, Sequence[Hit]], qrels: Mapping[str, Mapping[str, int]] | QrelsArrays,
             metrics: str | Sequence[str] = DEFAULT_METRICS, complete: bool = True,
             order: str = "score") -> EvalResult:
    """trec_eval's ``-q`` (and ``-c`` when ``complete``) values for ``run``, computed in process.

    ``run`` is a :class:`RunArrays` or ``{qid: [Hit]}``; ``qrels`` is ``{qid: {docid: grade}}``
    or a :class:`QrelsArrays` built for the run's docid table (build it once to score many runs
    of one index). ``metrics`` are trec_eval names from :data:`SUPPORTED` (``ndcg_cut.10``,
    ``P.5,10``, ``map``). ``order`` is ``score`` (trec_eval's re-sort by float32 score, ties by
    docid descending) or ``rank`` (the given order). Rows follow the qrels' order; the aggregate
    is their mean, as trec_eval's ``all`` row (NaN when ``complete`` is off and no judged query was
    answered, so a batch of a longer run can be scored alone). See the module docstring for each measure.
    """
    table = qrels.table if isinstance(qrels, QrelsArrays) else None
    arrays = _as_run(run, table)
    judged = qrels if isinstance(qrels, QrelsArrays) else QrelsArrays.build(qrels, arrays.docids)
    values, present = evaluate_arrays(arrays, judged, metrics, order)
    rows = np.ones(len(judged.qids), dtype=bool) if complete else present
    columns = {name: values[rows, j] for j, name in enumerate(metric_names(metrics))}
    index = pd.Index([q for q, keep in zip(judged.qids, rows) if keep], name="qid")
    per_query = pd.DataFrame(columns, index=index)
    # Without complete, a run (or a batch of one) that answers no judged query has no rows and NaN means.
    aggregate = {name: float(per_query[name].mean()) if len(index) else float("nan") for name in per_query.columns}
    return EvalResult(aggregate=aggregate, per_query=per_query)
