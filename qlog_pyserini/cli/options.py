"""Options several verbs declare, each declared once, so that its name, metavar, default and help read the
same in every verb's ``--help``: the index read, the topics, the indexed field and the document sample of
the corpus statistics."""

from __future__ import annotations

import argparse
from typing import Any

from qlog_pyserini.formula import check_q
from qlog_pyserini.predict.query_rule import AUTO_QUERY, is_auto_query
from qlog_pyserini.predict.rule import AUTO, is_auto
from qlog_pyserini.stats.statistics import DEFAULT_FIELD, DEFAULT_SAMPLE_DOCS

INDEX_HELP = "Lucene index built by qlog_pyserini.index, Anserini or Pyserini"
TOPICS_HELP = "queries: TSV (qid<TAB>text), BEIR/CoIR queries.jsonl or TREC topics"


def q_or_auto(text: str) -> float | str:
    """A ``--q`` value as it enters (an argparse ``type``): a q, checked, or a label-free mode, 'auto' or
    'auto-query'; anything else is one error line naming it."""
    if is_auto(text):
        return AUTO
    if is_auto_query(text):
        return AUTO_QUERY
    return check_q(text)


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


def add_field_option(parser: argparse.ArgumentParser) -> None:
    """``--field NAME``: the indexed field the statistics are read from."""
    parser.add_argument("--field", default=DEFAULT_FIELD, metavar="NAME",
                        help=f"indexed field (default {DEFAULT_FIELD})")


def add_sample_options(parser: argparse.ArgumentParser) -> None:
    """``--sample-docs N --seed S``: the seeded document sample the ``sample-*`` features are computed on."""
    parser.add_argument("--sample-docs", type=int, default=DEFAULT_SAMPLE_DOCS, metavar="N",
                        help=f"documents in the sample the sample-* features are computed on "
                             f"(default {DEFAULT_SAMPLE_DOCS}; 0: none)")
    parser.add_argument("--seed", type=int, default=0, help="seed of the sample's hash (default 0)")
