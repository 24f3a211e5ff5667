"""Fetch real source code from Debian packages for a code-search benchmark.

    python -m qlog_pyserini.fetch --language go
    python -m qlog_pyserini.fetch --language go --print-sources   # PATH=LABEL lines for corpus --source

The Python API is :func:`qlog_pyserini.fetch.debian.fetch` and :func:`qlog_pyserini.fetch.debian.source_roots`;
this module only parses arguments."""

from __future__ import annotations

import os
import sys
from typing import Sequence

from qlog_pyserini.cli.parser import ArgumentParser, run_cli, verb_parser
from qlog_pyserini.errors import QLogError
from qlog_pyserini.fetch.debian import DEFAULT_CACHE, PLANS, fetch, source_roots


def build_parser() -> ArgumentParser:
    p = verb_parser(
        "fetch",
        "Download the Debian packages that ship a language's source code (apt-get download), "
        "unpack them (dpkg-deb -x) into a cache and count their documented functions, taking "
        "packages in a fixed order until a target count is reached: go = the newest golang-1.N-src "
        "then golang-*-dev; java = openjdk-N-source (src.zip); ruby = libruby3.N then ruby-*; "
        "php = php-*; javascript = node-*; python = the running Python's standard library then "
        "python3-*. Versions, sizes and SHA-256 sums go into <cache>/<language>.json; a re-run "
        "reuses what is cached.",
        epilog="Run 'apt-get update' once first. Feed the result to the benchmark builder with "
               "python -m qlog_pyserini.corpus $(python -m qlog_pyserini.fetch --language go --print-sources "
               "| sed 's/^/--source=/') --language go --out work/corpora/go",
    )
    p.add_argument("--language", required=True, choices=sorted(PLANS), metavar="LANG",
                   help=f"one of {'|'.join(sorted(PLANS))}")
    p.add_argument("--target-functions", type=int, metavar="N",
                   help="stop once the packages hold N distinct documented functions; 0 takes every candidate "
                        f"(default: go {PLANS['go'].target}, java every candidate, others {PLANS['php'].target})")
    p.add_argument("--cache", default=str(DEFAULT_CACHE), metavar="DIR",
                   help="cache folder for .debs, unpacked trees and manifests (default: <project>/cache/sources)")
    p.add_argument("--max-packages", type=int, metavar="N", help="take at most N packages")
    p.add_argument("--exclude", action="append", default=[], metavar="REGEX",
                   help="never take packages whose whole name matches REGEX (repeatable; the plans already exclude "
                        "azure-sdk-for-go, go-playground-locales, ruby-google-api-client and python3-azure, which are "
                        "nearly all generated code)")
    p.add_argument("--workers", type=int, default=min(2, os.cpu_count() or 1), metavar="N",
                   help="parser processes counting functions (default: %(default)s)")
    p.add_argument("--print-sources", action="store_true",
                   help="afterwards print one PATH=LABEL line per source root on stdout")
    p.add_argument("--quiet", action="store_true", help="no progress bar")
    return p


def main(argv: Sequence[str] | None = None) -> int:
    """Parse ``argv``, fetch and print a one-line summary on stderr."""
    args = build_parser().parse_args(argv)
    if not args.cache.strip():
        raise QLogError("--cache is empty")
    sel = fetch(args.language, args.cache, args.target_functions, args.max_packages, exclude=args.exclude,
                workers=args.workers, progress=not args.quiet)
    t = sel["totals"]
    print(f"{args.language}: {t['packages']} packages ({t['deb_bytes'] / 1e6:.1f} MB of .debs), "
          f"{t['unique_functions']} distinct documented functions ({t['documented_functions']} before "
          f"dropping duplicates), {t['failed']} failed; target {sel['target_functions']} "
          f"{'reached' if sel['reached'] else 'NOT reached'}; manifest {os.path.join(args.cache, args.language)}.json",
          file=sys.stderr)
    if args.print_sources:
        for path, label in source_roots(args.language, args.cache):
            print(f"{path}={label}")
    return 0


if __name__ == "__main__":
    run_cli(main)
