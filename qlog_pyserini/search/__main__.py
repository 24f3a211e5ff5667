"""``python -m qlog_pyserini.search``: the command line over :mod:`qlog_pyserini.search.run`.

It speaks Pyserini's vocabulary (``--bm25 --k1 --b --hits --threads --batch-size --fields --rm3
--rocchio --output-format --remove-duplicates --remove-query``, prebuilt index and topic names), so a
``python -m pyserini.search.lucene`` command becomes a q-log one by changing the module and adding ``--q``.
"""

from __future__ import annotations

import argparse
import os
from dataclasses import replace
from typing import Sequence

from qlog_pyserini.analysis.analyzers import analyzer_from_flags
from qlog_pyserini.cli.options import add_idf_form_option, add_instances_option, add_threads_option
from qlog_pyserini.cli.parser import ArgumentParser, run_cli, verb_parser
from qlog_pyserini.errors import QLogError
from qlog_pyserini.formula import DEFAULT_B, DEFAULT_K1, MAX_TERM_SCORE, Q_MAX, Q_MIN, check_q
from qlog_pyserini.localize.activity import ACTIVITY_COMMITS
from qlog_pyserini.localize.paths import PATH_WEIGHT
from qlog_pyserini.localize.ranking import RRF_K, UNIT_MODES, Localization
from qlog_pyserini.localize.run import AUTO as LABEL_FREE
from qlog_pyserini.localize.run import LocalizeModel
from qlog_pyserini.lucene.batch import BATCH
from qlog_pyserini.lucene.fields import parse_fields
from qlog_pyserini.lucene.searcher import check_hits
from qlog_pyserini.predict.files import AUTO_FILES, files_rule_for
from qlog_pyserini.predict.flags import (
    add_auto_arguments,
    add_auto_query_arguments,
    q_or_auto,
    query_rule_from_args,
    rule_from_args,
)
from qlog_pyserini.predict.query_rule import AUTO_QUERY, is_auto_query
from qlog_pyserini.predict.rule import AUTO, RuleSettings
from qlog_pyserini.search.flags import add_pyserini_arguments, feedback_from_args
from qlog_pyserini.search.run import SearchJob, run_instance_search, run_search
from qlog_pyserini.system.outputs import check_output_file


def build_parser() -> ArgumentParser:
    parser = verb_parser(
        "search",
        "Search a Lucene index with BM25 whose IDF is the q-logarithm of the odds, "
        "ln_q(x) = (x^(1-q) - 1)/(1 - q), and write a run. q = 1 is Lucene/Pyserini BM25; "
        "q < 1 amplifies rare terms such as code identifiers; q > 1 saturates. Only the IDF "
        "changes: k1, b and the analyzer are BM25's. Takes Pyserini's search flags.")
    parser.add_argument("--index", metavar="DIR|NAME",
                        help="Lucene index built by qlog_pyserini.index, Anserini or Pyserini, or a Pyserini "
                             "prebuilt index name (when no such folder exists)")
    parser.add_argument("--topics", metavar="FILE|NAME",
                        help="queries: TSV (qid<TAB>text), BEIR/CoIR queries.jsonl, or TREC topics; or a topic set "
                             "Pyserini knows by name. A query whose text is empty (or only stopwords) gets no hits "
                             "and no run lines.")
    add_instances_option(parser, "every instance searched on its own corpus's index, --index being the folder of "
                                 "per-corpus indexes (index --instances); one run, qid = instance id, docid = file "
                                 "path; instead of --topics")
    parser.add_argument("--output", required=True, metavar="RUN", help="run file to write (atomically; its folder must exist)")
    parser.add_argument("--q", default=None, type=q_or_auto, metavar="Q|auto|auto-query|auto-files",
                        help=f"q of the q-logarithm IDF (default 1 = BM25; only with --similarity qlog), from {Q_MIN:g} to {Q_MAX:g} (outside, "
                             "the IDF overflows or stops telling rare terms apart in float arithmetic; a q whose "
                             f"scores on this index exceed {MAX_TERM_SCORE:g} per term is refused too), or 'auto': "
                             "predicted from the "
                             "index's df distribution with no labels, q = clip(1 - c * h, q_min, 1) shrunk toward "
                             "1 by the index's size, logged on stderr (see --auto-*; with --instances, each index's "
                             "own); or 'auto-query': a q per query, the corpus rule's "
                             "move scaled by how rare the query's rarest term is (a query of common words gets BM25 "
                             "or close to it), all in one pass (see docs/adaptive-q.md); or 'auto-files' (with "
                             "--instances): the files rule, a q from each index's mean file length (see "
                             "docs/label-free-q.md)")
    add_auto_arguments(parser)
    add_auto_query_arguments(parser)
    parser.add_argument("--k1", type=float, default=None,
                        help=f"BM25 k1 (default {DEFAULT_K1}, or Pyserini's tuned value for an MS MARCO prebuilt index)")
    parser.add_argument("--b", type=float, default=None,
                        help=f"BM25 b (default {DEFAULT_B}, or Pyserini's tuned value for an MS MARCO prebuilt index)")
    add_idf_form_option(parser)
    parser.add_argument("--similarity", default="qlog", metavar="NAME",
                        help="ranking model: qlog (default), bm25, idf-gamma (BM25 with idf^gamma), qld "
                             "(Dirichlet LM), dfr (DFR InL2), dph (DFR DPH); see qlog_pyserini.lucene.similarities")
    parser.add_argument("--gamma", type=float, default=1.0, help="exponent for --similarity idf-gamma (default 1)")
    parser.add_argument("--mu", type=float, default=1000.0, help="Dirichlet mu for --similarity qld (default 1000, as Pyserini)")
    parser.add_argument("--hits", type=int, default=1000, help="hits per query (default 1000)")
    add_threads_option(parser, "search threads")
    parser.add_argument("--run-tag", default=None, help="run tag in column 6 (default qlog-bm25-q<Q>-<form> for qlog, "
                                                         "else the model name and its parameter)")
    add_pyserini_arguments(parser)
    add_localize_arguments(parser)
    return parser


def add_localize_arguments(parser: ArgumentParser) -> None:
    """The issue -> files flags of ``search --instances`` (:func:`localization_from_args` reads them)."""
    local = parser.add_argument_group("issue -> files (with --instances; docs/coding-agents.md)")
    local.add_argument("--units", choices=UNIT_MODES, default=None,
                       help="file (default): each file ranked as one document; max: by its best unit (function, or "
                            "window of lines) in the units index; sum2: by the sum of its two best units; fuse: "
                            f"reciprocal-rank fusion (k = {RRF_K}) of the file's own rank and its best unit's")
    local.add_argument("--path-weight", type=float, default=None, metavar="W",
                       help="search the path field (the path split on / . _ - and case) beside contents at weight W "
                            f"(default 0: contents only; the label-free configuration uses {PATH_WEIGHT:g})")
    local.add_argument("--evidence", action="store_true",
                       help="fuse, by reciprocal rank, the files the issue's text names (paths, modules, traceback "
                            "frames, identifiers matched to file names and to the names each file defines) with the "
                            "ranking, each file's vote its evidence weight's share of one")
    local.add_argument("--history", action="store_true",
                       help=f"fuse, by reciprocal rank with a whole vote, the files most changed in the last "
                            f"{ACTIVITY_COMMITS} commits of each instance's base commit (which prepare records; "
                            "qlog_pyserini.localize.activity) with the ranking; combines with --auto")
    local.add_argument("--b-va", action="store_true",
                       help="b of each index from its verboseness, label-free: b = 1 - 1/mavgtf (BM25-VA at the "
                            "mean verboseness; qlog_pyserini.localize.lengths); instead of --b")
    local.add_argument("--auto", action="store_true",
                       help="the label-free configuration: --units fuse --path-weight "
                            f"{PATH_WEIGHT:g} --evidence --b-va and --q auto (the corpus rule of each index), "
                            f"k1 {DEFAULT_K1:g}")
    return parser


def localization_from_args(args: argparse.Namespace) -> tuple[Localization, LocalizeModel] | None:
    """The issue -> files configuration the flags name, None when none of its flags is given."""
    given = [f for f, v in (("--units", args.units), ("--path-weight", args.path_weight),
                            ("--evidence", args.evidence or None), ("--b-va", args.b_va or None),
                            ("--auto", args.auto or None), ("--history", args.history or None),
                            ("--q auto", (args.q == AUTO and args.instances is not None) or None)) if v is not None]
    if not given:
        return None
    if args.instances is None:
        raise QLogError(f"{given[0]} applies to --instances only")
    corpus_rule = rule_from_args(args)
    if args.auto:
        if len([f for f in given if f != "--history"]) > 1 or args.q is not None or args.k1 is not None or args.b is not None \
                or corpus_rule != RuleSettings():
            raise QLogError("--auto chooses units, path weight, evidence, k1, b and q itself; give none of them")
        return (replace(LABEL_FREE[0], history=True), LABEL_FREE[1]) if args.history else LABEL_FREE
    if args.b_va and args.b is not None:
        raise QLogError("--b-va and --b both set b; give one")
    how = Localization(units=args.units or "file", path_weight=args.path_weight or 0.0, evidence=args.evidence,
                       history=args.history)
    if args.q is not None and is_auto_query(args.q):
        raise QLogError("--q auto-query does not combine with --units, --path-weight, --evidence or --b-va")
    try:  # --q auto, --q auto-files: the corpus rule or the files rule on each index
        q = args.q if args.q in (AUTO, AUTO_FILES) else check_q(1.0 if args.q is None else args.q)
    except ValueError as e:
        raise QLogError(str(e)) from None
    if q == AUTO_FILES:
        files_rule_for(corpus_rule)  # the --auto-* constants are the corpus rule's: refused here
    return how, LocalizeModel(k1=DEFAULT_K1 if args.k1 is None else args.k1,
                              b=None if args.b_va else DEFAULT_B if args.b is None else args.b, q=q,
                              corpus_rule=corpus_rule)


def check_label_free_name(q: float | str | None, on_instances: bool) -> None:
    """``--q auto`` is the corpus rule (of one index, or of each index of an instance set), ``--q auto-files`` the
    files rule of an instance set; refused on one index, naming ``--q auto``."""
    if not on_instances and q == AUTO_FILES:
        raise QLogError("--q auto-files is the files rule of an instance set (--instances); on one index the "
                        "label-free q is --q auto")


def similarity_from_args(args: argparse.Namespace) -> str:
    """``--similarity``, with Pyserini's ``--qld`` and ``--bm25`` read as the models they name."""
    if args.qld and args.bm25:
        raise QLogError("--qld and --bm25 name two ranking models; choose one")
    if args.qld:
        if args.similarity not in ("qlog", "qld"):
            raise QLogError(f"--qld contradicts --similarity {args.similarity}")
        return "qld"
    if args.bm25 and args.similarity not in ("qlog", "bm25"):
        raise QLogError(f"--bm25 contradicts --similarity {args.similarity}")
    return args.similarity


def job_from_args(args: argparse.Namespace) -> SearchJob:
    similarity = similarity_from_args(args)
    if args.q is not None and similarity != "qlog":
        # Silently searching with another model than the --q asked for would be a wrong run, not an error.
        raise QLogError(f"--q applies to --similarity qlog only; {similarity} has no q (drop --q, or choose qlog)")
    q = 1.0 if args.q is None else args.q
    auto_query = q == AUTO_QUERY
    auto = q in (AUTO, AUTO_FILES) or auto_query  # which rule job.auto means: the corpus's, or on a set the files'
    return SearchJob(
        index=args.index, prebuilt_index=args.prebuilt_index, topics=args.topics, output=args.output,
        q=None if auto else q, auto=rule_from_args(args) if auto else None, idf_form=args.idf_form, k1=args.k1, b=args.b,
        similarity=similarity, gamma=args.gamma, mu=args.mu, hits=args.hits, threads=args.threads,
        batch_size=BATCH if args.batch_size is None else args.batch_size, fields=parse_fields(args.fields or []), feedback=feedback_from_args(args),
        language=args.language, analyzer=analyzer_from_flags(args.stemmer, args.pretokenized),
        output_format=args.output_format, remove_duplicates=args.remove_duplicates,
        remove_query=args.remove_query, run_tag=args.run_tag, progress=not args.quiet,
        auto_query=query_rule_from_args(args) if auto_query else None)


def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    if (args.topics is None) == (args.instances is None):
        raise QLogError("give --topics (queries for one index) or --instances (an instance set), one of them")
    if args.instances is not None and args.prebuilt_index is not None:
        raise QLogError("--instances searches the set's own indexes (--index DIR), not --prebuilt-index")
    # Before any search: an unwritable --output or an impossible --hits fails now, not after the run.
    check_output_file(args.output, "--output", inputs=[p for p in (args.topics, args.instances, args.index) if p])
    check_hits(args.hits, "--hits")
    check_label_free_name(args.q, args.instances is not None)
    localize = localization_from_args(args)
    if args.instances is not None:
        args.topics = os.path.join(args.instances, "topics.tsv")
        run_instance_search(job_from_args(args), args.instances, localize)
        return 0
    job = job_from_args(args)
    run_search(job)
    return 0


if __name__ == "__main__":
    run_cli(main)
