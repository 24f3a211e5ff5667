"""How ``locate`` ranks files: one configuration object, so another label-free configuration can replace it.

A model is anything with :meth:`FilesModel.configure` (set the searcher up for an index and say what was set),
:meth:`FilesModel.rank` (the ranked files of one issue) and the BM25 ``k1`` and ``b`` the units are scored
with. :class:`FilesModel` is the configuration ``search --instances --q auto-files`` uses: Anserini's default
analyzer, BM25's ``k1`` 0.9 and ``b`` 0.4, and q from the files rule (:mod:`qlog_pyserini.predict.files`): q
for an index whose mean file length reaches the rule's length, BM25 (q = 1) below it.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Protocol

from qlog_pyserini.formats.trec import Hit
from qlog_pyserini.formula import DEFAULT_B, DEFAULT_K1, check_qlog
from qlog_pyserini.lucene.searcher import QLogSearcher
from qlog_pyserini.predict.files import FilesRule

ANALYZER = "default"


class RankingModel(Protocol):
    """What :class:`~qlog_pyserini.locate.locator.Locator` needs of a ranking configuration."""

    analyzer: str
    k1: float
    b: float

    def configure(self, searcher: QLogSearcher) -> dict[str, Any]:
        """Install the model on ``searcher`` (an index just opened or updated); the settings, as JSON."""

    def rank(self, searcher: QLogSearcher, issue: str, k: int) -> list[Hit]:
        """The top ``k`` files for ``issue``, best first."""


@dataclass(frozen=True)
class FilesModel:
    """q-log BM25 with q from the files rule (``q=None``) or a fixed q."""

    k1: float = DEFAULT_K1
    b: float = DEFAULT_B
    q: float | None = None
    rule: FilesRule = field(default_factory=FilesRule)
    analyzer: str = ANALYZER
    name: str = "files-rule"

    def __post_init__(self) -> None:
        check_qlog(1.0 if self.q is None else self.q, self.k1, self.b, "lucene")

    def configure(self, searcher: QLogSearcher) -> dict[str, Any]:
        mean_length = searcher.mean_length()
        q = self.rule.q_for(mean_length) if self.q is None else self.q
        searcher.set_qlog(q=q, k1=self.k1, b=self.b)
        settings: dict[str, Any] = {"name": self.name, "k1": self.k1, "b": self.b, "q": q,
                                    "q_source": "files rule" if self.q is None else "given",
                                    "idf_form": "lucene", "analyzer": self.analyzer,
                                    "mean_file_length": round(mean_length, 1)}
        if self.q is None:
            settings["rule"] = {"q": self.rule.q, "min_length": self.rule.min_length}
        return settings

    def rank(self, searcher: QLogSearcher, issue: str, k: int) -> list[Hit]:
        return searcher.search(issue, k=k)
