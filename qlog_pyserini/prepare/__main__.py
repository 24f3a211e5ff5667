"""Prepare a collection for indexing and evaluation: ``python -m qlog_pyserini.prepare``.

Writes ``corpus/`` (Anserini JsonCollection), ``topics.tsv``, ``qrels.txt`` and
``manifest.json`` into ``--out``; see :mod:`qlog_pyserini.prepare.datasets` for what each format means.
The issue formats (swebench, multi-swe-bench, git-history) write an instance set instead: one corpus per
base tree; see :mod:`qlog_pyserini.instances`."""

from __future__ import annotations

import argparse
import os
from typing import Sequence

from qlog_pyserini.cli.parser import ArgumentParser, run_cli, verb_parser
from qlog_pyserini.errors import QLogError
from qlog_pyserini.instances.build import SetSummary, check_since, prepare_history_set, prepare_issue_set
from qlog_pyserini.instances.rules import LANGUAGES, FileRules
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
from qlog_pyserini.system.provenance import command_line

ISSUE_FORMATS = ("swebench", "multi-swe-bench", "git-history")
FORMATS = ("beir", "csn", "cosqa", "trec", "irds", *ISSUE_FORMATS)


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

issue formats (write an instance set: instances.jsonl, topics.tsv, qrels.txt,
corpora/<key>.jsonl, report.json; one corpus per base tree and rules):
  swebench         --input FILE|DIR ... --repos DIR --language LANG ...
                   records with instance_id, repo, base_commit, problem_statement, patch
  multi-swe-bench  --input FILE|DIR ... --repos DIR --language LANG ...
                   records with org, repo, base.sha, resolved_issues, fix_patch
  git-history      --repo DIR --language LANG ... [--max-instances N] [--since DATE]
                   every non-merge commit: its message the query, the source files it
                   modified the answers, its parent's tree the corpus
  --repos DIR holds each repository as DIR/<org>/<repo> or DIR/<org>__<repo>, with or
  without .git, a clone or a bare mirror; trees are read from git, never checked out.
  The file rules per language (extensions, tests, vendored folders, size caps): docs/cli.md.

examples:
  python -m qlog_pyserini.prepare --format csn \\
      --input csn-ruby/test.jsonl csn-ruby/valid.jsonl --out work/csn-ruby
  python -m qlog_pyserini.prepare --format cosqa --input cosqa --out work/cosqa
  python -m qlog_pyserini.prepare --format trec --corpus cacm/cacm.json \\
      --topics cacm/topics.cacm.txt --qrels cacm/qrels.cacm.txt --out work/cacm
  python -m qlog_pyserini.prepare --format multi-swe-bench --input issues/java \\
      --repos cache/repos --language java --output sets/java
  python -m qlog_pyserini.prepare --format git-history --repo ~/src/myproject \\
      --language python --max-instances 300 --output sets/myproject
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
    parser.add_argument("--out", "--output", dest="out", required=True, metavar="DIR",
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
    issues = parser.add_argument_group("issue formats (swebench, multi-swe-bench, git-history)")
    issues.add_argument("--language", nargs="+", choices=LANGUAGES, metavar="LANG",
                        help=f"the languages whose source files are documents and answers: {', '.join(LANGUAGES)} "
                             "(each with its extensions, test conventions, vendored folders and size cap)")
    issues.add_argument("--repos", metavar="DIR",
                        help="swebench, multi-swe-bench: the folder holding the repositories (clones or bare "
                             "mirrors) as <org>/<repo> or <org>__<repo>, with or without .git")
    issues.add_argument("--repo", metavar="DIR", help="git-history: the repository (a clone or a bare mirror)")
    issues.add_argument("--name", metavar="ORG/REPO",
                        help="git-history: the repository's name in the set (default: from the folder name, "
                             "org__repo -> org/repo, else local/<folder>)")
    issues.add_argument("--rev", default="HEAD", metavar="REV",
                        help="git-history: the commit whose history is read (default: HEAD)")
    issues.add_argument("--since", metavar="DATE", type=check_since,
                        help="git-history: only commits after DATE: an ISO 8601 date or time, UTC unless it names "
                             "its offset (2024-01-01, 2024-01-01T12:00+02:00), or 'N days ago' (seconds, "
                             "minutes, hours, weeks, months, years)")
    issues.add_argument("--max-instances", type=int, metavar="N",
                        help="keep at most N instances (the first N kept, in input order; git-history: the N "
                             "newest commits that make an instance)")
    issues.add_argument("--max-file-bytes", type=int, metavar="BYTES",
                        help="size cap for every language instead of each language's own")
    issues.add_argument("--skip-missing", action="store_true",
                        help="drop (and report) instances whose repository or base commit is missing, "
                             "instead of stopping with an error before any work")
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Parse ``argv``, prepare the dataset, print a one-line summary; return the exit code."""
    parser = build_parser()
    args = parser.parse_args(argv)
    if args.format in ISSUE_FORMATS:
        print(prepare_instances(args, argv).line())
        return 0
    _check_inputs(args)
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


def prepare_instances(args: argparse.Namespace, argv: Sequence[str] | None) -> SetSummary:
    """The issue formats: check the flags, then build the instance set."""
    stray = [f"--{n.replace('_', '-')}" for n in ("corpus", "topics", "qrels", "dataset", "queries")
             if getattr(args, n)]
    if stray:
        raise QLogError(f"--format {args.format} does not take {', '.join(stray)}")
    if not args.language:
        raise QLogError(f"--format {args.format} needs --language (one or more of {', '.join(LANGUAGES)})")
    rules = FileRules(tuple(args.language), args.max_file_bytes)
    command = command_line("qlog_pyserini.prepare", argv)
    if args.format == "git-history":
        if not args.repo or args.input or args.repos:
            raise QLogError("--format git-history takes --repo DIR (not --input or --repos)")
        return prepare_history_set(args.repo, args.out, rules, name=args.name, revision=args.rev, since=args.since,
                                   max_instances=args.max_instances, overwrite=args.overwrite,
                                   progress=not args.quiet, command=command)
    if not args.input or not args.repos:
        raise QLogError(f"--format {args.format} needs --input FILE|DIR and --repos DIR")
    given = [f"--{n}" for n in ("repo", "name", "since") if getattr(args, n)]
    if given:
        raise QLogError(f"{', '.join(given)} only apply to --format git-history")
    return prepare_issue_set(args.format, args.input, args.repos, args.out, rules,
                             max_instances=args.max_instances, skip_missing=args.skip_missing,
                             overwrite=args.overwrite, progress=not args.quiet, command=command)


def summary(result: PreparedDataset) -> str:
    """One line naming the folder and its counts, and how many queries were dropped for having no judgments."""
    line = (f"{result.out}: {result.documents:,} documents, {result.queries:,} queries "
            f"({result.judged_queries:,} judged), {result.qrels:,} qrels [{result.format}]")
    if "queries_without_qrels_dropped" in result.notes:  # the adapters that drop (beir, cosqa); trec keeps all
        dropped = result.notes["queries_without_qrels_dropped"]
        line += f"; {dropped:,} {'query' if dropped == 1 else 'queries'} dropped for having no judgments"
    return line


def _check_inputs(args: argparse.Namespace) -> None:
    issue_flags = [f"--{n.replace('_', '-')}" for n in ("language", "repos", "repo", "name", "since", "max_instances",
                                                        "max_file_bytes") if getattr(args, n)]
    if issue_flags or args.skip_missing or args.rev != "HEAD":
        raise QLogError(f"{', '.join(issue_flags) or '--skip-missing/--rev'} only apply to the issue formats "
                     f"({', '.join(ISSUE_FORMATS)})")
    if (args.format == "irds") != (args.dataset is not None):
        raise QLogError("--format irds takes --dataset ID" if args.format == "irds" else "--dataset only applies to --format irds")
    if args.format == "irds":
        stray = [f"--{name}" for name in ("input", "corpus", "topics", "qrels", "queries") if getattr(args, name)]
        if stray:
            raise QLogError(f"--format irds takes --dataset, not {', '.join(stray)}")
        return
    if args.format == "trec":
        absent = [f"--{name}" for name in ("corpus", "topics", "qrels") if getattr(args, name) is None]
        if absent:
            raise QLogError(f"--format trec needs {', '.join(absent)}")
        if args.input:
            raise QLogError("--format trec takes --corpus, --topics and --qrels, not --input")
        return
    if not args.input:
        raise QLogError(f"--format {args.format} needs --input")
    if args.format in ("beir", "cosqa") and len(args.input) != 1:
        raise QLogError(f"--format {args.format} takes one --input folder, got {len(args.input)}")
    if args.format == "beir" and os.path.isfile(args.input[0]):
        raise QLogError(f"--format beir takes the BEIR folder (corpus.jsonl, queries.jsonl, qrels/), "
                     f"but --input {args.input[0]!r} is a file")
    stray = [f"--{name}" for name in ("corpus", "topics", "qrels") if getattr(args, name) is not None]
    if stray:
        raise QLogError(f"{', '.join(stray)} only apply to --format trec")
    if args.queries and args.format != "csn":
        raise QLogError("--queries only applies to --format csn")


if __name__ == "__main__":
    run_cli(main)
