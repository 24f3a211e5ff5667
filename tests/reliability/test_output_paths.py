"""An output file path that is not a plain file: a symbolic link, a FIFO, a device, standard output.

The atomic write (a temporary renamed over the path) is right for a regular file and wrong for everything
else: renamed over a link, it replaces the link and the target never gets the output; renamed over a FIFO, the
reader waits forever; renamed over ``/dev/stdout``, it replaces the system's link. These tests hold the other
rules: a link is written through (and stays a link), a FIFO or a device is written in place, ``-`` is standard
output, and an existing file keeps its permission bits.
"""

from __future__ import annotations

import os
import stat
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import ROOT, TINY_DFS, run_verb
from reliability.reliability_helpers import assert_one_error, verb

from qlog_pyserini.system.outputs import atomic_output, is_stdout, writes_in_place

CSV_HEAD = "qid,"


@pytest.fixture
def judged(tmp_path: Path) -> dict[str, Path]:
    """qrels and a run whose evaluation is a small CSV (eval --output), written by every test below."""
    (tmp_path / "qrels.txt").write_text("q1 0 d1 1\nq2 0 d2 1\n")
    (tmp_path / "run.txt").write_text("q1 Q0 d1 1 2.0 t\nq1 Q0 d2 2 1.0 t\nq2 Q0 d1 1 2.0 t\n")
    return {"qrels": tmp_path / "qrels.txt", "run": tmp_path / "run.txt"}


def _eval(judged: dict[str, Path], output: object, **kwargs) -> subprocess.CompletedProcess:
    return run_verb("eval", "--qrels", judged["qrels"], "--run", judged["run"], "--output", output, **kwargs)


def test_an_output_symlink_is_written_through_and_stays_a_link(judged, tmp_path):
    target, link = tmp_path / "elsewhere" / "eval.csv", tmp_path / "eval.csv"
    target.parent.mkdir()
    target.write_text("old\n")
    link.symlink_to(target)
    assert _eval(judged, link).returncode == 0
    assert link.is_symlink() and os.readlink(link) == str(target)
    assert target.read_text().startswith(CSV_HEAD)
    assert sorted(p.name for p in target.parent.iterdir()) == ["eval.csv"]  # no temporary left beside the target


def test_a_dangling_output_symlink_creates_its_target(judged, tmp_path):
    target, link = tmp_path / "eval-target.csv", tmp_path / "eval.csv"
    link.symlink_to(target.name)  # relative, as `ln -s` users write them
    assert _eval(judged, link).returncode == 0
    assert link.is_symlink() and target.read_text().startswith(CSV_HEAD)


def test_a_symlink_into_a_missing_folder_is_one_error_line(judged, tmp_path):
    link = tmp_path / "eval.csv"
    link.symlink_to(tmp_path / "no-such-folder" / "eval.csv")
    assert_one_error(_eval(judged, link), "does not exist")
    assert link.is_symlink()


def test_a_fifo_output_is_written_in_place_for_its_reader(judged, tmp_path):
    fifo, got = tmp_path / "eval.fifo", tmp_path / "got.csv"
    os.mkfifo(fifo)
    with open(got, "wb") as sink:
        reader = subprocess.Popen(["cat", str(fifo)], stdout=sink)
        try:
            proc = verb("eval", "--qrels", judged["qrels"], "--run", judged["run"], "--output", fifo, timeout=60)
        finally:
            reader.wait(timeout=60)
    assert proc.returncode == 0, proc.stderr
    assert stat.S_ISFIFO(os.lstat(fifo).st_mode)  # still the FIFO, not a file renamed over it
    assert got.read_text().startswith(CSV_HEAD)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["eval.fifo", "got.csv", "qrels.txt", "run.txt"]


def test_a_device_output_is_written_in_place(tmp_path):
    # A node of our own with /dev/null's numbers: a failure here must not cost the machine its /dev/null.
    device = tmp_path / "null"
    try:
        os.mknod(device, stat.S_IFCHR | 0o666, os.makedev(1, 3))
    except PermissionError:
        pytest.skip("this process may not create a device node")
    with atomic_output(device) as f:
        f.write("nothing\n")
    assert stat.S_ISCHR(os.lstat(device).st_mode)
    assert [p.name for p in tmp_path.iterdir()] == ["null"]


def test_a_descriptor_name_is_the_shells_redirection_appended_not_replaced(judged, tmp_path):
    # `verb --output /dev/fd/1 >> log`: the name is the log opened for appending; a rename or a truncation would
    # drop what the log held. /dev/fd/1, not /dev/stdout: were the rule broken, a rename into /proc fails, where
    # one over /dev/stdout would replace the machine's link.
    log = tmp_path / "log.txt"
    log.write_text("before\n")
    with open(log, "a") as out:
        proc = subprocess.run([sys.executable, "-m", "qlog_pyserini.eval", "--qrels", str(judged["qrels"]),
                               "--run", str(judged["run"]), "--output", "/dev/fd/1"],
                              stdout=out, stderr=subprocess.PIPE, text=True, timeout=60,
                              env={**os.environ, "PYTHONPATH": str(ROOT)})
    assert proc.returncode == 0, proc.stderr
    text = log.read_text()
    assert text.startswith("before\n") and CSV_HEAD in text


@pytest.mark.parametrize("name", ["/dev/stdout", "/dev/stderr", "/dev/fd/1", "/proc/self/fd/2", "/dev/null", "-"])
def test_standard_streams_and_devices_are_never_renamed_over(name):
    assert is_stdout(name) or writes_in_place(name)


def test_dash_is_standard_output_for_a_table(judged, tmp_path):
    proc = verb("eval", "--qrels", judged["qrels"], "--run", judged["run"], "--output", "-", cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.startswith(CSV_HEAD)  # the CSV alone: the human report went to stderr
    assert "ndcg_cut.10  " in proc.stderr
    assert not (tmp_path / "-").exists()


@pytest.mark.jvm
def test_dash_is_standard_output_for_a_run(tiny_index, tmp_path):
    topics = tmp_path / "topics.tsv"
    topics.write_text(f"q1\tz{TINY_DFS[1]:04d}\n")
    proc = verb("search", "--index", tiny_index, "--topics", topics, "--output", "-", "--hits", "3", cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    lines = proc.stdout.splitlines()
    assert len(lines) == TINY_DFS[1] and all(len(line.split()) == 6 and line.split()[:2] == ["q1", "Q0"] for line in lines)
    assert not (tmp_path / "-").exists()


def test_two_outputs_on_standard_output_are_refused(tmp_path):
    (tmp_path / "sweep").mkdir()
    proc = run_verb("table", "--sweeps", tmp_path / "sweep", "--output", "-", "--csv", "-")
    assert_one_error(proc, "standard output")


def test_an_existing_private_output_keeps_its_mode(judged, tmp_path):
    out = tmp_path / "eval.csv"
    out.write_text("old\n")
    out.chmod(0o600)
    assert _eval(judged, out).returncode == 0
    assert stat.S_IMODE(out.stat().st_mode) == 0o600 and out.read_text().startswith(CSV_HEAD)
