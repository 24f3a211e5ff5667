"""The issue -> files configurations of an instance sweep: units, path field, evidence, label-free b, ``--auto``.

Each configuration is named as ``search --instances`` spells its flags, parts joined by ``+``: a units mode
(``file``, ``max``, ``sum2``, ``fuse``), then any of ``path`` (``--path-weight 1``), ``evidence``, ``va``
(``--b-va``), ``auto-files`` (``--q auto-files``: the files rule's q on each index), ``history``
(``--history``); ``auto`` is ``search --instances --auto``, and ``auto+history`` the same with ``--history``. Every configuration but ``auto`` and those with ``auto-files`` is searched at BM25
(k1 0.9, b 0.4 or VA, q 1), so its row says what the configuration adds to BM25; ``auto`` chooses everything
without labels. Each instance is measured as the grid's points are (trec_eval's measures in process,
Recall@K-tokens over the same token counts).
"""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path
from typing import Mapping, Sequence

import numpy as np
import pandas as pd

from qlog_pyserini.errors import QLogError
from qlog_pyserini.eval.budget import recall_at_token_budgets
from qlog_pyserini.eval.metrics import metric_names
from qlog_pyserini.eval.quick import evaluate
from qlog_pyserini.formats.instances import InstanceSet
from qlog_pyserini.localize.paths import PATH_WEIGHT
from qlog_pyserini.localize.ranking import UNIT_MODES, Localization
from qlog_pyserini.localize.run import AUTO, EvidenceOf, LocalizeModel, localize_corpus
from qlog_pyserini.lucene.searcher import QLogSearcher
from qlog_pyserini.predict.files import AUTO_FILES

#: the parameters each instance was searched with, kept beside its measures (``unit_*``: the units index's)
PARAMETERS = ("b", "q", "unit_b", "unit_q")
#: what ``--localize all`` sweeps (``evidence`` forms join when the issue-text evidence is available)
ALL = ("max", "sum2", "fuse", "file+path", "fuse+path", "file+va", "fuse+path+va", "auto")
_FLAGS = ("path", "evidence", "va", AUTO_FILES, "history")


def parse_configuration(name: str) -> tuple[Localization, LocalizeModel]:
    """``fuse+path+va`` -> its :class:`Localization` and :class:`LocalizeModel`; QLogError on a bad name."""
    if name in ("auto", "auto+history"):
        return replace(AUTO[0], history=name != "auto"), AUTO[1]
    units, *flags = name.split("+")
    if units not in UNIT_MODES or len(set(flags)) != len(flags) or not set(flags) <= set(_FLAGS):
        raise QLogError(f"--localize {name!r}: a units mode ({', '.join(UNIT_MODES)}) then any of "
                        f"+{', +'.join(_FLAGS)}, or 'auto' or 'auto+history'")
    how = Localization(units, PATH_WEIGHT if "path" in flags else 0.0, "evidence" in flags, "history" in flags)
    return how, LocalizeModel(b=None if "va" in flags else LocalizeModel().b,
                              q=AUTO_FILES if AUTO_FILES in flags else LocalizeModel().q)


def parse_configurations(names: Sequence[str], evidence: bool) -> list[str]:
    """The configuration names asked for (``all``: :data:`ALL`, with its evidence forms when ``evidence``),
    each checked."""
    out: list[str] = []
    for name in names:
        expanded = list(ALL) + (["file+evidence", "fuse+path+evidence"] if evidence else []) if name == "all" \
            else [name]
        for n in expanded:
            parse_configuration(n)
            if n not in out:
                out.append(n)
    return out


def measure_configurations(instance_set: InstanceSet, indexes: Mapping[str, Path], names: Sequence[str],
                           measures: Sequence[str], metrics: Sequence[str], budgets: Sequence[int],
                           recall_column: str, recall_all_column: str, hits: int = 1000,
                           evidence_of: EvidenceOf | None = None) -> dict[str, pd.DataFrame]:
    """``{name: per-instance measures}`` (rows = instance ids in set order, columns = ``measures``, then the
    :data:`PARAMETERS` its corpus was searched with)."""
    order = [i.instance_id for i in instance_set.instances]
    frames: dict[str, list[pd.DataFrame]] = {n: [] for n in names}
    for key, members in instance_set.by_corpus().items():
        qrels = {i.instance_id: instance_set.qrels.get(i.instance_id, {}) for i in members}
        with QLogSearcher(indexes[key]) as files:
            for name in names:
                how, model = parse_configuration(name)
                runs, used = localize_corpus(instance_set, members, indexes[key], how, model, hits, evidence_of)
                table = measure_runs(runs, qrels, files, metrics, budgets, recall_column, recall_all_column)
                frames[name].append(table.assign(**{p: used.get(p, np.nan) for p in PARAMETERS}))
    return {n: pd.concat(f).reindex(order)[[*measures, *PARAMETERS]] for n, f in frames.items()}


def measure_runs(runs: Mapping[str, list], qrels: Mapping[str, Mapping[str, int]], files: QLogSearcher,
             metrics: Sequence[str], budgets: Sequence[int], recall_column: str, recall_all_column: str
             ) -> pd.DataFrame:
    """Each judged instance's measures from its ranked files ``runs``, as the grid's points are measured."""
    judged = {q: r for q, r in qrels.items() if r}
    from qlog_pyserini.sweep.instances import with_every_gold

    answered = {q: runs.get(q, []) for q in judged}
    if any(answered.values()):
        table = evaluate(answered, judged, list(metrics)).per_query
    else:  # no judged instance of this corpus got a hit (trec_eval -c counts each as 0, as the grid's scorer does)
        table = pd.DataFrame(0.0, index=pd.Index(list(judged), name="qid"), columns=metric_names(list(metrics)))
    table = with_every_gold(table)
    for every, column in ((False, recall_column), (True, recall_all_column)):
        recall = recall_at_token_budgets(runs, judged, files.doc_text, budgets, every=every)
        for k in budgets:
            table[f"{column}.{k}"] = recall[k]
    missing = [q for q in qrels if q not in judged]  # an instance the qrels lack is a row of NaN
    return pd.concat([table, pd.DataFrame(np.nan, index=pd.Index(missing, name="qid"), columns=table.columns)])
