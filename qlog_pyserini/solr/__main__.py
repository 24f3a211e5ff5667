"""``python -m qlog_pyserini.solr <subcommand>``: q-log BM25 in a running Solr, over HTTP.

  configset  write a configset (schema.xml + solrconfig.xml) whose text field uses q-log BM25
  deploy     upload a configset and create the collection, or RELOAD it when it exists
  index      send a corpus (what the ``index`` verb reads) to a collection and commit
  search     write a TREC run from a live Solr collection
  sweep      for each q: new schema in the configset, RELOAD, search, trec_eval

The Solr nodes need ``qlog-solr-*.jar`` (java-similarity/qlog-solr) in their ``lib/``; README, "Deploying on Solr".
"""

from __future__ import annotations

import argparse
from typing import Sequence

from qlog_pyserini.cli.options import add_idf_form_option, add_threads_option
from qlog_pyserini.cli.parser import ArgumentParser, run_cli, verb_parser
from qlog_pyserini.errors import QLogError
from qlog_pyserini.eval.grid import parse_grid
from qlog_pyserini.formula import DEFAULT_B, DEFAULT_K1
from qlog_pyserini.solr.client import SolrClient
from qlog_pyserini.solr.configset import FIELD, STATS_CACHES, ConfigSet, write_configset, zip_folder
from qlog_pyserini.solr.workflow import deploy, index_corpus, run_to_file, sweep_q
from qlog_pyserini.system.outputs import check_output_file


def _similarity_args(p: ArgumentParser) -> None:
    p.add_argument("--q", type=float, default=1.0, help="q of the q-logarithm IDF (default 1 = BM25)")
    p.add_argument("--k1", type=float, default=DEFAULT_K1, help=f"BM25 k1 (default {DEFAULT_K1})")
    p.add_argument("--b", type=float, default=DEFAULT_B, help=f"BM25 b (default {DEFAULT_B})")
    add_idf_form_option(p)
    p.add_argument("--stats-cache", default="exact", choices=sorted(STATS_CACHES),
                   help="exact (default): global document frequencies across shards, which q < 1 needs; "
                        "local: each shard its own (Solr's default; rankings drift)")


def _solr_args(p: ArgumentParser) -> None:
    p.add_argument("--solr", required=True, metavar="URL", help="a Solr node's base URL, e.g. http://127.0.0.1:8983/solr")
    p.add_argument("--collection", required=True, help="collection name")


def _field_arg(p: ArgumentParser) -> None:
    p.add_argument("--field", default=FIELD, metavar="NAME",
                   help=f"the collection's text field to search (default {FIELD}, the field our configset defines; "
                        "name yours when the collection has its own schema)")


OVERWRITE_HELP = "replace a non-empty --out, only if this tool wrote everything in it"
SOLR_THREADS_HELP = "search requests in flight at once (the run does not depend on it)"


def _config(args) -> ConfigSet:
    return ConfigSet(args.q, args.k1, args.b, args.idf_form, args.stats_cache)


def build_parser() -> ArgumentParser:
    parser = verb_parser("solr",
                            "q-log BM25 in Solr: configsets, collections, indexing, TREC runs and q sweeps "
                                        "over HTTP. The Solr nodes need the qlog-solr jar in lib/.")
    sub = parser.add_subparsers(dest="command", required=True, metavar="SUBCOMMAND", parser_class=ArgumentParser)

    p = sub.add_parser("configset", help="write a configset folder with q-log BM25")
    p.add_argument("--out", required=True, metavar="DIR", help="the configset folder to write (schema.xml, solrconfig.xml)")
    p.add_argument("--overwrite", action="store_true", help=OVERWRITE_HELP)
    _similarity_args(p)

    p = sub.add_parser("deploy", help="upload a configset; create the collection or RELOAD it")
    _solr_args(p)
    p.add_argument("--configset", metavar="DIR", help="configset folder (from 'configset'); default: one made from the "
                                                      "similarity options below")
    p.add_argument("--shards", type=int, default=1, help="shards when creating (default 1)")
    p.add_argument("--replicas", type=int, default=1, help="replicas per shard when creating (default 1)")
    p.add_argument("--force", action="store_true",
                   help="replace an existing collection's configset even if this tool did not write it (it may be "
                        "shared with other collections, such as Solr's _default)")
    _similarity_args(p)

    p = sub.add_parser("index", help="send a corpus to a collection and commit")
    _solr_args(p)
    p.add_argument("--corpus", required=True, metavar="PATH",
                   help="BEIR/CoIR corpus.jsonl or Anserini {\"id\",\"contents\"} JSON lines, a file or a folder")
    p.add_argument("--batch-size", type=int, default=1000, help="documents per update request (default 1000)")

    p = sub.add_parser("search", help="write a TREC run from a live collection")
    _solr_args(p)
    p.add_argument("--topics", required=True, metavar="FILE", help="TSV, BEIR queries.jsonl or TREC topics")
    p.add_argument("--output", required=True, metavar="RUN", help="run file to write (atomically)")
    p.add_argument("--hits", type=int, default=1000, help="hits per query (default 1000)")
    p.add_argument("--run-tag", default="qlog-solr", help="run tag (default qlog-solr)")
    _field_arg(p)
    add_threads_option(p, SOLR_THREADS_HELP)

    p = sub.add_parser("sweep", help="for each q: rewrite the schema, RELOAD, search, trec_eval")
    _solr_args(p)
    p.add_argument("--topics", required=True, metavar="FILE")
    p.add_argument("--qrels", required=True, metavar="FILE")
    p.add_argument("--q-grid", default="0.3,0.5,0.7,1.0", help="q values, e.g. 0.05,0.1,...,1.0,1.25 (default 0.3,0.5,0.7,1.0)")
    p.add_argument("--out", required=True, metavar="DIR", help="folder for the runs and metrics.csv")
    p.add_argument("--overwrite", action="store_true", help=OVERWRITE_HELP)
    p.add_argument("--hits", type=int, default=1000, help="hits per query (default 1000)")
    _field_arg(p)
    add_threads_option(p, SOLR_THREADS_HELP)
    p.add_argument("--force", action="store_true",
                   help="rewrite the collection's configset even if this tool did not write it (see deploy --force)")
    _similarity_args(p)
    return parser


def _configset(args: argparse.Namespace) -> None:
    out = write_configset(args.out, _config(args), overwrite=args.overwrite)
    print(f"wrote {out}/schema.xml and solrconfig.xml ({_config(args)})")


def _deploy(args: argparse.Namespace) -> None:
    if args.shards < 1 or args.replicas < 1:
        raise QLogError("illegal --shards/--replicas: both must be >= 1")
    data = zip_folder(args.configset) if args.configset else _config(args).zip_bytes()
    with SolrClient(args.solr) as client:
        what = deploy(client, args.collection, zip_bytes=data, shards=args.shards, replicas=args.replicas,
                      force=args.force)
    print(f"{args.collection}: {what}")


def _index(args: argparse.Namespace) -> None:
    with SolrClient(args.solr) as client:
        n = index_corpus(client, args.collection, args.corpus, args.batch_size)
        print(f"{args.collection}: indexed {n} documents ({client.count(args.collection)} in the collection)")


def _search(args: argparse.Namespace) -> None:
    check_output_file(args.output, "--output", inputs=[args.topics])  # before any request
    with SolrClient(args.solr) as client:
        answered = run_to_file(client, args.collection, args.topics, args.output, args.hits, args.run_tag,
                               field=args.field, threads=args.threads)
    print(f"wrote {args.output} ({answered} queries with hits)")


def _sweep(args: argparse.Namespace) -> None:
    with SolrClient(args.solr) as client:
        rows = sweep_q(client, args.collection, _config(args), parse_grid(args.q_grid), args.topics, args.qrels,
                       args.out, args.hits, field=args.field, force=args.force, threads=args.threads,
                       overwrite=args.overwrite)
    for row in rows:
        print(f"q={row['q']:g}  " + "  ".join(f"{k} {v:.4f}" for k, v in row.items() if k not in ("q", "run", "search_seconds")))


#: subcommand -> what runs it
SUBCOMMANDS = {"configset": _configset, "deploy": _deploy, "index": _index, "search": _search, "sweep": _sweep}


def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    SUBCOMMANDS[args.command](args)
    return 0


if __name__ == "__main__":
    run_cli(main)
