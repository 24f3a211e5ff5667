"""``python -m qlog_pyserini.index``: the command line over :mod:`qlog_pyserini.lucene.indexer`."""

from __future__ import annotations

from typing import Sequence

from qlog_pyserini.analysis.analyzers import ANALYZERS
from qlog_pyserini.cli.options import add_index_option, add_instances_option, add_threads_option
from qlog_pyserini.cli.parser import run_cli, verb_parser
from qlog_pyserini.errors import QLogError
from qlog_pyserini.instances.indexing import index_instance_set
from qlog_pyserini.lucene.indexer import build_index
from qlog_pyserini.system.progress import info


def main(argv: Sequence[str] | None = None) -> int:
    parser = verb_parser(
        "index",
        "Build a standard Lucene index (Anserini JsonCollection, default English analyzer, "
        "positions, doc vectors and raw documents stored) from a corpus, with Anserini's own "
        "indexer. The same index serves BM25 and q-log BM25: only the similarity differs at "
        "search time. --analyzer identifier builds the tokenizer ablation's index instead.")
    source = parser.add_mutually_exclusive_group(required=True)
    source.add_argument("--corpus", metavar="PATH",
                        help="a .jsonl file or a folder of them; each line either BEIR/CoIR "
                             "{\"_id\", \"title\", \"text\"} (indexed as title + newline + text) or Anserini "
                             "{\"id\", \"contents\"}. Docids must be unique and contain no whitespace.")
    add_instances_option(source, "one index per corpus, DIR/<key>/, all built in one JVM; an index whose corpus is "
                                 "unchanged is reused. --index is then the folder of the indexes; --threads indexes "
                                 "are built at a time, one thread each")
    add_index_option(parser, help="the index folder to create (with --instances: the folder of the indexes)")
    add_threads_option(parser, "indexing threads")
    parser.add_argument("--analyzer", choices=ANALYZERS, default="default",
                        help="default: Anserini's default English analyzer, the index is built by Anserini's "
                             "IndexCollection exactly as Pyserini builds it; identifier: the same analyzer plus "
                             "identifier splitting (handleWebSocketUpgrade, HTTPServer2 and parse_json_value also "
                             "index their parts), for the tokenizer ablation. The choice is recorded in the index "
                             "and QLogSearcher analyzes queries the same way (default: default)")
    parser.add_argument("--overwrite", action="store_true", help="replace an existing non-empty --index")
    args = parser.parse_args(argv)
    if args.instances is not None:
        if args.overwrite:
            raise QLogError("--overwrite does not apply to --instances: an index is rebuilt when its corpus changed")
        print(index_instance_set(args.instances, args.index, threads=args.threads, progress=not args.quiet,
                                 analyzer=args.analyzer).line())
        return 0
    summary = build_index(args.corpus, args.index, threads=args.threads, overwrite=args.overwrite,
                          progress=not args.quiet, analyzer=args.analyzer)
    info(f"indexed {summary.documents} documents into {summary.index_dir} ({args.analyzer} analyzer)")
    return 0


if __name__ == "__main__":
    run_cli(main)
