"""``python -m qlog_pyserini.rewrite``: the command line over :mod:`qlog_pyserini.rewrite` (boosts, lucene, http,
tantivy_index)."""

from __future__ import annotations

import json
import sys
from typing import Sequence

from qlog_pyserini.cli.options import add_topics_option
from qlog_pyserini.cli.parser import ArgumentParser, run_cli, verb_parser
from qlog_pyserini.errors import QLogError
from qlog_pyserini.formats.topics import read_topics
from qlog_pyserini.formats.trec import write_run
from qlog_pyserini.formula import DEFAULT_B, DEFAULT_K1, check_form, check_q
from qlog_pyserini.search.searcher import check_hits
from qlog_pyserini.system.outputs import check_output_file

ENGINES = ("lucene", "solr", "elasticsearch", "opensearch", "tantivy")


def build_parser() -> ArgumentParser:
    parser = verb_parser(
        "rewrite",
        "q-log BM25 with no plugin: each query term's clause boosted by w = idf_q / idf, so the "
        "engine's own BM25 scores q-log BM25 (only the IDF differs; pruning is kept). Query terms "
        "are the engine's analysis, n and N its statistics (global across shards). On a Lucene index "
        "it searches the rewritten queries under plain BM25 and writes a TREC run (hold it against "
        "`search --q`); on Solr, Elasticsearch or OpenSearch it prints each topic's query (--print) "
        "or searches the server and writes a run; on a Tantivy index folder the same, embedded.")
    parser.add_argument("--engine", required=True, choices=ENGINES)
    parser.add_argument("--q", required=True, help="q of the q-logarithm IDF the boosts stand in for (1 = BM25)")
    parser.add_argument("--idf-form", default="lucene", metavar="lucene|rsj",
                        help="odds inside ln_q (default lucene; rsj: IDF floored at 0, so terms in over half the "
                             "documents get boost 0)")
    add_topics_option(parser)
    parser.add_argument("--output", metavar="RUN", help="TREC run to write (atomically)")
    parser.add_argument("--print", action="store_true", dest="print_queries",
                        help="print one JSON line per topic (qid, boosts, the engine's query) instead of searching")
    parser.add_argument("--hits", type=int, default=1000, help="hits per query (default 1000)")
    parser.add_argument("--run-tag", default=None, help="run tag (default bm25-rewrite-q<Q>-<form>)")
    lucene = parser.add_argument_group("lucene")
    lucene.add_argument("--index", metavar="DIR", help="Lucene index (lucene) or Tantivy index folder (tantivy)")
    lucene.add_argument("--k1", type=float, default=DEFAULT_K1, help=f"BM25 k1 on Lucene (default {DEFAULT_K1})")
    lucene.add_argument("--b", type=float, default=DEFAULT_B, help=f"BM25 b on Lucene (default {DEFAULT_B})")
    server = parser.add_argument_group("solr, elasticsearch, opensearch, tantivy")
    server.add_argument("--url", help="server URL (e.g. http://127.0.0.1:9200, http://127.0.0.1:8983/solr)")
    server.add_argument("--collection", metavar="NAME", help="index (Elasticsearch, OpenSearch) or collection (Solr)")
    server.add_argument("--field", action="append", metavar="NAME",
                        help="text field to search, repeatable (default contents; tantivy: body)")
    server.add_argument("--id-field", default="id", help="field holding the docid (default id)")
    return parser


def _check(args, parser: ArgumentParser) -> None:
    args.q, args.idf_form = check_q(args.q), check_form(args.idf_form)
    check_hits(args.hits, "--hits")
    if not args.print_queries and not args.output:
        raise QLogError("give --output RUN (or --print to print the queries)")
    if args.output:
        check_output_file(args.output, "--output")
    if args.engine in ("lucene", "tantivy") and not args.index:
        raise QLogError(f"--engine {args.engine} needs --index DIR")
    if args.engine in ("solr", "elasticsearch", "opensearch") and not (args.url and args.collection):
        raise QLogError(f"--engine {args.engine} needs --url and --collection")


def _tag(args) -> str:
    return args.run_tag or f"bm25-rewrite-q{args.q:g}-{args.idf_form}"


def _emit(qid: str, boosts, query) -> None:
    print(json.dumps({"qid": qid, "boosts": {f"{b.field}:{b.term}": b.boost for b in boosts}, "query": query}))


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    _check(args, parser)
    topics = read_topics(args.topics)
    if args.engine == "lucene":
        from qlog_pyserini.rewrite.lucene import LuceneRewriter, lucene_query

        with LuceneRewriter(args.index, args.q, args.idf_form, args.k1, args.b) as r:
            if args.print_queries:
                for qid, text in topics.items():
                    boosts = r.boosts(text)
                    _emit(qid, boosts, str(lucene_query(boosts).toString()))
                return 0
            results = {qid: r.search(text, args.hits) for qid, text in topics.items()}
    elif args.engine == "tantivy":
        from qlog_pyserini.rewrite.tantivy_index import TantivyRewriter, open_index

        index = open_index(args.index)
        r = TantivyRewriter(index, (args.field or ["body"])[0], args.q, args.idf_form)
        if args.print_queries:
            for qid, text in topics.items():
                boosts = r.boosts(text)
                _emit(qid, boosts, repr(boosts and r.query(boosts)))
            return 0
        results = {qid: r.hits(text, args.hits, args.id_field) for qid, text in topics.items()}
    else:
        from qlog_pyserini.rewrite.http import HttpRewriter, elasticsearch_query, solr_query

        with HttpRewriter(args.engine, args.url, args.collection, args.q, args.idf_form, args.field or ["contents"],
                          args.id_field) as r:
            if args.print_queries:
                for qid, text in topics.items():
                    boosts = r.boosts(text)
                    _emit(qid, boosts, solr_query(boosts) if args.engine == "solr" else elasticsearch_query(boosts, args.hits))
                return 0
            results = {qid: r.search(text, args.hits) for qid, text in topics.items()}
    write_run(args.output, results, _tag(args), qids=topics.keys())
    print(f"rewrite: {len(topics)} queries on {args.engine} (q = {args.q:g}, {args.idf_form} odds) -> {args.output}",
          file=sys.stderr)
    return 0


if __name__ == "__main__":
    run_cli(main)
