"""``prepare --format swebench|multi-swe-bench|git-history``: instance sets from small repositories the tests build."""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import pytest
from conftest import run_verb
from instances.gitrepos import BASE_PYTHON_DOCS, commit, git

from qlog_pyserini.errors import QLogError
from qlog_pyserini.formats.documents import iter_documents
from qlog_pyserini.formats.instances import corpus_path, read_instances
from qlog_pyserini.formats.topics import read_topics
from qlog_pyserini.formats.trec import read_qrels
from qlog_pyserini.instances.git import GitRepository


def _swebench(repo, tmp_path: Path, extra: list[dict] | None = None) -> Path:
    rows = [{"instance_id": "demo__demo-1", "repo": "demo/demo", "base_commit": repo.base,
             "problem_statement": "parse_config crashes\non an empty file", "patch": git(repo.path, "diff", "-M",
                                                                                        repo.base, repo.fix),
             "test_patch": ""},
            {"instance_id": "demo__demo-2", "repo": "demo/demo", "base_commit": repo.fix,
             "problem_statement": "helper should accept None", "patch": git(repo.path, "diff", repo.fix, repo.util_fix)},
            {"instance_id": "demo__demo-3", "repo": "demo/demo", "base_commit": repo.util_fix,
             "problem_statement": "only tests", "patch": git(repo.path, "diff", repo.util_fix, repo.tests_only)},
            *(extra or [])]
    path = tmp_path / "records.json"
    path.write_text(json.dumps(rows))  # a JSON array, as a dataset export writes it
    return path


@pytest.fixture
def mirrors(small_repo, tmp_path) -> Path:
    """The repository as a bare mirror under repos/<org>__<repo>.git."""
    repos = tmp_path / "repos"
    repos.mkdir()
    subprocess.run(["git", "clone", "-q", "--mirror", str(small_repo.path), str(repos / "demo__demo.git")], check=True)
    return repos


def _docs(instance_set: Path, key: str) -> dict[str, str]:
    return dict(iter_documents(corpus_path(instance_set, key)))


def test_swebench_set_follows_the_rules(small_repo, mirrors, tmp_path):
    out = tmp_path / "set"
    result = run_verb("prepare", "--format", "swebench", "--input", _swebench(small_repo, tmp_path),
                      "--repos", mirrors, "--language", "python", "--max-file-bytes", "1000", "--output", out)
    assert result.returncode == 0, result.stderr
    assert "2 of 3 instances kept" in result.stdout
    instances = {i.instance_id: i for i in read_instances(out)}
    assert set(instances) == {"demo__demo-1", "demo__demo-2"}
    first = instances["demo__demo-1"]
    # modified in place: src/app.py (source), tests/test_app.py (test), vendor/lib.py (vendored), README.md;
    # renamed (src/old_name.py), deleted (src/gone.py) and added (src/added.py) files are never answers
    assert first.answers == ("src/app.py",)
    assert (first.repo, first.language, first.base_commit) == ("demo/demo", "python", small_repo.base)
    row = json.loads((out / "instances.jsonl").read_text().splitlines()[0])
    assert row["dropped_answers"] == {"tests/test_app.py": "test", "vendor/lib.py": "vendored",
                                      "README.md": "other-language"}
    docs = _docs(out, first.corpus)
    assert set(docs) == BASE_PYTHON_DOCS
    for path, contents in docs.items():  # document = path + newline + the file at the base commit
        assert contents == f"{path}\n" + git(small_repo.path, "show", f"{small_repo.base}:{path}")
    assert read_topics(out / "topics.tsv") == {"demo__demo-1": "parse_config crashes on an empty file",
                                               "demo__demo-2": "helper should accept None"}
    assert read_qrels(out / "qrels.txt") == {"demo__demo-1": {"src/app.py": 1}, "demo__demo-2": {"src/util.py": 1}}
    report = json.loads((out / "report.json").read_text())
    assert report["dropped_instance_counts"] == {"no-answer-after-rules": 1}
    assert report["dropped_instances"]["no-answer-after-rules"][0]["modified"] == {"tests/test_app.py": "test"}
    base_drops = report["corpora"][first.corpus]["dropped_files"]
    assert base_drops == {"symlink": 1, "other-language": 5, "hidden-folder": 1, "vendored": 1, "test": 2,
                          "too-large": 1, "whitespace-in-path": 1, "binary": 1, "generated-marker": 1}
    assert report["changes_not_answers"] == {"added": 1, "deleted": 1, "renamed": 1}


def test_identical_trees_share_one_corpus(small_repo, mirrors, tmp_path):
    same_tree = {"instance_id": "demo__demo-4", "repo": "demo/demo", "base_commit": small_repo.empty,
                 "problem_statement": "again", "patch": git(small_repo.path, "diff", small_repo.util_fix, small_repo.fix,
                                                            "--", "src/util.py")}
    before_tests = {"instance_id": "demo__demo-5", "repo": "demo/demo", "base_commit": small_repo.tests_only,
                    "problem_statement": "same tree, other commit", "patch": same_tree["patch"]}
    out = tmp_path / "set"
    result = run_verb("prepare", "--format", "swebench", "--input", _swebench(small_repo, tmp_path,
                                                                              [same_tree, before_tests]),
                      "--repos", mirrors, "--language", "python", "--output", out, "--quiet")
    assert result.returncode == 0, result.stderr
    by_id = {i.instance_id: i for i in read_instances(out)}
    assert by_id["demo__demo-4"].base_commit != by_id["demo__demo-5"].base_commit
    assert by_id["demo__demo-4"].corpus == by_id["demo__demo-5"].corpus
    keys = {i.corpus for i in by_id.values()}
    # one corpus file per key, and beside it the record of what the files it left out as generated were made of
    assert sorted(p.name for p in (out / "corpora").glob("*.jsonl")) == sorted(f"{k}.jsonl" for k in keys)
    assert {p.name for p in (out / "corpora").iterdir()} - {f"{k}.jsonl" for k in keys} <= {
        f"{k}.assembled.json" for k in keys}


@pytest.mark.parametrize("layout", ["demo/demo", "demo/demo.git", "demo__demo", "Demo__Demo"])
def test_multi_swe_bench_finds_clones_and_mirrors(small_repo, tmp_path, layout):
    repos = tmp_path / "repos"
    target = repos / layout
    target.parent.mkdir(parents=True, exist_ok=True)
    bare = ["--bare"] if layout.endswith(".git") else []
    subprocess.run(["git", "clone", "-q", *bare, str(small_repo.path), str(target)], check=True)
    row = {"org": "demo", "repo": "demo", "number": 7, "base": {"sha": small_repo.base},
           "resolved_issues": [{"number": 1, "title": "Crash in parse_config", "body": "on empty files"},
                               {"number": 2, "title": "Second report", "body": None}],
           "fix_patch": git(small_repo.path, "diff", "-M", small_repo.base, small_repo.fix), "test_patch": ""}
    records = tmp_path / "issues"
    records.mkdir()
    (records / "demo__demo_dataset.jsonl").write_text(json.dumps(row) + "\n")
    out = tmp_path / "set"
    result = run_verb("prepare", "--format", "multi-swe-bench", "--input", records, "--repos", repos,
                      "--language", "python", "javascript", "--output", out, "--quiet")
    assert result.returncode == 0, result.stderr
    [instance] = read_instances(out)
    assert instance.instance_id == "demo__demo-7" and instance.answers == ("src/app.py",)
    assert read_topics(out / "topics.tsv") == {"demo__demo-7": "Crash in parse_config on empty files Second report"}
    docs = _docs(out, instance.corpus)
    assert "web/app.js" in docs and "web/app.min.js" not in docs and "web/app.test.js" not in docs


def test_git_history_set(small_repo, tmp_path):
    out = tmp_path / "set"
    result = run_verb("prepare", "--format", "git-history", "--repo", small_repo.path, "--language", "python",
                      "--output", out, "--quiet")
    assert result.returncode == 0, result.stderr
    instances = read_instances(out)
    # newest first; the empty commit, the tests-only commit and the two initial commits make no instance
    assert [(i.base_commit, i.answers) for i in instances] == [(small_repo.fix, ("src/util.py",)),
                                                               (small_repo.base, ("src/app.py",))]
    assert instances[0].instance_id == f"local__demo-{small_repo.util_fix[:12]}"
    topics = read_topics(out / "topics.tsv")
    assert topics[instances[1].instance_id] == "Fix parse_config crash on an empty file parse_config raised on empty input."
    report = json.loads((out / "report.json").read_text())
    assert report["dropped_instance_counts"] == {"no-answer-after-rules": 1, "no-modified-file": 2, "root-commit": 1}
    limited = tmp_path / "one"
    result = run_verb("prepare", "--format", "git-history", "--repo", small_repo.path, "--language", "python",
                      "--output", limited, "--max-instances", "1", "--name", "me/demo", "--quiet")
    assert result.returncode == 0, result.stderr
    assert [i.instance_id for i in read_instances(limited)] == [f"me__demo-{small_repo.util_fix[:12]}"]
    since = tmp_path / "since"
    result = run_verb("prepare", "--format", "git-history", "--repo", small_repo.path, "--language", "python",
                      "--output", since, "--since", "2021-06-01", "--quiet")
    assert [i.answers for i in read_instances(since)] == [("src/util.py",)]


def test_bad_input_is_one_error_before_work(small_repo, mirrors, tmp_path):
    records = _swebench(small_repo, tmp_path)

    def fails(*args, match):
        result = run_verb("prepare", *args)
        assert result.returncode == 2 and result.stderr.startswith("error: ") and match in result.stderr, result.stderr
        assert result.stderr.count("\n") == 1
        assert not (tmp_path / "out").exists()

    base = ["--output", tmp_path / "out", "--language", "python"]
    fails("--format", "swebench", "--input", records, "--repos", tmp_path / "nowhere", *base, match="is not a folder")
    (tmp_path / "empty").mkdir()
    fails("--format", "swebench", "--input", records, "--repos", tmp_path / "empty", *base, match="is not under --repos")
    fails("--format", "swebench", "--input", records, "--repos", mirrors, "--output", tmp_path / "out",
          match="needs --language")
    fails("--format", "nonsense", "--input", records, *base, match="invalid choice")
    fails("--format", "git-history", "--repo", tmp_path / "nowhere", *base, match="does not exist")
    fails("--format", "swebench", "--input", records, "--repos", mirrors, *base, "--language", "cobol",
          match="invalid choice")
    fails("--format", "multi-swe-bench", "--input", records, "--repos", mirrors, *base, match="no 'org' field")
    missing = {"instance_id": "demo__demo-9", "repo": "demo/demo", "base_commit": "f" * 40,
               "problem_statement": "x", "patch": ""}
    bad = _swebench(small_repo, tmp_path, [missing])
    fails("--format", "swebench", "--input", bad, "--repos", mirrors, *base, match=f"base commit {'f' * 40}")
    out = tmp_path / "out"
    result = run_verb("prepare", "--format", "swebench", "--input", bad, "--repos", mirrors, *base, "--skip-missing",
                      "--quiet")
    assert result.returncode == 0, result.stderr
    report = json.loads((out / "report.json").read_text())
    assert report["dropped_instance_counts"] == {"commit-missing": 1, "no-answer-after-rules": 1}
    shutil.rmtree(out)


def test_git_history_of_a_repository_lacking_blobs_keeps_its_answers(small_repo, tmp_path):
    # a partial clone or an incomplete mirror: the blob of a renamed file's old side is missing, which
    # git log's rename detection must compare; the answers (files modified in place) need no rename detection
    partial = tmp_path / "partial.git"
    subprocess.run(["git", "clone", "-q", "--bare", "--no-hardlinks", str(small_repo.path), str(partial)], check=True)
    blob = git(small_repo.path, "rev-parse", f"{small_repo.base}:src/old_name.py").strip()
    loose = partial / "objects" / blob[:2] / blob[2:]
    assert loose.is_file()
    loose.unlink()
    assert subprocess.run(["git", "-C", str(partial), "log", "-M", "--raw", "HEAD"], capture_output=True).returncode != 0
    sets = {}
    for name, repo in (("complete", small_repo.path), ("partial", partial)):
        sets[name] = tmp_path / name
        result = run_verb("prepare", "--format", "git-history", "--repo", repo, "--name", "local/demo",
                          "--language", "python", "--output", sets[name], "--quiet")
        assert result.returncode == 0, result.stderr
    complete, partial_set = (read_instances(sets[n]) for n in ("complete", "partial"))
    assert [(i.instance_id, i.answers) for i in partial_set] == [(i.instance_id, i.answers) for i in complete]
    reports = {n: json.loads((sets[n] / "report.json").read_text()) for n in sets}
    assert reports["complete"]["sources"]["renames_detected"] is True
    assert reports["partial"]["sources"]["renames_detected"] is False


def test_git_history_names_a_linked_mirror_by_the_link(small_repo, tmp_path):
    # a cache of links org__repo -> a mirror's own folder (…/org+repo/repo): the set is named by the link as typed
    mirror = tmp_path / "mirrors" / "acme+demo" / "repo"
    mirror.parent.mkdir(parents=True)
    subprocess.run(["git", "clone", "-q", "--bare", str(small_repo.path), str(mirror)], check=True)
    (tmp_path / "repos").mkdir()
    (tmp_path / "repos" / "acme__demo").symlink_to(mirror)
    out = tmp_path / "set"
    result = run_verb("prepare", "--format", "git-history", "--repo", tmp_path / "repos" / "acme__demo",
                      "--language", "python", "--output", out, "--quiet")
    assert result.returncode == 0, result.stderr
    instances = read_instances(out)
    assert instances and {i.repo for i in instances} == {"acme/demo"}
    assert all(i.instance_id.startswith("acme__demo-") for i in instances)
    plain = tmp_path / "set-plain"
    result = run_verb("prepare", "--format", "git-history", "--repo", mirror, "--language", "python",
                      "--output", plain, "--quiet")
    assert result.returncode == 0, result.stderr
    assert {i.repo for i in read_instances(plain)} == {"local/repo"}


def test_record_format_is_read_off_each_file(small_repo, tmp_path):
    from qlog_pyserini.errors import QLogError
    from qlog_pyserini.instances.sources import read_records, record_format

    swe = _swebench(small_repo, tmp_path)  # a JSON array
    multi = tmp_path / "multi.jsonl"
    multi.write_text(json.dumps({"org": "demo", "repo": "demo", "number": 7, "base": {"sha": small_repo.base},
                                 "resolved_issues": [], "fix_patch": ""}) + "\n")
    assert record_format([swe]) == "swebench" and record_format([multi]) == "multi-swe-bench"
    # what it names is what the reader of that format reads without complaint
    assert [r.instance_id for r in read_records(record_format([swe]), [swe])] == [f"demo__demo-{i}" for i in (1, 2, 3)]
    other = tmp_path / "other.jsonl"
    other.write_text(json.dumps({"id": 1, "text": "not an issue"}) + "\n")
    for paths, needle in (([swe, multi], "mix formats"), ([other], "neither SWE-bench's")):
        with pytest.raises(QLogError, match=needle):
            record_format(paths)


@pytest.mark.parametrize("language, source, test, generated", [
    ("php", "src/Routing/Router.php", "tests/Routing/RouterTest.php", "src/Proto/Message.php"),
    ("ruby", "lib/acme/loader.rb", "spec/acme/loader_spec.rb", "lib/acme/parser.rb"),
    ("kotlin", "core/src/main/kotlin/acme/Cache.kt", "core/src/test/kotlin/acme/CacheTest.kt", "core/gen/Api.kt"),
    ("csharp", "src/Acme/MemoryStore.cs", "src/Acme.Tests/MemoryStoreTests.cs", "src/Acme/Resources.cs"),
    ("swift", "Sources/Acme/Parser.swift", "Tests/AcmeTests/ParserTests.swift", "Sources/Acme/Model.swift"),
    ("scala", "src/main/scala/acme/Codec.scala", "src/test/scala/acme/CodecSpec.scala", "src/main/scala/Gen.scala"),
])
def test_a_history_in_each_further_language_keeps_its_sources(tmp_path, language, source, test, generated):
    repo = tmp_path / "repo"
    repo.mkdir()
    git(repo, "init", "-q")
    header = "// <auto-generated/>\n" if language == "csharp" else "# DO NOT EDIT: generated by gen.rb\n" \
        if language == "ruby" else "// Generated by the protocol buffer compiler.  DO NOT EDIT!\n"
    commit(repo, "base", {source: "one\n", test: "one\n", generated: header + "one\n"}, "2024-01-01T00:00:00Z")
    commit(repo, "Fix the parser on empty input", {source: "two\n", test: "two\n", generated: header + "two\n"},
           "2024-01-02T00:00:00Z")
    out = tmp_path / "set"
    result = run_verb("prepare", "--format", "git-history", "--repo", repo, "--language", language,
                      "--output", out, "--quiet")
    assert result.returncode == 0, result.stderr
    [instance] = read_instances(out)
    assert instance.answers == (source,)
    row = json.loads((out / "instances.jsonl").read_text().splitlines()[0])
    assert row["dropped_answers"] == {test: "test", generated: "generated-marker"}


def test_history_set_records_each_base_commits_recent_activity(small_repo, tmp_path):
    out = tmp_path / "set"
    result = run_verb("prepare", "--format", "git-history", "--repo", small_repo.path, "--language", "python",
                      "--max-file-bytes", "1000", "--output", out, "--quiet")
    assert result.returncode == 0, result.stderr
    activity = {i.base_commit: i.activity for i in read_instances(out)}
    # by hand from the fixture's history: the base commit's first-parent commits, each file of the corpus counted
    # once per commit that touches it (the test, the README and the vendored file are not corpus files)
    assert activity == {small_repo.base: {"src/app.py": 1, "src/gone.py": 1, "src/old_name.py": 1, "src/util.py": 1},
                        small_repo.fix: {"src/added.py": 1, "src/app.py": 2, "src/new_name.py": 1, "src/util.py": 1}}


def test_activity_follows_first_parents_and_counts_a_merge_once(tmp_path):
    repo = tmp_path / "merges"
    repo.mkdir()
    git(repo, "init", "-q", "-b", "main")
    commit(repo, "start", {"a.py": "a = 1\n", "b.py": "b = 1\n"}, "2020-01-01T00:00:00Z")
    git(repo, "checkout", "-q", "-b", "feature")
    commit(repo, "feature step 1", {"a.py": "a = 2\n"}, "2020-01-02T00:00:00Z")
    commit(repo, "feature step 2", {"a.py": "a = 3\n", "c.py": "c = 1\n"}, "2020-01-03T00:00:00Z")
    git(repo, "checkout", "-q", "main")
    commit(repo, "main moves on", {"b.py": "b = 2\n"}, "2020-01-04T00:00:00Z")
    git(repo, "merge", "-q", "--no-ff", "-m", "merge feature", "feature")
    with GitRepository(repo) as g:
        # merge (a.py, c.py against its first parent), main moves on (b.py), start (a.py, b.py); the feature's two
        # steps are not on the first-parent line
        assert g.activity("HEAD", 200) == {"a.py": 2, "b.py": 2, "c.py": 1}
        assert g.activity("HEAD", 2) == {"a.py": 1, "b.py": 1, "c.py": 1}
        assert g.activity("feature", 200) == {"a.py": 3, "b.py": 1, "c.py": 1}


def test_an_instance_activity_that_is_not_counts_is_one_error(small_repo, tmp_path):
    out = tmp_path / "set"
    assert run_verb("prepare", "--format", "git-history", "--repo", small_repo.path, "--language", "python",
                    "--output", out, "--quiet").returncode == 0
    lines = (out / "instances.jsonl").read_text().splitlines()
    record = json.loads(lines[0])
    record["activity"] = {"src/app.py": -1}
    (out / "instances.jsonl").write_text("\n".join([json.dumps(record), *lines[1:]]) + "\n")
    with pytest.raises(QLogError, match="activity is not an object of paths and commit counts"):
        read_instances(out)
