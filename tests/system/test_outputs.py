"""Stage-then-publish (:func:`staged_output`) and the one JSON writer: an output appears whole or not at all."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from qlog_pyserini.errors import QLogError
from qlog_pyserini.system.outputs import MARKER, is_owned, staged_output, write_json


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
