"""TREC formats in and out: run files, qrels and identifiers.

A run line is ``qid Q0 docid rank score tag``; a qrels line is ``qid 0 docid grade``.
Identifiers may hold any character but whitespace (trec_eval splits on it), so
``<dbpedia:Foo>`` and ``a/b.go:12`` are fine and ``my doc`` is rejected.
"""

from __future__ import annotations

import math
import os
import re
from dataclasses import dataclass, field
from typing import Iterable, Iterator, Mapping, Sequence

import numpy as np

from qlog_pyserini.errors import QLogError, finite_number
from qlog_pyserini.formats.lines import numbered_lines
from qlog_pyserini.formula import FLOAT32_MAX
from qlog_pyserini.system.outputs import atomic_output


@dataclass(frozen=True)
class Hit:
    """One retrieved document: its external id, its score, and (like Pyserini's hits) its Lucene docid.

    ``lucene_docid`` is Lucene's internal number of the document in the searched index, or -1 where
    the search path does not report it; it takes no part in equality, which is docid and score.
    """

    docid: str
    score: float
    lucene_docid: int = field(default=-1, compare=False)


def to_dict(results: Mapping[str, Iterable]) -> dict[str, dict[str, float]]:
    """A run as ``{qid: {docid: score}}``, the form ir_measures and ranx read.

    Takes ``{qid: hits}`` from :class:`~qlog_pyserini.QLogSearcher` or the search verb, or Pyserini's
    ``batch_search`` results (any hit with ``docid`` and ``score``). A docid listed twice for one query
    keeps its first (highest-ranked) score.
    """
    run: dict[str, dict[str, float]] = {}
    for qid, hits in results.items():
        scores = run.setdefault(str(qid), {})
        for hit in hits:
            scores.setdefault(str(hit.docid), float(hit.score))
    return run


def check_id(value: str, kind: str, where: str = "") -> str:
    """Return ``value`` if it is a usable TREC identifier, else raise :class:`QLogError`."""
    if not isinstance(value, str) or value == "":
        raise QLogError(f"empty {kind}{where}")
    if UNWRITABLE_ID.search(value):
        # trec_eval splits on whitespace and, being C, stops reading a field at a NUL byte.
        raise QLogError(f"{kind} {value!r}{where} contains whitespace or a NUL byte, which TREC files cannot hold")
    if LONE_SURROGATE.search(value):
        raise QLogError(f"{kind} {value!r}{where} holds a lone surrogate (half of a UTF-16 pair, from a JSON escape), "
                        "which no UTF-8 file can hold")
    return value


UNWRITABLE_ID = re.compile(r"[\s\x00]")  # what a TREC identifier cannot hold
LONE_SURROGATE = re.compile("[\ud800-\udfff]")  # a str holds a pair as one character: these are halves alone


def run_scores(qid: str, hits: Sequence[Hit]) -> list[str]:
    """The scores a TREC run holds for one query's ``hits``, as text with 6 decimals (see :func:`format_run_lines`).

    Frames (:mod:`qlog_pyserini.formats.frames`) carry these values too, so an evaluator reading a
    frame sees the order a run file holds, ties included.
    """
    texts: list[str] = []
    previous: int | None = None
    previous_float = 0.0
    for hit in hits:
        if not math.isfinite(hit.score):
            raise QLogError(f"query {qid!r}: docid {hit.docid!r} has score {hit.score}, which a run cannot hold")
        text = f"{hit.score:.6f}"
        micro = int(text.replace(".", ""))
        if previous is not None and not (micro < previous and _read_as_float(micro) < previous_float):
            micro = _largest_below(previous, previous_float)
            whole, frac = divmod(abs(micro), 1_000_000)
            text = f"{'-' if micro < 0 else ''}{whole}.{frac:06d}"
        previous, previous_float = micro, _read_as_float(micro)
        texts.append(text)
    return texts


def format_run_lines(qid: str, hits: Sequence[Hit], tag: str) -> Iterator[str]:
    """TREC run lines for one query, ranks from 1, scores with 6 decimals as Pyserini writes them.

    trec_eval ignores the rank column: it reads each score into a 32-bit float and sorts by (score
    descending, docid descending), so two lines whose scores read as the same float are evaluated in
    docid order, whatever order they were written in. The written scores are therefore strictly
    decreasing *as 32-bit floats*, and so in the order trec_eval, pytrec_eval, ir_measures and ranx
    evaluate. The rule (:func:`run_scores`): each score is its hit's score printed with 6 decimals
    (Pyserini's text) unless that does not read as a float below the line above; then it is the
    largest 6-decimal value that does: one millionth below the score above where that reads as a
    smaller float (always below 16, where floats are closer than 1e-6), else the largest value that
    reads as the next float down (scores of 16 and more, where floats are 2e-6 or more apart, as at
    small q). Anserini's runs (scores rounded to 4 decimals, ties pushed apart by 1e-6 steps) are
    written unchanged wherever their text already reads as decreasing floats; elsewhere Pyserini's
    own run is ambiguous to trec_eval. ``io.qlog.search.RunLines`` writes the same bytes from Java.
    """
    check_id(qid, "qid")
    for rank, (hit, text) in enumerate(zip(hits, run_scores(qid, hits)), start=1):
        yield f"{qid} Q0 {check_id(hit.docid, 'docid', f' (query {qid!r})')} {rank} {text} {tag}\n"


def _read_as_float(micro: int) -> float:
    """The 32-bit float trec_eval reads from the score ``micro`` millionths (strtod, then the cast to float)."""
    return float(np.float32(micro / 1e6))  # micro / 1e6 is the double nearest the decimal, as strtod's


def _largest_below(previous: int, previous_float: float) -> int:
    """The largest millionths below ``previous`` that read as a float below ``previous_float``."""
    below = previous - 1
    if _read_as_float(below) < previous_float:
        return below
    midpoint = (previous_float + float(np.nextafter(np.float32(previous_float), np.float32(-np.inf)))) / 2
    below = math.ceil(midpoint * 1e6)  # at the midpoint itself, round-half-even may still read it as below
    while _read_as_float(below) >= previous_float:
        below -= 1
    return below


# Below this, a float32 score times 1e6 is an exact double and its millionths fit an int64 (and a double) exactly.
_EXACT_MICROS = 2.0 ** 53 / 1e6


def run_score_micros(scores: np.ndarray, offsets: np.ndarray) -> np.ndarray:
    """:func:`run_scores` for many queries at once, as int64 millionths: query ``i``'s float32 ``scores`` are
    ``scores[offsets[i]:offsets[i + 1]]``.

    Vectorised: a float32 score times 1e6 is exact in double precision, so rounding it half to even is
    the 6-decimal text Python prints; only the rare score whose text does not read as a float below the
    line above (a tie step lost in float rounding) goes through :func:`run_scores`' own repair, in order.
    Raises :class:`QLogError` for a score a run cannot hold (not finite).
    """
    x = np.asarray(scores, dtype=np.float32).astype(np.float64)
    if not np.isfinite(x).all():
        raise QLogError(f"score {x[~np.isfinite(x)][0]} is not finite, which a run cannot hold")
    if x.size and np.abs(x).max() >= _EXACT_MICROS:
        raise QLogError(f"score {np.abs(x).max():g} is beyond what a run's 6 decimals represent exactly")
    micro = np.rint(x * 1e6).astype(np.int64)
    read = (micro / 1e6).astype(np.float32)  # _read_as_float, element by element
    first = np.zeros(len(micro), dtype=bool)
    starts = np.asarray(offsets[:-1], dtype=np.int64)
    first[starts[starts < len(micro)]] = True
    bad = np.flatnonzero(~((micro[1:] < micro[:-1]) & (read[1:] < read[:-1]))) + 1
    for i in bad[~first[bad]].tolist():
        # a repaired score is lower, so it can only push the next one below it too; the loop follows the chain
        while i < len(micro) and not first[i] and not (micro[i] < micro[i - 1] and read[i] < read[i - 1]):
            micro[i] = _largest_below(int(micro[i - 1]), float(read[i - 1]))
            read[i] = _read_as_float(int(micro[i]))
            i += 1
    return micro


def format_run_columns(qids: Sequence[str], offsets: np.ndarray, docids: Sequence[str], scores: np.ndarray,
                       tag: str, output_format: str = "trec") -> str:
    """The run lines of a batch held as columns (query ``i``'s hits at ``offsets[i]:offsets[i + 1]`` of
    ``docids`` and float32 ``scores``), the same text :func:`run_lines` makes from ``{qid: hits}``, without
    a ``Hit`` per line: the scores by :func:`run_score_micros`, the identifiers checked in one pass."""
    check_id(tag, "run tag")
    if output_format not in OUTPUT_FORMATS:
        raise QLogError(f"unknown output format {output_format!r}; choose one of {', '.join(OUTPUT_FORMATS)}")
    docids = list(docids)
    counts = np.diff(np.asarray(offsets, dtype=np.int64))
    if len(counts) != len(qids) or int(counts.sum()) != len(docids) or len(docids) != len(scores):
        raise QLogError(f"{len(qids)} queries, {len(counts)} offsets, {len(docids)} docids and {len(scores)} scores")
    qcol = np.repeat(np.array(list(qids), dtype=object), counts).tolist()
    ranks = (np.arange(len(docids)) - np.repeat(np.asarray(offsets[:-1], dtype=np.int64), counts) + 1).tolist()
    if output_format == "msmarco":
        return "".join([f"{q}\t{d}\t{r}\n" for q, d, r in zip(qcol, docids, ranks)])
    for qid in qids:
        check_id(qid, "qid")
    # \x01 is not whitespace: the joined ids split into themselves alone iff no id holds whitespace
    joined = "\x01".join(docids)
    if docids and (joined.split() != [joined] or "\x00" in joined or min(map(len, docids)) == 0):
        for q, d in zip(qcol, docids):  # the first bad one, named as format_run_lines names it
            check_id(d, "docid", f" (query {q!r})")
    values = np.asarray(scores, dtype=np.float32)
    micro = run_score_micros(values, offsets)
    texts = [f"{v:.6f}" for v in values.tolist()]  # run_scores' text wherever no repair was needed
    for i in np.flatnonzero(micro != np.rint(values.astype(np.float64) * 1e6)).tolist():
        whole, frac = divmod(abs(int(micro[i])), 1_000_000)
        texts[i] = f"{'-' if micro[i] < 0 else ''}{whole}.{frac:06d}"
    return "".join([f"{q} Q0 {d} {r} {t} {tag}\n" for q, d, r, t in zip(qcol, docids, ranks, texts)])


def format_msmarco_lines(qid: str, hits: Sequence[Hit]) -> Iterator[str]:
    """MS MARCO run lines for one query, ``qid<TAB>docid<TAB>rank`` as Pyserini writes them."""
    for rank, hit in enumerate(hits, start=1):
        yield f"{qid}\t{hit.docid}\t{rank}\n"


OUTPUT_FORMATS = ("trec", "msmarco")


def run_lines(results: Mapping[str, Sequence[Hit]], tag: str, qids: Iterable[str] | None = None,
              output_format: str = "trec") -> Iterator[str]:
    """The lines of a run, queries in ``qids`` order (default: ``results`` order); see :func:`write_run`."""
    check_id(tag, "run tag")
    if output_format not in OUTPUT_FORMATS:
        raise QLogError(f"unknown output format {output_format!r}; choose one of {', '.join(OUTPUT_FORMATS)}")
    for qid in (qids if qids is not None else results.keys()):
        hits = results.get(qid, ())
        yield from (format_run_lines(qid, hits, tag) if output_format == "trec" else format_msmarco_lines(qid, hits))


def write_run(path: str | os.PathLike, results: Mapping[str, Sequence[Hit]], tag: str,
              qids: Iterable[str] | None = None, output_format: str = "trec") -> None:
    """Write a run atomically, queries in ``qids`` order (default: ``results`` order).

    ``output_format`` is ``trec`` (``qid Q0 docid rank score tag``) or ``msmarco`` (``qid docid rank``,
    tab-separated, no score or tag), Pyserini's two ``--output-format`` values for run files.
    """
    order = qids if qids is not None else results.keys()
    write_run_stream(path, ((qid, results.get(qid, ())) for qid in order), tag, output_format)


def write_run_stream(path: str | os.PathLike, pairs: Iterable[tuple[str, Sequence[Hit]]], tag: str,
                     output_format: str = "trec") -> int:
    """Write a run atomically from ``(qid, hits)`` pairs made one at a time, so memory holds one query's hits
    however long the run (the lines as :func:`write_run` writes them); returns the lines written."""
    check_id(tag, "run tag")  # the tag and format are checked before the file is opened
    if output_format not in OUTPUT_FORMATS:
        raise QLogError(f"unknown output format {output_format!r}; choose one of {', '.join(OUTPUT_FORMATS)}")
    written = 0
    with atomic_output(path) as f:
        for qid, hits in pairs:
            lines = list(format_run_lines(qid, hits, tag) if output_format == "trec"
                         else format_msmarco_lines(qid, hits))
            f.writelines(lines)
            written += len(lines)
    return written


def read_run(path: str | os.PathLike) -> dict[str, list[Hit]]:
    """Read a TREC run into ``{qid: [Hit, ...]}``, each list in the file's rank order."""
    run: dict[str, list[tuple[int, Hit]]] = {}
    for lineno, parts in _rows(path, "run"):
        if len(parts) != 6:
            raise QLogError(f"{path}:{lineno}: a run line needs 6 columns (qid Q0 docid rank score tag), got {len(parts)}")
        qid, _, docid, rank, score, _ = parts
        try:
            rank_value = int(rank)
        except ValueError:
            raise QLogError(f"{path}:{lineno}: rank {rank!r} is not an integer") from None
        score_value = finite_number(score, f"{path}:{lineno}: score")
        if abs(score_value) > FLOAT32_MAX:
            # trec_eval (and evaluate()) rank by 32-bit float scores: 1e39 and 5e38 would both be infinity, a tie
            raise QLogError(f"{path}:{lineno}: score {score!r} is beyond a 32-bit float (at most {FLOAT32_MAX:.7g}), "
                            "the precision trec_eval ranks by")
        run.setdefault(qid, []).append((rank_value, Hit(docid, score_value)))
    return {qid: [h for _, h in sorted(rows, key=lambda r: r[0])] for qid, rows in run.items()}


def read_qrels(path: str | os.PathLike) -> dict[str, dict[str, int]]:
    """Read TREC qrels into ``{qid: {docid: grade}}`` (grade 0 or less means not relevant)."""
    qrels: dict[str, dict[str, int]] = {}
    for lineno, parts in _rows(path, "qrels"):
        if len(parts) != 4:
            raise QLogError(f"{path}:{lineno}: a qrels line needs 4 columns (qid iter docid grade), got {len(parts)}")
        qid, _, docid, grade = parts
        try:
            qrels.setdefault(qid, {})[docid] = int(grade)
        except ValueError:
            raise QLogError(f"{path}:{lineno}: grade {grade!r} is not an integer") from None
    return qrels


def write_qrels(path: str | os.PathLike, qrels: Mapping[str, Mapping[str, int]]) -> None:
    """Write TREC qrels atomically (``qid 0 docid grade``)."""
    with atomic_output(path) as f:
        for qid, docs in qrels.items():
            check_id(qid, "qid")
            for docid, grade in docs.items():
                f.write(f"{qid} 0 {check_id(docid, 'docid')} {int(grade)}\n")


def _rows(path: str | os.PathLike, what: str) -> Iterator[tuple[int, list[str]]]:
    for lineno, line in numbered_lines(path, what):
        parts = line.split()
        if parts:
            yield lineno, parts
