"""Instance sets given what moves or decays under them: a corpus changed after its index was built, an index
missing a file, an empty corpus or one listing a document twice, a base commit that is a moving ref, file names
that are not UTF-8, repositories named in two cases, a repository folder inside another work tree, a partial
clone, and dates git would guess at.

What the tool cannot trust is refused in one ``error:`` line before any work, or handled as documented and
counted in report.json; never searched, never a traceback.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from conftest import run_verb, write_instance_set
from instances.gitrepos import BASE_FILES, commit, git
from reliability.reliability_helpers import assert_one_error


@pytest.fixture(scope="module")
def indexed_set(tmp_path_factory) -> tuple[Path, Path]:
    """(SET, DIR): a small instance set and its indexes, built by ``index --instances``."""
    folder = tmp_path_factory.mktemp("indexed")
    root = write_instance_set(folder)
    proc = run_verb("index", "--instances", root, "--index", folder / "indexes", "--quiet")
    assert proc.returncode == 0, proc.stderr
    return root, folder / "indexes"


def _copy_indexed(indexed_set: tuple[Path, Path], to: Path) -> tuple[Path, Path]:
    root, indexes = indexed_set
    shutil.copytree(root, to / "set")
    shutil.copytree(indexes, to / "indexes", symlinks=True)
    record = json.loads((to / "indexes" / "instances.json").read_text())
    record["instances"] = str((to / "set").resolve())
    (to / "indexes" / "instances.json").write_text(json.dumps(record))
    return to / "set", to / "indexes"


def _searches(root: Path, indexes: Path, out: Path) -> dict:
    return {"search": run_verb("search", "--instances", root, "--index", indexes, "--output", out / "run.txt"),
            "sweep": run_verb("sweep", "--instances", root, "--index", indexes, "--out", out / "sweep",
                              "--q-grid", "1.0")}


@pytest.mark.jvm
def test_a_stale_or_damaged_index_is_refused_by_search_and_rebuilt_by_index(indexed_set, tmp_path):
    root, indexes = _copy_indexed(indexed_set, tmp_path)
    corpus = sorted((root / "corpora").glob("*.jsonl"))[0]
    original = corpus.read_bytes()
    corpus.write_bytes(original.replace(b"def ", b"def renamed_", 1))
    for proc in _searches(root, indexes, tmp_path).values():
        assert_one_error(proc, f"corpora/{corpus.stem}.jsonl changed since the index was built")
    assert not (tmp_path / "run.txt").exists() and not (tmp_path / "sweep").exists()
    corpus.write_bytes(original)
    # a segment file deleted: search refuses the index, and index --instances builds it again, not "reused"
    segment = sorted(p for p in (indexes / corpus.stem).iterdir() if p.suffix in (".si", ".cfs", ".doc"))[0]
    segment.unlink()
    for proc in _searches(root, indexes, tmp_path).values():
        assert_one_error(proc, f"its files changed since it was built (first: {segment.name!r})")
    again = run_verb("index", "--instances", root, "--index", indexes, "--quiet")
    assert again.returncode == 0, again.stderr
    keys = len(list((root / "corpora").glob("*.jsonl")))
    assert ": 1 indexes built" in again.stdout and f"and {keys - 1} reused" in again.stdout, again.stdout
    assert all(proc.returncode == 0 for proc in _searches(root, indexes, tmp_path).values())


@pytest.fixture(scope="module")
def written_set(tmp_path_factory) -> Path:
    return write_instance_set(tmp_path_factory.mktemp("set"))


@pytest.mark.jvm
@pytest.mark.parametrize("edit, needle", [
    (lambda lines: [], "holds no documents"),
    (lambda lines: lines + lines[:1], "duplicate docid"),
])
def test_an_empty_corpus_or_a_docid_twice_is_refused_by_index_instances_naming_the_file(written_set, tmp_path,
                                                                                       edit, needle):
    root = tmp_path / "set"
    shutil.copytree(written_set, root)
    corpus = sorted((root / "corpora").glob("*.jsonl"))[-1]
    corpus.write_text("".join(edit(corpus.read_text().splitlines(keepends=True))))
    proc = run_verb("index", "--instances", root, "--index", tmp_path / "indexes", "--quiet")
    assert str(corpus) in assert_one_error(proc, needle)
    assert not (tmp_path / "indexes").exists()


# --- prepare: base commits, names and repositories -------------------------------------------------------------

@pytest.fixture(scope="module")
def demo(tmp_path_factory) -> tuple[Path, str, str]:
    """(REPOS, base, fix): ``REPOS/demo__demo``, a repository whose fix of src/app.py is its last commit (HEAD),
    with the tag ``v1`` (annotated) on its base."""
    repos = tmp_path_factory.mktemp("repos")
    repo = repos / "demo__demo"
    repo.mkdir()
    git(repo, "init", "-q", "-b", "main")
    base = commit(repo, "initial import", BASE_FILES, "2020-01-01T00:00:00Z")
    git(repo, "tag", "-a", "v1", "-m", "first release")
    fix = commit(repo, "Fix parse_config on an empty file", {
        "src/app.py": "def parse_config(path):\n    text = open(path).read()\n    return text or None\n"},
        "2021-01-01T00:00:00Z")
    return repos, base, fix


def _records(demo, tmp_path: Path, *bases: str, **fields) -> Path:
    repos, base, fix = demo
    patch = git(repos / "demo__demo", "diff", base, fix)
    rows = [{"instance_id": f"demo__demo-{i}", "repo": "demo/demo", "base_commit": b,
             "problem_statement": "parse_config crashes on an empty file", "patch": patch, **fields}
            for i, b in enumerate(bases, 1)]
    path = tmp_path / "records.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    return path


def _prepare(demo, records: Path, out: Path, *extra) -> object:
    return run_verb("prepare", "--format", "swebench", "--input", records, "--repos", demo[0], "--language",
                    "python", "--output", out, "--quiet", *extra)


@pytest.mark.parametrize("moving", ["HEAD", "main", "HEAD~1", "main^"])
def test_a_base_commit_that_moves_is_refused(demo, tmp_path, moving):
    records = _records(demo, tmp_path, demo[1], moving)
    proc = _prepare(demo, records, tmp_path / "set")
    assert_one_error(proc, f"{records}:2: base commit {moving!r} of demo__demo-2 is a branch or a revision that moves")
    assert not (tmp_path / "set").exists()


def test_a_tag_or_an_abbreviated_base_commit_is_recorded_as_its_full_commit_id(demo, tmp_path):
    base = demo[1]
    proc = _prepare(demo, _records(demo, tmp_path, "v1", base[:8], base.upper()), tmp_path / "set")
    assert proc.returncode == 0, proc.stderr
    rows = [json.loads(line) for line in (tmp_path / "set" / "instances.jsonl").read_text().splitlines()]
    assert [r["base_commit"] for r in rows] == [base] * 3
    assert {r["corpus"] for r in rows} == {rows[0]["corpus"]}


LATIN1_NAME = "src/caf\udce9.py"  # the byte 0xE9 alone: a Latin-1 name, not UTF-8


@pytest.fixture(scope="module")
def latin1(tmp_path_factory) -> tuple[Path, str, str]:
    """(REPOS, base, fix): ``REPOS/demo__demo``, whose tree holds a file named in Latin-1; the fix modifies it
    and src/app.py."""
    repos = tmp_path_factory.mktemp("latin1")
    repo = repos / "demo__demo"
    repo.mkdir()
    git(repo, "init", "-q", "-b", "main")
    base = commit(repo, "initial import", {**BASE_FILES, LATIN1_NAME: "def cafe():\n    pass\n"},
                  "2020-01-01T00:00:00Z")
    fix = commit(repo, "Fix parse_config and cafe on an empty file", {
        "src/app.py": "def parse_config(path):\n    return open(path).read() or None\n",
        LATIN1_NAME: "def cafe():\n    return 1\n"}, "2021-01-01T00:00:00Z")
    return repos, base, fix


@pytest.mark.parametrize("fmt", ["git-history", "swebench"])
def test_a_file_name_that_is_not_utf8_is_dropped_and_counted(latin1, tmp_path, fmt):
    repos, base, fix = latin1
    out = tmp_path / "set"
    if fmt == "git-history":
        proc = run_verb("prepare", "--format", fmt, "--repo", repos / "demo__demo", "--language", "python",
                        "--output", out, "--quiet")
    else:
        proc = _prepare(latin1, _records(latin1, tmp_path, base), out)
    assert proc.returncode == 0 and "Traceback" not in proc.stderr, proc.stderr
    report = json.loads((out / "report.json").read_text())
    assert report["dropped_files"]["name-not-utf-8"] == 1
    assert report["dropped_answers"] == {"name-not-utf-8": 1}
    (row,) = [json.loads(line) for line in (out / "instances.jsonl").read_text().splitlines()]
    assert row["answers"] == ["src/app.py"] and row["dropped_answers"] == {"src/caf\\xe9.py": "name-not-utf-8"}
    docids = [json.loads(line)["id"] for line in (out / "corpora" / f"{row['corpus']}.jsonl").open()]
    assert "src/app.py" in docids and not [d for d in docids if "caf" in d]


def test_a_lone_surrogate_in_an_issue_text_is_replaced_and_counted(demo, tmp_path):
    records = _records(demo, tmp_path, demo[1], problem_statement="parse_config \ud83d crashes on an empty file")
    proc = _prepare(demo, records, tmp_path / "set")
    assert proc.returncode == 0 and "Traceback" not in proc.stderr, proc.stderr
    assert (tmp_path / "set" / "topics.tsv").read_text() == \
        "demo__demo-1\tparse_config \ufffd crashes on an empty file\n"
    report = json.loads((tmp_path / "set" / "report.json").read_text())
    assert report["repaired_queries"] == {"query-lone-surrogate": 1}


@pytest.mark.parametrize("grid, needle", [("", "empty grid"), ("0.5,,0.7", "value number 2 is empty"),
                                          ("auto,,0.7", "grid 'auto,,0.7': value number 2 is empty")])
def test_sweep_instances_refuses_an_empty_grid_item_as_the_plain_sweep_does(written_set, tmp_path, grid, needle):
    proc = run_verb("sweep", "--instances", written_set, "--index", tmp_path / "indexes", "--q-grid", grid,
                    "--out", tmp_path / "sw")
    assert_one_error(proc, needle)
    assert not (tmp_path / "sw").exists()


def _history(demo, out: Path, *extra) -> object:
    return run_verb("prepare", "--format", "git-history", "--repo", demo[0] / "demo__demo", "--language", "python",
                    "--output", out, "--quiet", *extra)


@pytest.mark.parametrize("since", ["notadate", "2023-13-45", "2020-02-30", "yesterday-ish", "2 fortnights ago"])
def test_a_since_that_is_not_a_date_is_refused_not_guessed(demo, tmp_path, since):
    assert_one_error(_history(demo, tmp_path / "set", "--since", since), f"--since {since!r} is not a date")
    assert not (tmp_path / "set").exists()


@pytest.mark.parametrize("since, kept", [("2020-06-01", 1), ("2021-01-01T00:00:01", 0),
                                         ("2021-01-01T01:00:00+02:00", 1), ("100 years ago", 1), ("3 months ago", 0), ("1969-01-01", 1), ("5000 years ago", 1)])
def test_a_since_date_is_read_in_utc_unless_it_names_its_offset(demo, tmp_path, since, kept):
    # the fix's commit time is 2021-01-01T00:00:00Z
    proc = _history(demo, tmp_path / "set", "--since", since)
    if kept:
        assert proc.returncode == 0, proc.stderr
        assert len((tmp_path / "set" / "instances.jsonl").read_text().splitlines()) == kept
    else:
        assert_one_error(proc, "has no non-merge commits since 20")


def test_a_repository_named_in_two_cases_is_one_repository(demo, tmp_path):
    repos, base, fix = demo
    records = _records(demo, tmp_path, base, base)
    rows = [json.loads(line) for line in records.read_text().splitlines()]
    rows[1]["repo"] = "DEMO/Demo"  # GitHub's names are case-insensitive: the same repository
    records.write_text("".join(json.dumps(r) + "\n" for r in rows))
    assert _prepare(demo, records, tmp_path / "set").returncode == 0
    kept = [json.loads(line)["repo"] for line in (tmp_path / "set" / "instances.jsonl").read_text().splitlines()]
    assert kept == ["demo/demo", "demo/demo"]
    report = json.loads((tmp_path / "set" / "report.json").read_text())
    assert list(report["sources"]["repositories"]) == ["demo/demo"]


def test_cross_validation_by_repository_keeps_one_repository_named_in_two_cases_in_one_fold():
    from qlog_pyserini.formats.instances import Instance, InstanceSet
    from qlog_pyserini.sweep.baselines import TuningGrids
    from qlog_pyserini.sweep.instances import InstanceSweepSettings, instance_folds

    repos = ["jqlang/jq", "JQLANG/jq", "JqLang/JQ", "a/b", "c/d", "e/f"] * 2
    instances = tuple(Instance(f"i{n}", repo, "c", "0" * 40, "k", ("x.c",)) for n, repo in enumerate(repos))
    folds, unit = instance_folds(InstanceSet(Path("set"), instances, {}, {}),
                                 InstanceSweepSettings(grids=TuningGrids(q_grid=(1.0,), k1_grid=(0.9,), b_grid=(0.4,)), folds=4))
    assert unit == "repository"
    assert len({folds[i.instance_id] for i in instances if i.repo.lower() == "jqlang/jq"}) == 1
    assert len(set(folds.values())) == 4


def test_an_empty_repository_folder_inside_another_work_tree_is_not_that_repository(demo, tmp_path):
    outer = tmp_path / "project"
    outer.mkdir()
    git(outer, "init", "-q", "-b", "main")
    commit(outer, "the project around the mirrors", {"README.md": "mirrors below\n"}, "2020-01-01T00:00:00Z")
    (outer / "repos" / "demo__demo").mkdir(parents=True)  # a clone that never happened
    records = _records(demo, tmp_path, demo[1])
    proc = run_verb("prepare", "--format", "swebench", "--input", records, "--repos", outer / "repos",
                    "--language", "python", "--output", tmp_path / "set")
    assert_one_error(proc, f"'{outer / 'repos' / 'demo__demo'}' is not a git repository: it is a folder inside "
                           f"the work tree of '{outer}'")
    proc = run_verb("prepare", "--format", "git-history", "--repo", outer / "repos" / "demo__demo", "--language",
                    "python", "--output", tmp_path / "set")
    assert_one_error(proc, "is a folder inside the work tree")
    assert not (tmp_path / "set").exists()


def test_a_partial_clone_drops_the_blobs_it_lacks_as_blob_missing(tmp_path):
    import subprocess

    source = tmp_path / "source"
    source.mkdir()
    git(source, "init", "-q", "-b", "main")
    base = commit(source, "initial import", {"src/app.py": "def parse_config(path):\n    return open(path).read()\n",
                                            "src/util.py": "def helper(value):\n    return value\n"},
                  "2020-01-01T00:00:00Z")
    commit(source, "Fix parse_config on an empty file",
           {"src/app.py": "def parse_config(path):\n    return open(path).read() or None\n"}, "2021-01-01T00:00:00Z")
    git(source, "config", "uploadpack.allowFilter", "true")
    git(source, "config", "uploadpack.allowAnySHA1InWant", "true")
    clone = tmp_path / "demo__demo.git"
    subprocess.run(["git", "clone", "-q", "--bare", "--filter=blob:none", f"file://{source}", str(clone)], check=True)
    # the clone fetches the base's src/app.py (reading it fetches it from its promisor); src/util.py stays missing
    git(clone, "cat-file", "-p", f"{base}:src/app.py")
    proc = run_verb("prepare", "--format", "git-history", "--repo", clone, "--language", "python", "--output",
                    tmp_path / "set", "--quiet")
    assert proc.returncode == 0, proc.stderr
    report = json.loads((tmp_path / "set" / "report.json").read_text())
    assert report["dropped_files"] == {"blob-missing": 1}
    (row,) = [json.loads(line) for line in (tmp_path / "set" / "instances.jsonl").read_text().splitlines()]
    assert row["answers"] == ["src/app.py"]


@pytest.mark.jvm
def test_an_index_recorded_without_its_files_is_reused_and_its_files_recorded(indexed_set, tmp_path):
    root, indexes = _copy_indexed(indexed_set, tmp_path)
    record = json.loads((indexes / "instances.json").read_text())
    for entry in record["corpora"].values():
        del entry["files"]  # as index --instances recorded them before it listed files
    (indexes / "instances.json").write_text(json.dumps(record))
    assert all(proc.returncode == 0 for proc in _searches(root, indexes, tmp_path).values())
    again = run_verb("index", "--instances", root, "--index", indexes, "--quiet")
    assert ": 0 indexes built" in again.stdout, again.stdout + again.stderr
    corpora = json.loads((indexes / "instances.json").read_text())["corpora"]
    assert all(entry["files"] for entry in corpora.values())


def test_a_lone_surrogate_in_an_instance_id_is_one_error_naming_the_record(demo, tmp_path):
    records = _records(demo, tmp_path, demo[1])
    records.write_text(records.read_text().replace("demo__demo-1", "demo__demo-\\ud83d"))
    proc = _prepare(demo, records, tmp_path / "set")
    assert_one_error(proc, f"({records}:1) holds a lone surrogate")
    assert not (tmp_path / "set").exists()
