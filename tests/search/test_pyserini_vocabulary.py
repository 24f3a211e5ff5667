"""Pyserini's search flags in python -m qlog_pyserini.search: parsing, refusals, and the runs they make."""

from __future__ import annotations

import subprocess

import pytest
from conftest import run_verb

from qlog_pyserini.errors import QLogError
from qlog_pyserini.formats.trec import Hit, read_run
from qlog_pyserini.lucene.batch import drop_hits
from qlog_pyserini.lucene.fields import parse_fields
from qlog_pyserini.search.feedback import Rm3, Rocchio


def cli(*args: object) -> subprocess.CompletedProcess:
    # in this process: the flags are parsed and refused by the same code; test_search_cli runs the real entry point
    return run_verb("search", *args)


def error_line(proc: subprocess.CompletedProcess) -> str:
    lines = [l for l in proc.stderr.splitlines() if l.strip()]
    assert proc.returncode == 2 and "Traceback" not in proc.stderr and lines[-1].startswith("error: "), proc.stderr
    return lines[-1]


def test_parse_fields():
    assert parse_fields(["contents=1", "title=0.5"]) == {"contents": 1.0, "title": 0.5}
    for bad, message in (("title", "FIELD=WEIGHT"), ("title=x", "must be a number"), ("title=-1", ">= 0"),
                         ("=1", "FIELD=WEIGHT"), ("title=nan", "finite")):
        with pytest.raises(QLogError, match=message):
            parse_fields([bad])
    with pytest.raises(QLogError, match="twice"):
        parse_fields(["a=1", "a=2"])


def test_drop_hits_as_pyserini():
    results = {"q1": [Hit("q1", 3.0), Hit("a", 2.0), Hit("a", 1.5), Hit("b", 1.0)]}
    assert drop_hits(results, remove_duplicates=True) == {"q1": [Hit("q1", 3.0), Hit("a", 2.0), Hit("b", 1.0)]}
    assert drop_hits(results, remove_query=True) == {"q1": [Hit("a", 2.0), Hit("a", 1.5), Hit("b", 1.0)]}


def test_feedback_defaults_are_pyserinis():
    assert Rm3() == Rm3(fb_terms=10, fb_docs=10, original_query_weight=0.5)
    assert Rocchio() == Rocchio(10, 10, 10, 10, 1.0, 0.75, 0.0, False)


@pytest.mark.parametrize("flag", [["--dense"], ["--impact", "--encoder", "x"], ["--prcl", "lr"], ["--rm3-py"],
                                  ["--max-passage"], ["--tokenizer", "bert-base-uncased"], ["--dismax"]])
def test_pyserini_flags_we_do_not_implement_are_named_not_unrecognized(tmp_path, flag):
    line = error_line(cli("--index", tmp_path, "--topics", tmp_path / "t.tsv", "--output", tmp_path / "r", *flag))
    assert f"error: {flag[0]} (" in line and "is not supported by python -m qlog_pyserini.search" in line
    assert "unrecognized" not in line


def test_contradictory_flags_are_refused_before_any_work(tmp_path):
    # the output beside the index folder, not in it: an output may never be written into an input folder
    (tmp_path / "idx").mkdir()
    base = ["--index", tmp_path / "idx", "--topics", tmp_path / "t.tsv", "--output", tmp_path / "r"]
    assert "--rm3 and --rocchio cannot be combined" in error_line(cli(*base, "--rm3", "--rocchio"))
    assert "--qld and --bm25" in error_line(cli(*base, "--qld", "--bm25"))
    assert "--bm25 contradicts --similarity dph" in error_line(cli(*base, "--bm25", "--similarity", "dph"))
    assert "--batch-size must be at least 1" in error_line(cli(*base, "--batch-size", "0"))
    assert "--fb-docs must be at least 1" in error_line(cli(*base, "--rm3", "--fb-docs", "0"))
    assert "invalid choice: 'kilt'" in error_line(cli(*base, "--output-format", "kilt"))


@pytest.mark.jvm
def test_pyserini_style_command_runs_and_msmarco_output_matches_trec(tmp_path, stdlib_index, stdlib_code):
    topics = stdlib_code[1]
    marco, trec = tmp_path / "run.msmarco.tsv", tmp_path / "run.trec.txt"
    proc = cli("--index", stdlib_index, "--topics", topics, "--output", marco, "--bm25", "--k1", "0.9", "--b", "0.4",
               "--hits", "1000", "--batch-size", "64", "--threads", "2", "--output-format", "msmarco", "--q", "0.7")
    assert proc.returncode == 0, proc.stderr
    proc = cli("--index", stdlib_index, "--topics", topics, "--output", trec, "--q", "0.7", "--hits", "1000",
               "--batch-size", "7")
    assert proc.returncode == 0, proc.stderr
    rows = [line.split("\t") for line in marco.read_text().splitlines()]
    assert all(len(r) == 3 for r in rows)
    expected = [[qid, h.docid, str(rank)] for qid, hits in read_run(trec).items() for rank, h in enumerate(hits, 1)]
    assert rows == expected and len(rows) > 1000


@pytest.mark.jvm
def test_missing_field_is_named_with_the_fields_the_index_has(tmp_path, stdlib_index, stdlib_code):
    line = error_line(cli("--index", stdlib_index, "--topics", stdlib_code[1], "--output", tmp_path / "r",
                          "--fields", "contents=1", "titel=0.5"))
    assert "the index has no field 'titel' (it has contents, id)" in line
    assert not (tmp_path / "r").exists()


@pytest.mark.jvm
def test_remove_query_and_rm3_change_the_run(tmp_path, stdlib_index, stdlib_code):
    topics = stdlib_code[1]
    plain, rm3 = tmp_path / "plain.txt", tmp_path / "rm3.txt"
    assert cli("--index", stdlib_index, "--topics", topics, "--output", plain, "--hits", "50", "--q", "0.5").returncode == 0
    proc = cli("--index", stdlib_index, "--topics", topics, "--output", rm3, "--hits", "50", "--q", "0.5", "--rm3",
               "--fb-docs", "5", "--fb-terms", "20", "--original-query-weight", "0.6")
    assert proc.returncode == 0, proc.stderr
    assert "Rm3(fb_terms=20, fb_docs=5, original_query_weight=0.6)" in proc.stderr
    assert read_run(rm3) != read_run(plain)
