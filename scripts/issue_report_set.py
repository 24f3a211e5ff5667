"""Builds the issue-report development sets registered in results/selection-ledger.md (Python; Go, Rust and C++).

Two steps, because the issue texts come from a search service a script cannot call:

``candidates``: for each repository, the commits of its HEAD's first-parent history whose message closes an issue
(a GitHub closing keyword, then ``#N``) and that modify a non-test source file of its language (``prepare``'s
rules), newest first, at most ``--per-repo`` of them (default 40), written as ``OUT/<org>__<repo>.jsonl``
(``commit``, ``issue``, ``subject``).

``build``: ``RAW/<org>__<repo>/<N>.txt`` holds, for each candidate whose issue was found, the issue's title (first
line) and report without comments (the rest); this writes ``OUT/<language>/<org>__<repo>_dataset.jsonl`` in
SWE-bench's format (``instance_id``, ``repo``, ``base_commit`` = the commit's first parent, ``problem_statement`` =
title and body, ``patch`` = the commit's diff against that parent, ``fix_commit`` = the commit), at most
``--per-repo`` instances (default 15), newest first, an issue once, which ``prepare --format swebench`` reads.
"""

from __future__ import annotations

import argparse
import json
import re
import subprocess
import sys
from pathlib import Path

from qlog_pyserini.instances.rules import FileRules
from qlog_pyserini.reproduce.issues import FOLDER_LANGUAGES

REPOSITORIES = {
    "python": ("psf/black", "pallets/jinja", "pallets/werkzeug", "scrapy/scrapy", "networkx/networkx",
               "python-poetry/poetry", "aio-libs/aiohttp", "ipython/ipython"),
    # each language's registered repositories after the ledger's reserve rule (results/selection-ledger.md says
    # which repository gave fewer than five instances and which reserve took its place)
    "go": ("junegunn/fzf", "stretchr/testify", "gorilla/mux", "go-yaml/yaml",
           "go-playground/validator", "gorilla/websocket", "BurntSushi/toml", "golang-jwt/jwt"),
    "rust": ("casey/just", "rust-lang/mdBook", "starship/starship", "eza-community/eza",
             "dandavison/delta", "XAMPPRocky/tokei", "alacritty/alacritty", "Wilfred/difftastic"),
    "cpp": ("Tencent/rapidjson", "zeux/pugixml", "ocornut/imgui",
            "jarro2783/cxxopts", "marzer/tomlplusplus", "google/benchmark", "doctest/doctest",
            # libraries that ship an amalgamation: the assembled-file rule's out-of-sample check
            "nlohmann/json", "simdjson/simdjson", "catchorg/Catch2", "skypjack/entt"),
}
#: GitHub's closing keywords (docs: "Linking a pull request to an issue"), then the issue's number
CLOSES = re.compile(r"\b(?:close[sd]?|fix(?:e[sd])?|resolve[sd]?)\b:?\s+#(\d+)", re.I)


def _git(repo: Path, *args: str) -> str:
    return subprocess.run(["git", "-C", str(repo), *args], check=True, capture_output=True).stdout.decode(
        "utf-8", "replace")


def _source_files(repo: Path, commit: str, rules: FileRules) -> list[str]:
    out = _git(repo, "diff-tree", "--no-commit-id", "-r", "--diff-filter=M", "--name-only", f"{commit}^", commit)
    return [p for p in out.splitlines() if rules.language_of(p) and rules.path_reason(p, "100644", 1) is None]


def candidates(repo: Path, rules: FileRules, limit: int) -> list[dict]:
    found = []
    log = _git(repo, "log", "--first-parent", "--no-merges", "--format=%x01%H%x02%B", "HEAD")
    for record in log.split("\x01")[1:]:
        commit, _, message = record.partition("\x02")
        match = CLOSES.search(message)
        if not match or not _source_files(repo, commit, rules):
            continue
        found.append({"commit": commit, "issue": int(match.group(1)), "subject": message.strip().splitlines()[0]})
        if len(found) == limit:
            break
    return found


def found_records(raw: Path, candidate_file: Path) -> list[dict]:
    """The candidates (file order) whose issue text is in ``raw``, each with its ``title`` and ``body``; an issue
    closed by several commits counts once, with its newest."""
    records: list[dict] = []
    for line in candidate_file.read_text().splitlines():
        candidate = json.loads(line)
        text = raw / f"{candidate['issue']}.txt"
        if text.is_file() and all(r["issue"] != candidate["issue"] for r in records):
            title, _, body = text.read_text(encoding="utf-8").partition("\n")
            records.append({**candidate, "title": title.strip(), "body": body.strip()})
    return records


def _patch(repo: Path, parent: str, commit: str, rules: FileRules) -> str:
    try:
        return _git(repo, "diff", "--no-color", "--no-ext-diff", parent, commit)
    except subprocess.CalledProcessError:
        # a fetched mirror may lack its largest blobs (vendored or generated files): the diff is then limited to the
        # language's files, which hold every answer
        changed = _git(repo, "diff", "--name-only", parent, commit).splitlines()
        return _git(repo, "diff", "--no-color", "--no-ext-diff", parent, commit, "--",
                    *(p for p in changed if rules.language_of(p)))


def build(repo: Path, name: str, records: list[dict], limit: int, rules: FileRules) -> list[dict]:
    instances = []
    for record in records[:limit]:
        parent = _git(repo, "rev-parse", f"{record['commit']}^").strip()
        patch = _patch(repo, parent, record["commit"], rules)
        instances.append({"instance_id": f"{name.replace('/', '__')}-{record['issue']}", "repo": name,
                          "base_commit": parent, "problem_statement": f"{record['title']}\n{record['body']}",
                          "patch": patch, "fix_commit": record["commit"],
                          "created_at": _git(repo, "log", "-1", "--format=%cI", record["commit"]).strip()})
    return instances


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("step", choices=("candidates", "build"))
    parser.add_argument("--repos", required=True, type=Path, help="folder of <org>__<repo> git repositories")
    parser.add_argument("--candidates", type=Path, help="build: the candidates step's output folder")
    parser.add_argument("--raw", type=Path, help="build: the found issues, RAW/<org>__<repo>/<N>.txt")
    parser.add_argument("--out", required=True, type=Path)
    parser.add_argument("--per-repo", type=int, default=None)
    parser.add_argument("--languages", default=",".join(REPOSITORIES), help="comma-separated, of "
                        + ", ".join(REPOSITORIES))
    parser.add_argument("--repositories", default=None,
                        help="comma-separated org/name in place of the registered ones (one language only)")
    args = parser.parse_args(argv)
    languages = args.languages.split(",")
    if any(language not in REPOSITORIES for language in languages):
        parser.error(f"--languages: choose from {', '.join(REPOSITORIES)}")
    if args.repositories and len(languages) != 1:
        parser.error("--repositories needs exactly one --languages")
    if args.step == "build" and (args.raw is None or args.candidates is None):
        parser.error("build needs --candidates and --raw")
    for language in languages:
        rules = FileRules(FOLDER_LANGUAGES[language])
        names = args.repositories.split(",") if args.repositories else REPOSITORIES[language]
        out = args.out if args.step == "candidates" else args.out / language
        out.mkdir(parents=True, exist_ok=True)
        for name in names:
            key = name.replace("/", "__")
            repo = args.repos / key
            if args.step == "candidates":
                rows = candidates(repo, rules, args.per_repo or 40)
                target = out / f"{key}.jsonl"
            else:
                if not (args.raw / key).is_dir():
                    print(f"{name}: no issue texts", file=sys.stderr)
                    continue
                records = found_records(args.raw / key, args.candidates / f"{key}.jsonl")
                rows = build(repo, name, records, args.per_repo or 15, rules)
                target = out / f"{key}_dataset.jsonl"
            target.write_text("".join(json.dumps(r) + "\n" for r in rows))
            print(f"{name}: {len(rows)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
