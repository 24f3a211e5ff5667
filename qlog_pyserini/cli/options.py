"""Options several verbs declare, each declared once, so that its name, metavar, default and help read the
same in every verb's ``--help``: the index read, the topics, an instance set, the IDF's odds form and the threads. The options of the corpus
statistics (the indexed field, the document sample) live beside their verb, in :mod:`qlog_pyserini.stats.flags`."""

from __future__ import annotations

import argparse
import os
from typing import Any

from qlog_pyserini.errors import QLogError
from qlog_pyserini.formula import IDF_ODDS, check_form

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


IDF_FORM_HELP = ("odds inside ln_q: 'lucene' = 1 + (N-n+0.5)/(n+0.5) (default; q=1 is Lucene's BM25), "
                 "'rsj' = (N-n+0.5)/(n+0.5), the paper's form, IDF floored at 0")


def add_idf_form_option(parser: argparse.ArgumentParser, help: str = IDF_FORM_HELP) -> None:
    """``--idf-form {lucene,rsj}``: the odds form of :data:`qlog_pyserini.formula.IDF_ODDS` (any case)."""
    parser.add_argument("--idf-form", default="lucene", type=check_form, choices=list(IDF_ODDS), help=help)


#: every verb's ``--threads`` default: two threads, or one on a one-core machine. Runs, sweeps and indexes do not
#: depend on the count (hits are ranked by score then docid); two is what the machines this runs on have, and a
#: higher count on a shared machine takes cores from other jobs for little gain in single-index work.
DEFAULT_THREADS = min(2, os.cpu_count() or 1)


def thread_count(text: str) -> int:
    """``--threads`` as typed: a whole number, at least 1."""
    try:
        threads = int(text)
    except ValueError:
        raise QLogError(f"not a whole number: {text!r}") from None
    if threads < 1:
        raise QLogError(f"must be at least 1, got {threads}")
    return threads


def add_threads_option(parser: Any, what: str) -> None:
    """``--threads N`` (default :data:`DEFAULT_THREADS`), refused below 1 when parsed; ``what`` the threads do."""
    parser.add_argument("--threads", type=thread_count, default=DEFAULT_THREADS, metavar="N",
                        help=f"{what} (default {DEFAULT_THREADS}: 2, or 1 on a one-core machine)")
