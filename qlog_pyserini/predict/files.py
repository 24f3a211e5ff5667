"""Label-free q for issue -> files (``--q auto-files`` on an instance set): one q, chosen across languages.

The corpus rule (:mod:`qlog_pyserini.predict.rule`) leaves every repository of 20 to 2,000 files at q = 1 (its
shrinkage toward BM25). What predicts the gain of q < 1 on files is their mean length, as BM25's weak length
normalisation would have it; the statistics set against the gain are in ``results/issues.md`` ("Label-free q on
issue -> files") and docs/label-free-q.md.

So on an instance set ``--q auto-files`` is this rule, for each instance's index (``--q auto`` is the corpus rule
everywhere, and is refused on an instance set rather than read as this one):

    L = the mean file length in tokens, as BM25 reads it (Lucene's avgdl of the field)
    q = FILES_Q if L >= FILES_MIN_LENGTH else 1

with (FILES_Q, FILES_MIN_LENGTH) the pair :func:`fit_files_rule` picks from the pooled sets
(``results/issues.md``, where the same fit is also scored held out by repository and by language):

    candidates = q of the grid at or above Q_FLOOR (the corpus rule's floor) x L of LENGTH_GRID; an instance
                 scores at q where its index's L reaches the candidate's, at BM25 (q = 1) elsewhere
    admissible = the candidates that keep the mean MRR of every group (a language's set) of at least
                 MIN_GROUP instances within TOLERANCE (relative) of BM25's, and gain on the mean
    best       = the highest mean, over the groups, of the relative change against BM25
    chosen     = among the admissible within CAUTION of best, the most cautious: the longest L, then the
                 highest q

and BM25 everywhere (L = infinity) when nothing is admissible.

    >>> import pandas as pd
    >>> scores = pd.DataFrame({1.0: [0.5, 0.5], 0.7: [0.6, 0.45]}, index=["c-1", "js-1"])
    >>> fit_files_rule(scores, {"c-1": 2000, "js-1": 150}, {"c-1": "c", "js-1": "js"}, min_group=1)
    FilesRule(q=0.7, min_length=2000.0)
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any, Hashable, Mapping, Sequence

import pandas as pd

from qlog_pyserini.errors import QLogError
from qlog_pyserini.predict.rule import DEFAULT_Q_MIN, Prediction, RuleSettings
from qlog_pyserini.system.progress import info

#: the ``--q`` value that asks for this rule
AUTO_FILES = "auto-files"
FILES_Q = 0.75  # fit_files_rule on the four shared Multi-SWE-bench sets (results/issues.md, "Label-free q")
FILES_MIN_LENGTH = 500.0
Q_FLOOR = DEFAULT_Q_MIN  # the corpus rule's floor: below it real user queries lose fast (docs/label-free-q.md)
LENGTH_GRID = (0.0, 100.0, 150.0, 200.0, 300.0, 500.0, 700.0, 1000.0, 1500.0, 2000.0)
TOLERANCE = 0.005  # the most a group may lose against BM25: the project's bound for a label-free rule
CAUTION = 0.002  # within this much mean relative change of the best, the most cautious candidate is taken
MIN_GROUP = 10  # a group with fewer instances is scored but does not constrain the choice
RULE = "files"


@dataclass(frozen=True)
class FilesRule:
    """q for an index whose mean file length reaches ``min_length`` tokens, BM25 below it."""

    q: float = FILES_Q
    min_length: float = FILES_MIN_LENGTH

    def __post_init__(self) -> None:
        if not (isinstance(self.q, (int, float)) and math.isfinite(self.q) and 0 < self.q <= 1):
            raise QLogError(f"illegal files-rule q: {self.q!r}, must be in (0, 1]")
        if not (isinstance(self.min_length, (int, float)) and self.min_length >= 0):
            raise QLogError(f"illegal files-rule length: {self.min_length!r}, must be a number >= 0")
        object.__setattr__(self, "q", float(self.q))
        object.__setattr__(self, "min_length", float(self.min_length))

    def q_for(self, mean_length: float) -> float:
        return self.q if mean_length >= self.min_length else 1.0

    def predict(self, mean_length: float) -> Prediction:
        """The rule's :class:`Prediction` for an index of that mean file length (its ``note`` says why)."""
        side = ">=" if mean_length >= self.min_length else "<"
        return Prediction(q=self.q_for(mean_length), h_tok=float(mean_length), variant=RULE, c=0.0, q_min=self.q,
                          note=f"issue -> files, mean file length {mean_length:.0f} tokens {side} "
                               f"{self.min_length:g} (qlog_pyserini.predict.files)")


def scored_at(scores: pd.DataFrame, lengths: Mapping[Hashable, float], rule: FilesRule,
              reference: float = 1.0) -> pd.Series:
    """Each instance's score at the q ``rule`` gives its index (``scores``: one column per q)."""
    return pd.Series({i: scores.at[i, rule.q if lengths[i] >= rule.min_length else reference] for i in scores.index},
                     dtype=float)


def fit_files_rule(scores: pd.DataFrame, lengths: Mapping[Hashable, float], group_of: Mapping[Hashable, str],
                   reference: float = 1.0, q_floor: float = Q_FLOOR, length_grid: Sequence[float] = LENGTH_GRID,
                   tolerance: float = TOLERANCE, caution: float = CAUTION, min_group: int = MIN_GROUP) -> FilesRule:
    """The rule above fitted on ``scores`` (one row per instance, one column per q of a metric such as MRR; the
    ``reference`` column is BM25), each instance's index mean file length and group. See the module docstring."""
    if reference not in scores.columns:
        raise QLogError(f"the scores hold no column for the reference q = {reference:g}")
    groups = pd.Series({i: group_of[i] for i in scores.index}, dtype=object)
    sizes = groups.value_counts()
    kept = [g for g in sizes.index if sizes[g] >= min_group]
    never = FilesRule(q=reference, min_length=math.inf)
    if not kept:
        return never
    base = scores[reference].groupby(groups).mean().loc[kept]
    if (base <= 0).any():
        raise QLogError("a group scores 0 under BM25: relative changes are undefined")
    admissible = []
    for q in (q for q in scores.columns if q_floor <= q < reference):
        for length in length_grid:
            rule = FilesRule(q=q, min_length=length)
            change = (scored_at(scores, lengths, rule, reference).groupby(groups).mean().loc[kept] - base) / base
            if (change >= -tolerance).all() and change.mean() > 0:  # a move must earn something where it is fitted
                admissible.append((float(change.mean()), rule))
    if not admissible:
        return never
    best = max(mean for mean, _ in admissible)
    return max((rule for mean, rule in admissible if mean >= best - caution), key=lambda r: (r.min_length, r.q))


def held_out_rules(scores: pd.DataFrame, lengths: Mapping[Hashable, float], unit_of: Mapping[Hashable, str],
                   group_of: Mapping[Hashable, str], **fit: Any) -> dict[str, FilesRule]:
    """For each unit (a repository, a language), the rule :func:`fit_files_rule` fits on the other units."""
    units = pd.Series({i: unit_of[i] for i in scores.index}, dtype=object)
    return {unit: fit_files_rule(scores[units != unit], lengths, group_of, **fit) for unit in sorted(set(units))}


def is_auto_files(text: str) -> bool:
    """Whether a ``--q`` value asks for the files rule (``auto-files``)."""
    return str(text).strip().lower() == AUTO_FILES


def files_rule_for(auto: RuleSettings) -> FilesRule:
    """``--q auto-files`` on an instance set: the files rule. The corpus rule's ``--auto-*`` constants do not
    apply to it, so a changed one is refused rather than ignored."""
    if auto != RuleSettings():
        raise QLogError("the --auto-* options set the corpus rule; on an instance set the label-free q is the files "
                        "rule, --q auto-files (docs/label-free-q.md): drop them, or give --q a number")
    return FilesRule()


def log_files_qs(qs: Sequence[float], rule: FilesRule) -> None:
    """One log line: the files rule and how many indexes got each q."""
    counts = pd.Series(list(qs), dtype=float).value_counts().sort_index()
    spread = ", ".join(f"q = {q:g} on {n}" for q, n in counts.items())
    info(f"q auto (files rule: q = {rule.q:g} where the mean file length reaches {rule.min_length:g} tokens, "
         f"else 1): {spread} of {len(qs)} indexes")
