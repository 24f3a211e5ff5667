"""``python -m qlog_pyserini.sweep``: the command line over :mod:`qlog_pyserini.sweep.run`."""

from __future__ import annotations

import argparse
from typing import Sequence

from qlog_pyserini.cli.options import add_idf_form_option, add_index_option, add_instances_option, add_threads_option
from qlog_pyserini.cli.parser import run_cli, verb_parser
from qlog_pyserini.errors import QLogError
from qlog_pyserini.eval.grid import DEFAULT_GRID, grid_items, parse_grid
from qlog_pyserini.eval.significance import check_resamples
from qlog_pyserini.eval.trec_eval import check_single_metric, parse_metrics
from qlog_pyserini.formats.instances import read_instances
from qlog_pyserini.formats.lines import check_input_file
from qlog_pyserini.formula import DEFAULT_B, DEFAULT_K1, check_float_parameter
from qlog_pyserini.jvm.provenance import provenance
from qlog_pyserini.localize.run import evidence_available
from qlog_pyserini.localize.units import units_index
from qlog_pyserini.lucene.searcher import check_hits, check_index_dir
from qlog_pyserini.predict.files import files_rule_for, is_auto_files
from qlog_pyserini.predict.flags import (
    add_auto_arguments,
    add_auto_query_arguments,
    query_rule_from_args,
    rule_from_args,
)
from qlog_pyserini.predict.rule import describe, is_auto, predict_with
from qlog_pyserini.sweep.baselines import DEFAULT_B_GRID, DEFAULT_K1_GRID, TuningGrids
from qlog_pyserini.sweep.crossval import DEFAULT_FOLDS
from qlog_pyserini.sweep.instances import CV_UNITS, ISSUE_BUDGETS, InstanceSweepSettings, run_instance_sweep
from qlog_pyserini.sweep.instances import summary_line as instance_summary_line
from qlog_pyserini.sweep.localized import parse_configurations
from qlog_pyserini.sweep.run import SweepSettings, run_sweep, summary_line
from qlog_pyserini.system.outputs import check_output_dir
from qlog_pyserini.system.progress import info
from qlog_pyserini.system.provenance import command_line


def main(argv: Sequence[str] | None = None) -> int:
    parser = _parser()
    add_auto_arguments(parser)
    add_auto_query_arguments(parser)
    args = parser.parse_args(argv)
    if args.instances is not None:
        return _sweep_instances(args, argv)
    return _sweep_index(args, argv)


def _parser() -> argparse.ArgumentParser:
    """The verb's own flags (the label-free rule's flags are added by :func:`main`)."""
    parser = verb_parser(
        "sweep",
        "Sweep q of q-log BM25 (or gamma of idf-gamma, mu of qld) over a grid on one open index: "
        "one search pass per point, its metrics (trec_eval's values) and Recall@K-tokens computed in process "
        "from the pass's arrays (no run file unless --keep-runs), the oracle value, a k-fold cross-validated "
        "choice over queries (each query scored at the value chosen without it), the label-free q "
        "(qlog), each compared with BM25 by paired tests (two-sided randomization p first, t-test, "
        "bootstrap interval and reversal share), Recall@K-tokens, a CSV and a PNG plot.")
    add_index_option(parser, help="Lucene index; with --instances, the folder of per-corpus indexes (DIR/<key>/)")
    parser.add_argument("--topics", metavar="FILE", help="queries (TSV, BEIR queries.jsonl or TREC topics); "
                                                         "not with --instances")
    parser.add_argument("--qrels", metavar="FILE", help="TREC qrels; not with --instances")
    add_instances_option(parser, "swept instead of --topics/--qrels: every issue searched on its own corpus's index "
                                 "(--index DIR), Hit@1/5/10, MRR, NDCG@10 and Recall@K-tokens per instance, q-log "
                                 "BM25 beside BM25, the engines' default and tuned BM25, per language and per "
                                 "repository (see docs/cli.md#sweeping-an-instance-set)")
    parser.add_argument("--out", required=True, metavar="DIR", help="output folder (created; see the module doc)")
    parser.add_argument("--q-grid", "--grid", dest="grid", default=DEFAULT_GRID,
                        help=f"comma-separated values; 'a,b,...,z' fills the progression (default {DEFAULT_GRID}); "
                             "the BM25 value (q = 1, gamma = 1) is always added; for qlog the label-free q "
                             "(--q auto's rule, see --auto-*; with --instances the files rule, --q auto-files) is "
                             "always added and reported unless --no-auto; the word 'auto' in the grid (with "
                             "--instances 'auto-files') is accepted and changes nothing")
    parser.add_argument("--similarity", default="qlog", help="qlog (default), idf-gamma or qld")
    parser.add_argument("--metric", default=None,
                        help="trec_eval metric that picks the oracle and the cross-validated values (default "
                             "ndcg_cut.10; recip_rank with --instances, where success.1, success.5, success.10, "
                             "ndcg_cut.10 and recall_tokens[_all].K are the others)")
    add_idf_form_option(parser)
    parser.add_argument("--k1", type=float, default=DEFAULT_K1)
    parser.add_argument("--b", type=float, default=DEFAULT_B)
    parser.add_argument("--hits", type=int, default=1000, help="hits per query (default 1000)")
    add_threads_option(parser, "search threads")
    parser.add_argument("--budgets", default=None,
                        help="token budgets for Recall@K-tokens (default 8192; with --instances "
                             f"{','.join(str(k) for k in ISSUE_BUDGETS)})")
    parser.add_argument("--tune-bm25", action="store_true",
                        help="also measure tuned BM25 (k1 over --k1-grid, b over --b-grid, chosen by the same "
                             "cross-validation as q), the joint (b, q) choice and the engines' default BM25 "
                             "(k1 1.2, b 0.75) in the same pass (always on with --instances)")
    parser.add_argument("--k1-grid", default=DEFAULT_K1_GRID,
                        help=f"k1 values of tuned BM25 (default {DEFAULT_K1_GRID})")
    parser.add_argument("--b-grid", default=DEFAULT_B_GRID,
                        help=f"b values of tuned BM25 and of the joint (b, q) choice (default {DEFAULT_B_GRID})")
    parser.add_argument("--cv-by", default="repository", choices=CV_UNITS,
                        help="with --instances: deal the cross-validation folds by repository (default: an instance "
                             "is scored at values chosen on other repositories only) or by instance")
    parser.add_argument("--resamples", type=int, default=10000, help="bootstrap/randomization resamples (default 10000)")
    parser.add_argument("--seed", type=int, default=0, help="seed of the bootstrap and randomization tests")
    parser.add_argument("--folds", type=int, default=DEFAULT_FOLDS,
                        help=f"folds of the cross-validated choice over queries (default {DEFAULT_FOLDS})")
    parser.add_argument("--cv-seed", type=int, default=0, help="seed of the fold assignment (default 0)")
    parser.add_argument("--no-auto", action="store_true",
                        help="do not add and report the label-free q (auto) and the per-query one (auto-query, "
                             "one more search pass with each query at its own q); with --instances, the label-free "
                             "q of the files rule and the label-free configuration (--localize auto)")
    parser.add_argument("--keep-runs", action="store_true",
                        help="also write every point's TREC run under OUT/runs/ (run.q0.5.txt, ...; run.auto-query.txt), "
                             "for trec_eval or compare; the metrics are the same without it")
    parser.add_argument("--localize", nargs="+", default=[], metavar="CONFIG",
                        help="with --instances: issue -> files configurations added as systems, each named by "
                             "search --instances's flags joined by + (a units mode file|max|sum2|fuse, then any of "
                             "path, evidence, va, auto-files, history; e.g. fuse+path+va), 'auto' (search --instances "
                             "--auto), 'auto+history' (--auto --history) or 'all' "
                             "(max sum2 fuse file+path fuse+path file+va fuse+path+va auto, and the evidence forms "
                             "when available); each searched at BM25 but auto (qlog_pyserini.sweep.localized); "
                             "auto is added unless --no-auto when every corpus has its units index (index --instances)")
    parser.add_argument("--name", default=None, help="corpus name for tables (default: the index folder's name)")
    parser.add_argument("--family", default=None,
                        help="the corpus this one is a subsample of, for leave-one-family-out (default: --name)")
    parser.add_argument("--overwrite", action="store_true", help="replace a non-empty --out")
    parser.add_argument("--quiet", action="store_true", help="no progress bars")
    return parser


def _sweep_index(args: argparse.Namespace, argv: Sequence[str] | None) -> int:
    """``--index --topics --qrels``: the sweep of one open index (:mod:`qlog_pyserini.sweep.run`)."""
    if args.localize:
        raise QLogError("--localize applies to --instances only")
    if args.topics is None or args.qrels is None:
        raise QLogError("give --topics and --qrels (or --instances SET)")
    args.metric = args.metric or "ndcg_cut.10"
    args.budgets = args.budgets or "8192"
    # Everything that can be refused is refused before the index is opened.
    grid, asked_auto = _q_grid(args.grid)
    if asked_auto and args.similarity != "qlog":
        raise QLogError("'auto' in the grid predicts q, so it needs --similarity qlog")
    if asked_auto and args.no_auto:
        raise QLogError("'auto' in the grid contradicts --no-auto")
    check_output_dir(args.out, "sweep", inputs=[args.index, args.topics, args.qrels], overwrite=args.overwrite)
    check_hits(args.hits, "--hits")
    check_single_metric(args.metric)
    check_resamples(args.resamples)
    check_float_parameter("k1", args.k1)
    check_input_file(args.topics, "topics")  # before the label-free q reads the index's statistics
    check_input_file(args.qrels, "qrels")
    budgets = _budgets(args.budgets)
    settings = SweepSettings(grid=grid, similarity=args.similarity,
                             metric=parse_metrics(args.metric)[0], idf_form=args.idf_form, k1=args.k1, b=args.b,
                             hits=args.hits, threads=args.threads, budgets=tuple(budgets), resamples=args.resamples,
                             seed=args.seed, folds=args.folds, cv_seed=args.cv_seed,
                             keep_runs=args.keep_runs,
                             k1_grid=tuple(parse_grid(args.k1_grid)) if args.tune_bm25 else (),
                             b_grid=tuple(parse_grid(args.b_grid)) if args.tune_bm25 else ())
    prediction = None
    if args.similarity == "qlog" and not args.no_auto:
        check_index_dir(args.index)
        prediction = predict_with(args.index, rule_from_args(args))
        info(describe(prediction))
    # bad input is a QLogError where it enters; any other exception is a bug and keeps its traceback
    summary = run_sweep(args.index, args.topics, args.qrels, args.out, settings, name=args.name, family=args.family,
                        progress=not args.quiet, overwrite=args.overwrite,
                        extra={"provenance": provenance(command_line("qlog_pyserini.sweep", argv))},
                        prediction=prediction,
                        query_rule=query_rule_from_args(args) if prediction is not None else None)
    print(f"{summary_line(summary)}; {summary['seconds']:.1f} s; wrote {args.out}")
    return 0


def _q_grid(text: str, on_instances: bool = False) -> tuple[tuple[float, ...], bool]:
    """The q values of ``--q-grid`` and whether it names the label-free q: 'auto' (the corpus rule) on one index,
    'auto-files' (the files rule) on an instance set, each refused where the other applies; an empty item is
    refused (parse_grid)."""
    tokens = grid_items(text)
    own, other = (is_auto_files, is_auto) if on_instances else (is_auto, is_auto_files)
    if any(other(t) for t in tokens):
        raise QLogError("'auto' in the grid is the corpus rule of one index; on an instance set the grid's label-free "
                        "q is the files rule, 'auto-files' (or --q auto-files), and the corpus rule on each index is "
                        "--localize auto's" if on_instances else
                        "'auto-files' in the grid is the files rule of an instance set (--instances); on one index "
                        "the label-free q is 'auto'")
    numbers = [t for t in tokens if not own(t)]
    grid = tuple(parse_grid(",".join(numbers))) if numbers else (1.0,)  # 'auto' alone: BM25 and the prediction
    return grid, len(numbers) < len(tokens)


def _budgets(text: str) -> list[int]:
    try:
        return [int(x) for x in text.split(",") if x.strip()]
    except ValueError:
        raise QLogError(f"--budgets {text!r} must be comma-separated integers") from None


def _localize(args: argparse.Namespace) -> list[str]:
    """The configurations asked for, and the label-free one (``auto``) unless ``--no-auto``: a sweep of an
    instance set reports what ``search --instances --auto`` gives beside the baselines, when every corpus has
    the units index ``index --instances`` builds (asked for by name, a missing one is an error)."""
    names = list(args.localize)
    if args.no_auto or {"auto", "all"} & set(names):
        return names
    keys = {i.corpus for i in read_instances(args.instances)}
    # without units (indexes the index verb built) auto is not what search --instances --auto runs: left out
    return [*names, "auto"] if all(units_index(args.index, key).is_dir() for key in keys) else names


def _sweep_instances(args: argparse.Namespace, argv: Sequence[str] | None) -> int:
    """``--instances SET``: the instance-set sweep (:mod:`qlog_pyserini.sweep.instances`)."""
    for flag, given in (("--topics", args.topics), ("--qrels", args.qrels), ("--keep-runs", args.keep_runs or None),
                        ("--family", args.family)):
        if given is not None:
            raise QLogError(f"{flag} does not apply to --instances (the set holds its queries and judgments)")
    if args.similarity != "qlog":
        raise QLogError("--instances sweeps q-log BM25 beside BM25; --similarity must be qlog")
    check_output_dir(args.out, "sweep", inputs=[args.index, args.instances], overwrite=args.overwrite)
    check_resamples(args.resamples)
    grids = TuningGrids(q_grid=_q_grid(args.grid, on_instances=True)[0], k1_grid=tuple(parse_grid(args.k1_grid)),
                        b_grid=tuple(parse_grid(args.b_grid)), k1=check_float_parameter("k1", args.k1),
                        b=check_float_parameter("b", args.b))
    settings = InstanceSweepSettings(grids=grids, metric=args.metric or "recip_rank", idf_form=args.idf_form,
                                     hits=check_hits(args.hits, "--hits"), threads=args.threads,
                                     budgets=tuple(_budgets(args.budgets) if args.budgets else ISSUE_BUDGETS),
                                     resamples=args.resamples, seed=args.seed, folds=args.folds,
                                     cv_seed=args.cv_seed, cv_unit=args.cv_by,
                                     auto=None if args.no_auto else files_rule_for(rule_from_args(args)),
                                     localize=tuple(parse_configurations(_localize(args), evidence_available())))
    summary = run_instance_sweep(args.instances, args.index, args.out, settings, name=args.name,
                                 progress=not args.quiet, overwrite=args.overwrite,
                                 extra={"provenance": provenance(command_line("qlog_pyserini.sweep", argv))})
    print(f"{instance_summary_line(summary)} ({summary['seconds']:.1f} s; wrote {args.out})")
    return 0


if __name__ == "__main__":
    run_cli(main)
