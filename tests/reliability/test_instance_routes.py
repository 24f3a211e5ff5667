"""The instance-set routes (``prepare --format git-history|swebench|multi-swe-bench``, ``index --instances``,
``search --instances``, ``sweep --instances``) given what users give them: an empty set, a folder the tool did not
write, a set whose corpus has no index, a malformed line, a full disk, and a kill while the indexes are built.

Bad input is one ``error:`` line and exit code 2 before any index is opened, with nothing written and nothing the
tool did not write touched; a killed or failed ``index --instances`` keeps each index it finished, complete and
recorded, and leaves no half-built one (nor, after SIGKILL, past the next run).
"""

from __future__ import annotations

import json
import random
import shutil
import signal
import subprocess
import time
from pathlib import Path

import pytest
from conftest import run_verb, write_instance_set
from instances.gitrepos import BASE_FILES, commit, git
from oracles import wait_gone
from reliability.reliability_helpers import assert_one_error, small_tmpfs, tree
from reliability.test_kill import _java_children, _start, _wait_for

from qlog_pyserini.system.outputs import lock_holders

pytestmark = pytest.mark.jvm


@pytest.fixture(scope="module")
def written_set(tmp_path_factory) -> Path:
    """An instance set as prepare writes it (no index): for the refusals that come before any index is read."""
    return write_instance_set(tmp_path_factory.mktemp("set"))


def _copy(instance_set: Path, to: Path, edit=None) -> Path:
    shutil.copytree(instance_set, to)
    if edit is not None:
        lines = (to / "instances.jsonl").read_text().splitlines(keepends=True)
        (to / "instances.jsonl").write_text("".join(edit(lines)))
    return to


def _argv(name: str, instance_set: Path, indexes: Path | None, out: Path) -> list:
    indexes = indexes or out.parent / "indexes"  # refused before any index is read: none need exist
    return {"index": ["--instances", instance_set, "--index", out],
            "search": ["--instances", instance_set, "--index", indexes, "--output", out],
            "sweep": ["--instances", instance_set, "--index", indexes, "--out", out]}[name]


VERBS = ("index", "search", "sweep")


@pytest.mark.parametrize("name", VERBS)
def test_an_empty_set_is_refused_by_every_route_in_the_same_words(written_set, tmp_path, name):
    empty = _copy(written_set, tmp_path / "empty", lambda lines: [])
    proc = run_verb(name, *_argv(name, empty, None, tmp_path / "out"))
    assert_one_error(proc, f"'{empty / 'instances.jsonl'}' holds no instance")
    assert not (tmp_path / "out").exists()


@pytest.mark.parametrize("name", VERBS)
def test_a_folder_that_is_not_an_instance_set_is_refused_and_left_alone(tmp_path, name):
    mine = tmp_path / "mine"
    mine.mkdir()
    (mine / "notes.txt").write_text("mine")
    before = tree(mine)
    proc = run_verb(name, *_argv(name, mine, None, tmp_path / "out"))
    assert_one_error(proc, "instances.jsonl")
    assert tree(mine) == before and not (tmp_path / "out").exists()


@pytest.mark.parametrize("name", VERBS)
def test_a_malformed_instance_line_is_named_with_its_file_and_line(written_set, tmp_path, name):
    bad = _copy(written_set, tmp_path / "bad", lambda lines: lines[:3] + [lines[3][:20] + "\n"] + lines[4:])
    proc = run_verb(name, *_argv(name, bad, None, tmp_path / "out"))
    assert_one_error(proc, f"{bad / 'instances.jsonl'}:4")
    assert not (tmp_path / "out").exists()


@pytest.mark.parametrize("name", ["search", "sweep"])
def test_a_corpus_without_its_index_is_refused_before_searching(instance_set, tmp_path, name):
    root, indexes = instance_set
    partial = tmp_path / "partial"
    shutil.copytree(indexes, partial)
    missing = sorted(p for p in partial.iterdir() if p.is_dir())[0]
    shutil.rmtree(missing)
    proc = run_verb(name, *_argv(name, root, partial, tmp_path / "out"))
    assert_one_error(proc, f"have no index in '{partial}' (first: '{missing.name}')")
    assert not (tmp_path / "out").exists()


@pytest.mark.parametrize("name, extra, needle", [
    ("search", ["--topics", "TOPICS"], "one of them"),
    ("sweep", ["--qrels", "QRELS"], "--qrels does not apply to --instances"),
])
def test_an_instance_set_with_topics_or_qrels_of_its_own_is_refused(instance_set, tmp_path, name, extra, needle):
    root, indexes = instance_set
    extra = [{"TOPICS": root / "topics.tsv", "QRELS": root / "qrels.txt"}.get(a, a) for a in extra]
    proc = run_verb(name, *_argv(name, root, indexes, tmp_path / "out"), *extra)
    assert_one_error(proc, needle)
    assert not (tmp_path / "out").exists()


# --- prepare: sets from git history and issue records ----------------------------------------------------------

@pytest.fixture(scope="module")
def history(tmp_path_factory) -> Path:
    """A repository with three fixes after its first commit, its sources large enough to fill a 128 kB disk."""
    repo = tmp_path_factory.mktemp("history") / "demo"
    repo.mkdir()
    git(repo, "init", "-q", "-b", "main")
    files = {**BASE_FILES, **{f"src/m{i}.py": f"def f{i}(x):\n    return x + {i}\n" * 200 for i in range(30)}}
    commit(repo, "initial import", files, "2020-01-01T00:00:00Z")
    for j in range(3):
        commit(repo, f"fix f{j} on an empty input", {f"src/m{j}.py": f"def f{j}(x):\n    return x\n"},
               f"2021-01-0{j + 1}T00:00:00Z")
    return repo


def _history(repo: Path, out: Path, *extra) -> subprocess.CompletedProcess:
    return run_verb("prepare", "--format", "git-history", "--repo", repo, "--language", "python", "--output", out,
                    "--quiet", *extra)


@pytest.mark.parametrize("extra, needle", [
    (["--since", "2999-01-01"], "has no non-merge commits since 2999-01-01"),
    (["--max-instances", "0"], "--max-instances must be at least 1"),
    (["--max-file-bytes", "0"], "--max-file-bytes must be at least 1"),
])
def test_git_history_with_nothing_to_take_is_one_error_and_writes_nothing(history, tmp_path, extra, needle):
    assert_one_error(_history(history, tmp_path / "set", *extra), needle)
    assert list(tmp_path.iterdir()) == []


def test_git_history_of_a_folder_that_is_not_a_repository_is_one_error(tmp_path):
    plain = tmp_path / "plain"
    plain.mkdir()
    (plain / "a.py").write_text("x = 1\n")
    assert_one_error(_history(plain, tmp_path / "set"), "is not a git repository")
    assert not (tmp_path / "set").exists()


@pytest.mark.parametrize("fmt", ["swebench", "multi-swe-bench"])
def test_issue_records_that_hold_no_record_are_one_error(history, tmp_path, fmt):
    (tmp_path / "records.jsonl").write_text("")
    proc = run_verb("prepare", "--format", fmt, "--input", tmp_path / "records.jsonl", "--repos", history.parent,
                    "--language", "python", "--output", tmp_path / "set")
    assert_one_error(proc, "no records in")
    assert not (tmp_path / "set").exists()


def test_issue_records_that_all_fall_to_the_rules_write_nothing(history, tmp_path):
    base = git(history, "rev-list", "--max-parents=0", "HEAD").strip()
    fix = git(history, "rev-parse", "HEAD~2").strip()
    rows = [{"instance_id": "demo__demo-1", "repo": "x/demo", "base_commit": base, "problem_statement": "",
             "patch": git(history, "diff", base, fix)},
            {"instance_id": "demo__demo-2", "repo": "x/demo", "base_commit": base, "problem_statement": "p",
             "patch": "not a diff"}]
    (tmp_path / "records.json").write_text(json.dumps(rows))
    repos = tmp_path / "repos"
    repos.mkdir()
    (repos / "x__demo").symlink_to(history)
    proc = run_verb("prepare", "--format", "swebench", "--input", tmp_path / "records.json", "--repos", repos,
                    "--language", "python", "--output", tmp_path / "set")
    assert_one_error(proc, "no instance left after the rules (1 empty-query, 1 no-modified-file); nothing was written")
    assert not (tmp_path / "set").exists()


def test_prepare_overwrite_of_a_set_holding_a_file_it_did_not_write_is_refused(history, tmp_path):
    out = tmp_path / "set"
    assert _history(history, out).returncode == 0
    (out / "my-notes.txt").write_text("mine")
    before = tree(out)
    assert_one_error(_history(history, out, "--overwrite"), "my-notes.txt")
    assert tree(out) == before


@pytest.fixture
def small_disk(tmp_path: Path):
    """A 128 kB tmpfs: smaller than the history's corpora and their indexes."""
    with small_tmpfs(tmp_path, "128k") as mount:
        yield mount


def test_git_history_onto_a_full_disk_is_one_error_line_and_leaves_nothing(history, small_disk):
    line = assert_one_error(_history(history, small_disk / "set"), "no space left on the device")
    assert str(small_disk) in line
    assert list(small_disk.iterdir()) == []


def test_git_history_past_the_largest_file_allowed_is_one_error_line(history, tmp_path):
    import resource
    import sys

    from conftest import ROOT

    def limit() -> None:
        resource.setrlimit(resource.RLIMIT_FSIZE, (20_000, 20_000))  # the sources' corpus is larger

    proc = subprocess.run([sys.executable, "-m", "qlog_pyserini.prepare", "--format", "git-history", "--repo",
                           str(history), "--language", "python", "--output", str(tmp_path / "set"), "--quiet"],
                          capture_output=True, text=True, preexec_fn=limit,
                          env={**__import__("os").environ, "PYTHONPATH": str(ROOT)})
    assert_one_error(proc, "exceed the largest file allowed")
    assert list(tmp_path.iterdir()) == []


def test_index_instances_onto_a_full_disk_keeps_finished_indexes_and_no_half_built_one(history, tmp_path,
                                                                                        small_disk):
    instance_set = tmp_path / "set"
    assert _history(history, instance_set).returncode == 0
    out = small_disk / "indexes"
    proc = run_verb("index", "--instances", instance_set, "--index", out, "--threads", "1", "--quiet")
    assert_one_error(proc, "No space left on device")
    _assert_only_complete_indexes(out)


# --- a killed index --instances ----------------------------------------------------------------------------------

def _assert_only_complete_indexes(out: Path) -> list[str]:
    """Every entry of ``out`` is the record, the marker or a complete index the record names (a corpus's files
    index and its units index); returns the keys."""
    from qlog_pyserini.lucene.searcher import count_documents

    record = json.loads((out / "instances.json").read_text()) if (out / "instances.json").exists() else {}
    corpora = record.get("corpora", {})
    names = sorted(p.name for p in out.iterdir())
    entries = [n for n in names if n not in (".qlog-pyserini.json", "instances.json")]
    assert not [n for n in entries if n.startswith(".")], names
    keys = [n for n in entries if not n.endswith(".units")]
    assert sorted(f"{k}.units" for k in keys) == [n for n in entries if n.endswith(".units")], names
    for key in keys:
        assert key in corpora and count_documents(out / key) == corpora[key]["documents"], key
        assert count_documents(out / f"{key}.units") == corpora[key]["units"], key
    return keys


def _recorded(out: Path) -> dict:
    """The corpora ``out/instances.json`` records as indexed (written atomically after each index is published)."""
    try:
        return json.loads((out / "instances.json").read_text()).get("corpora", {})
    except (OSError, ValueError):
        return {}


@pytest.fixture(scope="module")
def four_corpora(tmp_path_factory) -> Path:
    """An instance set of four corpora: a small one indexed first, three that take a second or two each."""
    root = tmp_path_factory.mktemp("four") / "set"
    (root / "corpora").mkdir(parents=True)
    rng = random.Random(7)
    vocab = [f"w{i}" for i in range(5000)]
    instances, topics, qrels = [], [], []
    for c in range(4):
        key = f"k{c}"
        with open(root / "corpora" / f"{key}.jsonl", "w") as f:
            for i in range(40 if c == 0 else 1500):
                f.write(json.dumps({"id": f"src/f{i}.py", "contents": f"src/f{i}.py\n"
                                    + " ".join(rng.choices(vocab, k=30))}) + "\n")
        iid = f"o__r{c}-1"
        instances.append({"instance_id": iid, "repo": f"o/r{c}", "language": "python", "base_commit": "0" * 40,
                          "corpus": key, "answers": ["src/f1.py"]})
        topics.append(f"{iid}\tw1 w2 w3\n")
        qrels.append(f"{iid} 0 src/f1.py 1\n")
    (root / "instances.jsonl").write_text("".join(json.dumps(i) + "\n" for i in instances))
    (root / "topics.tsv").write_text("".join(topics))
    (root / "qrels.txt").write_text("".join(qrels))
    return root


def test_a_killed_index_instances_keeps_finished_indexes_and_no_half_built_one(four_corpora, tmp_path):
    # SIGKILL: what SIGTERM leaves is held for index --corpus (test_kill.py), with the same staging and cleanup
    out = tmp_path / "indexes"
    proc = _start("index", "--instances", four_corpora, "--index", out, "--threads", "1")
    _wait_for(lambda: bool(_recorded(out)), proc)  # an index is published and recorded: the run goes on
    java = _java_children(proc.pid)
    assert java, "the Java indexer runs while the first index is published"
    proc.send_signal(signal.SIGKILL)
    proc.wait(timeout=120)
    assert wait_gone(java, timeout=20) == [], "the Java indexer outlived its parent"
    # the next run starts once no process holds a write.lock there (a live writer's index is refused, rightly)
    deadline = time.monotonic() + 20
    while lock_holders(out) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert lock_holders(out) == {}
    # SIGKILL cannot be caught: the staging folders stay, the one of an index already published too
    finished = sorted(_recorded(out))
    published = sorted(p.name for p in out.iterdir()
                       if p.is_dir() and not p.name.startswith(".") and not p.name.endswith(".units"))
    assert [p for p in out.iterdir() if p.name.startswith(f".{finished[0]}.")], "a published key's staging"
    # the next run, on a set of the published corpora only, reuses the recorded indexes (one published after the
    # last record is not known complete: it is built again) and removes every leftover
    done = _copy(four_corpora, tmp_path / "done",
                 lambda lines: [line for line in lines if json.loads(line)["corpus"] in published])
    again = run_verb("index", "--instances", done, "--index", out, "--threads", "1")
    assert again.returncode == 0, again.stderr
    assert f": {len(published) - len(finished)} indexes built" in again.stdout
    assert f"and {len(finished)} reused" in again.stdout
    assert _assert_only_complete_indexes(out) == published
    assert 1 <= len(finished) < 4
