"""The Python issue-report set, end to end on two small repositories made here: scripts/python_issue_set.py picks
the commits that close an issue, builds SWE-bench-format files from the issue texts it is given, and the
``python-issues`` stage sweeps them and reports each repository and the pool from the sweep's own per-instance
figures."""

from __future__ import annotations

import json
import subprocess
import sys

import pandas as pd
import pytest
from instances.gitrepos import commit, git
from markdown_tables import markdown_rows

from qlog_pyserini.reproduce import python_issues
from qlog_pyserini.reproduce.cache import Config
from qlog_pyserini.reproduce.localization import AUTO
from qlog_pyserini.system.project import PROJECT_ROOT

SCRIPT = PROJECT_ROOT / "scripts" / "python_issue_set.py"
TOPICS = ("parser", "writer", "reader", "loader", "cache")


def _repository(root, name: str) -> dict[int, str]:
    """A repository of five fixes, each closing an issue in one module, among commits that must not be picked:
    {issue: closing commit}."""
    repo = root / name
    repo.mkdir(parents=True)
    git(repo, "init", "-q", "-b", "main")
    files = {f"pkg/{t}.py": f"def run_{t}(value):\n    return value\n" for t in TOPICS}
    commit(repo, "modules", {**files, "tests/test_pkg.py": "def test():\n    pass\n"}, "2020-01-01T00:00:00Z")
    closing = {}
    for i, t in enumerate(TOPICS, 1):
        keyword = ("Fixes", "closes", "Resolved", "fix:", "Close")[i - 1]
        closing[i] = commit(repo, f"Keep the order in run_{t}\n\n{keyword} #{i}",
                            {f"pkg/{t}.py": files[f"pkg/{t}.py"] + f"# {i}\n"}, f"2020-02-0{i}T00:00:00Z")
        # neither a reference without a closing keyword nor a fix touching tests only makes an instance
        commit(repo, f"Refs #{i + 10}: tidy", {f"pkg/{t}.py": files[f"pkg/{t}.py"] + f"# {i}\n# tidy\n"},
               f"2020-03-0{i}T00:00:00Z")
        commit(repo, f"Fixes #{i + 20}", {"tests/test_pkg.py": f"def test():\n    assert {i}\n"},
               f"2020-04-0{i}T00:00:00Z")
    return closing


@pytest.fixture()
def issue_files(tmp_path):
    repos = tmp_path / "repos"
    closing = {name: _repository(repos, name) for name in ("demo__one", "demo__two")}
    return tmp_path, repos, closing


def _run_script(step: str, *args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, str(SCRIPT), step, *args, "--repositories", "demo/one,demo/two"],
                          capture_output=True, text=True, check=True, cwd=PROJECT_ROOT)


def test_candidates_are_the_commits_that_close_an_issue_in_source_files(issue_files):
    tmp_path, repos, closing = issue_files
    _run_script("candidates", "--repos", str(repos), "--out", str(tmp_path / "candidates"))
    for name, commits in closing.items():
        rows = [json.loads(line) for line in (tmp_path / "candidates" / f"{name}.jsonl").read_text().splitlines()]
        # newest first; 'Refs #11' and the test-only 'Fixes #21' are not candidates
        assert [(r["issue"], r["commit"]) for r in rows] == sorted(commits.items(), reverse=True)


@pytest.mark.jvm
def test_python_issues_stage_reports_each_repository_from_the_sweep(issue_files):
    tmp_path, repos, closing = issue_files
    _run_script("candidates", "--repos", str(repos), "--out", str(tmp_path / "candidates"))
    raw = tmp_path / "raw"
    for name in closing:
        (raw / name).mkdir(parents=True)
        for i, t in enumerate(TOPICS, 1):
            if i != 3:  # an issue the search corpus lacks is skipped
                (raw / name / f"{i}.txt").write_text(f"run_{t} loses the order\nCalling run_{t}() twice reorders.\n")
    _run_script("build", "--repos", str(repos), "--candidates", str(tmp_path / "candidates"), "--raw", str(raw),
                "--out", str(tmp_path / "sets"))
    records = [json.loads(line) for line in (tmp_path / "sets" / "demo__one_dataset.jsonl").read_text().splitlines()]
    assert [r["instance_id"] for r in records] == ["demo__one-5", "demo__one-4", "demo__one-2", "demo__one-1"]
    first = records[-1]
    assert first["base_commit"] == git(repos / "demo__one", "rev-parse", f"{closing['demo__one'][1]}^").strip()
    assert first["problem_statement"].startswith("run_parser loses the order\n") and "pkg/parser.py" in first["patch"]

    cfg = Config(quick=False, work=tmp_path / "work", out=tmp_path / "out", cache=tmp_path / "cache",
                 shared=tmp_path / "none", languages=(), queries=1, max_docs=None, grid=[0.5, 1.0],
                 forms=("lucene",), scaling=(), ablation=(), threads=1, resamples=200, go_target=0,
                 repos=repos, python_issues=tmp_path / "sets", command="scripts/reproduce --stages python-issues")
    (tmp_path / "out").mkdir()
    assert python_issues.run(cfg, []) is None
    md = (tmp_path / "out" / "python-issues.md").read_text()
    record = json.loads((tmp_path / "out" / "python-issues.json").read_text())
    assert [a["analyzer"] for a in record["analyzers"]] == ["default", "identifier"]
    [four] = [r for r in record["instances"] if r["instance_id"] == "demo__two-4"]
    assert four["fix_commit"] == closing["demo__two"][4]
    assert four["base_commit"] == git(repos / "demo__two", "rev-parse", f"{closing['demo__two'][4]}^").strip()
    # each repository's row is the mean of its own instances in the set's one sweep
    frame = pd.read_csv(tmp_path / "work" / "issue-sweeps" / "python-issues" / "per_query.csv", index_col=0)
    default = record["analyzers"][0]
    for row in default["sets"]:
        own = frame.loc[[i for i in frame.index if i.startswith(row["set"].replace("/", "__"))]]
        assert row["instances"] == len(own) == 4
        assert row["recip_rank"][AUTO] == pytest.approx(own[f"{AUTO}:recip_rank"].mean())
    assert default["pooled"]["instances"] == 8
    # the issue's comparison: every repository pooled, auto against tuned BM25 (CV) and the engine default
    assert "## Per language\n\nEvery repository pooled; p is" in md
    for entry in record["languages"]:
        kind = "issue-sweeps" + ("" if entry["analyzer"] == "default" else "-identifier")
        pooled = pd.read_csv(tmp_path / "work" / kind / "python-issues" / "per_query.csv", index_col=0)
        assert entry["language"] == "python" and entry["instances"] == 8
        for system in ("bm25", "engine", "bm25_cv", AUTO):
            assert entry["recip_rank"]["means"][system] == pytest.approx(pooled[f"{system}:recip_rank"].mean())
    assert {r[0] for r in markdown_rows(md.split("### Analyzer: default")[1].split("###")[0])} >= {
        "demo/one", "demo/two", "pooled"}
    assert python_issues.SAMPLE in md and "In-sample" not in md


def test_python_issues_stage_skips_without_its_files(tmp_path):
    cfg = Config(quick=True, work=tmp_path / "work", out=tmp_path / "out", cache=tmp_path / "cache",
                 shared=tmp_path / "none", languages=(), queries=1, max_docs=None, grid=[1.0], forms=("lucene",),
                 scaling=(), ablation=(), threads=1, resamples=1, go_target=0, python_issues=tmp_path / "none")
    assert python_issues.run(cfg, []) is None and not (tmp_path / "out").exists()
