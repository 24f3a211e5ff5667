"""How often an issue's own mentions, alone, put a file its fix edits first (a development measurement).

For each multi-swe-bench (or SWE-bench) record: the repository's files at the base commit (``git ls-tree`` of the mirror), the
issue's mentions (:func:`qlog_pyserini.localize.issue_text.parse_issue`) and their file evidence
(:func:`qlog_pyserini.localize.evidence.file_evidence`). Printed per input file and pooled: coverage (share of
instances with any evidence), Hit@1 (the top evidence file is a modified file; ties at the top count the gold
share of the tied files, the expectation under a random tie-break), Hit@1 where covered, and the share with any
gold file among the evidenced ones (gold: the modified files among the files ranked). Nothing is written; the figures are development-set numbers.

    python scripts/issue_evidence.py --repos cache/repos ../shared/data/issues/java/*.jsonl [--language java]
        [--kinds path,module,...]
"""

from __future__ import annotations

import argparse
from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path

from qlog_pyserini.cli.parser import run_cli
from qlog_pyserini.errors import QLogError
from qlog_pyserini.instances.diffs import modified_files
from qlog_pyserini.instances.git import GitRepository, find_repository
from qlog_pyserini.instances.rules import FileRules, check_languages
from qlog_pyserini.instances.sources import read_records
from qlog_pyserini.localize.evidence import file_evidence
from qlog_pyserini.localize.issue_text import KINDS, clause_count, parse_issue


def tree_files(repo: GitRepository, sha: str, rules: FileRules | None) -> list[str]:
    """The files of ``sha``: all of them, or the documents ``rules`` keep by path and size (content rules not read)."""
    return [e.path for e in repo.tree(sha)
            if e.type == "blob" and (rules is None or rules.path_reason(e.path, e.mode, e.size) is None)]


def top_hit(evidence: dict[str, float], gold: set[str]) -> float:
    if not evidence:
        return 0.0
    best = max(evidence.values())
    tied = [p for p, s in evidence.items() if s == best]
    return sum(p in gold for p in tied) / len(tied)


def open_mirrors(files: Sequence[str], repos: Path, fmt: str) -> dict[str, GitRepository]:
    """The mirror of every repository the records name, all found before any work (else QLogError)."""
    mirrors = {}
    for record in read_records(fmt, files):
        if record.repo not in mirrors:
            found = find_repository(repos, *record.repo.split("/"))
            if found is None:
                raise QLogError(f"--repos {str(repos)!r} holds no mirror of {record.repo}")
            mirrors[record.repo] = GitRepository(found)
    return mirrors


def measure(files: Sequence[str], mirrors: dict[str, GitRepository], kinds: Sequence[str],
            rules: FileRules | None, fmt: str) -> list[tuple[str, int, int, float, int, int]]:
    rows = []
    for file in files:
        n = covered = any_gold = long_queries = 0
        hits = 0.0
        for record in read_records(fmt, [file]):
            repo = mirrors[record.repo]
            paths = tree_files(repo, record.base_commit, rules)
            gold = set(modified_files(list(record.changes))) & set(paths)
            if not gold:
                continue
            mentions = parse_issue(record.query)
            mentions = replace(mentions, **{f"{k}s" if k != "identifier" else "identifiers": ()
                                            for k in KINDS if k not in kinds})
            evidence = file_evidence(mentions, paths)
            n += 1
            covered += bool(evidence)
            any_gold += bool(gold & set(evidence))
            hits += top_hit(evidence, gold)
            long_queries += clause_count(record.query) > 1024
        if n:
            rows.append((Path(file).stem.removesuffix("_dataset"), n, covered, hits, any_gold,
                         long_queries))
    return rows


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("inputs", nargs="+", help="multi-swe-bench (or, with --format, swebench) .jsonl files")
    parser.add_argument("--format", default="multi-swe-bench", choices=("multi-swe-bench", "swebench"))
    parser.add_argument("--repos", required=True, type=Path, help="folder of bare mirrors (org__name)")
    parser.add_argument("--kinds", default=",".join(KINDS), help=f"mention kinds used (default all: {','.join(KINDS)})")
    parser.add_argument("--language", nargs="+", help="rank only the documents these languages' file rules keep "
                        "(as prepare does; instances with no such modified file are skipped); default every file")
    args = parser.parse_args(argv)
    kinds = args.kinds.split(",")
    unknown = sorted(set(kinds) - set(KINDS))
    if unknown:
        raise QLogError(f"--kinds {','.join(unknown)}: choose among {','.join(KINDS)}")
    rules = FileRules(check_languages(args.language)) if args.language else None
    rows = measure(args.inputs, open_mirrors(args.inputs, args.repos, args.format), kinds, rules, args.format)
    print(f"kinds: {','.join(kinds)}; files: {'documents of ' + ' '.join(args.language) if rules else 'all'}")
    print(f"{'set':40} {'n':>4} {'coverage':>8} {'Hit@1':>6} {'Hit@1|cov':>9} {'gold in ev':>10} {'>1024 cl':>8}")
    total = [0, 0, 0.0, 0, 0]
    for name, n, covered, hits, any_gold, long_queries in rows:
        print(f"{name:40} {n:4d} {covered / n:8.3f} {hits / n:6.3f} {hits / max(covered, 1):9.3f} "
              f"{any_gold / n:10.3f} {long_queries:8d}")
        total = [a + b for a, b in zip(total, (n, covered, hits, any_gold, long_queries))]
    n, covered, hits, any_gold, long_queries = total
    print(f"{'pooled':40} {n:4d} {covered / n:8.3f} {hits / n:6.3f} {hits / max(covered, 1):9.3f} "
          f"{any_gold / n:10.3f} {long_queries:8d}")


if __name__ == "__main__":
    run_cli(main)
