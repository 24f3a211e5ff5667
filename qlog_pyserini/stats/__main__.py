"""Print an index's hapax statistics and every h_tok variant as JSON.

    python -m qlog_pyserini.stats --index DIR [--field contents] [--sample-docs 1000] [--seed 0]

A thin CLI over :func:`qlog_pyserini.stats.statistics.corpus_stats`; see that module for every
count and variant, and :mod:`qlog_pyserini.predict` for the q they give."""

from __future__ import annotations

import json
from typing import Sequence

from qlog_pyserini.cli.options import add_index_option
from qlog_pyserini.cli.parser import run_cli, verb_parser
from qlog_pyserini.stats.flags import add_field_option, add_sample_options
from qlog_pyserini.stats.statistics import corpus_stats


def main(argv: Sequence[str] | None = None) -> int:
    parser = verb_parser(
        "stats",
        "Hapax statistics of one field of a Lucene index, from one Java pass over its term "
        "dictionary plus a seeded sample of documents (read from the stored term vectors): "
        "documents N, vocabulary V, tokens T, types with df = 1 and their occurrences, types "
        "with collection frequency 1, mean document length, the log2-binned df histogram, "
        "every h_tok variant and the slope of the df distribution. Prints JSON.")
    add_index_option(parser)
    add_field_option(parser)
    add_sample_options(parser)
    parser.add_argument("--sample-ids", action="store_true", help="also list the sampled docids")
    args = parser.parse_args(argv)
    stats = corpus_stats(args.index, field=args.field, sample_docs=args.sample_docs, seed=args.seed)
    if stats.get("sample") and not args.sample_ids:
        del stats["sample"]["docids"]
    print(json.dumps(stats, indent=2))
    return 0


if __name__ == "__main__":
    run_cli(main)
