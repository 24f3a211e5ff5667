"""A search run from start to file: what ``python -m qlog_pyserini.search`` does, as a library.

    job = SearchJob(index="indexes/csn-ruby", topics="topics.tsv", output="run.txt", q=0.7)
    run_search(job)

The steps are separate so that every input is checked before any long work starts:
:func:`prepare` (index, topics, output folder, q auto), :func:`open_searcher` (model, fields,
feedback, language), then :func:`search_to_file` (batches streamed into the TREC or MS MARCO run,
atomically, Pyserini's duplicate/query filters applied; one batch in memory at a time).
:func:`run_search` runs the three; :func:`run_instance_search` runs them on each corpus of an instance set.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING, BinaryIO, Mapping

from qlog_pyserini.errors import QLogError
from qlog_pyserini.formats.instances import InstanceSet, read_instance_set
from qlog_pyserini.formats.topics import Topics, empty_count
from qlog_pyserini.formats.trec import OUTPUT_FORMATS, check_id, format_run_lines
from qlog_pyserini.formula import DEFAULT_B, DEFAULT_K1, check_form, check_q
from qlog_pyserini.localize.ranking import Localization
from qlog_pyserini.localize.run import LocalizeModel, issue_evidence, localize_instances
from qlog_pyserini.lucene.batch import BATCH, RunWritten, default_run_tag, write_topics_lines, write_topics_run
from qlog_pyserini.lucene.searcher import QLogSearcher
from qlog_pyserini.lucene.similarities import model, own_parameters
from qlog_pyserini.predict.files import files_rule_for, log_files_qs
from qlog_pyserini.search.feedback import Rm3, Rocchio, check_feedback, set_feedback
from qlog_pyserini.search.instances import corpus_indexes
from qlog_pyserini.system.outputs import atomic_output
from qlog_pyserini.system.progress import info, progress_bar, warn

if TYPE_CHECKING:
    from qlog_pyserini.predict.query_rule import QueryRuleSettings
    from qlog_pyserini.predict.rule import Prediction, RuleSettings
from qlog_pyserini.search.sources import (
    PYSERINI_BM25_DEFAULTS,
    IndexSource,
    load_topics,
    resolve_index,
)


@dataclass
class SearchJob:
    """Everything one run needs. ``index`` is a folder or a Pyserini prebuilt index name; ``topics`` a file
    or a topic-set name; ``q`` a number, or None with ``auto`` set (the label-free prediction)."""

    index: str | None
    topics: str
    output: str
    q: float | None = 1.0
    idf_form: str = "lucene"
    k1: float | None = None
    b: float | None = None
    similarity: str = "qlog"
    gamma: float = 1.0
    mu: float = 1000.0
    hits: int = 1000
    threads: int = 1
    batch_size: int = BATCH
    fields: dict[str, float] = field(default_factory=dict)
    feedback: Rm3 | Rocchio | None = None
    language: str = "en"
    analyzer: str | None = None  # the query analyzer (Pyserini's --stemmer, --pretokenized); None: the index's
    output_format: str = "trec"
    remove_duplicates: bool = False
    remove_query: bool = False
    run_tag: str | None = None
    prebuilt_index: str | None = None
    auto: RuleSettings | None = None  # the label-free rule, when q is predicted
    auto_query: QueryRuleSettings | None = None  # with ``auto``: a label-free q per query on top of it
    progress: bool = True


@dataclass
class ResolvedSearch:
    """A job whose inputs were all checked: the resolved index, the topics and the final q and tag."""

    job: SearchJob
    index: IndexSource
    topics: Topics
    q: float
    k1: float
    b: float
    tag: str
    prediction: Prediction | None = None  # the corpus rule's, with --q auto and --q auto-query


def check_job(job: SearchJob) -> SearchJob:
    """The job with its numbers checked (QLogError naming the flag), before anything is read."""
    if job.auto is None:
        job = replace(job, q=check_q(job.q))
    elif job.similarity != "qlog":
        raise QLogError(f"--q {'auto-query' if job.auto_query else 'auto'} applies to --similarity qlog only, "
                        f"not {job.similarity!r}")
    if job.auto_query is not None:
        if job.auto is None:
            raise QLogError("a per-query q (auto-query) builds on the corpus rule: give its settings too")
        if job.fields or job.feedback is not None:
            raise QLogError("--q auto-query does not combine with --fields, --rm3 or --rocchio")
    job = replace(job, idf_form=check_form(job.idf_form))
    model(job.similarity)
    for name, value in (("--hits", job.hits), ("--threads", job.threads), ("--batch-size", job.batch_size)):
        if value < 1:
            raise QLogError(f"{name} must be at least 1, got {value}")
    if job.output_format not in OUTPUT_FORMATS:
        raise QLogError(f"--output-format must be one of {', '.join(OUTPUT_FORMATS)}, got {job.output_format!r}")
    if job.feedback is not None:
        check_feedback(job.feedback)
    if job.run_tag is not None:
        check_id(job.run_tag, "run tag")
    out_dir = Path(job.output).parent
    if not (out_dir if str(out_dir) else Path(".")).is_dir():
        raise QLogError(f"output folder {str(out_dir)!r} does not exist")
    return job


def prepare(job: SearchJob, topics: Mapping[str, str] | None = None) -> ResolvedSearch:
    """Check the job, resolve the index and topics, and settle q (predicting it for ``--q auto``).

    ``topics``, when given, are the queries instead of the job's topics file.
    """
    job = check_job(job)
    index = resolve_index(job.index, job.prebuilt_index)
    topics = load_topics(job.topics) if topics is None else topics
    if not topics:
        raise QLogError(f"topics {job.topics!r} hold no queries")
    # Pyserini's CLI uses its tuned BM25 parameters for MS MARCO prebuilt indexes unless told otherwise.
    k1, b = PYSERINI_BM25_DEFAULTS.get(index.prebuilt_name or "", (DEFAULT_K1, DEFAULT_B)) \
        if job.k1 is None and job.b is None else (job.k1, job.b)
    k1 = DEFAULT_K1 if k1 is None else k1
    b = DEFAULT_B if b is None else b
    prediction = None if job.auto is None else _predict(index.path, job.auto)
    q = job.q if prediction is None else prediction.q
    tag = job.run_tag or (f"qlog-bm25-qauto-query-{job.idf_form}" if job.auto_query is not None
                          else default_run_tag(job.similarity, q, job.idf_form, job.gamma, job.mu))
    return ResolvedSearch(job, index, topics, q, k1, b, check_id(tag, "run tag"), prediction)


def _predict(index_dir: Path, auto: RuleSettings) -> Prediction:
    from qlog_pyserini.predict.rule import describe, predict_with  # lazy: the rule reads index statistics

    prediction = predict_with(index_dir, auto)
    info(describe(prediction))
    return prediction


def open_searcher(p: ResolvedSearch) -> QLogSearcher:
    """The searcher with the job's model, language and feedback installed (fields are checked against the index)."""
    job = p.job
    searcher = QLogSearcher(p.index.path, k1=p.k1, b=p.b, q=p.q, idf_form=job.idf_form, analyzer=job.analyzer)
    if job.similarity != "qlog":
        searcher.set_similarity(job.similarity, **own_parameters(job.similarity, gamma=job.gamma, mu=job.mu))
    if job.language != "en":
        searcher.java.set_language(job.language)
    from qlog_pyserini.lucene.fields import check_fields

    # Without --fields the contents field is searched: an index lacking it (another indexer's field names) would
    # give every query no hits and an empty run that exits 0, so it is refused as a missing --fields field is.
    check_fields(searcher, job.fields or {"contents": 1.0}, option="--fields" if job.fields else "search")
    set_feedback(searcher.java, job.feedback, p.index.prebuilt_name)
    return searcher


def search_to_file(p: ResolvedSearch, searcher: QLogSearcher, out: BinaryIO | None = None) -> RunWritten:
    """Every topic searched and written to the job's output as it is searched (atomically), or to the open
    binary file ``out`` when given."""
    job = p.job
    q_of = None
    if job.auto_query is not None:  # a q per query, chosen batch by batch from its terms' statistics
        from qlog_pyserini.predict.per_query import AutoQueryQ

        q_of = AutoQueryQ(searcher, p.prediction, job.auto_query)
    options = dict(hits=job.hits, threads=job.threads, progress=job.progress, batch_size=job.batch_size,
                   fields=job.fields or None, output_format=job.output_format,
                   remove_duplicates=job.remove_duplicates, remove_query=job.remove_query, q_of=q_of)
    written = (write_topics_run(searcher, p.topics, job.output, p.tag, **options) if out is None
               else write_topics_lines(out, searcher, p.topics, p.tag, **options))
    if q_of is not None:
        from qlog_pyserini.predict.query_rule import describe

        info(describe(q_of.chosen, p.prediction, job.auto_query))
    return written


def describe_setup(p: ResolvedSearch, searcher: QLogSearcher) -> str:
    """One log line: the model, the index, fields and feedback, and how many queries."""
    where = p.index.prebuilt_name or str(p.index.path)
    extras = []
    if p.job.fields:
        extras.append("fields " + " ".join(f"{k}={v:g}" for k, v in p.job.fields.items()))
    if p.job.feedback is not None:
        extras.append(repr(p.job.feedback))
    extra = f" with {', '.join(extras)}" if extras else ""
    return f"similarity: {searcher.similarity} on {where} ({searcher.num_docs} docs){extra}, {len(p.topics)} queries"


def run_search(job: SearchJob) -> Path:
    """Run ``job`` end to end and return the run file written."""
    p = prepare(job)
    searcher = open_searcher(p)
    info(describe_setup(p, searcher))
    empty = empty_count(p.topics)
    if empty:
        warn(f"{empty} queries have empty text; they get no hits")
    written = search_to_file(p, searcher)
    # Counted after the search: a query of only stopwords (or of terms no document has) gets no hits
    # either, which its text alone does not show.
    if written.unanswered > empty:
        warn(f"{written.unanswered - empty} more queries got no hits (only stopwords, or no term in the index); "
             "they have no run lines")
    info(f"wrote {written.lines} lines for {len(p.topics)} queries to {job.output}")
    return Path(job.output)


def run_instance_search(job: SearchJob, instances: str | Path,
                        localize: tuple[Localization, LocalizeModel] | None = None) -> Path:
    """Every instance of the instance set ``instances`` searched on its own corpus's index, into one run.

    ``job.index`` is the folder of per-corpus indexes (``DIR/<key>/``, :mod:`qlog_pyserini.formats.instances`);
    the queries are the set's (``job.topics`` is not read). Each index is opened once, all its instances are
    searched as one topic list by :func:`search_to_file` (the search verb's own path, model, q or ``--q auto-files``
    per index, fields and feedback as asked), and it is closed before the next. The run (qid = instance id,
    docid = file path) is written atomically, corpus after corpus in the order the set first names them.
    """
    job = check_job(job)
    if job.prebuilt_index is not None:
        raise QLogError("an instance set is searched on its own indexes (--index DIR), not a prebuilt index")
    instance_set = read_instance_set(instances)
    indexes = corpus_indexes(instance_set, job.index or "")
    if localize is not None:
        return _localized_search(job, instance_set, indexes, *localize)
    tag = job.run_tag or (f"qlog-bm25-qauto{'-query' if job.auto_query else ''}-{job.idf_form}" if job.auto is not None
                          else default_run_tag(job.similarity, job.q, job.idf_form, job.gamma, job.mu))
    files = None
    if job.auto is not None and job.auto_query is None:  # --q auto-files: the files rule, per index
        files, job = files_rule_for(job.auto), replace(job, q=1.0, auto=None)
    job = replace(job, run_tag=check_id(tag, "run tag"))
    lines = unanswered = 0
    qs: list[float] = []
    groups = instance_set.by_corpus()
    with atomic_output(job.output, "wb") as out, \
            progress_bar(total=len(instance_set.instances), desc="instances", unit="q", quiet=not job.progress) as bar:
        for key, members in groups.items():
            p = prepare(replace(job, index=str(indexes[key]), progress=False),
                        topics={i.instance_id: instance_set.topics[i.instance_id] for i in members})
            searcher = open_searcher(p)
            try:
                if files is not None:
                    qs.append(files.q_for(searcher.mean_length()))
                    searcher.set_q(qs[-1])
                written = search_to_file(p, searcher, out)
            finally:
                searcher.close()
            lines, unanswered = lines + written.lines, unanswered + written.unanswered
            bar.update(len(members))
    if files is not None:
        log_files_qs(qs, files)
    if unanswered:
        warn(f"{unanswered} instances got no hits (empty text, only stopwords, or no term in their index); "
             "they have no run lines")
    info(f"wrote {lines} lines for {len(instance_set.instances)} instances on {len(groups)} indexes to {job.output}")
    return Path(job.output)


def _localized_search(job: SearchJob, instance_set: InstanceSet, indexes: Mapping[str, Path], how: Localization,
                      model: LocalizeModel) -> Path:
    """:func:`run_instance_search` under a units / path / evidence / label-free b configuration."""
    if job.similarity != "qlog" or job.fields or job.feedback is not None or job.auto_query is not None:
        raise QLogError("--units, --path-weight, --evidence, --b-va, --auto and --q auto on an instance set search "
                        "with (q-log) BM25 alone: no --similarity, --fields, --rm3, --rocchio or --q auto-query")
    tag = check_id(job.run_tag or f"localize-{how.name()}", "run tag")
    evidence_of = issue_evidence() if how.evidence else None
    lines, bs, qs = 0, [], []
    with atomic_output(job.output, "w") as out, \
            progress_bar(total=len(instance_set.instances), desc="instances", unit="q", quiet=not job.progress) as bar:
        for _, members, runs, used in localize_instances(instance_set, indexes, how, model, job.hits, evidence_of):
            for instance in members:
                hits = runs.get(instance.instance_id, [])
                out.writelines(format_run_lines(instance.instance_id, hits, tag))
                lines += len(hits)
            bar.update(len(members))
            bs.append(used["b"])
            qs.append(used["q"])
    info(f"wrote {lines} lines for {len(instance_set.instances)} instances ({how.name()}, k1 {model.k1:g}, "
         f"files' b {min(bs):.3g} to {max(bs):.3g}, q {min(qs):g} to {max(qs):g}) to {job.output}")
    return Path(job.output)
