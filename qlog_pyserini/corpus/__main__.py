"""Build a CodeSearchNet-style BEIR benchmark from source trees.

    python -m qlog_pyserini.corpus --source ~/go/src=go1.19 --out work/csn-go --language go --queries 1000

The Python API is :func:`qlog_pyserini.corpus.build_benchmark`; this module only parses arguments."""

from __future__ import annotations

import os
import sys
from typing import Sequence

from qlog_pyserini.cli.parser import ArgumentParser, run_cli, verb_parser
from qlog_pyserini.corpus import LANGUAGES, build_benchmark
from qlog_pyserini.system.outputs import check_output_dir


def parse_source(spec: str) -> tuple[str, str | None]:
    """``PATH=LABEL`` -> ``(PATH, LABEL)``; a bare ``PATH`` (or one whose ``=`` is part of a folder name) -> ``(PATH, None)``."""
    path, sep, label = spec.rpartition("=")
    if not sep or not path or not label or "/" in label or os.sep in label:
        return spec, None
    return path, label


def build_parser() -> ArgumentParser:
    # cli.parser.ArgumentParser: a missing --source or an unknown --language is one error line, not usage.
    p = verb_parser(
        "corpus",
        "Build a code-search benchmark in the BEIR layout (corpus.jsonl, queries.jsonl, "
        "qrels/test.tsv, manifest.json) from any source tree. Every documented function "
        "becomes a document (its code without the doc comment); a seeded sample of them "
        "become queries (the first paragraph of the doc comment), each with its own function "
        "as the one relevant document. Functions are found with tree-sitter parsers; tests, "
        "vendored, generated and minified files are skipped, and duplicate code is kept once.",
        epilog="Ids look like go1.19/net/http/server.go:Server.Serve; query ids are 'q:' + the document id. "
               "The folder is written beside --out and renamed into place when complete.",
    )
    p.add_argument("--source", action="append", required=True, metavar="PATH[=LABEL]",
                   help="a source folder, an archive of sources (.zip such as the JDK's lib/src.zip, a Maven "
                        "-sources.jar, a .whl, a .tar.gz/.tgz sdist, .tar.bz2, .tar.xz, .tar) or a single file; "
                        "LABEL starts every id from this source (default: the base name without the archive "
                        "suffix). "
                        "Repeat for several sources; labels must differ.")
    p.add_argument("--out", required=True, metavar="DIR",
                   help="output folder; must be absent or empty unless --overwrite")
    p.add_argument("--language", action="append", choices=LANGUAGES, metavar="LANG",
                   help=f"only files of this language ({'|'.join(LANGUAGES)}; repeatable; default: all, "
                        "inferred from file extensions)")
    q = p.add_mutually_exclusive_group()
    q.add_argument("--queries", type=int, metavar="N",
                   help="number of queries to sample (default: every document is also a query)")
    q.add_argument("--query-fraction", type=float, metavar="F",
                   help="fraction of the documents to sample as queries, in (0, 1]")
    p.add_argument("--seed", type=int, default=42,
                   help="seed of the document and query samples (default: %(default)s)")
    p.add_argument("--max-docs", type=int, metavar="N",
                   help="keep a seeded random sample of N documents (default: all)")
    p.add_argument("--workers", type=int, default=1, metavar="N",
                   help="parser processes; the output does not depend on it (default: %(default)s)")
    p.add_argument("--overwrite", action="store_true",
                   help="replace a non-empty --out folder")
    p.add_argument("--quiet", action="store_true", help="no progress bar")
    return p


def skipped_text(counts: dict) -> str:
    """``; skipped: 3 vendored folders, 2 test files`` from the manifest's counts (empty when nothing was)."""
    parts = [f"{n} {key.split('_')[-1]} {key.split('_')[0][:-1] if n == 1 else key.split('_')[0]}"
             for key, n in sorted(counts.items()) if key.startswith(("files_skipped_", "folders_skipped_")) and n]
    return f"; skipped: {', '.join(parts)}" if parts else ""


def main(argv: Sequence[str] | None = None) -> int:
    """Parse ``argv``, build the benchmark and print a one-line summary."""
    args = build_parser().parse_args(argv)
    # Refused before any parsing: '.', a parent of a source, a missing parent, a folder not ours.
    check_output_dir(args.out, "corpus", inputs=[parse_source(s)[0] for s in args.source], overwrite=args.overwrite)
    manifest = build_benchmark(
        [parse_source(s) for s in args.source], args.out, languages=args.language,
        n_queries=args.queries, query_fraction=args.query_fraction, seed=args.seed,
        max_docs=args.max_docs, workers=args.workers, overwrite=args.overwrite, progress=not args.quiet,
    )
    counts = manifest["counts"]
    print(f"{args.out}: {counts['documents']} documents, {counts['queries']} queries "
          f"({counts['duplicates_dropped']} duplicates dropped, {counts.get('files_parsed', 0)} files parsed"
          f"{skipped_text(counts)})", file=sys.stderr)
    return 0


if __name__ == "__main__":
    run_cli(main)
