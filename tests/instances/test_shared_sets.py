"""The shared Multi-SWE-bench issues (../shared/data/issues) against the repository mirrors in cache/repos:
every base commit is there, and the sets prepare builds agree with git's own reading of each fix.
Skipped when the issues or the mirrors are absent."""

from __future__ import annotations

import json
import subprocess

import pytest
from conftest import ROOT, run_verb

from qlog_pyserini.formats.documents import iter_documents
from qlog_pyserini.formats.instances import corpus_path, read_instances
from qlog_pyserini.instances.rules import FileRules

SETS = {"java": ("java",), "js": ("javascript", "typescript"), "ts": ("typescript",), "c": ("c",)}
REPOS = ROOT / "cache" / "repos"


@pytest.fixture(scope="module")
def issues(shared_data):
    folder = shared_data / "issues"
    if not folder.is_dir() or not REPOS.is_dir():
        pytest.skip(f"{folder} or {REPOS} is absent")
    return folder


def _records(folder):
    return [json.loads(line) for f in sorted(folder.glob("*.jsonl")) for line in f.read_text().splitlines()]


def _git(repo, *args, input=None) -> str:
    # bytes, then UTF-8: text mode would turn a file's CRLF line ends into LF
    return subprocess.run(["git", "-C", str(repo), *args], capture_output=True, check=True,
                          input=input.encode() if input else None).stdout.decode("utf-8", "replace")


def test_every_base_commit_is_in_its_mirror(issues):
    for name in SETS:
        by_repo = {}
        for row in _records(issues / name):
            by_repo.setdefault(f"{row['org']}__{row['repo']}".lower(), []).append(row["base"]["sha"])
        mirrors = {p.name.lower(): p for p in REPOS.iterdir()}
        for repo, shas in by_repo.items():
            assert repo in mirrors, repo
            out = _git(mirrors[repo], "cat-file", "--batch-check", input="".join(f"{s}^{{commit}}\n" for s in shas))
            assert all(line.split()[1:2] == ["commit"] for line in out.splitlines()), (repo, out)


def _modified_by_git(patch: str) -> set[str]:
    """The files a patch changes in place, as git apply reads it: --numstat's paths, less renames
    (two paths) and the files --summary says it creates or deletes."""
    numstat = subprocess.run(["git", "apply", "--numstat", "-z"], input=patch.encode(), capture_output=True,
                             check=True).stdout.decode().split("\0")
    paths, i = set(), 0
    while i < len(numstat) - 1:
        stats = numstat[i].split("\t")
        if len(stats) == 3 and stats[2]:
            paths.add(stats[2])
            i += 1
        else:  # a rename or copy: "added\tdeleted\t", then the two paths
            i += 3
    summary = subprocess.run(["git", "apply", "--summary"], input=patch.encode(), capture_output=True,
                             check=True).stdout.decode()
    gone = {line.split(maxsplit=3)[3] for line in summary.splitlines()
            if line.strip().startswith(("create mode", "delete mode"))}
    return paths - gone


@pytest.mark.parametrize("name", list(SETS))
def test_shared_set_agrees_with_git(issues, name, tmp_path):
    out = tmp_path / name
    result = run_verb("prepare", "--format", "multi-swe-bench", "--input", issues / name, "--repos", REPOS,
                      "--language", *SETS[name], "--output", out, "--quiet")
    assert result.returncode == 0, result.stderr
    rows = {r["instance_id"]: r for r in _records(issues / name)}
    report = json.loads((out / "report.json").read_text())
    kept = read_instances(out)
    assert report["counts"]["read"] == len(rows) == len(kept) + report["counts"]["dropped"]
    rules = FileRules(SETS[name])
    mirrors = {p.name.lower(): p for p in REPOS.iterdir()}
    for instance in kept:
        row = rows[instance.instance_id]
        mirror = mirrors[f"{row['org']}__{row['repo']}".lower()]
        tree = set(_git(mirror, "ls-tree", "-r", "--name-only", "-z", row["base"]["sha"]).split("\0"))
        expected = {p for p in _modified_by_git(row["fix_patch"])
                    if p in tree and rules.path_reason(p, "100644", 0) is None}
        assert set(instance.answers) == expected, instance.instance_id
        docs = dict(iter_documents(corpus_path(out, instance.corpus)))
        for path in instance.answers:  # each answer's document is its file at the base commit
            assert docs[path] == f"{path}\n" + _git(mirror, "show", f"{row['base']['sha']}:{path}")
