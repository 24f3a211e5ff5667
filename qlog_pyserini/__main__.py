"""``qlog <verb> ...`` (the console script) and ``python -m qlog_pyserini <verb> ...``.

Each verb is also ``python -m qlog_pyserini.<verb>``; this dispatcher runs exactly that module, so the
two spellings never differ. ``qlog --help`` lists the verbs.
"""

from __future__ import annotations

import importlib.util
import runpy
import sys
from typing import Sequence

from qlog_pyserini.cli.parser import run_cli
from qlog_pyserini.errors import QLogError

#: verb -> what it does (one line each, as in the README's command table)
VERBS = {
    "build": "compile/cache the similarity jar; print the JDK and fatjar used",
    "index": "build a standard Lucene index with Anserini's indexer",
    "search": "search an index with q-log BM25 (or a baseline) and write a TREC run",
    "eval": "trec_eval (the real binary from Pyserini's jar) on a run",
    "compare": "paired comparison of two runs: bootstrap, randomization, t-test",
    "sweep": "sweep q on one open index: oracle, cross-validated q, label-free q",
    "table": "one table from several sweeps",
    "prepare": "index-ready corpus, topics and qrels from BEIR, CSN, CoSQA, TREC",
    "corpus": "a CodeSearchNet-style benchmark from any source tree",
    "fetch": "real source code from Debian packages",
    "stats": "hapax statistics of an index",
    "predict": "the label-free q of an index",
    "lolo": "leave-one-family-out evaluation of the label-free rule",
    "bench": "query-time cost of q-log vs Lucene BM25",
    "bench.tantivy_rewrite": "query-time cost of the q-log rewrite on Tantivy vs Tantivy's BM25",
    "reproduce": "the paper's comparisons on real code",
    "demo": "the embedded quick-start benchmark",
    "solr": "SolrCloud: configset, indexing, runs and sweeps against a live Solr",
    "locate": "the files of a repository that answer an issue, in a token budget (also an MCP server)",
    "rewrite": "q-log BM25 as plain BM25 with per-term boosts: Lucene, Solr, Elasticsearch, OpenSearch, Tantivy",
}


def available_verbs() -> dict[str, str]:
    """The verbs whose module this installation has (``solr`` needs its optional module)."""
    return {verb: text for verb, text in VERBS.items() if importlib.util.find_spec(f"qlog_pyserini.{verb}") is not None}


def usage() -> str:
    verbs = available_verbs()
    width = max(map(len, verbs))
    lines = ["usage: qlog <verb> [options]   (each verb: qlog <verb> --help)", "", "verbs:"]
    lines += [f"  {verb:<{width}}  {text}" for verb, text in verbs.items()]
    return "\n".join(lines)


def dispatch(argv: Sequence[str] | None = None) -> int:
    args = list(sys.argv[1:] if argv is None else argv)
    if not args or args[0] in ("-h", "--help"):
        print(usage())
        return 0 if args else 2
    verb, rest = args[0], args[1:]
    if verb not in available_verbs():
        raise QLogError(f"unknown verb {verb!r}; one of {', '.join(available_verbs())} (see qlog --help)")
    sys.argv = [f"qlog {verb}", *rest]
    runpy.run_module(f"qlog_pyserini.{verb}", run_name="__main__", alter_sys=True)
    return 0


def main(argv: Sequence[str] | None = None) -> None:
    # run_cli, as every verb: a closed pipe (`qlog --help | head -1`) ends quietly, an unknown verb is one error line
    run_cli(dispatch, argv)


if __name__ == "__main__":
    main()
