"""The issue-report sets, end to end on small repositories made here: scripts/issue_report_set.py picks the commits
that close an issue, builds SWE-bench-format files from the issue texts it is given, and the ``issue-reports``
stage sweeps each language's set and reports each repository, each language and the pool from the sweeps' own
per-instance figures."""

from __future__ import annotations

import json
import subprocess
import sys

import pandas as pd
import pytest
from instances.gitrepos import commit, git
from markdown_tables import has_cells, markdown_rows

from qlog_pyserini.reproduce import issue_reports
from qlog_pyserini.reproduce.cache import Config
from qlog_pyserini.reproduce.localization import AUTO
from qlog_pyserini.system.project import PROJECT_ROOT

SCRIPT = PROJECT_ROOT / "scripts" / "issue_report_set.py"
TOPICS = ("parser", "writer", "reader", "loader", "cache")
SOURCES = {"python": ("py", "tests/test_pkg.py", "def run_{t}(value):\n    return value\n"),
           "go": ("go", "pkg/pkg_test.go", "package pkg\n\nfunc Run{t}(value int) int {{\n\treturn value\n}}\n")}


def _repository(root, name: str, language: str) -> dict[int, str]:
    """A repository of five fixes, each closing an issue in one module, among commits that must not be picked:
    {issue: closing commit}."""
    extension, test_file, body = SOURCES[language]
    repo = root / name
    repo.mkdir(parents=True)
    git(repo, "init", "-q", "-b", "main")
    files = {f"pkg/{t}.{extension}": body.format(t=t) for t in TOPICS}
    commit(repo, "modules", {**files, test_file: "// test\n"}, "2020-01-01T00:00:00Z")
    closing = {}
    for i, t in enumerate(TOPICS, 1):
        path = f"pkg/{t}.{extension}"
        keyword = ("Fixes", "closes", "Resolved", "fix:", "Close")[i - 1]
        closing[i] = commit(repo, f"Keep the order in run_{t}\n\n{keyword} #{i}", {path: files[path] + f"// {i}\n"},
                            f"2020-02-0{i}T00:00:00Z")
        # neither a reference without a closing keyword nor a fix touching tests only makes an instance
        commit(repo, f"Refs #{i + 10}: tidy", {path: files[path] + f"// {i}\n// tidy\n"}, f"2020-03-0{i}T00:00:00Z")
        commit(repo, f"Fixes #{i + 20}", {test_file: f"// test {i}\n"}, f"2020-04-0{i}T00:00:00Z")
    return closing


def _run_script(step: str, language: str, names: str, *args: str) -> None:
    subprocess.run([sys.executable, str(SCRIPT), step, *args, "--languages", language, "--repositories", names],
                   capture_output=True, text=True, check=True, cwd=PROJECT_ROOT)


@pytest.fixture()
def repositories(tmp_path):
    repos = tmp_path / "repos"
    closing = {("python", "demo__one"): _repository(repos, "demo__one", "python"),
               ("python", "demo__two"): _repository(repos, "demo__two", "python"),
               ("go", "demo__three"): _repository(repos, "demo__three", "go")}
    return tmp_path, repos, closing


def _candidates(tmp_path, repos) -> None:
    _run_script("candidates", "python", "demo/one,demo/two", "--repos", str(repos), "--out", str(tmp_path / "cand"))
    _run_script("candidates", "go", "demo/three", "--repos", str(repos), "--out", str(tmp_path / "cand"))


def test_candidates_are_the_commits_that_close_an_issue_in_source_files(repositories):
    tmp_path, repos, closing = repositories
    _candidates(tmp_path, repos)
    for (_, name), commits in closing.items():
        rows = [json.loads(line) for line in (tmp_path / "cand" / f"{name}.jsonl").read_text().splitlines()]
        # newest first; 'Refs #11' and the test-only 'Fixes #21' are not candidates
        assert [(r["issue"], r["commit"]) for r in rows] == sorted(commits.items(), reverse=True)


def test_the_script_refuses_repositories_without_one_language(repositories):
    tmp_path, repos, _ = repositories
    out = subprocess.run([sys.executable, str(SCRIPT), "candidates", "--repos", str(repos), "--out", str(tmp_path),
                          "--repositories", "demo/one"], capture_output=True, text=True, cwd=PROJECT_ROOT)
    assert out.returncode == 2 and "--repositories needs exactly one --languages" in out.stderr


@pytest.mark.jvm
def test_issue_reports_stage_reports_each_repository_and_language_from_the_sweeps(repositories):
    tmp_path, repos, closing = repositories
    _candidates(tmp_path, repos)
    raw = tmp_path / "raw"
    for (_, name) in closing:
        (raw / name).mkdir(parents=True)
        for i, t in enumerate(TOPICS, 1):
            if i != 3:  # an issue the search corpus lacks is skipped
                (raw / name / f"{i}.txt").write_text(f"run_{t} loses the order\nCalling run_{t}() twice reorders.\n")
    for language, names in (("python", "demo/one,demo/two"), ("go", "demo/three")):
        _run_script("build", language, names, "--repos", str(repos), "--candidates", str(tmp_path / "cand"),
                    "--raw", str(raw), "--out", str(tmp_path / "sets"))
    records = [json.loads(line)
               for line in (tmp_path / "sets" / "python" / "demo__one_dataset.jsonl").read_text().splitlines()]
    assert [r["instance_id"] for r in records] == ["demo__one-5", "demo__one-4", "demo__one-2", "demo__one-1"]
    first = records[-1]
    assert first["base_commit"] == git(repos / "demo__one", "rev-parse", f"{closing['python', 'demo__one'][1]}^").strip()
    assert first["problem_statement"].startswith("run_parser loses the order\n") and "pkg/parser.py" in first["patch"]

    cfg = Config(quick=False, work=tmp_path / "work", out=tmp_path / "out", cache=tmp_path / "cache",
                 shared=tmp_path / "none", languages=(), queries=1, max_docs=None, grid=[0.5, 1.0],
                 forms=("lucene",), scaling=(), ablation=(), threads=1, resamples=200, go_target=0,
                 repos=repos, issue_reports=tmp_path / "sets", command="scripts/reproduce --stages issue-reports")
    (tmp_path / "out").mkdir()
    assert issue_reports.run(cfg, []) is None
    md = (tmp_path / "out" / "issue-reports.md").read_text()
    record = json.loads((tmp_path / "out" / "issue-reports.json").read_text())
    assert [a["analyzer"] for a in record["analyzers"]] == ["default", "identifier"]
    assert has_cells(md, "demo/three", "go", "4") and has_cells(md, "demo/one", "python", "4")
    [four] = [r for r in record["instances"] if r["instance_id"] == "demo__three-4"]
    assert four["language"] == "go" and four["fix_commit"] == closing["go", "demo__three"][4]
    assert four["base_commit"] == git(repos / "demo__three", "rev-parse", f"{four['fix_commit']}^").strip()
    # each repository's row is the mean of its own instances in its language's sweep
    sweeps = {language: pd.read_csv(tmp_path / "work" / "issue-sweeps" / f"reports-{language}" / "per_query.csv",
                                    index_col=0) for language in ("python", "go")}
    default = record["analyzers"][0]
    for row in default["sets"]:
        frame = sweeps["go" if row["set"] == "demo/three" else "python"]
        own = frame.loc[[i for i in frame.index if i.startswith(row["set"].replace("/", "__") + "-")]]
        assert row["instances"] == len(own) == 4
        assert row["recip_rank"][AUTO] == pytest.approx(own[f"{AUTO}:recip_rank"].mean())
    assert default["pooled"]["instances"] == 12
    # per language: its repositories pooled, auto against tuned BM25 (CV) and the engine default
    assert "## Per language\n\nEach language's repositories pooled; p is" in md
    for entry in record["languages"]:
        assert entry["instances"] == {"python": 8, "go": 4}[entry["language"]]
        kind = "issue-sweeps" + ("" if entry["analyzer"] == "default" else "-identifier")
        pooled = pd.read_csv(tmp_path / "work" / kind / f"reports-{entry['language']}" / "per_query.csv", index_col=0)
        for system in ("bm25", "engine", "bm25_cv", AUTO):
            assert entry["recip_rank"]["means"][system] == pytest.approx(pooled[f"{system}:recip_rank"].mean())
    assert {r[0] for r in markdown_rows(md.split("### Analyzer: default")[1].split("###")[0])} >= {
        "demo/one", "demo/two", "demo/three", "pooled"}
    assert issue_reports.SAMPLE in md and "In-sample" not in md


def test_issue_reports_stage_skips_without_its_files_or_their_repositories(tmp_path):
    (tmp_path / "sets" / "go").mkdir(parents=True)
    (tmp_path / "sets" / "go" / "demo__one_dataset.jsonl").write_text("{}\n")
    for sets, repos in ((tmp_path / "none", tmp_path), (tmp_path / "sets", tmp_path / "none")):
        cfg = Config(quick=True, work=tmp_path / "work", out=tmp_path / "out", cache=tmp_path / "cache",
                     shared=tmp_path / "none", languages=(), queries=1, max_docs=None, grid=[1.0], forms=("lucene",),
                     scaling=(), ablation=(), threads=1, resamples=1, go_target=0, issue_reports=sets, repos=repos)
        assert issue_reports.run(cfg, []) is None
        assert not (tmp_path / "out").exists() and not (tmp_path / "work").exists()


def test_a_mirror_lacking_a_blob_gives_the_diff_of_its_language_files(tmp_path):
    """A fetched mirror may lack its largest blobs: the build still writes the fix, limited to the language's files,
    which hold every answer."""
    repos = tmp_path / "repos"
    repo = repos / "demo__one"
    repo.mkdir(parents=True)
    git(repo, "init", "-q", "-b", "main")
    commit(repo, "base", {"pkg/parser.py": "def run():\n    pass\n", "data/big.bin": "old\n"}, "2020-01-01T00:00:00Z")
    fix = commit(repo, "Fixes #1", {"pkg/parser.py": "def run():\n    return 1\n", "data/big.bin": "new\n"},
                 "2020-01-02T00:00:00Z")
    blob = git(repo, "rev-parse", f"{fix}:data/big.bin").strip()
    (repo / ".git" / "objects" / blob[:2] / blob[2:]).unlink()
    _run_script("candidates", "python", "demo/one", "--repos", str(repos), "--out", str(tmp_path / "cand"))
    (tmp_path / "raw" / "demo__one").mkdir(parents=True)
    (tmp_path / "raw" / "demo__one" / "1.txt").write_text("run returns nothing\n")
    _run_script("build", "python", "demo/one", "--repos", str(repos), "--candidates", str(tmp_path / "cand"),
                "--raw", str(tmp_path / "raw"), "--out", str(tmp_path / "sets"))
    [record] = [json.loads(line) for line in (tmp_path / "sets" / "python" / "demo__one_dataset.jsonl").read_text()
                .splitlines()]
    assert "pkg/parser.py" in record["patch"] and "big.bin" not in record["patch"]
