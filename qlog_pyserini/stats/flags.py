"""The options of the corpus statistics: the indexed field they are read from and the seeded document sample of
the ``sample-*`` features. ``stats`` declares them, and so do ``predict`` and ``lolo``, whose rules read the same
statistics: command-line side only."""

from __future__ import annotations

import argparse

from qlog_pyserini.stats.statistics import DEFAULT_FIELD, DEFAULT_SAMPLE_DOCS


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
