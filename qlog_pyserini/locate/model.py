"""How ``locate`` ranks files: one configuration object, so another label-free configuration can replace it.

A :class:`LocateModel` is a :class:`~qlog_pyserini.localize.ranking.Localization` (units, path field, evidence)
and a :class:`~qlog_pyserini.localize.run.LocalizeModel` (k1, b, q), run through localize's own code:
:func:`~qlog_pyserini.localize.run.index_parameters` sets each index's b and q,
:func:`~qlog_pyserini.localize.run.localize_topics` ranks. The default, :data:`AUTO_MODEL`, is the issue -> files
label-free configuration of ``search --instances --auto`` (:data:`qlog_pyserini.localize.run.AUTO`): the file
ranking fused by reciprocal rank with its units' ranking, the path field at weight 1, the files the issue's text
names fused by reciprocal rank, k1 0.9, each index's BM25-VA b (``1 - 1/mavgtf``) and its corpus rule's q (from
the slope of its document-frequency distribution); with ``how.history``, the files the checked-out commit's recent
history changed most (:mod:`qlog_pyserini.localize.activity`) fused as well. :data:`FILES_RULE_MODEL` is q-log BM25 over whole files alone
(b 0.4, the files rule's q).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable, Mapping

from qlog_pyserini.formats.trec import Hit
from qlog_pyserini.formula import DEFAULT_B
from qlog_pyserini.localize.activity import ACTIVITY_COMMITS
from qlog_pyserini.localize.ranking import RRF_K, Localization, Localizer
from qlog_pyserini.localize.run import AUTO, Q_RULES, LocalizeModel, index_parameters, localize_topics
from qlog_pyserini.lucene.searcher import QLogSearcher
from qlog_pyserini.predict.files import AUTO_FILES

ANALYZER = "default"
ISSUE = "issue"  # the one topic's id


@dataclass(frozen=True)
class LocateModel:
    """A localization (``how``) under one model (``model``: k1, and b and q fixed or label-free per index)."""

    how: Localization = AUTO[0]
    model: LocalizeModel = AUTO[1]
    analyzer: str = ANALYZER
    name: str = "auto"

    @property
    def k1(self) -> float:
        return self.model.k1

    def _set(self, searcher: QLogSearcher) -> dict[str, Any]:
        b, q = index_parameters(searcher, self.model)
        searcher.set_qlog(q=q, k1=self.model.k1, b=b)
        return {"b": b, "b_source": "label-free (BM25-VA: 1 - 1/mavgtf)" if self.model.b is None else "given",
                "q": q, "q_source": Q_RULES.get(self.model.q, "given") if isinstance(self.model.q, str) else "given",
                "mean_length": round(searcher.mean_length(), 1)}

    def configure(self, files: QLogSearcher, units: QLogSearcher) -> tuple[Localizer, dict[str, Any]]:
        """Set each index's b and q (an index just opened or updated); the localizer over both, and the settings
        as JSON."""
        settings: dict[str, Any] = {"name": self.name, "units": self.how.units, "path_weight": self.how.path_weight,
                                    "evidence": self.how.evidence, "history": self.how.history,
                                    "k1": self.model.k1, "idf_form": "lucene",
                                    "analyzer": self.analyzer, "files_index": self._set(files)}
        uses_units = self.how.units != "file"
        if uses_units:
            settings["units_index"] = self._set(units)
        if self.model.q == AUTO_FILES:
            settings["rule"] = {"q": self.model.files_rule.q, "min_length": self.model.files_rule.min_length}
        if self.how.history:
            settings["history_commits"] = ACTIVITY_COMMITS
        if uses_units or self.how.evidence or self.how.history:
            settings["rrf_k"] = RRF_K
        return Localizer(files, units if uses_units else None, self.how), settings

    def rank(self, localizer: Localizer, issue: str, k: int,
             evidence: Callable[[Mapping[str, str]], Mapping[str, Mapping[str, float]]] | None,
             activity: Callable[[], Mapping[str, int]] | None = None) -> tuple[list[Hit], list[Hit]]:
        """The top ``k`` files for ``issue``, best first, and the unit hits they were ranked with (none without
        units); ``activity`` gives the indexed files' recent commits, read only when ``how.history``."""
        recent = {ISSUE: activity()} if self.how.history and activity is not None else None
        runs, units = localize_topics(localizer, {ISSUE: issue}, k, evidence, recent)
        return runs.get(ISSUE, []), list((units or {}).get(ISSUE, []))


AUTO_MODEL = LocateModel()
FILES_RULE_MODEL = LocateModel(Localization(), LocalizeModel(b=DEFAULT_B, q=AUTO_FILES), name="files-rule")
