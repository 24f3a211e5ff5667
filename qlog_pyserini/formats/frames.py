"""Runs, topics and qrels as pandas frames, in the column names PyTerrier and ir_measures use.

=========  ======================================  ==========================================
frame      columns                                 as in
=========  ======================================  ==========================================
run        ``qid, docno, rank, score``             PyTerrier's results frame
topics     ``qid, query``                          PyTerrier's queries frame
qrels      ``qid, docno, label``                   PyTerrier's qrels frame
=========  ======================================  ==========================================

(Per-query metrics are ``qid, measure, value``: :meth:`qlog_pyserini.eval.trec_eval.EvalResult.to_frame`.)

``rank`` counts from 0, as PyTerrier's retrievers number it (``pt.model.FIRST_RANK``); a TREC run
file counts from 1. ``score`` is the score a run file holds (:func:`~qlog_pyserini.formats.trec.run_scores`:
6 decimals, ties pushed apart by 1e-6), so an evaluator reading the frame (pt.Experiment,
ir_measures, pytrec_eval) ranks exactly as trec_eval ranks the file, and a frame written and read
back is the frame it was.
"""

from __future__ import annotations

import os
from typing import Iterable, Mapping, Sequence

import numpy as np
import pandas as pd

from qlog_pyserini.errors import QLogError
from qlog_pyserini.formats.topics import read_topics, write_topics_tsv
from qlog_pyserini.formats.trec import Hit, check_id, read_qrels, read_run, run_score_micros, run_scores, write_qrels

RUN_COLUMNS = ("qid", "docno", "rank", "score")
TOPICS_COLUMNS = ("qid", "query")
QRELS_COLUMNS = ("qid", "docno", "label")


def run_frame(results: Mapping[str, Sequence[Hit]], qids: Iterable[str] | None = None) -> pd.DataFrame:
    """``{qid: hits}`` as a results frame, queries in ``qids`` order (default: ``results`` order)."""
    columns: dict[str, list] = {name: [] for name in RUN_COLUMNS}
    for qid in (results.keys() if qids is None else qids):
        hits = results.get(qid, ())
        columns["qid"] += [qid] * len(hits)
        columns["docno"] += [h.docid for h in hits]
        columns["rank"] += range(len(hits))
        columns["score"] += [float(text) for text in run_scores(qid, hits)]
    return _typed_run(pd.DataFrame(columns))


def columns_run_frame(qids: Sequence[str], offsets: np.ndarray, docnos: Sequence[str],
                      scores: np.ndarray) -> pd.DataFrame:
    """:func:`run_frame` of a batch held as columns (query ``i``'s hits at ``offsets[i]:offsets[i + 1]``
    of ``docnos`` and float32 ``scores``), without a ``Hit`` per row: the same frame, scores as the run
    file holds them (:func:`~qlog_pyserini.formats.trec.run_score_micros`)."""
    offsets = np.asarray(offsets, dtype=np.int64)
    counts = np.diff(offsets)
    micros = run_score_micros(np.asarray(scores, dtype=np.float32), offsets)
    return _typed_run(pd.DataFrame({
        "qid": np.repeat(np.array(list(qids), dtype=object), counts),
        "docno": np.asarray(docnos, dtype=object),
        "rank": np.arange(len(micros), dtype=np.int64) - np.repeat(offsets[:-1], counts),
        # an exact integer divided by 1e6 is the double nearest the 6-decimal text, as float(text) reads it
        "score": micros / 1e6,
    }))


def _typed_run(frame: pd.DataFrame) -> pd.DataFrame:
    return frame.astype({"qid": str, "docno": str, "rank": "int64", "score": "float64"})


def read_run_frame(path: str | os.PathLike) -> pd.DataFrame:
    """A TREC run file as a results frame (checked line by line as :func:`~qlog_pyserini.formats.trec.read_run`)."""
    return run_frame(read_run(path))


def frame_results(frame: pd.DataFrame, what: str = "results frame") -> dict[str, list[Hit]]:
    """A results frame (``qid, docno, score``; PyTerrier's or ours) as ``{qid: hits}``, best first.

    Within a query the hits are sorted by score, descending; ties by ``rank`` if the frame has it, else
    in the frame's order. That is the order a run written from it holds.
    """
    _require(frame, ("qid", "docno", "score"), what)
    keys, ascending = (["score", "rank"], [False, True]) if "rank" in frame.columns else (["score"], [False])
    ordered = frame.assign(qid=frame["qid"].astype(str)).sort_values(keys, ascending=ascending, kind="stable")
    results: dict[str, list[Hit]] = {qid: [] for qid in dict.fromkeys(frame["qid"].astype(str))}
    for qid, docno, score in zip(ordered["qid"], ordered["docno"].astype(str), ordered["score"].astype(float)):
        results[qid].append(Hit(docno, score))
    return results


def topics_frame(topics: Mapping[str, str]) -> pd.DataFrame:
    """``{qid: text}`` as a queries frame."""
    return pd.DataFrame({"qid": list(topics), "query": list(topics.values())}, columns=list(TOPICS_COLUMNS))


def read_topics_frame(path: str | os.PathLike) -> pd.DataFrame:
    """Topics in any format :func:`~qlog_pyserini.formats.topics.read_topics` reads, as a queries frame."""
    return topics_frame(read_topics(path))


def frame_topics(frame: pd.DataFrame) -> dict[str, str]:
    """A queries frame (``qid, query``) as ``{qid: text}``; a qid listed twice is an error."""
    _require(frame, TOPICS_COLUMNS, "queries frame")
    topics: dict[str, str] = {}
    for qid, text in zip(frame["qid"].astype(str), frame["query"]):
        if qid in topics:
            raise QLogError(f"queries frame: qid {qid!r} is listed twice")
        topics[check_id(qid, "qid")] = "" if text is None else str(text)
    return topics


def qrels_frame(qrels: Mapping[str, Mapping[str, int]]) -> pd.DataFrame:
    """``{qid: {docno: grade}}`` as a qrels frame."""
    rows = [(qid, docno, int(grade)) for qid, docs in qrels.items() for docno, grade in docs.items()]
    return pd.DataFrame(rows, columns=list(QRELS_COLUMNS)).astype({"label": "int64"})


def read_qrels_frame(path: str | os.PathLike) -> pd.DataFrame:
    """TREC qrels as a qrels frame."""
    return qrels_frame(read_qrels(path))


def frame_qrels(frame: pd.DataFrame) -> dict[str, dict[str, int]]:
    """A qrels frame (``qid, docno, label``) as ``{qid: {docno: grade}}``."""
    _require(frame, QRELS_COLUMNS, "qrels frame")
    qrels: dict[str, dict[str, int]] = {}
    for qid, docno, label in zip(frame["qid"].astype(str), frame["docno"].astype(str), frame["label"]):
        if float(label) != int(label):
            raise QLogError(f"qrels frame: label {label!r} of ({qid!r}, {docno!r}) is not an integer grade")
        qrels.setdefault(qid, {})[docno] = int(label)
    return qrels


def write_frame_files(folder: str | os.PathLike, topics: pd.DataFrame | None = None,
                      qrels: pd.DataFrame | None = None) -> dict[str, str]:
    """Write frames as the files our verbs read (``topics.tsv``, ``qrels.txt``) into ``folder``; their paths."""
    paths: dict[str, str] = {}
    if topics is not None:
        paths["topics"] = os.path.join(folder, "topics.tsv")
        write_topics_tsv(paths["topics"], frame_topics(topics))
    if qrels is not None:
        paths["qrels"] = os.path.join(folder, "qrels.txt")
        write_qrels(paths["qrels"], frame_qrels(qrels))
    return paths


def _require(frame: pd.DataFrame, columns: Sequence[str], what: str) -> None:
    if not isinstance(frame, pd.DataFrame):
        raise QLogError(f"{what}: expected a pandas DataFrame, got {type(frame).__name__}")
    missing = [c for c in columns if c not in frame.columns]
    if missing:
        raise QLogError(f"{what} lacks the column(s) {', '.join(missing)} (has {', '.join(map(str, frame.columns))})")
