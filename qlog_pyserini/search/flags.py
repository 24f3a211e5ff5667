"""Pyserini's search vocabulary for ``python -m qlog_pyserini.search``: the flags we share with
``python -m pyserini.search.lucene`` (same names, same meanings, same defaults where they matter),
and a clear refusal of the ones we do not implement, instead of argparse's "unrecognized arguments".
"""

from __future__ import annotations

import argparse
from typing import Any, NoReturn, Sequence

from qlog_pyserini.errors import QLogError
from qlog_pyserini.formats.trec import OUTPUT_FORMATS
from qlog_pyserini.search.feedback import Rm3, Rocchio

# Pyserini 2.4.0 search flags this verb does not implement, with what they do there.
UNSUPPORTED = {
    "--dense": "dense-vector search", "--hnsw": "HNSW dense search", "--flat": "flat dense search",
    "--ef-search": "HNSW efSearch", "--encoded-corpus": "SLIM encoded corpus", "--impact": "impact (learned sparse) search",
    "--encoder": "neural query encoder", "--onnx-encoder": "ONNX query encoder", "--min-idf": "impact search minimum idf",
    "--bm25qs": "query-side BM25", "--rm3-py": "Python RM3", "--rocchio-py": "Python Rocchio",
    "--prcl": "pseudo-relevance classifier reranking",
    "--prcl.vectorizer": "pseudo-relevance classifier", "--prcl.r": "pseudo-relevance classifier",
    "--prcl.n": "pseudo-relevance classifier", "--prcl.alpha": "pseudo-relevance classifier",
    "--dismax": "disjunction-max multi-field queries", "--dismax.tiebreaker": "disjunction-max multi-field queries",
    "--stopwords": "a custom stopword list", "--max-passage": "MaxP passage aggregation",
    "--max-passage-hits": "MaxP passage aggregation", "--max-passage-delimiter": "MaxP passage aggregation",
    "--tokenizer": "a Hugging Face query tokenizer",
}


class _Unsupported(argparse.Action):
    def __call__(self, parser: argparse.ArgumentParser, namespace: argparse.Namespace, values: Any,
                 option_string: str | None = None) -> NoReturn:
        raise QLogError(f"{option_string} ({UNSUPPORTED[self.dest_flag]} in Pyserini) is not supported by "
                        f"{parser.prog}; it offers BM25/q-log, QLD, --fields, --rm3 and --rocchio "
                        "(see --help)")

    def __init__(self, option_strings: Sequence[str], dest: str, **kwargs: Any) -> None:
        super().__init__(option_strings, dest, nargs="*", help=argparse.SUPPRESS)
        self.dest_flag = option_strings[0]


def add_pyserini_arguments(parser: argparse.ArgumentParser) -> None:
    """Pyserini's ranking, feedback, batching and output flags, and refusals for the rest."""
    g = parser.add_argument_group("Pyserini's flags (same names and meanings as python -m pyserini.search.lucene)")
    g.add_argument("--prebuilt-index", metavar="NAME",
                   help="a Pyserini prebuilt index by name (e.g. beir-v1.0.0-scifact.flat), found in or downloaded "
                        "to Pyserini's cache by Pyserini; --index NAME does the same when no folder NAME exists")
    g.add_argument("--bm25", action="store_true",
                   help="rank with BM25 (the default): the model q-log changes only the IDF of; with --q < 1 its IDF is ln_q")
    g.add_argument("--qld", action="store_true", help="rank with query likelihood, Dirichlet mu = --mu (as --similarity qld)")
    g.add_argument("--batch-size", type=int, default=None, metavar="N",
                   help="queries per batch handed to the Java threads (default 64; any value gives the same run)")
    g.add_argument("--fields", nargs="+", metavar="FIELD=WEIGHT",
                   help="search these fields, each with its weight, e.g. contents=1 title=0.5; every field is "
                        "scored with its own statistics (default: contents only)")
    g.add_argument("--rm3", action="store_true", help="RM3 pseudo-relevance feedback on top of the ranking model")
    g.add_argument("--fb-terms", type=int, default=Rm3.fb_terms, help=f"RM3 expansion terms (default {Rm3.fb_terms})")
    g.add_argument("--fb-docs", type=int, default=Rm3.fb_docs, help=f"RM3 feedback documents (default {Rm3.fb_docs})")
    g.add_argument("--original-query-weight", type=float, default=Rm3.original_query_weight,
                   help=f"RM3 weight of the original query (default {Rm3.original_query_weight})")
    g.add_argument("--rocchio", action="store_true", help="Rocchio pseudo-relevance feedback on top of the ranking model")
    for name, default in (("top-fb-terms", Rocchio.top_fb_terms), ("top-fb-docs", Rocchio.top_fb_docs),
                          ("bottom-fb-terms", Rocchio.bottom_fb_terms), ("bottom-fb-docs", Rocchio.bottom_fb_docs)):
        g.add_argument(f"--rocchio-{name}", type=int, default=default, help=f"Rocchio {name.replace('-', ' ')} (default {default})")
    g.add_argument("--rocchio-alpha", type=float, default=Rocchio.alpha, help=f"Rocchio weight of the query (default {Rocchio.alpha:g})")
    g.add_argument("--rocchio-beta", type=float, default=Rocchio.beta, help=f"Rocchio weight of the top documents (default {Rocchio.beta:g})")
    g.add_argument("--rocchio-gamma", type=float, default=None,
                   help="Rocchio weight of the bottom documents (default 0, or 0.15 with --rocchio-use-negative, as Pyserini)")
    g.add_argument("--rocchio-use-negative", action="store_true", help="Rocchio with negative (bottom) feedback")
    g.add_argument("--output-format", default="trec", choices=OUTPUT_FORMATS,
                   help="trec (qid Q0 docid rank score tag, default) or msmarco (qid TAB docid TAB rank)")
    g.add_argument("--remove-duplicates", action="store_true", help="keep only the first hit of a docid listed twice")
    g.add_argument("--remove-query", action="store_true", help="drop hits whose docid is the query's id (e.g. BEIR ArguAna)")
    g.add_argument("--language", default="en", help="query analyzer language (en default; Anserini's set_language codes)")
    g.add_argument("--stemmer", choices=("porter", "krovetz", "none"), default=None,
                   help="the stemmer the index was built with (Pyserini's -stemmer; default: what the index records, "
                        "else porter). An index whose terms show another is refused, naming the flag")
    g.add_argument("--pretokenized", action="store_true",
                   help="the index was built -pretokenized: queries split on whitespace only, no stemming or stopwords")
    g.add_argument("--topics-format", default="default", choices=["default"],
                   help="Pyserini's topic reader choice; only 'default' (format detected from the file)")
    for flag in UNSUPPORTED:
        parser.add_argument(flag, action=_Unsupported)


def feedback_from_args(args: argparse.Namespace) -> Rm3 | Rocchio | None:
    """The RM3 or Rocchio set-up the flags ask for (QLogError for both at once)."""
    if args.rm3 and args.rocchio:
        raise QLogError("--rm3 and --rocchio cannot be combined; choose one")
    if args.rm3:
        return Rm3(args.fb_terms, args.fb_docs, args.original_query_weight)
    if args.rocchio:
        gamma = args.rocchio_gamma if args.rocchio_gamma is not None else (0.15 if args.rocchio_use_negative else 0.0)
        return Rocchio(args.rocchio_top_fb_terms, args.rocchio_top_fb_docs, args.rocchio_bottom_fb_terms,
                       args.rocchio_bottom_fb_docs, args.rocchio_alpha, args.rocchio_beta, gamma,
                       args.rocchio_use_negative)
    return None
