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
  read q-log BM25), plus ``qlog.index.json`` (with the digest of the scores it describes) and the plain scores;
  :func:`load` restores q and the plain array;
- a model without a q-log state must hold plain scores (:func:`holds_plain_scores`): one rescaled, then saved
  by bm25s's own ``save`` and loaded, is refused, never rescaled a second time.
"""

from __future__ import annotations

import hashlib
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
    """The model's q-log state; a model without one holds plain BM25 (q = 1, its own arrays), which is checked:
    scores rescaled, then saved by bm25s's own ``save`` and loaded, are refused (rescaling them would compound)."""
    current = getattr(model, "qlog", None)
    if isinstance(current, QLogState):
        return current
    scores = getattr(model, "scores", None)
    if not isinstance(scores, dict) or "data" not in scores or "indptr" not in scores:
        raise QLogError("the bm25s model has no score matrix: index a corpus (model.index) or load one first")
    if not holds_plain_scores(model):
        raise QLogError("the bm25s model's scores are not plain BM25 but carry no q-log state (rescaled, then "
                        "saved by bm25s's own save or LlamaIndex's persist?): rescaling them would compound q; "
                        "save with qlog_pyserini.integrations.bm25s.save and load with its load, or index again")
    return QLogState(1.0, None, scores["data"], getattr(model, "nonoccurrence_array", None))


#: entries checked by :func:`holds_plain_scores` at least, and the share of them a plain matrix fits
PLAIN_CHECK_ENTRIES, PLAIN_SHARE = 10, 0.5


def holds_plain_scores(model: Any) -> bool:
    """Whether the score matrix is the method's plain BM25, judged from the matrix alone.

    Each entry is ``idf(t) * tf_part(tf, |d|)``: divided by the plain IDF of its column and inverted through the
    method's tf part, it gives ``tf / K_d``, one constant ``K_d`` per document. So within a document every entry
    over the document's smallest is a ratio of term frequencies (an integer when the smallest tf is 1, a multiple
    of 1/60 for smallest tfs up to 6). A rescaled column carries a factor ``idf_q / idf`` that depends on its
    document frequency, which breaks those ratios: on code corpora every plain matrix fits them entry for entry
    and a rescaled one (q 0.7, 0.98, 1.3) in under 1% of the entries. Too few entries to judge: plain.
    """
    scores = model.scores
    indptr, rows = np.asarray(scores["indptr"]), np.asarray(scores["indices"])
    df, num_docs = np.diff(indptr), int(scores["num_docs"])
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        idf = np.repeat(bm25s_idf(getattr(model, "idf_method", None)).plain(df.astype(float), num_docs), df)
        r = np.asarray(scores["data"], dtype=float) / idf
        y = _tf_over_k(getattr(model, "method", "lucene"), r, float(model.k1), float(getattr(model, "delta", 0.5)))
        usable = (idf > 0) & np.isfinite(y) & (y > 0)
        smallest = np.full(num_docs, np.inf)
        np.minimum.at(smallest, rows[usable], y[usable])
        ratio = y / smallest[rows]
    checked = usable & (ratio != 1.0) & (ratio <= 20)  # far above 20 the float32 scores blur the ratio
    if checked.sum() < PLAIN_CHECK_ENTRIES:
        return True
    x = ratio[checked] * 60
    return float(np.mean(np.abs(x - np.round(x)) <= 1e-5 * x)) >= PLAIN_SHARE


def _tf_over_k(method: str, r: np.ndarray, k1: float, delta: float) -> np.ndarray:
    """``tf / K_d`` from ``r``, an entry over its plain IDF, by the inverse of bm25s's tf part of ``method``
    (BM25L and BM25+ store it less its value at tf = 0, kept in ``nonoccurrence_array``)."""
    if method in ("robertson", "lucene"):  # tf / (K + tf)
        return r / (1 - r)
    if method in ("atire", "bm25+"):  # (k1 + 1) tf / (K + tf)
        s = r / (k1 + 1)
        return s / (1 - s)
    if method == "bm25l":  # (k1 + 1) (c + delta) / (k1 + c + delta), c = tf / K'
        whole = r + (k1 + 1) * delta / (k1 + delta)
        return whole * k1 / (k1 + 1 - whole) - delta
    return np.full(r.shape, np.nan)  # a method this check does not know: nothing judged


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
              "plain_data": None, "plain_nonoccurrence": None, "data_sha256": _digest(model.scores["data"])}
    if current.plain_data is not model.scores["data"]:
        _save_array(folder / PLAIN_DATA_FILE, current.plain_data)
        record["plain_data"] = PLAIN_DATA_FILE
        if current.plain_nonoccurrence is not None:
            _save_array(folder / PLAIN_NONOCCURRENCE_FILE, current.plain_nonoccurrence)
            record["plain_nonoccurrence"] = PLAIN_NONOCCURRENCE_FILE
    write_json(folder / STATE_FILE, record)


def _digest(array: np.ndarray) -> str:
    return hashlib.sha256(np.ascontiguousarray(array).view(np.uint8)).hexdigest()


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
    if record.get("data_sha256", _digest(model.scores["data"])) != _digest(model.scores["data"]):
        raise QLogError(f"{path}: the scores in {str(save_dir)!r} were saved again after it (by bm25s's own save "
                        "or LlamaIndex's persist?): its q no longer describes them; save with "
                        "qlog_pyserini.integrations.bm25s.save")
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
