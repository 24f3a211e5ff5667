"""The compare CLI end to end (real trec_eval), and its Python entry point."""

from __future__ import annotations

import subprocess
import sys

import pandas as pd
import pytest
from conftest import ROOT  # noqa: E402
from markdown_tables import has_cells

from qlog_pyserini.compare.comparison import compare_runs

pytestmark = pytest.mark.jvm  # every comparison runs trec_eval from Pyserini's jar

# Four queries, one relevant document each. A finds it at rank 2 everywhere (RR 0.5);
# B finds it at rank 1 for q1-q3 (RR 1) and does not answer q4 at all (RR 0, as with -c).
QRELS = "".join(f"q{i} 0 rel{i} 1\n" for i in range(1, 5))
RUN_A = "".join(f"q{i} Q0 junk{i} 1 2.0 A\nq{i} Q0 rel{i} 2 1.0 A\n" for i in range(1, 5))
RUN_B = "".join(f"q{i} Q0 rel{i} 1 2.0 B\nq{i} Q0 junk{i} 2 1.0 B\n" for i in range(1, 4))
# Better on every query: rel at rank 1 everywhere.
RUN_C = "".join(f"q{i} Q0 rel{i} 1 2.0 C\n" for i in range(1, 5))


@pytest.fixture
def files(tmp_path):
    paths = {}
    for name, text in [("qrels", QRELS), ("a", RUN_A), ("b", RUN_B), ("c", RUN_C)]:
        paths[name] = tmp_path / f"{name}.txt"
        paths[name].write_text(text)
    return paths


def cli(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "qlog_pyserini.compare", *args],
                          cwd=ROOT, capture_output=True, text=True, timeout=300)


def test_compare_runs_python_api(files):
    r = compare_runs(files["qrels"], files["a"], files["b"], metric="recip_rank", resamples=1000, seed=1)
    assert r.n_queries == 4
    assert r.mean_a == pytest.approx(0.5)
    assert r.mean_b == pytest.approx(0.75)  # (1 + 1 + 1 + 0) / 4: the unanswered q4 counts as 0
    assert r.diff == pytest.approx(0.25)
    assert r.rel_diff == pytest.approx(0.5)
    assert (r.wins, r.ties, r.losses) == (3, 0, 1)


def test_cli_end_to_end(files, tmp_path):
    md, csv = tmp_path / "cmp.md", tmp_path / "cmp.csv"
    proc = cli("--qrels", str(files["qrels"]), "--runs", str(files["a"]), str(files["b"]),
               "--metric", "recip_rank", "--resamples", "1000", "--seed", "3",
               "--markdown", str(md), "--csv", str(csv))
    assert proc.returncode == 0, proc.stderr
    out = proc.stdout
    assert has_cells(out, "recip_rank", "0.5000", "0.7500", "+0.2500", "+50.0%")
    assert has_cells(out, "3/0/1", "4")
    assert f"`{files['a']}`" in out and f"`{files['b']}`" in out
    assert md.read_text() == out
    row = pd.read_csv(csv).iloc[0]
    assert row["metric"] == "recip_rank"
    assert row["mean_b"] == pytest.approx(0.75)
    assert (row["wins"], row["ties"], row["losses"], row["n_queries"], row["resamples"]) == (3, 0, 1, 4, 1000)


def test_cli_better_everywhere_prints_bound(files):
    proc = cli("--qrels", str(files["qrels"]), "--runs", str(files["a"]), str(files["c"]),
               "--metric", "recip_rank", "--resamples", "1000")
    assert proc.returncode == 0, proc.stderr
    assert has_cells(proc.stdout, "0 (0/1000)")  # no bootstrap reversal; the reversal share is not the p
    assert has_cells(proc.stdout, "4/0/0", "4")


def test_cli_missing_run_fails_cleanly(files, tmp_path):
    md, csv = tmp_path / "cmp.md", tmp_path / "cmp.csv"
    proc = cli("--qrels", str(files["qrels"]), "--runs", str(files["a"]), str(tmp_path / "missing.txt"),
               "--markdown", str(md), "--csv", str(csv))
    assert proc.returncode != 0
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error:") and "missing.txt" in lines[0]
    assert proc.stdout == ""
    assert not md.exists() and not csv.exists()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["a.txt", "b.txt", "c.txt", "qrels.txt"]


def test_cli_bad_second_output_writes_nothing(files, tmp_path):
    md = tmp_path / "cmp.md"
    proc = cli("--qrels", str(files["qrels"]), "--runs", str(files["a"]), str(files["b"]),
               "--resamples", "100", "--markdown", str(md), "--csv", str(tmp_path / "no" / "cmp.csv"))
    assert proc.returncode != 0
    assert len(proc.stderr.strip().splitlines()) == 1
    assert not md.exists()


def test_cli_malformed_run_is_one_line(files, tmp_path):
    bad = tmp_path / "bad.txt"
    bad.write_text("q1 Q0 rel1\n")
    proc = cli("--qrels", str(files["qrels"]), "--runs", str(files["a"]), str(bad), "--resamples", "100")
    assert proc.returncode != 0
    lines = proc.stderr.strip().splitlines()
    # read by the strict run reader before trec_eval: the file and line are named
    assert len(lines) == 1 and "bad.txt:1: a run line needs 6 columns" in lines[0]


def test_cli_warns_when_the_runs_answer_different_queries(files):
    # B answers 3 of the 4 judged queries, A all 4: the comparison still runs (q4 scores 0 for B, as
    # trec_eval -c does), but the user is told, since a large "gain" may only be coverage.
    proc = cli("--qrels", str(files["qrels"]), "--runs", str(files["a"]), str(files["b"]), "--resamples", "100")
    assert proc.returncode == 0, proc.stderr
    warnings = [line for line in proc.stderr.splitlines() if line.startswith("warning:")]
    assert len(warnings) == 1 and "A 4, B 3 of the 4 judged" in warnings[0]
    same = cli("--qrels", str(files["qrels"]), "--runs", str(files["a"]), str(files["c"]), "--resamples", "100")
    assert same.returncode == 0 and "warning:" not in same.stderr
