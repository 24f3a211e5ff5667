"""``python -m qlog_pyserini.locate``: the files of a repository that answer an issue, within a token budget."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Sequence

from qlog_pyserini.cli.parser import run_cli, verb_parser
from qlog_pyserini.errors import QLogError
from qlog_pyserini.instances.rules import LANGUAGES
from qlog_pyserini.locate.locator import DEFAULT_BUDGET, DEFAULT_HITS, Locator, check_budget, check_issue
from qlog_pyserini.lucene.searcher import check_hits


def build_parser():
    parser = verb_parser(
        "locate",
        "Rank a repository's source files for an issue with the issue -> files label-free configuration (search "
        "--instances --auto: files and units fused, the path field, the files the issue names, label-free b and q) "
        "and pack the best into a token budget. "
        "The index lives in a cache folder and is updated in place at each call (changed, added and deleted "
        "files only). Tests, vendored and generated files are left out (prepare's rules).")
    parser.add_argument("--repo", required=True, help="a repository folder: its work tree (uncommitted and untracked "
                        "files included), or with --rev one of its commits (bare mirrors too)")
    parser.add_argument("--rev", help="a commit to read instead of the work tree")
    query = parser.add_mutually_exclusive_group()
    query.add_argument("--query", help="the issue's text")
    query.add_argument("--query-file", help="a file holding the issue's text ('-' reads stdin)")
    parser.add_argument("--budget", type=int, default=DEFAULT_BUDGET,
                        help=f"token budget to pack files into (code tokens; default {DEFAULT_BUDGET}; with --mcp the "
                             "tool's default)")
    parser.add_argument("--hits", type=int, default=DEFAULT_HITS,
                        help=f"files ranked (default {DEFAULT_HITS}; with --mcp the tool's default)")
    parser.add_argument("--language", nargs="+", choices=LANGUAGES, metavar="LANGUAGE",
                        help=f"languages whose files are indexed ({', '.join(LANGUAGES)}); detected when not given")
    parser.add_argument("--cache", help="cache root (default $QLOG_CACHE/locate or ~/.cache/qlog-pyserini/locate)")
    parser.add_argument("--json", action="store_true", help="print one JSON object (files, budget, model, index)")
    parser.add_argument("--mcp", action="store_true", help="serve the tool 'locate' over MCP on stdio instead")
    return parser


def read_issue(query: str | None, query_file: str | None) -> str:
    if query is not None:
        return check_issue(query)
    if query_file is None:
        raise QLogError("give the issue: --query TEXT or --query-file FILE ('-' for stdin)")
    if query_file == "-":
        return check_issue(sys.stdin.read())
    try:
        return check_issue(Path(query_file).read_text(encoding="utf-8", errors="replace"))
    except OSError as e:
        raise QLogError(f"cannot read --query-file {query_file!r}: {e.strerror}") from None


def print_text(result) -> None:
    for f in result.files:
        mark = "packed" if f.packed else f"not packed ({len(f.packed_units)} units packed)"
        unit = f" {f.unit.name} lines {f.unit.start}-{f.unit.end}" if f.unit else ""
        print(f"{f.rank:3d} {f.score:9.4f} {f.tokens:7d} {mark:28s} {f.path}{unit}")
    print(f"packed {result.packed_tokens} of {result.budget} tokens; index: {result.index.files} files, "
          f"{result.index.updated} updated, {result.index.removed} removed, {result.index.seconds:.2f} s")
    if result.reason:
        print(f"reason: {result.reason}")


def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    if args.mcp:
        if args.query is not None or args.query_file is not None:
            raise QLogError("--mcp takes its queries from the MCP client: drop --query/--query-file")
        from qlog_pyserini.locate.server import build_server, serve

        budget, hits = check_budget(args.budget), check_hits(args.hits, "--hits")
        locator = Locator(args.repo, rev=args.rev, language=args.language, cache=args.cache)
        server = build_server(locator, budget, hits)  # a missing mcp package is named before any index work
        serve(server, locator)
        return 0
    issue = read_issue(args.query, args.query_file)
    budget = check_budget(args.budget)
    check_hits(args.hits, "--hits")
    with Locator(args.repo, rev=args.rev, language=args.language, cache=args.cache) as locator:
        result = locator.locate(issue, budget=budget, hits=args.hits)
    if args.json:
        print(result.dumps())
    else:
        print_text(result)
    return 0


if __name__ == "__main__":
    run_cli(main)
