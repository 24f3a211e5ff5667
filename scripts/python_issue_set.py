"""Builds the Python issue-report development set registered in results/selection-ledger.md.

Two steps, because the issue texts come from a search service a script cannot call:

``candidates``: for each repository, the commits of its HEAD's first-parent history whose message closes an issue
(a GitHub closing keyword, then ``#N``) and that modify a non-test Python source file (``prepare``'s rules), newest
first, at most ``--per-repo`` of them, written as ``CANDIDATES/<org>__<repo>.jsonl`` (``commit``, ``issue``,
``subject``).

``build``: ``RAW/<org>__<repo>/<N>.txt`` holds, for each candidate whose issue was found, the issue's title (first
line) and report without comments (the rest); this writes ``OUT/<org>__<repo>_dataset.jsonl`` in SWE-bench's
format (``instance_id``, ``repo``, ``base_commit`` = the commit's first parent, ``problem_statement`` = title and
body, ``patch`` = the commit's diff against that parent, ``fix_commit`` = the commit), at most ``--per-repo`` instances, newest first, which
``python -m qlog_pyserini.prepare --format swebench`` reads.
"""

from __future__ import annotations

import argparse
import json
import re
import subprocess
import sys
from pathlib import Path

from qlog_pyserini.instances.rules import FileRules

REPOSITORIES = ("psf/black", "pallets/jinja", "pallets/werkzeug", "scrapy/scrapy", "networkx/networkx",
                "python-poetry/poetry", "aio-libs/aiohttp", "ipython/ipython")
#: GitHub's closing keywords (docs: "Linking a pull request to an issue"), then the issue's number
CLOSES = re.compile(r"\b(?:close[sd]?|fix(?:e[sd])?|resolve[sd]?)\b:?\s+#(\d+)", re.I)
RULES = FileRules(("python",))


def _git(repo: Path, *args: str) -> str:
    return subprocess.run(["git", "-C", str(repo), *args], check=True, capture_output=True).stdout.decode(
        "utf-8", "replace")


def _source_files(repo: Path, commit: str) -> list[str]:
    out = _git(repo, "diff-tree", "--no-commit-id", "-r", "--first-parent", "--diff-filter=M", "--name-only",
               f"{commit}^", commit)
    return [p for p in out.splitlines() if RULES.language_of(p) and RULES.path_reason(p, "100644", 1) is None]


def candidates(repo: Path, limit: int) -> list[dict]:
    found = []
    log = _git(repo, "log", "--first-parent", "--no-merges", "--format=%x01%H%x02%B", "HEAD")
    for record in log.split("\x01")[1:]:
        commit, _, message = record.partition("\x02")
        match = CLOSES.search(message)
        if not match or not _source_files(repo, commit):
            continue
        found.append({"commit": commit, "issue": int(match.group(1)), "subject": message.strip().splitlines()[0]})
        if len(found) == limit:
            break
    return found


def found_records(raw: Path, candidate_file: Path) -> list[dict]:
    """The candidates (file order) whose issue text is in ``raw``, each with its ``title`` and ``body``."""
    records = []
    for line in candidate_file.read_text().splitlines():
        candidate = json.loads(line)
        text = raw / f"{candidate['issue']}.txt"
        if text.is_file() and all(r["issue"] != candidate["issue"] for r in records):  # an issue once, newest fix
            title, _, body = text.read_text(encoding="utf-8").partition("\n")
            records.append({**candidate, "title": title.strip(), "body": body.strip()})
    return records


def build(repo: Path, name: str, records: list[dict], limit: int) -> list[dict]:
    instances = []
    for record in records:
        parent = _git(repo, "rev-parse", f"{record['commit']}^").strip()
        patch = _git(repo, "diff", "--no-color", "--no-ext-diff", parent, record["commit"])
        instances.append({"instance_id": f"{name.replace('/', '__')}-{record['issue']}", "repo": name,
                          "base_commit": parent, "problem_statement": f"{record['title']}\n{record['body']}",
                          "patch": patch, "fix_commit": record["commit"], "created_at": _git(repo, "log", "-1", "--format=%cI",
                                                              record["commit"]).strip()})
        if len(instances) == limit:
            break
    return instances


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("step", choices=("candidates", "build"))
    parser.add_argument("--repos", required=True, type=Path, help="folder of <org>__<repo> git repositories")
    parser.add_argument("--candidates", type=Path, help="build: the candidates step's output folder")
    parser.add_argument("--raw", type=Path, help="build: the found issues, RAW/<org>__<repo>/<N>.txt")
    parser.add_argument("--out", required=True, type=Path)
    parser.add_argument("--per-repo", type=int, default=None)
    parser.add_argument("--repositories", default=",".join(REPOSITORIES),
                        help="comma-separated org/name (default: the registered eight)")
    args = parser.parse_args(argv)
    if args.step == "build" and (args.raw is None or args.candidates is None):
        parser.error("build needs --candidates and --raw")
    args.out.mkdir(parents=True, exist_ok=True)
    for name in args.repositories.split(","):
        key = name.replace("/", "__")
        repo = args.repos / key
        if args.step == "candidates":
            rows = candidates(repo, args.per_repo or 40)
            target = args.out / f"{key}.jsonl"
        else:
            if not (args.raw / key).is_dir():
                print(f"{name}: no issue texts", file=sys.stderr)
                continue
            records = found_records(args.raw / key, args.candidates / f"{key}.jsonl")
            rows = build(repo, name, records, args.per_repo or 15)
            target = args.out / f"{key}_dataset.jsonl"
        target.write_text("".join(json.dumps(r) + "\n" for r in rows))
        print(f"{name}: {len(rows)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
