"""``python -m qlog_pyserini.sweep``: the command line over :mod:`qlog_pyserini.sweep.run`."""

from __future__ import annotations

import os
from typing import Sequence

from qlog_pyserini.cli.options import add_index_option, add_topics_option
from qlog_pyserini.cli.parser import run_cli, verb_parser
from qlog_pyserini.errors import QLogError
from qlog_pyserini.eval.trec_eval import check_single_metric, parse_metrics
from qlog_pyserini.system.provenance import command_line, provenance
from qlog_pyserini.sweep.crossval import DEFAULT_FOLDS
from qlog_pyserini.sweep.run import DEFAULT_GRID, SweepSettings, parse_grid, run_sweep, summary_line
from qlog_pyserini.formula import DEFAULT_B, DEFAULT_K1, check_float_parameter
from qlog_pyserini.cli.auto_flags import add_auto_arguments, add_auto_query_arguments, query_rule_from_args, rule_from_args
from qlog_pyserini.predict.rule import describe, is_auto, predict_with
from qlog_pyserini.system.outputs import check_output_dir
from qlog_pyserini.system.progress import info
from qlog_pyserini.eval.significance import check_resamples
from qlog_pyserini.search.searcher import check_hits, check_index_dir

DEFAULT_THREADS = min(2, os.cpu_count() or 1)


def main(argv: Sequence[str] | None = None) -> int:
    parser = verb_parser(
        "sweep",
        "Sweep q of q-log BM25 (or gamma of idf-gamma, mu of qld) over a grid on one open index: "
        "one search pass per point, its metrics (trec_eval's values) and Recall@K-tokens computed in process "
        "from the pass's arrays (no run file unless --keep-runs), the oracle value, a k-fold cross-validated "
        "choice over queries (each query scored at the value chosen without it), the label-free q "
        "(qlog), each compared with BM25 by paired tests (two-sided randomization p first, t-test, "
        "bootstrap interval and reversal share), Recall@K-tokens, a CSV and a PNG plot.")
    add_index_option(parser)
    add_topics_option(parser)
    parser.add_argument("--qrels", required=True, metavar="FILE", help="TREC qrels")
    parser.add_argument("--out", required=True, metavar="DIR", help="output folder (created; see the module doc)")
    parser.add_argument("--q-grid", "--grid", dest="grid", default=DEFAULT_GRID,
                        help=f"comma-separated values; 'a,b,...,z' fills the progression (default {DEFAULT_GRID}); "
                             "the BM25 value (q = 1, gamma = 1) is always added; for qlog the label-free q "
                             "(--q auto's rule, see --auto-*) is always added and reported unless --no-auto; "
                             "the word 'auto' in the grid is accepted and changes nothing")
    parser.add_argument("--similarity", default="qlog", help="qlog (default), idf-gamma or qld")
    parser.add_argument("--metric", default="ndcg_cut.10", help="trec_eval metric that picks the oracle (default ndcg_cut.10)")
    parser.add_argument("--idf-form", default="lucene", help="lucene (default) or rsj; see qlog_pyserini.search")
    parser.add_argument("--k1", type=float, default=DEFAULT_K1)
    parser.add_argument("--b", type=float, default=DEFAULT_B)
    parser.add_argument("--hits", type=int, default=1000, help="hits per query (default 1000)")
    parser.add_argument("--threads", type=int, default=DEFAULT_THREADS,
                        help=f"search threads (default {DEFAULT_THREADS}: 2, or 1 on a one-core machine)")
    parser.add_argument("--budgets", default="8192", help="token budgets for Recall@K-tokens (default 8192)")
    parser.add_argument("--resamples", type=int, default=10000, help="bootstrap/randomization resamples (default 10000)")
    parser.add_argument("--seed", type=int, default=0, help="seed of the bootstrap and randomization tests")
    parser.add_argument("--folds", type=int, default=DEFAULT_FOLDS,
                        help=f"folds of the cross-validated choice over queries (default {DEFAULT_FOLDS})")
    parser.add_argument("--cv-seed", type=int, default=0, help="seed of the fold assignment (default 0)")
    parser.add_argument("--no-auto", action="store_true",
                        help="do not add and report the label-free q (auto) and the per-query one (auto-query, "
                             "one more search pass with each query at its own q)")
    parser.add_argument("--keep-runs", action="store_true",
                        help="also write every point's TREC run under OUT/runs/ (run.q0.5.txt, ...; run.auto-query.txt), "
                             "for trec_eval or compare; the metrics are the same without it")
    parser.add_argument("--name", default=None, help="corpus name for tables (default: the index folder's name)")
    parser.add_argument("--family", default=None,
                        help="the corpus this one is a subsample of, for leave-one-family-out (default: --name)")
    parser.add_argument("--overwrite", action="store_true", help="replace a non-empty --out")
    parser.add_argument("--quiet", action="store_true", help="no progress bars")
    add_auto_arguments(parser)
    add_auto_query_arguments(parser)
    args = parser.parse_args(argv)
    # Everything that can be refused is refused before the index is opened.
    check_output_dir(args.out, "sweep", inputs=[args.index, args.topics, args.qrels], overwrite=args.overwrite)
    check_hits(args.hits, "--hits")
    check_single_metric(args.metric)
    check_resamples(args.resamples)
    check_float_parameter("k1", args.k1)
    tokens = [t for t in args.grid.split(",") if t.strip()]
    asked_auto = any(is_auto(t) for t in tokens)
    if asked_auto and args.similarity != "qlog":
        raise QLogError("'auto' in the grid predicts q, so it needs --similarity qlog")
    if asked_auto and args.no_auto:
        raise QLogError("'auto' in the grid contradicts --no-auto")
    args.grid = ",".join(t for t in tokens if not is_auto(t)) or "1"
    try:
        budgets = [int(x) for x in args.budgets.split(",") if x.strip()]
    except ValueError:
        raise QLogError(f"--budgets {args.budgets!r} must be comma-separated integers") from None
    settings = SweepSettings(grid=tuple(parse_grid(args.grid)), similarity=args.similarity,
                             metric=parse_metrics(args.metric)[0], idf_form=args.idf_form, k1=args.k1, b=args.b,
                             hits=args.hits, threads=args.threads, budgets=tuple(budgets), resamples=args.resamples,
                             seed=args.seed, folds=args.folds, cv_seed=args.cv_seed,
                             keep_runs=args.keep_runs)
    prediction = None
    if args.similarity == "qlog" and not args.no_auto:
        check_index_dir(args.index)
        prediction = predict_with(args.index, rule_from_args(args))
        info(describe(prediction))
    try:
        summary = run_sweep(args.index, args.topics, args.qrels, args.out, settings, name=args.name, family=args.family,
                            progress=not args.quiet, overwrite=args.overwrite,
                            extra={"provenance": provenance(command_line("qlog_pyserini.sweep", argv))},
                            prediction=prediction,
                            query_rule=query_rule_from_args(args) if prediction is not None else None)
    except ValueError as e:
        raise QLogError(str(e)) from None
    print(f"{summary_line(summary)}; {summary['seconds']:.1f} s; wrote {args.out}")
    return 0


if __name__ == "__main__":
    run_cli(main)
