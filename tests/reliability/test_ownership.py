"""An output is never an input, ``--overwrite`` replaces only what this tool wrote, and awkward output
places (a link, a mount point, a full disk) are refused or reported as one line, before or without damage.

Every verb runs as ``python -m`` runs it (its ``main`` under ``run_cli``, in this process), on real inputs
(the tiny index, a small corpus), so a verb that skipped a check would really destroy the file the test then
finds changed.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from conftest import run_verb
from reliability.reliability_helpers import assert_one_error, small_tmpfs, tree

from qlog_pyserini.system.outputs import MARKER

pytestmark = pytest.mark.jvm  # the verbs that pass their checks open the tiny index


@pytest.fixture
def work(tmp_path: Path, tiny_corpus: Path) -> Path:
    """Topics, qrels and a run of the tiny corpus, and a small source folder for ``corpus``."""
    docs = [json.loads(line)["id"] for line in tiny_corpus.read_text().splitlines()]
    (tmp_path / "topics.tsv").write_text("q1\tz0001 z0002\nq2\tz0010\n")
    (tmp_path / "qrels.txt").write_text(f"q1 0 {docs[0]} 1\nq2 0 {docs[6]} 1\n")
    (tmp_path / "run.txt").write_text(f"q1 Q0 {docs[0]} 1 2.0 t\nq2 Q0 {docs[6]} 1 1.0 t\n")
    (tmp_path / "other.txt").write_text(f"q1 Q0 {docs[1]} 1 2.0 u\nq2 Q0 {docs[6]} 1 1.0 u\n")
    (tmp_path / "src").mkdir()
    (tmp_path / "src" / "a.py").write_text('def double(x):\n    """Double the value of x."""\n    return 2 * x\n\n\n'
                                           'def half(x):\n    """Half the value of x."""\n    return x / 2\n')
    return tmp_path


# ---------------------------------------------------------------------------------------------
# An output file may never be an input


def _output_is_input_cases(work: Path, index: Path) -> list[tuple[str, list, Path]]:
    t, q, r, o = work / "topics.tsv", work / "qrels.txt", work / "run.txt", work / "other.txt"
    return [
        ("search", ["--index", index, "--topics", t, "--output", t], t),
        ("eval", ["--qrels", q, "--run", r, "--output", r], r),
        ("eval", ["--qrels", q, "--run", r, "--output", q], q),
        ("compare", ["--qrels", q, "--runs", r, o, "--resamples", "10", "--markdown", r], r),
        ("compare", ["--qrels", q, "--runs", r, o, "--resamples", "10", "--csv", q], q),
        ("solr", ["search", "--solr", "http://127.0.0.1:9/solr", "--collection", "c", "--topics", t, "--output", t], t),
    ]


@pytest.mark.parametrize("case", range(6))
def test_an_output_that_is_an_input_is_refused(case, work, tiny_index):
    name, argv, victim = _output_is_input_cases(work, tiny_index)[case]
    before = tree(work)
    assert_one_error(run_verb(name, *argv), "input")
    assert tree(work) == before, f"{victim.name} was changed"


def test_a_hard_link_to_an_input_is_refused(work, tiny_index):
    os.link(work / "topics.tsv", work / "alias.tsv")
    before = tree(work)
    assert_one_error(run_verb("search", "--index", tiny_index, "--topics", work / "topics.tsv",
                          "--output", work / "alias.tsv"), "input")
    assert tree(work) == before


def test_a_symlink_to_an_input_is_refused(work):
    (work / "link.txt").symlink_to(work / "run.txt")
    before = tree(work)
    assert_one_error(run_verb("eval", "--qrels", work / "qrels.txt", "--run", work / "run.txt",
                          "--output", work / "link.txt"), "input")
    assert tree(work) == before


def test_two_outputs_of_one_command_may_not_be_one_file(work):
    before = tree(work)
    assert_one_error(run_verb("compare", "--qrels", work / "qrels.txt", "--runs", work / "run.txt", work / "other.txt",
                          "--resamples", "10", "--markdown", work / "x.md", "--csv", work / "x.md"), "input")
    assert tree(work) == before


def test_an_output_inside_the_index_is_refused(work, tiny_index):
    before = tree(tiny_index)
    assert_one_error(run_verb("search", "--index", tiny_index, "--topics", work / "topics.tsv",
                          "--output", tiny_index / "run.txt"), "inside the input folder")
    assert tree(tiny_index) == before


# ---------------------------------------------------------------------------------------------
# --overwrite replaces only a folder whose every entry we wrote


def _first_run(name: str, work: Path, index: Path, out: Path) -> list:
    return {
        "index": ["--corpus", work / "corpus.jsonl", "--index", out, "--quiet", "--threads", "1"],
        "sweep": ["--index", index, "--topics", work / "topics.tsv", "--qrels", work / "qrels.txt", "--q-grid", "0.5",
                  "--no-auto", "--hits", "5", "--resamples", "10", "--quiet", "--out", out],
        "prepare": ["--format", "trec", "--corpus", work / "corpus.jsonl", "--topics", work / "topics.tsv",
                    "--qrels", work / "qrels.txt", "--out", out, "--quiet"],
        "corpus": ["--source", work / "src", "--out", out, "--quiet"],
    }[name]


@pytest.mark.parametrize("name", ["index", "sweep", "prepare", "corpus"])
@pytest.mark.parametrize("foreign", ["notes.txt", "inner"])
def test_overwrite_refuses_a_folder_holding_one_foreign_file(name, foreign, work, tiny_corpus, tiny_index):
    (work / "corpus.jsonl").write_bytes(tiny_corpus.read_bytes())
    out = work / "out"
    first = run_verb(name, *_first_run(name, work, tiny_index, out))
    assert first.returncode == 0, first.stderr[-2000:]
    assert json.loads((out / MARKER).read_text())["kind"] == name
    # One file the user added: beside our entries, or inside one of our folders.
    inner = next((p for p in sorted(out.iterdir()) if p.is_dir()), None)
    if foreign == "inner" and inner is None:
        pytest.skip(f"a {name} output has no folder of its own")
    mine = (inner if foreign == "inner" else out) / "notes.txt"
    mine.write_text("my notes")
    before = tree(work)
    proc = run_verb(name, *_first_run(name, work, tiny_index, out), "--overwrite")
    line = assert_one_error(proc, "did not write")
    assert mine.relative_to(out).as_posix() in line
    assert tree(work) == before
    # Without the foreign file, the same command replaces our own output.
    mine.unlink()
    again = run_verb(name, *_first_run(name, work, tiny_index, out), "--overwrite")
    assert again.returncode == 0, again.stderr[-2000:]


def test_reproduce_refuses_a_results_folder_holding_files_it_did_not_write(work):
    results = work / "results"
    results.mkdir()
    (results / "main.md").write_text("my own table")
    before = tree(work)
    proc = run_verb("reproduce", "--quick", "--work", work / "w", "--out", results, "--shared", work / "none",
                "--cache", work / "cache")
    assert_one_error(proc, "main.md")
    assert tree(work) == before


# ---------------------------------------------------------------------------------------------
# Links, mount points and full disks


def test_index_into_a_symlink_to_an_empty_folder_publishes_into_its_target(work, tiny_corpus):
    target = work / "real"
    target.mkdir()
    (work / "link").symlink_to(target)
    proc = run_verb("index", "--corpus", tiny_corpus, "--index", work / "link", "--quiet", "--threads", "1")
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert (work / "link").is_symlink() and any(p.name.startswith("segments_") for p in target.iterdir())
    assert [p.name for p in work.iterdir() if p.name.startswith(".")] == []


@pytest.fixture
def tmpfs(tmp_path: Path):
    """A 1 MB tmpfs mounted at a fresh folder (skips where mounting is not permitted)."""
    with small_tmpfs(tmp_path, "1m") as mount:
        yield mount


def test_index_refuses_a_mount_point_before_building(work, tiny_corpus, tmpfs):
    (tmpfs / "segments_1").write_bytes(b"")
    proc = run_verb("index", "--corpus", tiny_corpus, "--index", tmpfs, "--overwrite", "--quiet", "--threads", "1")
    assert_one_error(proc, "mount point")
    assert sorted(p.name for p in tmpfs.iterdir()) == ["segments_1"]
    assert [p.name for p in work.iterdir() if p.name.startswith(".")] == []


def _big_corpus(path: Path) -> Path:
    # Random words, so that neither the corpus nor its index (stored fields are compressed) fits in 1 MB.
    import random

    rng = random.Random(5)
    vocab = [f"w{i}" for i in range(20_000)]
    with open(path, "w") as f:
        for i in range(8000):
            f.write(json.dumps({"id": f"d{i}", "contents": " ".join(rng.choices(vocab, k=50))}) + "\n")
    return path


@pytest.mark.parametrize("name", ["index", "search", "prepare"])
def test_a_full_disk_is_one_error_line_naming_the_path(name, work, tiny_index, tmpfs):
    big = _big_corpus(work / "big.jsonl")
    topics = work / "many.tsv"
    topics.write_text("".join(f"q{i}\tz0040 z0025 z0010\n" for i in range(20000)))
    out = tmpfs / "out"
    argv = {"index": ["--corpus", big, "--index", out, "--quiet", "--threads", "1"],
            "search": ["--index", tiny_index, "--topics", topics, "--hits", "60", "--output", out],
            "prepare": ["--format", "trec", "--corpus", big, "--topics", work / "topics.tsv",
                        "--qrels", work / "qrels.txt", "--out", out, "--quiet"]}[name]
    line = assert_one_error(run_verb(name, *argv), "no space left")
    assert str(tmpfs) in line, line
    assert list(tmpfs.iterdir()) == [], "something half-written was left on the full disk"


def test_files_we_add_to_our_output_later_stay_ours(tmp_path):
    from qlog_pyserini.system.outputs import check_output_dir, is_owned, publish_dir, record_entries, staging_dir

    out = tmp_path / "sw"
    stage = staging_dir(out, "sweep")
    (stage / "summary.json").write_text("{}")
    publish_dir(stage, out, "sweep")
    (out / ".qlog-reproduce.json").write_text("{}")  # a cache stamp written after publishing
    assert not is_owned(out, "sweep")
    record_entries(out, ".qlog-reproduce.json")
    assert is_owned(out, "sweep")
    check_output_dir(out, "sweep", overwrite=True)
    (out / "mine.txt").write_text("x")
    assert not is_owned(out, "sweep")
