"""Provenance names files relative to the project root, never a machine's folders."""

from __future__ import annotations

from conftest import ROOT

from qlog_pyserini.system.provenance import command_line
from qlog_pyserini.system.project import relative_to_project


def test_command_line_writes_project_paths_relative_to_the_root(tmp_path, monkeypatch):
    monkeypatch.chdir(ROOT / "tests")
    line = command_line("qlog_pyserini.sweep", [
        "--index", str(ROOT / "work" / "go" / "index"),  # absolute, inside the project, need not exist
        "--topics", "../results/main.md",  # relative to where the command ran
        "--qrels", str(tmp_path / "qrels.txt"),  # outside the project: kept as given
        "--grid", "0.3,0.5", "--name", "go-code"])
    assert line == (f"python -m qlog_pyserini.sweep --index work/go/index --topics results/main.md "
                    f"--qrels {tmp_path / 'qrels.txt'} --grid 0.3,0.5 --name go-code")
    assert relative_to_project(ROOT) == "." and relative_to_project("/") == "/"
