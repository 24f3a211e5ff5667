"""Tuned BM25 beside q-log BM25: the grids, and one cross-validation for every family of models.

A gain of q-log BM25 over BM25 at fixed (k1, b) could be a gain any tuning of BM25 would give (a
larger b, say, against BM25's weak length normalisation of long files). So a sweep measures three
families of grid points in the same pass and chooses in each with the same cross-validation (the same
folds, the same metric, ties toward the same BM25 point):

- ``qlog``: q over the q grid, k1 and b fixed (the sweep's ``--k1``/``--b``, 0.9 and 0.4 by default);
- ``bm25``: BM25 (q = 1) over every (k1, b) of ``--k1-grid`` x ``--b-grid``: tuned BM25;
- ``joint``: q over the q grid with b over ``--b-grid``, k1 fixed: the joint (b, q) choice.

Every point is a model ``(k1, b, q)``: q-log BM25, which is Lucene's BM25 exactly at q = 1. The engines'
own default, (k1 1.2, b 0.75), what Lucene's ``BM25Similarity()``, Elasticsearch, OpenSearch and Solr
use, is always measured as a point of its own.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Mapping, Sequence

import pandas as pd

from qlog_pyserini.errors import QLogError
from qlog_pyserini.formula import DEFAULT_B, DEFAULT_K1, check_float_parameter
from qlog_pyserini.sweep.crossval import CrossValidated, choose_best, cross_validate

Point = tuple[float, float, float]  # (k1, b, q)

ENGINE_K1, ENGINE_B = 1.2, 0.75  # Lucene's BM25Similarity() defaults, which Elasticsearch, OpenSearch and Solr ship
DEFAULT_K1_GRID = "0.6,0.9,1.2,1.5,2.0"
DEFAULT_B_GRID = "0.2,0.4,0.6,0.75,0.9,1.0"
FAMILIES = ("qlog", "bm25", "joint")
FAMILY_LABELS = {"qlog": "q-log BM25 (q)", "bm25": "tuned BM25 (k1, b)", "joint": "joint (b, q)"}


@dataclass(frozen=True)
class TuningGrids:
    """The grid points of the three families (see the module docstring)."""

    q_grid: tuple[float, ...]
    k1_grid: tuple[float, ...]
    b_grid: tuple[float, ...]
    k1: float = DEFAULT_K1
    b: float = DEFAULT_B

    def __post_init__(self) -> None:
        for name in ("q_grid", "k1_grid", "b_grid"):
            values = tuple(round(float(v), 10) for v in getattr(self, name))
            object.__setattr__(self, name, values)
        if not (self.q_grid and self.k1_grid and self.b_grid):
            raise QLogError("the q, k1 and b grids need at least one value each")
        for v in self.k1_grid + (self.k1,):
            check_float_parameter("k1", v)
        for v in self.b_grid + (self.b,):
            check_float_parameter("b", v)

    @property
    def reference(self) -> Point:
        """BM25 at the sweep's k1 and b: the baseline, and where ties break toward."""
        return (float(self.k1), float(self.b), 1.0)

    @property
    def engine(self) -> Point:
        return (ENGINE_K1, ENGINE_B, 1.0)

    def families(self) -> dict[str, list[Point]]:
        """The points of each family, sorted; each holds the reference point."""
        k1, b, ref = float(self.k1), float(self.b), self.reference
        qs = set(self.q_grid) | {1.0}
        return {"qlog": sorted({(k1, b, q) for q in qs}),
                "bm25": sorted({(x, y, 1.0) for x in self.k1_grid for y in self.b_grid} | {ref, self.engine}),
                "joint": sorted({(k1, y, q) for y in set(self.b_grid) | {b} for q in qs})}

    def points(self) -> list[Point]:
        """Every point to measure, once, sorted."""
        return sorted({p for points in self.families().values() for p in points})


def point_text(point: Point) -> str:
    """``k1=0.9,b=0.4,q=0.7``: a point as column labels and tables name it."""
    return f"k1={point[0]:g},b={point[1]:g},q={point[2]:g}"


def family_value(family: str, point: Point) -> str:
    """What a family's choice is called in a table: ``q = 0.7``, ``k1/b = 1.2/0.75``, ``b/q = 0.75/0.7``."""
    k1, b, q = point
    return {"qlog": f"q = {q:g}", "bm25": f"k1/b = {k1:g}/{b:g}", "joint": f"b/q = {b:g}/{q:g}"}[family]


def cross_validate_families(per_query: pd.DataFrame, grids: TuningGrids, fold_of: Mapping[str, int]
                            ) -> dict[str, CrossValidated]:
    """Each family's cross-validated choice on ``per_query`` (rows = queries, columns = :class:`Point` tuples:
    the selection metric), on the folds ``fold_of``, ties toward the reference point."""
    out = {}
    for family, points in grids.families().items():
        table = pd.DataFrame({p: per_query[p] for p in points})
        out[family] = cross_validate(table, grids.reference, fold_of=fold_of)
    return out


def oracle_point(per_query: pd.DataFrame, points: Sequence[Point], reference: Point) -> Point:
    """The point with the best mean over every query (optimistic: chosen on the queries it is scored on)."""
    return choose_best({p: float(per_query[p].mean()) for p in points}, reference)  # type: ignore[return-value]
