"""Prepare a collection for indexing and evaluation: ``python -m qlog_pyserini.prepare``.

Writes ``corpus/`` (Anserini JsonCollection), ``topics.tsv``, ``qrels.txt`` and
``manifest.json`` into ``--out``; see :mod:`qlog_pyserini.prepare.datasets` for what each format means."""

from __future__ import annotations

import argparse
import logging
import os
from typing import Sequence

from qlog_pyserini.prepare.datasets import (
    CSN_QUERY_FIELDS,
    PreparedDataset,
    check_output_folder,
    prepare_beir,
    prepare_cosqa,
    prepare_csn,
    prepare_irds,
    prepare_trec,
)
from qlog_pyserini.cli.parser import ArgumentParser, run_cli, verb_parser

FORMATS = ("beir", "csn", "cosqa", "trec", "irds")


EPILOG = """\
inputs by format:
  beir   --input FOLDER [--split test]
         a BEIR or CoIR folder: corpus.jsonl, queries.jsonl, qrels/<split>.tsv
  csn    --input FILE [FILE ...] [--queries FILE ...] [--query-field docstring_tokens|docstring]
         CodeSearchNet / CodeXGLUE jsonl; every function of every FILE is a document, the
         functions of --queries (default: the first FILE) are also queries, each relevant to
         its own function
  cosqa  --input FOLDER|FILE
         the CoSQA folder: cosqa-retrieval-test-500.json and code_idx_map.txt; or one
         JSON file of records that carry their code (idx, doc, code, label: the dev/test
         layout); every distinct code is a document
  trec   --corpus PATH --topics FILE --qrels FILE
         an Anserini JsonCollection or BEIR corpus (file or folder), topics as TREC SGML,
         TSV or jsonl, and TREC qrels
  irds   --dataset ID
         an ir_datasets dataset (e.g. beir/scifact/test, cacm) read from the local
         ir_datasets cache, never downloaded; needs pip install ir_datasets

examples:
  python -m qlog_pyserini.prepare --format csn \\
      --input csn-ruby/test.jsonl csn-ruby/valid.jsonl --out work/csn-ruby
  python -m qlog_pyserini.prepare --format cosqa --input cosqa --out work/cosqa
  python -m qlog_pyserini.prepare --format trec --corpus cacm/cacm.json \\
      --topics cacm/topics.cacm.txt --qrels cacm/qrels.cacm.txt --out work/cacm
"""


def build_parser() -> ArgumentParser:
    """The argument parser; its help is the command's documentation."""
    parser = verb_parser(
        "prepare",
        "Convert a retrieval collection into an index-ready folder: corpus/ (Anserini "
        "JsonCollection, {\"id\", \"contents\"} a line), topics.tsv (qid<TAB>query), "
        "qrels.txt (TREC qrels) and manifest.json (sources, counts, decisions).",
        epilog=EPILOG, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--format", required=True, choices=FORMATS, help="layout of the input collection")
    parser.add_argument("--out", required=True, metavar="DIR",
                        help="output folder; its parent must exist. Written under a temporary name "
                             "and renamed into place when complete")
    parser.add_argument("--overwrite", action="store_true",
                        help="replace a non-empty --out; only a folder written by this command "
                             "(one holding manifest.json) is ever replaced")
    parser.add_argument("--input", nargs="+", metavar="PATH",
                        help="beir: the collection folder; cosqa: the folder or one records file; "
                             "csn: one or more jsonl files")
    parser.add_argument("--split", default="test", help="beir: qrels split to use, qrels/<split>.tsv (default: test)")
    parser.add_argument("--queries", nargs="+", metavar="FILE",
                        help="csn: files whose functions become queries; each must also be an --input "
                             "(default: the first --input)")
    parser.add_argument("--query-field", default=CSN_QUERY_FIELDS[0], choices=CSN_QUERY_FIELDS,
                        help="csn: query text; docstring_tokens is the docstring's first paragraph, "
                             "tokenized, as CodeXGLUE code search uses it; docstring is the whole "
                             "docstring (default: docstring_tokens)")
    parser.add_argument("--corpus", metavar="PATH", help="trec: corpus file or folder")
    parser.add_argument("--topics", metavar="FILE", help="trec: topics file (TREC SGML, TSV or jsonl)")
    parser.add_argument("--qrels", metavar="FILE", help="trec: TREC qrels file")
    parser.add_argument("--dataset", metavar="ID", help="irds: ir_datasets dataset id, e.g. beir/scifact/test")
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Parse ``argv``, prepare the dataset, print a one-line summary; return the exit code."""
    parser = build_parser()
    args = parser.parse_args(argv)
    _check_inputs(parser, args)
    logging.basicConfig(level=logging.INFO, format="%(levelname)s: %(message)s")
    # Refuse a non-empty --out before reading a possibly large collection.
    inputs = [*(args.input or ()), *(args.queries or ()), args.corpus, args.topics, args.qrels]
    check_output_folder(args.out, args.overwrite, inputs=[i for i in inputs if i])
    if args.format == "beir":
        result = prepare_beir(args.input[0], args.out, split=args.split, overwrite=args.overwrite)
    elif args.format == "csn":
        result = prepare_csn(args.input, args.out, query_files=args.queries, query_field=args.query_field,
                             overwrite=args.overwrite)
    elif args.format == "cosqa":
        result = prepare_cosqa(args.input[0], args.out, overwrite=args.overwrite)
    elif args.format == "irds":
        result = prepare_irds(args.dataset, args.out, overwrite=args.overwrite)
    else:
        result = prepare_trec(args.corpus, args.topics, args.qrels, args.out, overwrite=args.overwrite)
    print(summary(result))
    return 0


def summary(result: PreparedDataset) -> str:
    """One line naming the folder and its counts, and how many queries were dropped for having no judgments."""
    line = (f"{result.out}: {result.documents:,} documents, {result.queries:,} queries "
            f"({result.judged_queries:,} judged), {result.qrels:,} qrels [{result.format}]")
    if "queries_without_qrels_dropped" in result.notes:  # the adapters that drop (beir, cosqa); trec keeps all
        dropped = result.notes["queries_without_qrels_dropped"]
        line += f"; {dropped:,} {'query' if dropped == 1 else 'queries'} dropped for having no judgments"
    return line


def _check_inputs(parser: ArgumentParser, args: argparse.Namespace) -> None:
    if (args.format == "irds") != (args.dataset is not None):
        parser.error("--format irds takes --dataset ID" if args.format == "irds" else "--dataset only applies to --format irds")
    if args.format == "irds":
        stray = [f"--{name}" for name in ("input", "corpus", "topics", "qrels", "queries") if getattr(args, name)]
        if stray:
            parser.error(f"--format irds takes --dataset, not {', '.join(stray)}")
        return
    if args.format == "trec":
        absent = [f"--{name}" for name in ("corpus", "topics", "qrels") if getattr(args, name) is None]
        if absent:
            parser.error(f"--format trec needs {', '.join(absent)}")
        if args.input:
            parser.error("--format trec takes --corpus, --topics and --qrels, not --input")
        return
    if not args.input:
        parser.error(f"--format {args.format} needs --input")
    if args.format in ("beir", "cosqa") and len(args.input) != 1:
        parser.error(f"--format {args.format} takes one --input folder, got {len(args.input)}")
    if args.format == "beir" and os.path.isfile(args.input[0]):
        parser.error(f"--format beir takes the BEIR folder (corpus.jsonl, queries.jsonl, qrels/), "
                     f"but --input {args.input[0]!r} is a file")
    stray = [f"--{name}" for name in ("corpus", "topics", "qrels") if getattr(args, name) is not None]
    if stray:
        parser.error(f"{', '.join(stray)} only apply to --format trec")
    if args.queries and args.format != "csn":
        parser.error("--queries only applies to --format csn")


if __name__ == "__main__":
    run_cli(main)
