"""The benchmark scripts under scripts/ refuse bad input as the verbs do: one ``error:`` line and exit 2, before
their minutes of work, with nothing written."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest
from conftest import ROOT
from reliability.reliability_helpers import assert_one_error


def _script(name: str, *args: str, cwd) -> subprocess.CompletedProcess:
    # the script is a thin entry over qlog_pyserini.bench: the package it imports is this checkout's
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")]))}
    return subprocess.run([sys.executable, str(ROOT / "scripts" / name), *args], cwd=cwd, capture_output=True,
                          text=True, timeout=120, env=env)


@pytest.mark.parametrize("args, needle", [
    (["speed", "--prepared", "missing"], "--prepared 'missing' holds no corpus"),
    (["ndcg", "--stdlib", "missing", "--csn-ruby", "csn", "--work", "w"], "--stdlib 'missing' holds no prepared/topics.tsv"),
    (["ndcg", "--stdlib", "stdlib", "--csn-ruby", "csn", "--work", "w"], "--csn-ruby 'csn' holds no valid.jsonl"),
    (["ndcg", "--stdlib", "stdlib", "--csn-ruby", "full", "--work", "w", "--output", "no/such/dir/out.md"], "no/such/dir"),
])
def test_rag_libraries_script_refuses_bad_input(tmp_path, args, needle):
    (tmp_path / "stdlib" / "prepared").mkdir(parents=True)
    (tmp_path / "stdlib" / "prepared" / "topics.tsv").write_text("1\tq\n")
    (tmp_path / "stdlib" / "index").mkdir()
    (tmp_path / "csn").mkdir()
    (tmp_path / "csn" / "test.jsonl").write_text("")
    (tmp_path / "full").mkdir()
    for name in ("test.jsonl", "valid.jsonl"):
        (tmp_path / "full" / name).write_text("")
    before = sorted(p.relative_to(tmp_path) for p in tmp_path.rglob("*"))
    assert_one_error(_script("bench_rag_libraries.py", *args, cwd=tmp_path), needle)
    assert sorted(p.relative_to(tmp_path) for p in tmp_path.rglob("*")) == before


@pytest.mark.parametrize("args, needle", [
    (["--issues", "issues"], "--issues 'issues' holds no ts, c"),
    (["--issues", "full", "--repos", "repos"], "--repos 'repos' holds no alibaba__fastjson2"),
    (["--issues", "full", "--repos", "full", "--threads", "0"], "--threads must be at least 1"),
])
def test_issue_sets_timing_script_refuses_bad_input(tmp_path, args, needle):
    for name in ("java", "js"):
        (tmp_path / "issues" / name).mkdir(parents=True)
    for name in ("java", "js", "ts", "c", "alibaba__fastjson2"):
        (tmp_path / "full" / name).mkdir(parents=True)
    before = sorted(p.relative_to(tmp_path) for p in tmp_path.rglob("*"))
    assert_one_error(_script("time_issue_sets.py", *args, "--results", "out", cwd=tmp_path), needle)
    assert sorted(p.relative_to(tmp_path) for p in tmp_path.rglob("*")) == before


@pytest.mark.parametrize("args, needle", [
    (["--repos", "repos", "--shared", "shared", "--work", "w"], "--repos 'repos' holds no apache__dubbo"),
    (["--repos", "repos", "--repo", "r", "--shared", "nowhere", "--work", "w"], "--shared 'nowhere' holds no issues/"),
    (["--repos", "repos", "--repo", "r", "--shared", "shared", "--work", "w", "--max-instances", "0"],
     "--max-instances must be at least 1"),
    (["--repos", "repos", "--repo", "r", "--shared", "shared", "--work", "w", "--issue-reports", "nowhere"],
     "--issue-reports 'nowhere' is not a folder"),
    (["--repos", "repos", "--repo", "r", "--shared", "shared", "--work", "w", "--output", "no/such/dir/out.md"],
     "no/such/dir"),
])
def test_locate_benchmark_refuses_bad_input(tmp_path, args, needle):
    (tmp_path / "repos" / "r").mkdir(parents=True)
    (tmp_path / "shared" / "issues").mkdir(parents=True)
    before = sorted(p.relative_to(tmp_path) for p in tmp_path.rglob("*"))
    assert_one_error(_script("bench_locate.py", *args, cwd=tmp_path), needle)
    assert sorted(p.relative_to(tmp_path) for p in tmp_path.rglob("*")) == before


def test_locate_benchmark_prepares_the_issue_report_sets_beside_the_shared_ones(tmp_path, monkeypatch):
    """Each language folder of --issue-reports becomes a set of its own, in SWE-bench's format, with that language's
    file rules: the answers are the source files the fix modifies, its tests left out."""
    import importlib.util

    from instances.gitrepos import commit, git

    repo = tmp_path / "repos" / "acme__tool"
    repo.mkdir(parents=True)
    git(repo, "init", "-q")
    base = commit(repo, "base", {"tool/reader.py": "def read():\n    pass\n", "tests/test_reader.py": "x = 1\n"},
                  "2024-01-01T00:00:00")
    commit(repo, "fix", {"tool/reader.py": "def read():\n    return 1\n", "tests/test_reader.py": "x = 2\n"},
           "2024-01-02T00:00:00")
    (tmp_path / "reports" / "python").mkdir(parents=True)
    (tmp_path / "reports" / "python" / "acme__tool_dataset.jsonl").write_text(json.dumps(
        {"instance_id": "acme__tool-1", "repo": "acme/tool", "base_commit": base,
         "problem_statement": "read returns nothing", "patch": git(repo, "diff", base, "HEAD")}) + "\n")
    (tmp_path / "shared" / "issues").mkdir(parents=True)
    spec = importlib.util.spec_from_file_location("bench_locate", ROOT / "scripts" / "bench_locate.py")
    script = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(script)
    sets = script.prepare_sets(tmp_path / "shared", tmp_path / "repos", tmp_path / "work", None, tmp_path / "reports")
    assert [(name, languages) for name, _, languages in sets] == [("reports-python", ("python",))]
    [record] = [json.loads(line) for line in (sets[0][1] / "instances.jsonl").read_text().splitlines()]
    assert record["instance_id"] == "acme__tool-1" and record["answers"] == ["tool/reader.py"]
    # kept while its inputs and rules are unchanged; prepared again when the file rules change
    made = (sets[0][1] / "instances.jsonl").stat().st_mtime_ns
    script.prepare_sets(tmp_path / "shared", tmp_path / "repos", tmp_path / "work", None, tmp_path / "reports")
    assert (sets[0][1] / "instances.jsonl").stat().st_mtime_ns == made
    from qlog_pyserini.instances import rules

    monkeypatch.setattr(rules, "GENERATED_PROBE", rules.GENERATED_PROBE // 2)
    script.prepare_sets(tmp_path / "shared", tmp_path / "repos", tmp_path / "work", None, tmp_path / "reports")
    assert (sets[0][1] / "instances.jsonl").stat().st_mtime_ns != made
