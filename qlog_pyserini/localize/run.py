"""An instance set localized corpus by corpus: each issue's file ranking under one :class:`Localization` and one
:class:`LocalizeModel` (k1, b, q; b and q fixed, or label-free per index).

The label-free configuration (:data:`AUTO`, ``search --instances --auto``) is fixed a priori:

- units ``fuse``: the file's own rank fused with its best unit's (units alone lose on some languages, the
  file's own rank alone ignores where in the file the issue points);
- the path field at weight :data:`~qlog_pyserini.localize.paths.PATH_WEIGHT`;
- the issue's structure: the files its text names (:mod:`qlog_pyserini.localize.evidence`) fused by reciprocal
  rank, and a query past Lucene's clause limit reduced by
  :func:`~qlog_pyserini.localize.issue_text.reduce_query`'s stated rule;
- k1 = 0.9 (Pyserini's), b = :func:`~qlog_pyserini.localize.lengths.index_b` of each index (files and units
  each their own), q = the corpus rule (:mod:`qlog_pyserini.predict.rule`: q from the slope of the index's
  document-frequency distribution, shrunk toward BM25 by its size) of each index.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Callable, Iterable, Iterator, Mapping, Sequence

from qlog_pyserini.errors import QLogError
from qlog_pyserini.formats.instances import Instance, InstanceSet, corpus_path, file_text, read_assembled
from qlog_pyserini.formats.trec import Hit
from qlog_pyserini.formula import DEFAULT_B, DEFAULT_K1
from qlog_pyserini.localize.assembly import Assembly
from qlog_pyserini.localize.issue_text import reduce_query
from qlog_pyserini.localize.lengths import index_b
from qlog_pyserini.localize.ranking import CorpusLocalizer, Localization, Localizer
from qlog_pyserini.localize.symbols import SymbolCache
from qlog_pyserini.localize.units import units_index
from qlog_pyserini.lucene.searcher import QLogSearcher
from qlog_pyserini.predict.files import AUTO_FILES, FilesRule
from qlog_pyserini.predict.rule import AUTO as CORPUS_RULE
from qlog_pyserini.predict.rule import RuleSettings, predict_index

if TYPE_CHECKING:
    from qlog_pyserini.localize.evidence import FileIndex

#: ``{qid: issue text}``, the corpus's files with the names each defines (``{path: names}``, in the index's
#: order) and what the files it left out as generated were assembled from -> ``{qid: {path: weight}}``
EvidenceOf = Callable[[Mapping[str, str], Mapping[str, Iterable[str]], Mapping[str, Assembly | None]],
                      Mapping[str, Mapping[str, float]]]


#: the label-free q rules a :class:`LocalizeModel` names, each read off every index by :func:`index_q`
Q_RULES = {CORPUS_RULE: "corpus rule (q from the index's df distribution)", AUTO_FILES: "files rule"}


@dataclass(frozen=True)
class LocalizeModel:
    """BM25's k1, b and q-log's q for both indexes of a corpus; ``b=None``: each index's label-free b
    (:func:`~qlog_pyserini.localize.lengths.index_b`); ``q`` a number, or a label-free rule applied to each index
    (:data:`Q_RULES`): ``"auto"`` the corpus rule with the constants ``corpus_rule``, ``"auto-files"`` the files
    rule ``files_rule``."""

    k1: float = DEFAULT_K1
    b: float | None = DEFAULT_B
    q: float | str = 1.0
    corpus_rule: RuleSettings = RuleSettings()
    files_rule: FilesRule = FilesRule()

    def __post_init__(self) -> None:
        if isinstance(self.q, str) and self.q not in Q_RULES:
            raise QLogError(f"q must be a number or one of {', '.join(Q_RULES)}, got {self.q!r}")


_SYMBOLS = SymbolCache()  # names kept between corpora: the states of a history share most files
AUTO = (Localization(units="fuse", path_weight=1.0, evidence=True), LocalizeModel(b=None, q=CORPUS_RULE))


def evidence_available() -> bool:
    """True when the issue-text evidence (:mod:`qlog_pyserini.localize.evidence`) is installed."""
    import importlib.util

    return importlib.util.find_spec("qlog_pyserini.localize.evidence") is not None


def files_evidence(files: FileIndex) -> Callable[[Mapping[str, str]], dict[str, dict[str, float]]]:
    """``{qid: issue text}`` -> ``{qid: {path: weight}}``: each issue's mentions matched to the files of ``files``
    (built once, for any number of issues)."""
    from qlog_pyserini.localize.evidence import file_evidence
    from qlog_pyserini.localize.issue_text import parse_issue

    def evidence(topics: Mapping[str, str]) -> dict[str, dict[str, float]]:
        return {qid: file_evidence(parse_issue(text), files) for qid, text in topics.items()}

    return evidence


def issue_evidence() -> EvidenceOf:
    """The issue-text evidence (:mod:`qlog_pyserini.localize.evidence`) as :data:`EvidenceOf`: each issue's
    mentions matched to the corpus's files and the names they define."""
    from qlog_pyserini.localize.evidence import FileIndex

    def evidence_of(topics: Mapping[str, str], files: Mapping[str, Iterable[str]],
                    assembled: Mapping[str, Assembly | None]) -> dict[str, dict[str, float]]:
        return files_evidence(FileIndex(files, files, assembled))(topics)

    return evidence_of


def corpus_symbols(instance_set: InstanceSet, key: str, language: str,
                   index: QLogSearcher | None = None) -> dict[str, frozenset[str]]:
    """``{path: names it defines}`` of the corpus ``key`` of ``instance_set``, read from its documents, or, when
    the set's corpus file is gone (an index built by the ``index`` verb may outlive it), from the texts stored in
    its files ``index``."""
    corpus = corpus_path(instance_set.folder, key)
    if corpus.is_file() or index is None:
        return _SYMBOLS.corpus_file(corpus, language)
    return _SYMBOLS.corpus(((path, file_text(index.doc_text(path))) for path in index.docids.ids), language)


def index_q(searcher: QLogSearcher, model: LocalizeModel) -> float:
    """q of the index ``searcher`` reads under ``model``: ``model.q`` itself when a number, else its rule
    (:data:`Q_RULES`) on the index's statistics."""
    if model.q == CORPUS_RULE:
        return predict_index(searcher.index_dir, searcher.num_docs, model.corpus_rule).q
    if model.q == AUTO_FILES:
        return model.files_rule.q_for(searcher.mean_length())
    return float(model.q)


def index_parameters(searcher: QLogSearcher, model: LocalizeModel) -> tuple[float, float]:
    """(b, q) of the index ``searcher`` reads under ``model``: each label-free one from the index's statistics
    (:func:`~qlog_pyserini.localize.lengths.index_b`, :func:`index_q`), a fixed one as given."""
    b = index_b(searcher) if model.b is None else model.b
    return b, index_q(searcher, model)


def _parameters(index: Path, model: LocalizeModel) -> tuple[float, float]:
    """(b, q) of one index under ``model``, opening it only for what is label-free."""
    if model.b is not None and not isinstance(model.q, str):
        return model.b, float(model.q)
    with QLogSearcher(index) as s:
        return index_parameters(s, model)


def localize_topics(loc: Localizer, topics: Mapping[str, str], hits: int,
                    evidence: Callable[[Mapping[str, str]], Mapping[str, Mapping[str, float]]] | None = None,
                    activity: Mapping[str, Mapping[str, int]] | None = None
                    ) -> tuple[dict[str, list[Hit]], Mapping[str, list[Hit]] | None]:
    """The file rankings of ``topics`` from ``loc`` (its searchers set to their parameters), and the unit hits they
    were combined from. With ``loc.how.evidence``, ``evidence`` weighs the files each issue names, and a query past
    Lucene's clause limit is reduced by :func:`~qlog_pyserini.localize.issue_text.reduce_query`'s stated rule (one
    that fits is searched as written); with ``loc.how.history``, ``activity`` is each issue's ``{path: recent
    commits}`` (an issue without one is ranked without it)."""
    weights = None
    if loc.how.evidence:
        if evidence is None:
            raise QLogError("localize_topics: the evidence configuration needs the issues' evidence")
        weights = evidence(topics)
        topics = {qid: reduce_query(text) for qid, text in topics.items()}
    return loc.search_with_units(topics, k=hits, evidence=weights, activity=activity)


def _evidence(of: EvidenceOf, instance_set: InstanceSet, member: Instance, loc: Localizer
              ) -> Callable[[Mapping[str, str]], Mapping[str, Mapping[str, float]]]:
    """``of`` over the files of ``loc``'s index and the names they define (read from the set's corpus file), and
    what the files the corpus left out as generated were assembled from."""
    symbols = corpus_symbols(instance_set, member.corpus, member.language, loc.files)
    files = {path: symbols.get(path, ()) for path in loc.files.docids.ids}
    assembled = corpus_assemblies(instance_set, member.corpus)
    return lambda topics: of(topics, files, assembled)


def corpus_assemblies(instance_set: InstanceSet, key: str) -> dict[str, Assembly | None]:
    """``{path: Assembly or None}`` of the files the corpus ``key`` left out as generated (empty when none)."""
    return {path: Assembly.from_json(record) if record else None
            for path, record in read_assembled(instance_set.folder, key).items()}


def localize_corpus(instance_set: InstanceSet, members: Sequence[Instance], files_index: Path,
                    how: Localization, model: LocalizeModel, hits: int = 1000,
                    evidence_of: EvidenceOf | None = None,
                    idf_form: str = "lucene") -> tuple[dict[str, list[Hit]], dict[str, float]]:
    """The file rankings of one corpus's instances, and the parameters used (``b``, ``q``, and ``unit_b``,
    ``unit_q`` with units)."""
    units = units_index(files_index.parent, files_index.name)
    b, q = _parameters(files_index, model)
    used = {"b": b, "q": q}
    unit_b = unit_q = None
    if how.units != "file" and units.is_dir():
        unit_b, unit_q = _parameters(units, model)
        used.update(unit_b=unit_b, unit_q=unit_q)
    topics = {i.instance_id: instance_set.topics[i.instance_id] for i in members}
    with CorpusLocalizer(files_index, units, how, model.k1, b, q, unit_b, unit_q, idf_form) as loc:
        evidence = _evidence(evidence_of or issue_evidence(), instance_set, members[0], loc) if how.evidence else None
        activity = {i.instance_id: i.activity for i in members} if how.history else None
        runs, _ = localize_topics(loc, topics, hits, evidence, activity)
        return runs, used


def localize_instances(instance_set: InstanceSet, indexes: Mapping[str, Path], how: Localization,
                       model: LocalizeModel, hits: int = 1000, evidence_of: EvidenceOf | None = None
                       ) -> Iterator[tuple[str, list[Instance], dict[str, list[Hit]], dict[str, float]]]:
    """Per corpus, in the set's order: its key, instances, rankings and parameters (:func:`localize_corpus`)."""
    for key, members in instance_set.by_corpus().items():
        runs, used = localize_corpus(instance_set, members, indexes[key], how, model, hits, evidence_of)
        yield key, members, runs, used
