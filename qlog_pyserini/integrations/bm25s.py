"""q-log BM25 on a ``bm25s.BM25`` index: one pass over its score matrix, columns scaled by idf_q / idf.

bm25s precomputes every document-term score, ``idf(t) * tf_part(t, d)``, in a sparse matrix with one column
per term (CSC: ``scores["data"]``, ``["indices"]``, ``["indptr"]``). Only the IDF changes under q-log, so
multiplying column t by ``idf_q(t) / idf(t)`` (:mod:`.idf`: the method's own IDF, its q-log) turns the index into
q-log BM25 with the same structure, and queries cost what they cost before. The document frequency of t is the
column's length (bm25s stores every (document, term) pair it saw, zero scores included), N is ``num_docs``.

    >>> import bm25s                                                         # doctest: +SKIP
    >>> from qlog_pyserini.integrations.bm25s import rescale
    >>> model = bm25s.BM25(k1=0.9, b=0.4); model.index(bm25s.tokenize(texts))  # doctest: +SKIP
    >>> rescale(model, q=0.7).retrieve(bm25s.tokenize(["parse the config"]), k=10)   # doctest: +SKIP

- q = 1 with the method's own IDF puts back bm25s's own array (bit-identical);
- the plain array is kept (``model.qlog.plain_data``), so ``rescale`` at another q starts from it, never from a
  rescaled matrix: re-applying is exact and costs one pass; it doubles the memory of ``data`` (the float32
  scores, not the indices) while q != 1;
- BM25L and BM25+ keep a per-term score of absence (``nonoccurrence_array``, ``idf * tf_part(0)``): scaled by
  the same factor;
- :func:`save` writes bm25s's own files, whose scores are the q-log ones (``bm25s.BM25.load`` and LlamaIndex
  read q-log BM25), plus ``qlog.index.json`` and the plain scores; :func:`load` restores q and the plain array.
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

import numpy as np

from qlog_pyserini.errors import QLogError
from qlog_pyserini.formula import check_bm25, check_q
from qlog_pyserini.integrations.idf import LibraryIdf, bm25s_idf
from qlog_pyserini.system.outputs import atomic_output, write_json

STATE_FILE = "qlog.index.json"
PLAIN_DATA_FILE = "data.plain.csc.index.npy"
PLAIN_NONOCCURRENCE_FILE = "nonoccurrence_array.plain.index.npy"
# entries scaled per block: bounds the float64 factor array the pass allocates (32 MiB)
BLOCK_ENTRIES = 1 << 22


@dataclass(frozen=True)
class QLogState:
    """What a rescaled model carries (``model.qlog``): its q and odds form, and bm25s's own arrays."""

    q: float
    idf_form: str | None
    plain_data: np.ndarray
    plain_nonoccurrence: np.ndarray | None

    @property
    def is_plain(self) -> bool:
        return self.q == 1.0 and self.idf_form is None


def state(model: Any) -> QLogState:
    """The model's q-log state; a model never rescaled is plain BM25 (q = 1, its own arrays)."""
    current = getattr(model, "qlog", None)
    if isinstance(current, QLogState):
        return current
    scores = getattr(model, "scores", None)
    if not isinstance(scores, dict) or "data" not in scores or "indptr" not in scores:
        raise QLogError("the bm25s model has no score matrix: index a corpus (model.index) or load one first")
    return QLogState(1.0, None, scores["data"], getattr(model, "nonoccurrence_array", None))


def column_factors(idf: LibraryIdf, df: np.ndarray, num_docs: int, q: float,
                   idf_form: str | None) -> np.ndarray | None:
    """``idf_q / idf`` per column, or None where it is 1 for every column (the plain matrix as it is).

    A column with no entry (a term of the vocabulary no document holds), or whose plain IDF is 0 (its scores
    are 0; the q-log IDF of those terms is 0 as well), keeps factor 1.
    """
    with np.errstate(divide="ignore", invalid="ignore"):
        plain = idf.plain(df, num_docs)
        target = idf.qlog(df, num_docs, q, idf_form)
    if np.array_equal(plain[df > 0], target[df > 0]):
        return None
    usable = (df > 0) & (plain > 0)
    if np.any(~usable & (df > 0) & (target > 0)):
        raise QLogError(f"{idf.name}: some terms have a plain IDF of 0 but a positive q-log IDF; their stored "
                        "scores are 0 and cannot be rescaled")
    factors = np.ones(df.size)
    factors[usable] = target[usable] / plain[usable]
    return factors


def scale_columns(data: np.ndarray, indptr: np.ndarray, factors: np.ndarray,
                  block: int = BLOCK_ENTRIES) -> np.ndarray:
    """A new array: CSC ``data`` with column c multiplied by ``factors[c]``, in float64, rounded once to
    ``data``'s dtype; one pass in blocks of whole columns of about ``block`` entries."""
    out = np.empty(data.shape, dtype=data.dtype)
    counts = np.diff(indptr)
    columns = counts.size
    starts = np.searchsorted(indptr, np.arange(0, int(indptr[-1]), block), side="right") - 1
    cuts = np.unique(np.concatenate([np.clip(starts, 0, columns), [0, columns]]))
    for first, last in zip(cuts[:-1].tolist(), cuts[1:].tolist()):
        begin, end = int(indptr[first]), int(indptr[last])
        np.multiply(data[begin:end], np.repeat(factors[first:last], counts[first:last]), out=out[begin:end],
                    casting="same_kind")
    return out


def rescale(model: Any, q: float, idf_form: str | None = None) -> Any:
    """Turn the ``bm25s.BM25`` ``model`` into q-log BM25 at ``q``, in place; returns ``model``.

    ``idf_form`` None q-logs the method's own IDF argument (:data:`.idf.BM25S_IDF`); ``"lucene"`` or ``"rsj"``
    uses that odds form where the method's IDF is a log of odds (refused, one line, where it is not). Applied to
    a model already rescaled, it starts from the plain scores kept on the model: any q, any number of times.
    """
    q = check_q(q)
    if hasattr(model, "k1") and hasattr(model, "b"):
        check_bm25(model.k1, model.b)  # bm25s builds any k1 and b; a q-log model of them is refused, not made
    idf = bm25s_idf(getattr(model, "idf_method", None))
    form = idf.check(idf_form)
    current = state(model)
    scores = model.scores
    indptr = np.asarray(scores["indptr"])
    num_docs = int(scores["num_docs"])
    factors = column_factors(idf, np.diff(indptr), num_docs, q, form)
    if factors is None:
        data, nonoccurrence = current.plain_data, current.plain_nonoccurrence
    else:
        data = scale_columns(current.plain_data, indptr, factors)
        nonoccurrence = None
        if current.plain_nonoccurrence is not None:
            plain = current.plain_nonoccurrence
            # bm25s's vocabulary may hold a final token ("") with no column: its absence score stays
            scale = np.ones(plain.size)
            scale[:min(plain.size, factors.size)] = factors[:plain.size]
            nonoccurrence = (plain * scale).astype(plain.dtype)
    scores["data"] = data
    model.nonoccurrence_array = nonoccurrence
    model.qlog = replace(current, q=q, idf_form=form)
    return model


def save(model: Any, save_dir: str | os.PathLike, **kwargs: Any) -> None:
    """``model.save(save_dir, **kwargs)`` (bm25s's files hold the q-log scores) and :func:`save_state`."""
    model.save(save_dir, **kwargs)
    save_state(model, save_dir)


def save_state(model: Any, save_dir: str | os.PathLike) -> None:
    """Write ``qlog.index.json`` (q, odds form, method) into ``save_dir`` beside bm25s's own files, and the
    plain scores re-application needs when the saved ones are rescaled."""
    current = state(model)
    folder = Path(save_dir)
    record = {"q": current.q, "idf_form": current.idf_form, "idf_method": model.idf_method,
              "plain_data": None, "plain_nonoccurrence": None}
    if current.plain_data is not model.scores["data"]:
        _save_array(folder / PLAIN_DATA_FILE, current.plain_data)
        record["plain_data"] = PLAIN_DATA_FILE
        if current.plain_nonoccurrence is not None:
            _save_array(folder / PLAIN_NONOCCURRENCE_FILE, current.plain_nonoccurrence)
            record["plain_nonoccurrence"] = PLAIN_NONOCCURRENCE_FILE
    write_json(folder / STATE_FILE, record)


def _save_array(path: Path, array: np.ndarray) -> None:
    with atomic_output(path, "wb") as f:
        np.save(f, np.asarray(array), allow_pickle=False)


def load(save_dir: str | os.PathLike, **kwargs: Any) -> Any:
    """``bm25s.BM25.load(save_dir, **kwargs)`` with the q saved by :func:`save` (plain BM25 without one)."""
    import bm25s

    model = bm25s.BM25.load(save_dir, **kwargs)
    path = Path(save_dir) / STATE_FILE
    if not path.is_file():
        return model
    try:
        record = json.loads(path.read_text(encoding="utf-8"))
        q, form = check_q(record["q"]), record["idf_form"]
    except (OSError, ValueError, KeyError, TypeError) as e:
        raise QLogError(f"{path}: not a q-log state file ({e})") from None
    if record.get("idf_method") != model.idf_method:
        raise QLogError(f"{path}: saved for idf method {record.get('idf_method')!r}, the index has "
                        f"{model.idf_method!r}")
    mmap = "r" if kwargs.get("mmap") else None
    plain_data = (np.load(Path(save_dir) / record["plain_data"], mmap_mode=mmap)
                  if record.get("plain_data") else model.scores["data"])
    plain_nonoccurrence = (np.load(Path(save_dir) / record["plain_nonoccurrence"])
                           if record.get("plain_nonoccurrence") else model.nonoccurrence_array)
    model.qlog = QLogState(q, form, plain_data, plain_nonoccurrence)
    return model
