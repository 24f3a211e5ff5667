"""A file ranking for an issue from a corpus's two indexes: files, their units, their paths, and evidence.

    with CorpusLocalizer(files_index, units_index, Localization(units="fuse", path_weight=1.0)) as loc:
        runs = loc.search({"issue-1": text}, k=1000)      # {qid: [Hit(path, score)]}

The forms, each fixed before anything was measured:

- ``units="file"``: the file index's own ranking (Pyserini's BM25 over whole files: the default);
- ``units="max"``: a file scores its best unit's score (the localizers' rule: a file is as relevant as its
  most relevant function);
- ``units="sum2"``: the sum of its two best units' scores (a fix often spans two functions of a file);
- ``units="fuse"``: reciprocal-rank fusion of the file's own rank with its best unit's rank;
- ``path_weight`` w > 0: both indexes are searched over ``contents`` (weight 1) and the ``path`` field
  (weight w) as one boosted query (Pyserini's ``fields``);
- ``evidence``: a ranking of the files the issue names (paths, modules, frames, identifiers; supplied by the
  caller as ``{qid: {path: weight}}``) fused with the ranking above by reciprocal-rank fusion, each file's
  evidence vote in proportion to its weight (:func:`evidence_vote`; that vote came later than the other forms,
  registered in results/selection-ledger.md before it was measured);
- ``history``: the files most changed in the recent history of the base commit
  (:mod:`qlog_pyserini.localize.activity`; supplied as ``{qid: {path: commits}}``) as one more ranking of the
  same fusion, with a whole vote (registered in results/selection-ledger.md before it was measured).

Reciprocal-rank fusion (Cormack, Clarke and Buettcher, SIGIR 2009) scores a file sum(1 / (RRF_K + rank)) over
the rankings that hold it, with their constant ``RRF_K = 60``: it needs no score calibration between BM25 over
files, BM25 over units and a count of mentions, and no weight to tune. A file that no unit ranking reaches keeps
its file rank only; files below every ranking are left out. Files tied on score in one ranking share the
expected contribution of the positions they hold, so a file's name never decides its rank.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from qlog_pyserini.errors import QLogError
from qlog_pyserini.formats.trec import Hit
from qlog_pyserini.localize.paths import PATH_FIELD
from qlog_pyserini.localize.units import unit_path
from qlog_pyserini.lucene.searcher import QLogSearcher

UNIT_MODES = ("file", "max", "sum2", "fuse")
RRF_K = 60  # Cormack, Clarke and Buettcher's constant, fixed in their paper for every run they fused
# What a localized ranking is made of (the evidence's weights, matches, symbol table and assembled files; the
# fusion's rule for ties; the units' grammars; the documents the label-free b is read from): part of the key of a
# cached sweep, so one measured under another is never reused.
LOCALIZE_VERSION = 12
UNIT_HITS = 2000  # units read per query: a file's units are about ten times its documents


@dataclass(frozen=True)
class Localization:
    """How a corpus's file ranking is made (see the module docstring); the default is today's file BM25."""

    units: str = "file"
    path_weight: float = 0.0
    evidence: bool = False
    history: bool = False

    def __post_init__(self) -> None:
        if self.units not in UNIT_MODES:
            raise QLogError(f"--units must be one of {', '.join(UNIT_MODES)}, got {self.units!r}")
        if not (math.isfinite(self.path_weight) and self.path_weight >= 0):
            raise QLogError(f"--path-weight must be a finite number >= 0, got {self.path_weight!r}")

    @property
    def plain(self) -> bool:
        """True when this is the file index's own ranking (no units, no path field, no evidence, no history)."""
        return self.units == "file" and self.path_weight == 0 and not self.evidence and not self.history

    def name(self) -> str:
        """A short name: ``file``, ``fuse+path``, ``max+path+evidence``, ``fuse+history``..."""
        return "+".join([self.units, *(["path"] if self.path_weight else []),
                         *(["evidence"] if self.evidence else []), *(["history"] if self.history else [])])


def files_from_units(unit_hits: Sequence[Hit], mode: str) -> list[Hit]:
    """Files ranked by their units' scores: the best unit's (``max``) or the sum of the two best (``sum2``);
    ties by path."""
    best: dict[str, list[float]] = {}
    for hit in unit_hits:  # in rank order: a file's first units are its best
        scores = best.setdefault(unit_path(hit.docid), [])
        if len(scores) < (1 if mode == "max" else 2):
            scores.append(hit.score)
    ranked = sorted(((sum(s), p) for p, s in best.items()), key=lambda sp: (-sp[0], sp[1]))
    return [Hit(p, float(s)) for s, p in ranked]


def reciprocal_rank_fusion(rankings: Iterable[Sequence[Hit]], k: int = RRF_K,
                           votes: Sequence[Callable[[float], float] | None] = ()) -> list[Hit]:
    """Every id of ``rankings`` (each best first, with its score) scored sum(1 / (k + rank)), rank from 1, best
    first; ties in the output by id. ``votes[i]``, when given and not None, scales each id's term from ranking i by
    a function of its score there (:func:`evidence_vote`); a ranking without one gives every id a whole vote.

    Ids tied on score in one ranking hold positions a..b in some order that says nothing about them, so each
    gets the mean of 1 / (k + r) over r = a..b, its contribution in expectation under a random order: no id
    gains from its name (a symbol defined in 300 files, say, would otherwise favour the first paths in
    alphabetical order)."""
    scores: dict[str, float] = {}
    for i, ranking in enumerate(rankings):
        vote = votes[i] if i < len(votes) else None
        for first, tied, score in _tie_groups(ranking):
            share = sum(1.0 / (k + r) for r in range(first, first + len(tied))) / len(tied)
            if vote is not None:
                share *= vote(score)
            for docid in tied:
                scores[docid] = scores.get(docid, 0.0) + share
    return [Hit(d, s) for d, s in sorted(scores.items(), key=lambda ds: (-ds[1], ds[0]))]


def _tie_groups(ranking: Sequence[Hit]) -> Iterator[tuple[int, list[str], float]]:
    """(first rank, ids, score) of each run of equal scores in ``ranking`` (compared to 12 significant digits, so
    that a sum of shares computed in another order still ties)."""
    group: list[str] = []
    first, key = 1, 0.0
    for rank, hit in enumerate(ranking, start=1):
        score = float(f"{hit.score:.12g}")
        if group and score != key:
            yield first, group, key
            group, first = [], rank
        group.append(hit.docid)
        key = score
    if group:
        yield first, group, key


def evidence_vote(weight: float) -> float:
    """The share of a reciprocal-rank vote a file's evidence weight gives it: the weight, at most one. The evidence
    scale puts 1.0 at a file the reporter named (its path, the first repository frame of a trace), which keeps a
    whole vote; a file holding part of an ambiguous mention (a name defined in 200 files) holds that part of a vote,
    where a vote by rank alone would let a sliver of one outweigh the file ranking's gaps near its top."""
    return min(1.0, weight)


def weight_ranking(weights: Mapping[str, float]) -> list[Hit]:
    """Files ranked by a weight of each (the evidence's, a count of recent commits), heaviest first, ties by path;
    files of weight 0 or less are left out."""
    return [Hit(p, w) for p, w in sorted(weights.items(), key=lambda pw: (-pw[1], pw[0])) if w > 0]


def combine(file_hits: Sequence[Hit], unit_hits: Sequence[Hit] | None, mode: str,
            evidence: Mapping[str, float] | None = None, activity: Mapping[str, int] | None = None) -> list[Hit]:
    """One query's file ranking from its file hits, unit hits (None for ``file``), evidence weights and the files'
    recent commits (``activity``): the last two, when given, are fused with the ranking in one reciprocal-rank
    fusion, the evidence's votes in proportion to its weight, the history's whole."""
    if mode == "file":
        ranked = list(file_hits)
    elif mode in ("max", "sum2"):
        ranked = files_from_units(unit_hits or (), mode)
    else:
        ranked = reciprocal_rank_fusion([file_hits, files_from_units(unit_hits or (), "max")])
    rankings, votes = [ranked], [None]
    if evidence:
        rankings.append(weight_ranking(evidence))
        votes.append(evidence_vote)
    if activity:
        rankings.append(weight_ranking(activity))
        votes.append(None)
    return reciprocal_rank_fusion(rankings, votes=votes) if len(rankings) > 1 else ranked


class Localizer:
    """File rankings from a corpus's open file and units searchers (each already set to its model), combined per
    :class:`Localization`. The caller owns the searchers (:class:`CorpusLocalizer` opens and closes its own);
    ``units`` is None when ``how.units`` is ``file``."""

    def __init__(self, files: QLogSearcher, units: QLogSearcher | None, how: Localization) -> None:
        self.how, self.files, self.units = how, files, units
        if how.units != "file" and units is None:
            raise QLogError(f"--units {how.units} needs a units index")
        if how.path_weight:
            from qlog_pyserini.lucene.fields import check_fields

            # an index built before the path field existed would match nothing there, silently
            for searcher in (files, units):
                if searcher is not None:
                    check_fields(searcher, {PATH_FIELD: how.path_weight}, option="--path-weight")

    def _search(self, searcher: QLogSearcher, texts: list[str], qids: list[str], k: int) -> Mapping[str, list[Hit]]:
        if self.how.path_weight:
            from qlog_pyserini.lucene.fields import batch_search_fields

            return batch_search_fields(searcher, texts, qids, {"contents": 1.0, PATH_FIELD: self.how.path_weight},
                                       k=k)
        return searcher.batch_search(texts, qids, k=k)

    def search_with_units(self, topics: Mapping[str, str], k: int = 1000,
                          evidence: Mapping[str, Mapping[str, float]] | None = None,
                          activity: Mapping[str, Mapping[str, int]] | None = None
                          ) -> tuple[dict[str, list[Hit]], Mapping[str, list[Hit]] | None]:
        """``{qid: top k files}`` for every topic (see :meth:`search`; ``activity``, with ``how.history``, is
        ``{qid: {path: recent commits}}``), and the unit hits they were combined from (None without units)."""
        qids, texts = list(topics), list(topics.values())
        file_hits = self._search(self.files, texts, qids, max(k, 1))
        unit_hits = None if self.units is None or self.how.units == "file" else self._search(self.units, texts, qids,
                                                                                            UNIT_HITS)
        out = {}
        for qid in qids:
            weights = (evidence or {}).get(qid) if self.how.evidence else None
            recent = (activity or {}).get(qid) if self.how.history else None
            out[qid] = combine(file_hits.get(qid, []), None if unit_hits is None else unit_hits.get(qid, []),
                               self.how.units, weights, recent)[:k]
        return out, unit_hits

    def search(self, topics: Mapping[str, str], k: int = 1000,
               evidence: Mapping[str, Mapping[str, float]] | None = None) -> dict[str, list[Hit]]:
        """``{qid: top k files}`` for every topic; ``evidence`` (with ``how.evidence``) is ``{qid: {path: w}}``."""
        return self.search_with_units(topics, k, evidence)[0]


class CorpusLocalizer(Localizer):
    """A :class:`Localizer` over the file and units indexes of one corpus, which it opens under one model and
    closes. ``k1``, ``b`` and ``q`` apply to both indexes unless ``unit_b`` and ``unit_q`` are given (a
    label-free b or q is a property of each index's own statistics)."""

    def __init__(self, files_index: str | Path, units_index: str | Path | None, how: Localization,
                 k1: float, b: float, q: float, unit_b: float | None = None, unit_q: float | None = None,
                 idf_form: str = "lucene") -> None:
        files = QLogSearcher(files_index, k1=k1, b=b, q=q, idf_form=idf_form)
        units = None
        try:
            if how.units != "file":
                if units_index is None or not Path(units_index).is_dir():
                    raise QLogError(f"--units {how.units} needs the units index {str(units_index)!r}; build it with "
                                    "index --instances")
                units = QLogSearcher(units_index, k1=k1, b=b if unit_b is None else unit_b,
                                     q=q if unit_q is None else unit_q, idf_form=idf_form)
            super().__init__(files, units, how)
        except BaseException:
            files.close()
            if units is not None:
                units.close()
            raise

    def close(self) -> None:
        self.files.close()
        if self.units is not None:
            self.units.close()

    def __enter__(self) -> "CorpusLocalizer":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
