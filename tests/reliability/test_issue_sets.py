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
