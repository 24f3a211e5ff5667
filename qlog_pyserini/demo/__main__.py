"""``python -m qlog_pyserini.demo``: the command line over :mod:`qlog_pyserini.demo.embedded`."""

from __future__ import annotations

import shutil
import tempfile
import time
from pathlib import Path
from typing import Sequence

from qlog_pyserini.cli.options import add_threads_option
from qlog_pyserini.cli.parser import run_cli, verb_parser
from qlog_pyserini.demo.embedded import DEMO_QS, DEMO_WORK, format_table, run_demo
from qlog_pyserini.errors import QLogError
from qlog_pyserini.system.outputs import work_dir


def main(argv: Sequence[str] | None = None) -> int:
    parser = verb_parser(
        "demo",
        "Build small real code-search benchmarks from this machine's Python standard library and "
        "JDK sources, index them with Anserini's generic English analyzer, and print trec_eval "
        "NDCG@10 of BM25 next to q-log BM25 at several q. Needs no network and no external data.")
    parser.add_argument("--queries", type=int, default=500, help="queries sampled per corpus (default 500)")
    add_threads_option(parser, "indexing and search threads")
    parser.add_argument("--work", default=None, metavar="DIR",
                        help="keep corpora, indexes and runs here (default: a temporary folder, removed after)")
    args = parser.parse_args(argv)
    started = time.perf_counter()
    if args.queries < 1:
        raise QLogError("--queries must be at least 1")
    if args.work:
        # A --work folder is reused by later demos, so it must be new, empty or a demo's own (marked).
        work = work_dir(args.work, DEMO_WORK)
    else:
        work = Path(tempfile.mkdtemp(prefix="qlog-demo-"))
    try:
        rows = run_demo(work, n_queries=args.queries, threads=args.threads)
    finally:
        if not args.work:
            shutil.rmtree(work, ignore_errors=True)
    print("\nNDCG@10 (trec_eval), each query's own function relevant; Anserini default English analyzer:\n")
    print(format_table(rows, DEMO_QS))
    print(f"total {time.perf_counter() - started:.0f} s")
    return 0


if __name__ == "__main__":
    run_cli(main)
