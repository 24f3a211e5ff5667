"""Options several verbs declare, each declared once, so that its name, metavar, default and help read the
same in every verb's ``--help``: the index read, the topics and an instance set. The options of the corpus
statistics (the indexed field, the document sample) live beside their verb, in :mod:`qlog_pyserini.stats.flags`."""

from __future__ import annotations

import argparse
from typing import Any

INDEX_HELP = "Lucene index built by qlog_pyserini.index, Anserini or Pyserini"
TOPICS_HELP = "queries: TSV (qid<TAB>text), BEIR/CoIR queries.jsonl or TREC topics"


def add_index_option(parser: argparse.ArgumentParser, help: str = INDEX_HELP) -> None:
    """``--index DIR``, required."""
    parser.add_argument("--index", required=True, metavar="DIR", help=help)


def add_topics_option(parser: argparse.ArgumentParser, help: str = TOPICS_HELP) -> None:
    """``--topics FILE``, required."""
    parser.add_argument("--topics", required=True, metavar="FILE", help=help)


def add_instances_option(parser: Any, what: str) -> None:
    """``--instances SET`` on a parser or one of its groups: an instance set, and what the verb does with it."""
    parser.add_argument("--instances", metavar="SET",
                        help=f"an instance set (prepare --format swebench|multi-swe-bench|git-history): {what}")
