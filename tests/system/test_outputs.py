"""Stage-then-publish (:func:`staged_output`), output kinds as their callers declare them, and the one JSON
writer: an output appears whole or not at all, and only what a kind owns is replaced."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from qlog_pyserini.errors import QLogError
from qlog_pyserini.system.outputs import (
    MARKER,
    OutputKind,
    check_output_dir,
    is_owned,
    staged_output,
    work_dir,
    write_json,
)


def _hidden(folder: Path) -> list[str]:
    return sorted(p.name for p in folder.iterdir() if p.name.startswith("."))


def test_a_completed_block_is_published_and_its_staging_folder_gone(tmp_path):
    out = tmp_path / "out"
    with staged_output(out, "sweep") as stage:
        assert stage.parent == tmp_path and stage.name.startswith(".out.building-")
        (stage / "a.txt").write_text("1")
        assert not out.exists()  # nothing at out until the block completes
    assert sorted(p.name for p in out.iterdir()) == [MARKER, "a.txt"]
    assert is_owned(out, "sweep") and _hidden(tmp_path) == []


@pytest.mark.parametrize("error", [RuntimeError("disk on fire"), KeyboardInterrupt()])
def test_a_failing_block_publishes_nothing_and_leaves_no_staging_folder(tmp_path, error):
    out = tmp_path / "out"
    with pytest.raises(type(error)), staged_output(out, "corpus", "subsample") as stage:
        (stage / "half.jsonl").write_text("{}\n")
        raise error
    assert sorted(p.name for p in tmp_path.iterdir()) == []


def test_a_failing_block_leaves_the_previous_output_as_it_was(tmp_path):
    out = tmp_path / "out"
    with staged_output(out, "sweep") as stage:
        (stage / "old.txt").write_text("old")
    with pytest.raises(ValueError), staged_output(out, "sweep", overwrite=True) as stage:
        (stage / "new.txt").write_text("new")
        raise ValueError("stop")
    assert (out / "old.txt").read_text() == "old" and not (out / "new.txt").exists()
    assert _hidden(tmp_path) == []


def test_a_refused_publication_still_removes_the_staging_folder(tmp_path):
    out = tmp_path / "out"
    with pytest.raises(QLogError, match="appeared or changed while building"):
        with staged_output(out, "sweep") as stage:
            (stage / "a.txt").write_text("1")
            out.mkdir()
            (out / "mine.txt").write_text("the user's")  # appeared meanwhile, not ours to replace
    assert sorted(p.name for p in out.iterdir()) == ["mine.txt"] and _hidden(tmp_path) == []


def test_built_publishes_a_subfolder_of_the_stage(tmp_path):
    out = tmp_path / "index"
    with staged_output(out, "index", built="index") as stage:
        (stage / "json").mkdir()
        (stage / "json" / "docs.jsonl").write_text("{}\n")
        (stage / "index").mkdir()
        (stage / "index" / "segments_1").write_bytes(b"")
    assert sorted(p.name for p in out.iterdir()) == [MARKER, "segments_1"] and _hidden(tmp_path) == []


def test_write_json_is_utf8_newline_terminated_and_replaces_whole(tmp_path):
    path = tmp_path / "summary.json"
    write_json(path, {"name": "café", "n": [1, 2]})
    text = path.read_text(encoding="utf-8")
    assert text.endswith("}\n") and "café" in text and json.loads(text) == {"name": "café", "n": [1, 2]}
    with pytest.raises(TypeError):
        write_json(path, {"bad": object()})  # not serializable: the old file stays, no temporary is left
    assert json.loads(path.read_text(encoding="utf-8"))["name"] == "café"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["summary.json"]


def test_a_kind_is_what_its_caller_declares(tmp_path):
    work = OutputKind("notebook", work=True)
    folder = work_dir(tmp_path / "w", work)
    (folder / "later.txt").write_text("a later run's")
    assert is_owned(folder, work) and not is_owned(folder, "notebook")  # the plain kind counts its manifest only
    assert work_dir(folder, work) == folder and (folder / "later.txt").exists()  # reused, nothing deleted
    (tmp_path / "mine").mkdir()
    (tmp_path / "mine" / "notes.txt").write_text("the user's")
    with pytest.raises(QLogError, match="not a notebook folder this tool wrote"):
        work_dir(tmp_path / "mine", work)
    with pytest.raises(ValueError, match="not a work folder kind"):
        work_dir(tmp_path / "x", OutputKind("sweep"))
    with pytest.raises(ValueError, match="lower-case word"):
        OutputKind("Sweep")


def test_a_kind_may_adopt_unmarked_folders_and_let_entries_regrow(tmp_path):
    cache = OutputKind("cache", adopts=lambda p: {e.name for e in p.iterdir()} <= {"blobs"},
                       adopted="a cache", regrows=lambda entry: entry.endswith(".lock"))
    bare = tmp_path / "bare"
    (bare / "blobs").mkdir(parents=True)
    assert is_owned(bare, cache) and not is_owned(bare, "cache")
    (bare / "x.txt").write_text("")
    with pytest.raises(QLogError, match="holds files a cache does not"):
        check_output_dir(bare, cache, overwrite=True)
    with staged_output(tmp_path / "out", cache) as stage:
        (stage / "blobs").mkdir()
    (tmp_path / "out" / "write.lock").write_text("")
    assert is_owned(tmp_path / "out", cache) and not is_owned(tmp_path / "out", "cache")
