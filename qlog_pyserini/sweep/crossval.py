"""k-fold cross-validated parameter choice over queries: an honest estimate beside the oracle.

The oracle of a sweep picks the grid value with the best mean metric over the very queries it is
then scored on, so its gain is optimistic. Cross-validation removes that: the judged queries are
split into ``folds`` folds by a seeded shuffle (query ``i`` of the shuffled order goes to fold
``i mod folds``, so fold sizes differ by at most one); for each fold the value is chosen on the
OTHER folds (best mean metric, ties toward the BM25-equivalent value, as the oracle is chosen),
and the fold's queries are scored at that value. Every query is scored exactly once, at a value
chosen without it; the assembled per-query scores are compared with BM25 by the same paired tests
as the oracle (:func:`qlog_pyserini.eval.significance.compare_scores`).

Folds can also be dealt by group (:func:`group_fold_assignment`): every query of a group (an
issue's repository, say) lands in one fold, so a value is never chosen on queries of the group it
is then scored on.

A grid value is a number (q) or a tuple of numbers (a point of a (k1, b) or (b, q) grid); ties go
to the value closest to the reference, by the sum of the coordinates' distances for tuples.

Everything here is pure: it reads the per-query table a sweep already measured, so it costs no
search.
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from typing import Hashable, Mapping, Sequence, Union

import pandas as pd

from qlog_pyserini.errors import QLogError

DEFAULT_FOLDS = 5
TIE = 1e-12

Value = Union[float, tuple[float, ...]]  # a grid value: q, or a point of a grid over several parameters


def distance(value: Value, reference: Value) -> float:
    """How far ``value`` is from ``reference``: ``|v - r|``, summed over coordinates for tuples."""
    if isinstance(value, tuple):
        return sum(abs(v - r) for v, r in zip(value, reference))  # type: ignore[arg-type]
    return abs(value - reference)  # type: ignore[operator]


def as_value(label: object) -> Value:
    """A table's column label as a grid value (a number, or a tuple of numbers)."""
    return tuple(float(x) for x in label) if isinstance(label, tuple) else float(label)  # type: ignore[arg-type]


def choose_best(scores: Mapping[Value, float], reference: Value | None) -> Value:
    """The value with the highest score; ties (within 1e-12) go to the value closest to ``reference``.

    Without a reference, ties go to the smallest value.
    """
    if not scores:
        raise QLogError("no scores to choose from")
    best = max(scores.values())
    tied = sorted(v for v, s in scores.items() if s >= best - TIE)
    if reference is None:
        return tied[0]
    return min(tied, key=lambda v: (distance(v, reference), v))


def fold_assignment(qids: Sequence[str], folds: int = DEFAULT_FOLDS, seed: int = 0) -> dict[str, int]:
    """``{qid: fold}``: a seeded shuffle of the sorted qids, dealt round-robin into ``folds`` folds.

    The result depends only on the set of qids, ``folds`` and ``seed`` (not on their order).
    ``folds`` is capped at the number of queries; at least 2 folds and 2 queries are needed.
    """
    if not isinstance(folds, int) or isinstance(folds, bool) or folds < 2:
        raise QLogError(f"illegal folds value: {folds!r}, must be an integer >= 2")
    order = sorted(set(qids))
    if len(order) != len(qids):
        raise QLogError("query ids must be unique")
    if len(order) < 2:
        raise QLogError(f"cross-validation needs at least 2 queries, got {len(order)}")
    random.Random(seed).shuffle(order)
    k = min(folds, len(order))
    return {q: i % k for i, q in enumerate(order)}


def group_fold_assignment(group_of: Mapping[str, Hashable], folds: int = DEFAULT_FOLDS,
                          seed: int = 0) -> dict[str, int]:
    """``{qid: fold}`` with every query of a group in one fold (``group_of``: qid -> group).

    The groups are shuffled by ``seed`` (from their sorted order), then taken largest first (a stable
    sort, so equal sizes keep the shuffled order) and each put in the fold holding the fewest queries
    so far (the lowest-numbered on a tie): folds as even as whole groups allow, the same for the same
    groups, ``folds`` and ``seed``. ``folds`` is capped at the number of groups; at least 2 groups
    are needed.
    """
    if not isinstance(folds, int) or isinstance(folds, bool) or folds < 2:
        raise QLogError(f"illegal folds value: {folds!r}, must be an integer >= 2")
    members: dict[str, list[str]] = {}
    for qid, group in group_of.items():
        members.setdefault(str(group), []).append(str(qid))
    if len(members) < 2:
        raise QLogError(f"cross-validation by group needs at least 2 groups, got {len(members)}")
    order = sorted(members)
    random.Random(seed).shuffle(order)
    order.sort(key=lambda g: -len(members[g]))
    k = min(folds, len(order))
    sizes = [0] * k
    fold_of: dict[str, int] = {}
    for group in order:
        f = min(range(k), key=lambda i: (sizes[i], i))
        sizes[f] += len(members[group])
        for qid in members[group]:
            fold_of[qid] = f
    return fold_of


@dataclass(frozen=True)
class CrossValidated:
    """The outcome of :func:`cross_validate`.

    ``chosen[k]`` is the value chosen on every fold but ``k``; ``value_of[qid]`` the value query
    ``qid`` was scored at; ``per_query`` the assembled scores (indexed by qid, in the table's order).
    """

    folds: int
    seed: int
    chosen: tuple[Value, ...]
    fold_of: dict[str, int]
    value_of: dict[str, Value]
    per_query: pd.Series

    @property
    def score(self) -> float:
        """Mean of the assembled per-query scores: the cross-validated metric."""
        return float(self.per_query.mean())

    def record(self) -> dict:
        """JSON-ready summary (no per-query data)."""
        counts: dict[str, int] = {}
        for v in self.chosen:
            counts[value_text(v)] = counts.get(value_text(v), 0) + 1
        return {"folds": self.folds, "seed": self.seed, "chosen": [list(v) if isinstance(v, tuple) else v
                                                                   for v in self.chosen],
                "chosen_counts": counts, "score": self.score}


def value_text(value: Value) -> str:
    """``0.7``, or ``1.2/0.75`` for a tuple."""
    return "/".join(f"{v:g}" for v in value) if isinstance(value, tuple) else f"{value:g}"


def cross_validate(per_query: pd.DataFrame, reference: Value | None, folds: int = DEFAULT_FOLDS,
                   seed: int = 0, fold_of: Mapping[str, int] | None = None) -> CrossValidated:
    """Cross-validated choice of a column of ``per_query`` (rows = queries, columns = grid values).

    See the module docstring. ``reference`` is the BM25-equivalent value that ties break toward.
    ``fold_of`` gives the folds (e.g. :func:`group_fold_assignment`'s); by default
    :func:`fold_assignment` deals them from ``folds`` and ``seed``.
    """
    if per_query.empty or per_query.shape[1] == 0:
        raise QLogError("no per-query scores to cross-validate")
    if per_query.isna().any().any():
        raise QLogError("per-query scores contain missing values")
    qids = [str(q) for q in per_query.index]
    table = per_query.copy()
    table.index = qids
    if fold_of is None:
        fold_of = fold_assignment(qids, folds, seed)
    else:
        fold_of = {q: int(fold_of[q]) for q in qids}
        if len(set(fold_of.values())) < 2:
            raise QLogError("cross-validation needs at least 2 folds")
    k = max(fold_of.values()) + 1
    fold = pd.Series(fold_of).reindex(qids)
    chosen: list[float] = []
    value_of: dict[str, float] = {}
    assembled = pd.Series(index=qids, dtype=float)
    for f in range(k):
        train = table[fold != f]
        value = choose_best({as_value(c): float(s) for c, s in train.mean().items()}, reference)
        chosen.append(value)
        test = fold[fold == f].index
        column = next(c for c in table.columns if as_value(c) == value)
        assembled[test] = table.loc[test, column]
        for q in test:
            value_of[q] = value
    return CrossValidated(folds=k, seed=seed, chosen=tuple(chosen), fold_of=fold_of, value_of=value_of,
                          per_query=assembled)
