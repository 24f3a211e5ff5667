"""Label-free q for issue -> files (``--q auto`` on an instance set): one q, chosen across languages.

The corpus rule (:mod:`qlog_pyserini.predict.rule`) reads a repository of files as if it were text. Its
feature, the slope of the document-frequency distribution, was fitted on corpora of functions; a file holds
many of them, so the same code split into files has a flatter df distribution and reads as text. Its
shrinkage toward BM25 (n0 = 5,000 documents) then leaves every repository of 20 to 2,000 files at q = 1.
Measured on the instance sets, no statistic such a rule can read without labels (the slope, the share
of hapax terms, corpus size, mean file length, the issue's length or the document frequencies of its terms)
tells the repositories or issues that gain from q < 1 from those that do not (``docs/label-free-q.md``,
"Issue -> files"). What holds is the task: the gain curves of every language rise or stay flat near
q = 0.75 and part ways below it.

So on an instance set ``--q auto`` is one q for every instance, :data:`FILES_Q`, the value
:func:`fit_files_q` picks from the pooled sets (``results/issues.md``, where the same rule is also scored
held out by repository and by language):

    admissible = the grid's q at which every group (a language's set) of at least MIN_GROUP instances
                 keeps its mean MRR within TOLERANCE (relative) of BM25's
    best       = the highest mean, over the groups, of the relative change against BM25
    q          = the highest admissible q whose mean is within CAUTION of best (the one nearest BM25)

and q = 1 when no q is admissible.

    >>> import pandas as pd
    >>> scores = pd.DataFrame({1.0: [0.5, 0.5], 0.7: [0.6, 0.5], 0.4: [0.8, 0.4]}, index=["a-1", "b-1"])
    >>> fit_files_q(scores, {"a-1": "java", "b-1": "js"}, min_group=1)   # js falls 20% at q = 0.4
    0.7
"""

from __future__ import annotations

import math
from typing import Hashable, Mapping

import pandas as pd

from qlog_pyserini.errors import QLogError
from qlog_pyserini.predict.rule import Prediction, RuleSettings, describe
from qlog_pyserini.system.progress import info

FILES_Q = 0.75  # fit_files_q on the four shared Multi-SWE-bench sets (results/issues.md, "Label-free q")
TOLERANCE = 0.005  # the most a group may lose against BM25: the project's bound for a label-free rule
CAUTION = 0.002  # within this much mean relative change of the best, the q nearest BM25 is taken
MIN_GROUP = 10  # a group with fewer instances is scored but does not constrain the choice
RULE = "files"


def fit_files_q(scores: pd.DataFrame, group_of: Mapping[Hashable, str], reference: float = 1.0,
                tolerance: float = TOLERANCE, caution: float = CAUTION, min_group: int = MIN_GROUP) -> float:
    """The q of the rule above, from ``scores`` (one row per instance, one column per q: a metric such as MRR;
    the ``reference`` column is BM25) and each instance's group. See the module docstring."""
    if reference not in scores.columns:
        raise QLogError(f"the scores hold no column for the reference q = {reference:g}")
    groups = pd.Series({i: group_of[i] for i in scores.index})
    sizes = groups.value_counts()
    kept = [g for g in sizes.index if sizes[g] >= min_group]
    if not kept:
        return reference
    means = scores.groupby(groups).mean().loc[kept]
    base = means[reference]
    if (base <= 0).any():
        raise QLogError("a group scores 0 under BM25: relative changes are undefined")
    change = means.sub(base, axis=0).div(base, axis=0)
    admissible = [q for q in scores.columns if (change[q] >= -tolerance).all()]
    if not admissible:
        return reference
    mean_change = change[admissible].mean()
    best = mean_change.max()
    return float(max(q for q in admissible if mean_change[q] >= best - caution))


def held_out_qs(scores: pd.DataFrame, unit_of: Mapping[Hashable, str], group_of: Mapping[Hashable, str],
                **fit: float) -> dict[str, float]:
    """For each unit (a repository, a language), the q :func:`fit_files_q` picks from the other units' instances."""
    units = pd.Series({i: unit_of[i] for i in scores.index})
    return {unit: fit_files_q(scores[units != unit], group_of, **fit) for unit in sorted(set(units))}


def files_prediction(q: float = FILES_Q) -> Prediction:
    """The files rule's :class:`Prediction` (its ``note`` names the rule for the search log)."""
    if not (isinstance(q, (int, float)) and math.isfinite(q) and 0 < q <= 1):
        raise QLogError(f"illegal files-rule q: {q!r}, must be in (0, 1]")
    return Prediction(q=float(q), h_tok=math.nan, variant=RULE, c=0.0, q_min=float(q),
                      note="issue -> files, one q for every repository (qlog_pyserini.predict.files)")


def files_auto_q(auto: RuleSettings) -> float:
    """``--q auto`` on an instance set: the files rule's q. The corpus rule's ``--auto-*`` constants do not
    apply to it, so a changed one is refused rather than ignored."""
    if auto != RuleSettings():
        raise QLogError("the --auto-* options set the corpus rule; on an instance set --q auto is the files rule "
                        "(one q for every repository, docs/label-free-q.md): drop them, or give --q a number")
    return FILES_Q


def log_files_q(q: float) -> None:
    """One log line naming the files rule and its q."""
    info(describe(files_prediction(q)))
