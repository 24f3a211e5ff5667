"""The results of a sweep, typed: one reader and one writer of a sweep folder's ``summary.json``.

Two kinds of sweep write that file: a sweep of one index (``sweep --index --topics --qrels``,
:mod:`qlog_pyserini.sweep.run`) and a sweep of an instance set (``sweep --instances``,
:mod:`qlog_pyserini.sweep.instances`). The file records its ``kind`` and the ``schema`` of its keys beside the
keys users read (docs/cli.md); :func:`read` returns a :class:`SweepResult` or an :class:`InstanceSweepResult`
and refuses a schema this version does not know. A result is a read-only mapping of those keys, so a reader
that indexes ``result["metric"]`` reads the file as written.

Per-point tables are read in long format: :func:`per_point` gives one row per (instance, point, measure) of an
instance-set sweep's ``per_point.csv``, whose columns name their points (``k1=0.9,b=0.4,q=0.7``).
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, ClassVar

import pandas as pd

from qlog_pyserini.errors import QLogError
from qlog_pyserini.system.outputs import write_json

SUMMARY = "summary.json"
#: the version of summary.json's keys; a reader refuses a file of another
SCHEMA = 1


@dataclass(frozen=True)
class _Result(Mapping):
    """summary.json of one sweep folder, its keys as written (``kind`` and ``schema`` among them)."""

    KIND: ClassVar[str] = ""
    summary: Mapping[str, Any] = field(repr=False)
    folder: Path | None = None

    def __getitem__(self, key: str) -> Any:
        return self.summary[key]

    def __iter__(self) -> Iterator[str]:
        return iter(self.summary)

    def __len__(self) -> int:
        return len(self.summary)

    @property
    def kind(self) -> str:
        return self.KIND

    @property
    def schema(self) -> int:
        return int(self.summary.get("schema", SCHEMA))

    @property
    def name(self) -> str:
        return str(self.summary["name"])

    @property
    def metric(self) -> str:
        return str(self.summary["metric"])

    @property
    def seconds(self) -> float:
        return float(self.summary["seconds"])


@dataclass(frozen=True)
class SweepResult(_Result):
    """A sweep of one index: the swept parameter's grid, each point's score, BM25, the oracle and the
    cross-validated choice (and, when measured, the label-free q, tuned BM25 and the per-query q)."""

    KIND: ClassVar[str] = "sweep"

    @property
    def family(self) -> str:
        return str(self.summary.get("family", self.name))

    @property
    def parameter(self) -> str:
        return str(self.summary["parameter"])

    @property
    def scores(self) -> dict[float, float]:
        """The metric's mean at every grid value."""
        return {float(k): float(v) for k, v in self.summary["scores"].items()}

    @property
    def baseline_score(self) -> float:
        return float(self.summary["baseline_score"])

    @property
    def oracle_value(self) -> float:
        return float(self.summary["oracle_value"])


@dataclass(frozen=True)
class InstanceSweepResult(_Result):
    """A sweep of an instance set: q-log BM25 beside BM25, the engines' default and tuned BM25, per language
    and per repository, at every (k1, b, q) point of its grids."""

    KIND: ClassVar[str] = "instance-sweep"

    @property
    def k1(self) -> float:
        return float(self.summary["k1"])

    @property
    def b(self) -> float:
        return float(self.summary["b"])


KINDS: dict[str, type[_Result]] = {cls.KIND: cls for cls in (SweepResult, InstanceSweepResult)}


def record(kind: str, summary: Mapping[str, Any], folder: str | os.PathLike | None = None) -> SweepResult | InstanceSweepResult:
    """The result of ``kind`` whose summary is ``summary`` with its kind and schema first."""
    return KINDS[kind]({"kind": kind, "schema": SCHEMA, **{k: v for k, v in summary.items()
                                                          if k not in ("kind", "schema")}},
                       None if folder is None else Path(folder))


def write(folder: str | os.PathLike, result: SweepResult | InstanceSweepResult) -> None:
    """Write ``result`` as ``folder/summary.json`` (atomically)."""
    write_json(Path(folder) / SUMMARY, dict(result.summary))


def read(folder: str | os.PathLike) -> SweepResult | InstanceSweepResult:
    """The typed summary of a sweep folder, or one clear error: no summary, an unreadable one, an unknown kind
    or schema. A summary without ``kind`` (written before kinds were recorded) is an instance-set sweep when
    it has the instance sweep's ``comparisons``, else a sweep of one index."""
    folder = Path(folder)
    path = folder / SUMMARY
    try:
        summary = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise QLogError(f"{str(folder)!r} is not a sweep folder (no {SUMMARY})") from None
    except (OSError, UnicodeDecodeError, ValueError) as e:
        raise QLogError(f"cannot read {str(path)!r}: {e}") from None
    if not isinstance(summary, dict):
        raise QLogError(f"{path}: not a sweep summary (a JSON object is expected)")
    schema = summary.get("schema", SCHEMA)
    if schema != SCHEMA:
        raise QLogError(f"{path}: summary schema {schema!r} is not one this version reads ({SCHEMA}); "
                        "sweep again with this version")
    kind = summary.get("kind", InstanceSweepResult.KIND if "comparisons" in summary else SweepResult.KIND)
    if kind not in KINDS:
        raise QLogError(f"{path}: unknown sweep kind {kind!r} (known: {', '.join(KINDS)})")
    return KINDS[kind](summary, folder)


def per_point(folder: str | os.PathLike) -> pd.DataFrame:
    """An instance-set sweep's ``per_point.csv`` in long format: ``qid, k1, b, q, measure, value``, one row per
    instance, point and measure (the file holds the sweep's metric at every point of the grids)."""
    result = read(folder)
    if not isinstance(result, InstanceSweepResult):
        raise QLogError(f"{str(folder)!r} is a sweep of one index; per-point tables are an instance-set sweep's")
    wide = pd.read_csv(Path(folder) / "per_point.csv", dtype={"qid": str})
    long = wide.melt(id_vars="qid", var_name="point", value_name="value")
    parts = long["point"].str.extract(r"^k1=(?P<k1>[^,]+),b=(?P<b>[^,]+),q=(?P<q>[^,]+)$").astype(float)
    if parts.isna().any(axis=None):
        raise QLogError(f"{Path(folder) / 'per_point.csv'}: a column names no point (k1=..,b=..,q=..)")
    out = pd.concat([long[["qid"]], parts], axis=1).assign(measure=result.metric, value=long["value"])
    return out[["qid", "k1", "b", "q", "measure", "value"]]


def scores_at(points: pd.DataFrame, k1: float, b: float) -> pd.DataFrame:
    """From :func:`per_point`'s long table: instances x q at one (k1, b) as the columns name them (``:g``), rows
    and columns in the file's order."""
    at = points[(points["k1"] == float(f"{k1:g}")) & (points["b"] == float(f"{b:g}"))]
    return (at.pivot(index="qid", columns="q", values="value")
            .reindex(index=pd.unique(at["qid"]), columns=pd.unique(at["q"])).rename_axis(None, axis=1))
