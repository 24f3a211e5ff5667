"""Provenance names files relative to the project root, never a machine's folders."""

from __future__ import annotations

from conftest import ROOT

from qlog_pyserini.system.project import relative_to_project
from qlog_pyserini.system.provenance import command_line


def test_command_line_writes_project_paths_relative_to_the_root(tmp_path, monkeypatch):
    monkeypatch.chdir(ROOT / "tests")
    line = command_line("qlog_pyserini.sweep", [
        "--index", str(ROOT / "work" / "go" / "index"),  # absolute, inside the project, need not exist
        "--topics", "../results/main.md",  # relative to where the command ran
        "--grid", "0.3,0.5", "--name", "go-code"])
    assert line == "python -m qlog_pyserini.sweep --index work/go/index --topics results/main.md --grid 0.3,0.5 --name go-code"
    assert relative_to_project(ROOT) == "." and relative_to_project("/") == "/"


def test_command_line_names_no_machine_folder_outside_the_project(tmp_path, monkeypatch):
    import qlog_pyserini.system.provenance as provenance

    project, beside, home, temp = (tmp_path / n for n in ("place/project", "place/shared", "home", "temp"))
    for folder in (project, beside / "data", home, temp):
        folder.mkdir(parents=True)
    monkeypatch.setattr(provenance, "PROJECT_ROOT", project)
    monkeypatch.setattr(provenance.tempfile, "gettempdir", lambda: str(temp))
    monkeypatch.setenv("HOME", str(home))
    line = command_line("scripts/time_issue_sets.py", [
        "--issues", str(beside / "data"), f"--sets={temp / 'run' / 'my sets'}", "--indexes", str(home / "ix"),
        "--results", "/srv/results", "--threads", "2"])
    assert line == ("python scripts/time_issue_sets.py --issues ../shared/data --sets=$TMPDIR/'run/my sets' "
                    "--indexes ~/ix --results /srv/results --threads 2")
    # the line, typed into a shell whose TMPDIR is that folder, names the same folder
    import shlex
    assert shlex.split(line.replace("$TMPDIR", str(temp)))[4] == f"--sets={temp / 'run' / 'my sets'}"
    assert command_line("scripts/reproduce", ["--stages", "issues"]) == "scripts/reproduce --stages issues"


def test_commit_is_dirty_for_changed_sources_not_for_written_results(tmp_path, monkeypatch):
    import subprocess

    import qlog_pyserini.system.provenance as provenance

    def git(*args: str) -> str:
        return subprocess.run(["git", "-C", str(tmp_path), *args], check=True, capture_output=True,
                              text=True).stdout.strip()

    git("init", "-q")
    (tmp_path / "results").mkdir()
    (tmp_path / "code.py").write_text("x = 1\n")
    (tmp_path / "results" / "main.md").write_text("old table\n")
    git("add", ".")
    git("-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", "start")
    monkeypatch.setattr(provenance, "PROJECT_ROOT", tmp_path)
    head = git("rev-parse", "--short", "HEAD")
    assert provenance.git_commit() == head
    (tmp_path / "results" / "main.md").write_text("new table\n")  # what a reproduce run writes
    (tmp_path / "scratch.txt").write_text("untracked\n")
    assert provenance.git_commit() == head
    (tmp_path / "code.py").write_text("x = 2\n")
    assert provenance.git_commit() == head + "+dirty"


def test_a_link_inside_the_project_is_named_as_typed(tmp_path, monkeypatch):
    import qlog_pyserini.system.provenance as provenance

    project, elsewhere = tmp_path / "place" / "project", tmp_path / "place" / "other" / "work"
    (elsewhere / "demo").mkdir(parents=True)
    project.mkdir()
    (project / "work").symlink_to(elsewhere)  # a work folder kept on another disk, linked in
    monkeypatch.setattr(provenance, "PROJECT_ROOT", project)
    monkeypatch.chdir(project)
    assert command_line("qlog_pyserini.demo", ["--work", "work/demo"]) == "python -m qlog_pyserini.demo --work work/demo"
    assert command_line("qlog_pyserini.demo", ["--work", str(project / "work" / "demo")]).endswith("--work work/demo")
    # named by its target, it is beside the project
    assert command_line("qlog_pyserini.demo", ["--work", str(elsewhere / "demo")]).endswith("--work ../other/work/demo")


def test_a_relative_path_outside_the_project_is_kept_as_typed(tmp_path, monkeypatch):
    import qlog_pyserini.system.provenance as provenance

    (tmp_path / "src" / "project").mkdir(parents=True)
    (tmp_path / "run" / "work").mkdir(parents=True)
    monkeypatch.setattr(provenance, "PROJECT_ROOT", tmp_path / "src" / "project")
    monkeypatch.setattr(provenance.tempfile, "gettempdir", lambda: str(tmp_path))
    monkeypatch.chdir(tmp_path / "run")
    # typed relative to where the command ran: it names no machine folder, so it stays as typed
    assert command_line("scripts/reproduce", ["--work", "work"]) == "scripts/reproduce --work work"
    assert command_line("scripts/reproduce", ["--work", str(tmp_path / "run" / "work")]) == \
        "scripts/reproduce --work $TMPDIR/run/work"
