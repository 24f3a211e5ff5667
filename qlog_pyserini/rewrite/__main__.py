"""``python -m qlog_pyserini.rewrite``: the command line over :mod:`qlog_pyserini.rewrite` (boosts, lucene, http,
tantivy_index)."""

from __future__ import annotations

import contextlib
import json
import sys
from typing import Any, Sequence

from qlog_pyserini.cli.options import add_idf_form_option, add_topics_option
from qlog_pyserini.cli.parser import ArgumentParser, run_cli, verb_parser
from qlog_pyserini.errors import QLogError
from qlog_pyserini.formats.topics import TopicStream
from qlog_pyserini.formats.trec import write_run_stream
from qlog_pyserini.formula import DEFAULT_B, DEFAULT_K1, check_form, check_q
from qlog_pyserini.lucene.searcher import check_hits
from qlog_pyserini.rewrite.transport import DEFAULT_CACHE_ENTRIES, DEFAULT_CACHE_SECONDS, StatisticsCache
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
    add_idf_form_option(parser, help="odds inside ln_q (default lucene; rsj: IDF floored at 0, so terms in over half the "
                                     "documents get boost 0)")
    add_topics_option(parser)
    parser.add_argument("--output", metavar="RUN", help="TREC run to write (atomically)")
    parser.add_argument("--print", action="store_true", dest="print_queries",
                        help="print one JSON line per topic (qid, boosts, the engine's query) instead of searching")
    parser.add_argument("--hits", type=int, default=1000, help="hits per query (default 1000)")
    parser.add_argument("--run-tag", default=None, help="run tag (default bm25-rewrite-q<Q>-<form>)")
    lucene = parser.add_argument_group("lucene")
    lucene.add_argument("--index", metavar="DIR", help="Lucene index (lucene) or Tantivy index folder (tantivy)")
    lucene.add_argument("--k1", type=float, default=None, help=f"BM25 k1 on Lucene (default {DEFAULT_K1})")
    lucene.add_argument("--b", type=float, default=None, help=f"BM25 b on Lucene (default {DEFAULT_B})")
    server = parser.add_argument_group("solr, elasticsearch, opensearch, tantivy")
    server.add_argument("--url", help="server URL (e.g. http://127.0.0.1:9200, http://127.0.0.1:8983/solr)")
    server.add_argument("--collection", metavar="NAME", help="index (Elasticsearch, OpenSearch) or collection (Solr)")
    server.add_argument("--field", action="append", metavar="NAME",
                        help="text field to search (default contents; tantivy: body); repeatable on Solr, "
                             "Elasticsearch and OpenSearch, one on Lucene and Tantivy. A field the index does not "
                             "have is an error")
    server.add_argument("--id-field", default=None,
                        help="stored field holding the docid (default: Elasticsearch's/OpenSearch's _id, Solr's and "
                             "Tantivy's id)")
    server.add_argument("--preference", default=None,
                        help="Elasticsearch/OpenSearch preference of the statistics requests and the searches "
                             "(default: one value drawn per run: the same shard copies for both)")
    server.add_argument("--cache-entries", type=int, default=DEFAULT_CACHE_ENTRIES, metavar="N",
                        help=f"(field, term) statistics kept between queries (default {DEFAULT_CACHE_ENTRIES:,}; "
                             "0: none, every query asks the engine)")
    server.add_argument("--cache-seconds", type=float, default=DEFAULT_CACHE_SECONDS, metavar="S",
                        help=f"how long a cached statistic is used (default {DEFAULT_CACHE_SECONDS:g})")
    return parser


def _check(args, parser: ArgumentParser) -> None:
    args.q, args.idf_form = check_q(args.q), check_form(args.idf_form)
    check_hits(args.hits, "--hits")
    if not args.print_queries and not args.output:
        raise QLogError("give --output RUN (or --print to print the queries)")
    if args.print_queries and args.output:
        raise QLogError("give --output RUN or --print, not both (--print searches nothing and writes no run)")
    # An option another engine takes would be dropped without a word: a server's BM25 is the server's own.
    servers = ("solr", "elasticsearch", "opensearch")
    given = [f"--{name.replace('_', '-')}" for name in ("k1", "b", "index", "url", "collection")
             if getattr(args, name) is not None
             and not (args.engine in servers and name in ("url", "collection"))
             and not (args.engine in ("lucene", "tantivy") and name == "index")
             and not (args.engine == "lucene" and name in ("k1", "b"))]
    if given:
        raise QLogError(f"{given[0]} does not apply to --engine {args.engine}")
    args.k1 = DEFAULT_K1 if args.k1 is None else args.k1
    args.b = DEFAULT_B if args.b is None else args.b
    if args.output:
        check_output_file(args.output, "--output", inputs=[args.topics, args.index])
    if args.engine in ("lucene", "tantivy") and not args.index:
        raise QLogError(f"--engine {args.engine} needs --index DIR")
    if args.engine in ("lucene", "tantivy") and len(args.field or ()) > 1:
        raise QLogError(f"--engine {args.engine} searches one field; got --field {' --field '.join(args.field)}")
    if args.engine in ("solr", "elasticsearch", "opensearch") and not (args.url and args.collection):
        raise QLogError(f"--engine {args.engine} needs --url and --collection")
    StatisticsCache(args.cache_entries, args.cache_seconds)  # checks both values before any work


def _tag(args) -> str:
    return args.run_tag or f"bm25-rewrite-q{args.q:g}-{args.idf_form}"


def _emit(qid: str, boosts, query) -> None:
    print(json.dumps({"qid": qid, "boosts": {f"{b.field}:{b.term}": b.boost for b in boosts}, "query": query}))


def _rewriter(args) -> Any:
    """The engine's rewriter, its field(s) checked against the index before any topic is searched."""
    if args.engine == "lucene":
        from qlog_pyserini.rewrite.lucene import CONTENTS, LuceneRewriter

        return LuceneRewriter(args.index, args.q, args.idf_form, args.k1, args.b, field=(args.field or [CONTENTS])[0])
    if args.engine == "tantivy":
        from qlog_pyserini.rewrite.tantivy_index import TantivyRewriter, open_index

        return contextlib.nullcontext(TantivyRewriter(open_index(args.index), (args.field or ["body"])[0], args.q,
                                                      args.idf_form))
    from qlog_pyserini.rewrite.http import HttpRewriter

    r = HttpRewriter.from_url(args.engine, args.url, args.collection, args.q, args.idf_form,
                              fields=args.field or ["contents"], id_field=args.id_field, preference=args.preference,
                              cache=StatisticsCache(args.cache_entries, args.cache_seconds))
    try:
        r.check_fields()
    except BaseException:
        r.close()
        raise
    return r


def _printed_query(args, r: Any, boosts) -> Any:
    if args.engine == "lucene":
        from qlog_pyserini.rewrite.lucene import lucene_query

        return str(lucene_query(boosts).toString())
    if args.engine == "tantivy":
        return repr(boosts and r.query(boosts))
    from qlog_pyserini.rewrite.http import elasticsearch_query, solr_query

    return solr_query(boosts) if args.engine == "solr" else {"size": args.hits, "query": elasticsearch_query(boosts)}


def _hits(args, r: Any, text: str) -> list:
    return r.hits(text, args.hits, args.id_field or "id") if args.engine == "tantivy" else r.search(text, args.hits)


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    _check(args, parser)
    # the shared topics reader (as search's): checked in one pass, then read again query by query
    topics = TopicStream(args.topics)
    with _rewriter(args) as r:
        if args.print_queries:
            for qid, text in topics.items():
                boosts = r.boosts(text)
                _emit(qid, boosts, _printed_query(args, r, boosts))
            return 0
        # one query's hits in memory at a time, however many topics
        write_run_stream(args.output, ((qid, _hits(args, r, text)) for qid, text in topics.items()), _tag(args))
    print(f"rewrite: {len(topics)} queries on {args.engine} (q = {args.q:g}, {args.idf_form} odds) -> {args.output}",
          file=sys.stderr)
    return 0


if __name__ == "__main__":
    run_cli(main)
