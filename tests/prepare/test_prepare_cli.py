"""The ``python -m qlog_pyserini.prepare`` command: argument checks, output rules, exit codes."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest
from conftest import ROOT  # noqa: E402

from qlog_pyserini.cli.parser import run_cli
from qlog_pyserini.formats.topics import read_topics
from qlog_pyserini.formats.trec import read_qrels
from qlog_pyserini.prepare.__main__ import main


@pytest.fixture
def trec_args(tmp_path):
    corpus = tmp_path / "corpus.jsonl"
    corpus.write_text('{"id": "a/b.go:12", "contents": "func open()"}\n{"id": "<dbpedia:Foo>", "contents": "foo"}\n')
    topics = tmp_path / "topics.tsv"
    topics.write_text("q1\topen file\nq2\tfoo\n")
    qrels = tmp_path / "qrels.txt"
    qrels.write_text("q1 0 a/b.go:12 1\n")
    return ["--format", "trec", "--corpus", str(corpus), "--topics", str(topics), "--qrels", str(qrels)]


def cli(argv):
    """Run the command as ``python -m`` would, returning its exit code."""
    with pytest.raises(SystemExit) as exit_:
        run_cli(main, argv)
    return exit_.value.code


def test_trec_end_to_end(trec_args, tmp_path, capsys):
    out = tmp_path / "out"
    assert cli([*trec_args, "--out", str(out)]) == 0
    assert capsys.readouterr().out.strip() == f"{out}: 2 documents, 2 queries (1 judged), 1 qrels [trec]"
    assert read_topics(out / "topics.tsv") == {"q1": "open file", "q2": "foo"}
    assert read_qrels(out / "qrels.txt") == {"q1": {"a/b.go:12": 1}}
    assert json.loads((out / "manifest.json").read_text())["counts"]["documents"] == 2


def test_non_empty_out_needs_overwrite(trec_args, tmp_path, capsys):
    out = tmp_path / "out"
    assert cli([*trec_args, "--out", str(out)]) == 0
    assert cli([*trec_args, "--out", str(out)]) == 2
    assert "error: output folder" in capsys.readouterr().err
    assert cli([*trec_args, "--out", str(out), "--overwrite"]) == 0


def test_bad_input_is_one_error_line(tmp_path, trec_args, capsys):
    (tmp_path / "topics.tsv").write_text("q1\topen file\nq1\tagain\n")
    assert cli([*trec_args, "--out", str(tmp_path / "out")]) == 2
    err = capsys.readouterr().err
    assert err.startswith("error: ") and "topics.tsv:2: duplicate qid 'q1' (first at line 1)" in err
    assert err.count("\n") == 1
    assert not (tmp_path / "out").exists()


@pytest.mark.parametrize("argv, message", [
    (["--format", "trec", "--corpus", "c", "--topics", "t"], "--format trec needs --qrels"),
    (["--format", "beir"], "--format beir needs --input"),
    (["--format", "cosqa", "--input", "a", "b"], "--format cosqa takes one --input folder, got 2"),
    (["--format", "csn", "--input", "a.jsonl", "--qrels", "q"], "--qrels only apply to --format trec"),
    (["--format", "beir", "--input", "x", "--queries", "q"], "--queries only applies to --format csn"),
    (["--format", "csn", "--input", "a", "--query-field", "title"], "invalid choice: 'title'"),
])
def test_argument_errors(tmp_path, capsys, argv, message):
    assert cli([*argv, "--out", str(tmp_path / "out")]) == 2
    assert message in capsys.readouterr().err


def test_beir_folder(tmp_path, capsys):
    beir = tmp_path / "beir"
    (beir / "qrels").mkdir(parents=True)
    (beir / "corpus.jsonl").write_text('{"_id": "d1", "title": "T", "text": "x"}\n')
    (beir / "queries.jsonl").write_text('{"_id": "q1", "text": "t"}\n')
    (beir / "qrels" / "dev.tsv").write_text("query-id\tcorpus-id\tscore\nq1\td1\t1\n")
    assert cli(["--format", "beir", "--input", str(beir), "--split", "dev", "--out", str(tmp_path / "out")]) == 0
    assert "1 documents, 1 queries (1 judged), 1 qrels [beir]" in capsys.readouterr().out


def test_runs_as_a_module(tmp_path):
    proc = subprocess.run([sys.executable, "-m", "qlog_pyserini.prepare", "--format", "cosqa",
                           "--input", str(tmp_path / "nope"), "--out", str(tmp_path / "out")],
                          capture_output=True, text=True, cwd=ROOT)
    assert proc.returncode == 2
    assert proc.stderr.startswith("error: CoSQA input ") and "not found" in proc.stderr
    help_ = subprocess.run([sys.executable, "-m", "qlog_pyserini.prepare", "--help"], capture_output=True, text=True,
                           cwd=ROOT)
    assert help_.returncode == 0 and "inputs by format:" in help_.stdout


def test_real_csn_ruby(shared_data, tmp_path, capsys):
    csn = shared_data / "csn-ruby"
    out = tmp_path / "csn"
    assert cli(["--format", "csn", "--input", str(csn / "test.jsonl"), str(csn / "valid.jsonl"),
                "--out", str(out)]) == 0
    assert capsys.readouterr().out.strip() == f"{out}: 2,661 documents, 1,261 queries (1,261 judged), 1,261 qrels [csn]"


def test_real_cosqa_and_cacm(shared_data, tmp_path, capsys):
    assert cli(["--format", "cosqa", "--input", str(shared_data / "cosqa"), "--out", str(tmp_path / "cosqa")]) == 0
    cacm = shared_data / "cacm"
    assert cli(["--format", "trec", "--corpus", str(cacm / "cacm.json"), "--topics", str(cacm / "topics.cacm.txt"),
                "--qrels", str(cacm / "qrels.cacm.txt"), "--out", str(tmp_path / "cacm")]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines == [f"{tmp_path / 'cosqa'}: 6,267 documents, 500 queries (500 judged), 500 qrels [cosqa]; "
                     "0 queries dropped for having no judgments",
                     f"{tmp_path / 'cacm'}: 3,204 documents, 64 queries (52 judged), 796 qrels [trec]"]


def test_cosqa_records_file_reports_dropped_queries(tmp_path, capsys):
    records = tmp_path / "cosqa-dev.json"
    records.write_text(json.dumps([
        {"idx": "d-1", "doc": "sort a list", "code": "def s(x): return sorted(x)", "label": 1},
        {"idx": "d-2", "doc": "open a file", "code": "def o(p): return open(p)", "label": 0},
        {"idx": "d-3", "doc": "sorted copy", "code": "def s(x): return sorted(x)", "label": 1},
    ]))
    assert cli(["--format", "cosqa", "--input", str(records), "--out", str(tmp_path / "out")]) == 0
    assert capsys.readouterr().out.strip() == (f"{tmp_path / 'out'}: 2 documents, 2 queries (2 judged), 2 qrels "
                                               "[cosqa]; 1 query dropped for having no judgments")


def test_a_file_where_a_folder_is_expected(tmp_path):
    f = tmp_path / "corpus.jsonl"
    f.write_text("{}\n")
    proc = subprocess.run([sys.executable, "-m", "qlog_pyserini.prepare", "--format", "beir", "--input", str(f),
                           "--out", str(tmp_path / "out")], capture_output=True, text=True, cwd=ROOT)
    lines = [line for line in proc.stderr.splitlines() if line.strip()]
    assert proc.returncode == 2 and lines == [f"error: --format beir takes the BEIR folder (corpus.jsonl, "
                                              f"queries.jsonl, qrels/), but --input {str(f)!r} is a file"]
    assert not (tmp_path / "out").exists()


@pytest.mark.parametrize("quiet", [[], ["--quiet"]])
def test_a_warning_is_one_warning_line_as_in_every_verb(trec_args, tmp_path, quiet):
    # the shared progress channel: "warning: ...", printed with --quiet too, no logging prefix of prepare's own
    (tmp_path / "qrels.txt").write_text("q1 0 a/b.go:12 1\nq1 0 gone.go 1\n")
    proc = subprocess.run([sys.executable, "-m", "qlog_pyserini.prepare", *trec_args, "--out", str(tmp_path / "out"),
                           *quiet], capture_output=True, text=True, cwd=ROOT)
    assert proc.returncode == 0, proc.stderr
    assert proc.stderr.splitlines() == [
        "warning: 1 qrels lines (1 distinct docids) name documents that are not in the corpus"]
