"""``python -m qlog_pyserini.bench``: the command line over :mod:`qlog_pyserini.bench.run` (measurement) and :mod:`qlog_pyserini.bench.report` (markdown)."""

from __future__ import annotations

import os
from typing import Sequence

from qlog_pyserini.cli.options import add_index_option, add_topics_option
from qlog_pyserini.cli.parser import run_cli, verb_parser
from qlog_pyserini.errors import QLogError
from qlog_pyserini.bench.report import format_markdown
from qlog_pyserini.bench.run import DEFAULT_PATHS, SWEEP_POINTS, run_benchmark
from qlog_pyserini.system.outputs import check_output_files, report_stream, write_json, write_text
from qlog_pyserini.formula import DEFAULT_B, DEFAULT_K1, check_q
from qlog_pyserini.system.progress import info
from qlog_pyserini.system.provenance import command_line


def _int_list(text: str) -> list[int]:
    try:
        values = [int(x) for x in text.split(",") if x.strip()]
    except ValueError:
        raise QLogError(f"expected comma-separated integers, got {text!r}") from None
    if not values:
        raise QLogError(f"expected comma-separated integers, got {text!r}")
    return values


def _float_list(text: str) -> list[float]:
    try:
        values = [check_q(x) for x in text.split(",") if x.strip()]
    except ValueError as e:
        raise QLogError(f"expected comma-separated finite numbers, got {text!r} ({e})") from None
    if not values:
        raise QLogError(f"expected comma-separated finite numbers, got {text!r}")
    return values


def main(argv: Sequence[str] | None = None) -> int:
    parser = verb_parser(
        "bench",
        "Measure what q-log BM25 costs at query time against Lucene's BM25, side by side: one JVM, "
        "one open index, the same queries, alternating BM25 and q-log passes after a warm-up, timed "
        "per query inside Java. Reports p50/p95/p99 latency and QPS, the q-log/BM25 throughput "
        "ratio per A-B pair with its spread, pruning evidence (total-hits relation, documents "
        "scored), a pruned-vs-exhaustive top-k check and a 20-point q sweep time, as markdown.")
    add_index_option(parser)
    add_topics_option(parser)
    parser.add_argument("--k", default="10,1000", type=_int_list, metavar="K[,K...]",
                        help="result depths to time (default: %(default)s)")
    parser.add_argument("--threads", type=_int_list, metavar="T[,T...]",
                        help=f"search threads to time (default: 1,{os.cpu_count() or 1}, i.e. 1 and all cores)")
    parser.add_argument("--repeats", type=int, default=5, metavar="R",
                        help="A-B rounds per configuration and q; ratio spreads are over these (default: %(default)s)")
    parser.add_argument("--q", default="1,0.5,0.05", type=_float_list, metavar="Q[,Q...]",
                        help="q values of the q-log side (default: %(default)s)")
    parser.add_argument("--max-queries", type=int, metavar="N", help="use only the first N topics")
    parser.add_argument("--paths", default=",".join(DEFAULT_PATHS), metavar="P[,P...]",
                        help="search calls to time: top-k (Lucene's plain search, block-max pruning), "
                             "anserini-sort (Anserini's score-then-docid sorted search), anserini-order (the "
                             "same order in one pruned pass, what the search verb runs below k = 100), "
                             "term-at-a-time (the same order, every bag-of-words query scored term at a time) "
                             "and/or routed (what the search verb runs at every k: term at a time where k >= 100 "
                             "and the postings are few enough, else anserini-order); paths after the first are "
                             "also compared with it (default: %(default)s)")
    parser.add_argument("--warmup", type=int, default=2, metavar="N",
                        help="untimed passes of every similarity per configuration (default: %(default)s)")
    parser.add_argument("--sweep-points", type=int, default=SWEEP_POINTS, metavar="N",
                        help="q values in the sweep, 1/N, 2/N, ..., 1 (default: %(default)s)")
    parser.add_argument("--check-queries", type=int, default=200, metavar="N",
                        help="queries sampled for the pruned-equals-exhaustive check (default: %(default)s)")
    parser.add_argument("--seed", type=int, default=42, help="seed of the check's query sample (default: %(default)s)")
    parser.add_argument("--k1", type=float, default=DEFAULT_K1, help=f"BM25 k1 of both sides (default {DEFAULT_K1})")
    parser.add_argument("--b", type=float, default=DEFAULT_B, help=f"BM25 b of both sides (default {DEFAULT_B})")
    parser.add_argument("--python-q", type=check_q, default=0.5, metavar="Q",
                        help="q of the Python-path rounds: the batch call, a written run, a sweep point and bm25s "
                             "(when installed) next to Lucene's top-k (default: %(default)s)")
    parser.add_argument("--no-python-path", action="store_true", help="skip the Python-path rounds")
    parser.add_argument("--qrels", metavar="FILE", help="judgments of the topics: the sweep point is then evaluated")
    parser.add_argument("--end-to-end", metavar="CORPUS",
                        help="also time, each in a fresh process, the search verb, a bm25s script writing the same "
                             "run from CORPUS (the jsonl the index was built from) and the sweep verb (with --qrels), "
                             "with their peak RSS")
    parser.add_argument("--scale", type=int, default=10, metavar="N",
                        help="the end-to-end memory check also searches the topics repeated N times (default: %(default)s)")
    parser.add_argument("--output", metavar="FILE.md", help="also write the markdown report here (atomically)")
    parser.add_argument("--json", metavar="FILE.json",
                        help="also write every figure as JSON, per-pair ratios and per-point sweep times included")
    parser.add_argument("--quiet", action="store_true", help="no progress lines on stderr")
    args = parser.parse_args(argv)
    check_output_files({"--output": args.output, "--json": args.json}, inputs=[args.index, args.topics])
    paths = [p.strip() for p in args.paths.split(",") if p.strip()]
    result = run_benchmark(
        args.index, args.topics, ks=args.k, threads=args.threads, repeats=args.repeats, qs=args.q,
        max_queries=args.max_queries, paths=paths, warmup=args.warmup, sweep_points=args.sweep_points,
        check_queries=args.check_queries, seed=args.seed, k1=args.k1, b=args.b,
        python_q=None if args.no_python_path else args.python_q, qrels=args.qrels,
        progress=None if args.quiet else info)
    result["command"] = command_line("qlog_pyserini.bench", argv)
    text = format_markdown(result)
    if args.end_to_end:
        from qlog_pyserini.bench.endtoend import format_end_to_end, lucene_pass_seconds, measure_end_to_end

        result["end_to_end"] = measure_end_to_end(
            args.index, args.topics, args.end_to_end, args.qrels, args.python_q, max(args.k),
            max(args.threads or [os.cpu_count() or 1]), args.repeats, args.scale, "0.1,0.2,...,1.0",
            say=(lambda msg: None) if args.quiet else info, k1=args.k1, b=args.b)
        text += format_end_to_end(result["end_to_end"], lucene_pass_seconds(result, max(args.k),
                                                                        result["end_to_end"]["queries"]))
    print(text, file=report_stream(args.output, args.json))
    if args.output:
        write_text(args.output, text)
    if args.json:
        write_json(args.json, result, indent=1)
    return 0 if result["check_passed"] else 1


if __name__ == "__main__":
    run_cli(main)
