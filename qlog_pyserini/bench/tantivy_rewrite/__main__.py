"""``python -m qlog_pyserini.bench.tantivy_rewrite``: the command line over
:mod:`qlog_pyserini.bench.tantivy_rewrite.measure` (query cost of the rewrite on Tantivy against its BM25)."""

from __future__ import annotations

import importlib.util
from pathlib import Path
from typing import Sequence

from qlog_pyserini.bench.tantivy_rewrite.measure import BenchSettings, build_sides, measure, memory_index, report
from qlog_pyserini.cli.options import add_topics_option
from qlog_pyserini.cli.parser import run_cli, verb_parser
from qlog_pyserini.errors import QLogError
from qlog_pyserini.formats.documents import iter_documents
from qlog_pyserini.formats.topics import read_topics
from qlog_pyserini.system.outputs import check_output_file, report_stream, write_text
from qlog_pyserini.system.progress import info


def main(argv: Sequence[str] | None = None) -> int:
    defaults = BenchSettings()
    parser = verb_parser(
        "bench.tantivy_rewrite",
        "Query cost of q-log BM25 as boosted plain-BM25 queries on Tantivy (the rewrite, prebuilt and built per "
        "query) against Tantivy's own BM25: the corpus in one in-memory index, each query sent to the three sides "
        "back to back in rotating order; prints (and with --output writes) a markdown table of queries per second "
        "and throughput ratios per round. Needs the tantivy package (extra: rewrite).")
    parser.add_argument("--corpus", required=True, metavar="PATH",
                        help="documents: a JSON collection folder or a .jsonl/.json file (id and contents)")
    add_topics_option(parser)
    parser.add_argument("--q", type=float, default=defaults.q, help=f"q of the rewrite (default {defaults.q:g})")
    parser.add_argument("--rounds", type=int, default=defaults.rounds, help=f"rounds (default {defaults.rounds})")
    parser.add_argument("--passes", type=int, default=defaults.passes,
                        help=f"passes over the queries per side and round (default {defaults.passes})")
    parser.add_argument("--k", type=int, default=defaults.k, help=f"hits per query (default {defaults.k})")
    parser.add_argument("--warmup", type=int, default=defaults.warmup,
                        help=f"queries sent to every side untimed before the first round (default {defaults.warmup})")
    parser.add_argument("--name", default=None, help="the corpus as the report names it (default: --corpus's name)")
    parser.add_argument("--output", metavar="FILE.md", help="also write the markdown report here (atomically)")
    args = parser.parse_args(argv)
    settings = BenchSettings(q=args.q, rounds=args.rounds, passes=args.passes, k=args.k, warmup=args.warmup).check()
    if importlib.util.find_spec("tantivy") is None:
        raise QLogError("the Tantivy benchmark needs the tantivy package: pip install 'qlog-pyserini[rewrite]'")
    if not Path(args.corpus).exists():
        raise QLogError(f"--corpus {args.corpus!r} does not exist")
    if args.output:
        check_output_file(args.output, inputs=[args.corpus, args.topics])
    topics = read_topics(args.topics)
    index, n_docs = memory_index(iter_documents(args.corpus))
    sides = build_sides(index, topics.values(), settings)
    info(f"timing {len(sides.texts)} queries on {n_docs} documents, {settings.rounds} rounds")
    text = report(measure(sides, settings), n_docs, len(sides.texts), settings,
                  args.name or Path(args.corpus).name)
    if args.output:
        write_text(args.output, text)
    print(text, file=report_stream(args.output))
    return 0


if __name__ == "__main__":
    run_cli(main)
