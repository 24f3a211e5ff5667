"""A sweep's results as pandas frames, and a sweep run on frames (PyTerrier's queries and qrels frames).

    from qlog_pyserini.sweep.frames import read_sweep, sweep_on_frames
    frames = read_sweep("sweeps/csn-ruby")
    frames.points        # one row per grid value: q, then every metric (sweep.csv)
    frames.per_query     # qid, q, measure, value: the sweep metric per query and grid value
    frames.choices       # which q each rule chose and what it scored: bm25, oracle, cv, auto

Column names follow ir_measures and PyTerrier (``qid``, ``measure``, ``value``).
"""

from __future__ import annotations

import os
import shutil
import tempfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pandas as pd

from qlog_pyserini.errors import QLogError
from qlog_pyserini.formats.frames import write_frame_files
from qlog_pyserini.sweep.results import SweepResult, record
from qlog_pyserini.sweep.results import read as read_result
from qlog_pyserini.sweep.results import write as write_result
from qlog_pyserini.system.outputs import record_entries


@dataclass(frozen=True)
class SweepFrames:
    """What one sweep folder holds, as frames; ``summary`` is its summary.json."""

    points: pd.DataFrame
    per_query: pd.DataFrame
    choices: pd.DataFrame
    summary: dict[str, Any] = field(repr=False)


def read_sweep(out_dir: str | os.PathLike) -> SweepFrames:
    """The frames of a sweep folder written by ``python -m qlog_pyserini.sweep`` (or :func:`run_sweep`)."""
    folder = Path(out_dir)
    summary = read_result(folder)
    if not isinstance(summary, SweepResult):
        raise QLogError(f"{str(folder)!r} is an instance-set sweep; frames are read from a sweep of one index")
    parameter, metric = summary["parameter"], summary["metric"]
    points = pd.read_csv(folder / "sweep.csv")
    wide = pd.read_csv(folder / "per_query.csv", index_col=0, dtype={0: str})
    wide.index = wide.index.astype(str)
    labels = {f"{parameter}{float(v):g}": float(v) for v in summary["grid"]}
    long = (wide[[c for c in wide.columns if c in labels]].rename_axis("qid").reset_index()
            .melt(id_vars="qid", var_name=parameter, value_name="value"))
    long[parameter] = long[parameter].map(labels)
    long.insert(2, "measure", metric)
    rows = [("bm25", summary["baseline_value"], summary["baseline_score"]),
            ("oracle", summary["oracle_value"], summary["oracle_score"]),
            ("cv", None, summary["cv"]["score"])]
    if "auto" in summary:
        rows.append(("auto", summary["auto"]["q"], summary["auto"]["score"]))
    choices = pd.DataFrame(rows, columns=["choice", parameter, "value"]).assign(measure=metric)
    return SweepFrames(points=points, per_query=long.astype({"qid": str, "measure": str}), choices=choices, summary=dict(summary))


def sweep_on_frames(index_dir: str | os.PathLike, topics: pd.DataFrame, qrels: pd.DataFrame,
                    out_dir: str | os.PathLike, settings: Any, **kwargs: Any) -> SweepFrames:
    """:func:`~qlog_pyserini.sweep.run.run_sweep` on a queries frame (``qid, query``) and a qrels frame
    (``qid, docno, label``), PyTerrier's; their files are kept in the sweep folder as ``topics.tsv`` and
    ``qrels.txt`` (and named so in its summary). Keyword arguments go to ``run_sweep``.
    """
    from qlog_pyserini.sweep.run import run_sweep  # the sweep pulls in plotting and the JVM side

    out = Path(out_dir)
    parent = out.parent if str(out.parent) else Path(".")
    if not parent.is_dir():
        raise QLogError(f"output folder {str(parent)!r} does not exist")
    work = Path(tempfile.mkdtemp(prefix=f".{out.name}.frames-", dir=parent))
    try:
        paths = write_frame_files(work, topics=topics, qrels=qrels)
        run_sweep(index_dir, paths["topics"], paths["qrels"], out, settings, **kwargs)
        for name in ("topics", "qrels"):
            shutil.copyfile(paths[name], out / Path(paths[name]).name)
        # added to our published sweep: listed in its manifest, so a later --overwrite may replace it
        record_entries(out, *(Path(paths[name]).name for name in ("topics", "qrels")))
        result = read_result(out)
        write_result(out, record(result.kind, {**result, "topics": str((out / "topics.tsv").resolve()),
                                               "qrels": str((out / "qrels.txt").resolve())}))
    finally:
        shutil.rmtree(work, ignore_errors=True)
    return read_sweep(out)
