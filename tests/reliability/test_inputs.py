"""Bad input is one ``error:`` line before any work; wrong results are refused, not written.

Pure Python (no JVM): the readers, the run writer's score rule, argument bounds of every verb, and
the outputs checked before the work that would fill them.
"""

from __future__ import annotations

import json
import math
import subprocess
from pathlib import Path

import numpy as np
import pytest
from conftest import run_verb
from reliability.reliability_helpers import assert_one_error, can_drop_root, tree, verb

from qlog_pyserini.errors import QLogError
from qlog_pyserini.eval.grid import parse_grid
from qlog_pyserini.formats.documents import iter_documents
from qlog_pyserini.formats.topics import read_topics
from qlog_pyserini.formats.trec import Hit, check_id, format_run_lines, read_qrels, read_run
from qlog_pyserini.formula import Q_MAX, Q_MIN, check_q, max_idf
from qlog_pyserini.jvm.toolchain import jvm_options
from qlog_pyserini.table.rows import budget_label, load_summary

# --- runs are read strictly ------------------------------------------------------------

@pytest.mark.parametrize("score", ["abc", "1.2.3", "nan", "-inf", "inf", "NaN"])
def test_run_reader_refuses_scores_that_are_not_finite_numbers(tmp_path, score):
    run = tmp_path / "run.txt"
    run.write_text(f"q1 Q0 d1 1 2.5 t\nq1 Q0 d2 2 {score} t\n")
    with pytest.raises(QLogError, match=rf"run.txt:2: score '{score}' is not a"):
        read_run(run)


def test_run_reader_refuses_a_rank_that_is_not_an_integer(tmp_path):
    run = tmp_path / "run.txt"
    run.write_text("q1 Q0 d1 first 2.5 t\n")
    with pytest.raises(QLogError, match=r"run.txt:1: rank 'first' is not an integer"):
        read_run(run)


@pytest.mark.parametrize("verb_args", [("eval",), ("compare",)])
def test_eval_and_compare_refuse_a_nan_score_with_file_and_line(tmp_path, verb_args):
    qrels, good, bad = tmp_path / "qrels.txt", tmp_path / "good.txt", tmp_path / "bad.txt"
    qrels.write_text("q1 0 d1 1\n")
    good.write_text("q1 Q0 d1 1 2.0 t\n")
    bad.write_text("q1 Q0 d2 1 3.0 t\nq1 Q0 d1 2 nan t\n")
    if verb_args[0] == "eval":
        proc = run_verb("eval", "--qrels", qrels, "--run", bad)
    else:
        proc = run_verb("compare", "--qrels", qrels, "--runs", good, bad, "--resamples", "10")
    assert_one_error(proc, "bad.txt:2: score 'nan' is not a finite number")


# --- written scores strictly decrease -------------------------------------------------

def _scores(lines):
    return [float(line.split()[4]) for line in lines]


def test_run_scores_strictly_decrease_where_float32_ties_them():
    # At small q scores are large, and float32 cannot hold Anserini's 1e-6 tie steps: 5000.0 - 1e-6 == 5000.0.
    tied = float(np.float32(5000.0))
    assert float(np.float32(tied - 1e-6)) == tied
    hits = [Hit(f"d{i}", tied) for i in range(150)] + [Hit("x", float(np.float32(4999.9999)))]
    scores = _scores(format_run_lines("q1", hits, "t"))
    assert all(a > b for a, b in zip(scores, scores[1:]))
    assert scores[0] == tied and scores[1] == pytest.approx(tied - 1e-6)


def test_run_scores_already_decreasing_are_written_as_pyserini_writes_them():
    hits = [Hit("a", 12.3456), Hit("b", float(np.float32(12.3456 - 1e-6))), Hit("c", 3.0)]
    assert [line.split()[4] for line in format_run_lines("q1", hits, "t")] == \
        [f"{h.score:.6f}" for h in hits]


def test_run_writer_refuses_non_finite_scores():
    with pytest.raises(QLogError, match="cannot hold"):
        list(format_run_lines("q1", [Hit("a", math.inf)], "t"))


# --- q and the score range ------------------------------------------------------

@pytest.mark.parametrize("q", [1e308, -1e308, 3.5, -1.5, -4])
def test_q_outside_the_meaningful_range_is_refused(q):
    with pytest.raises(QLogError, match=f"between {Q_MIN!r} and {Q_MAX!r}"):
        check_q(q)


def test_q_at_the_ends_of_the_range_is_accepted():
    assert check_q(Q_MIN) == Q_MIN and check_q(Q_MAX) == Q_MAX


def test_largest_idf_grows_with_index_size_at_low_q():
    assert max_idf(1_000, -1) < 1e6 < max_idf(100_000, -1)
    assert max_idf(10**6, 1.0) == pytest.approx(math.log(1 + (10**6 - 0.5) / 1.5))


def test_search_help_states_the_q_range():
    proc = run_verb("search", "--help")
    assert proc.returncode == 0 and f"{Q_MIN:g}" in proc.stdout and f"{Q_MAX:g}" in proc.stdout


# --- identifiers TREC files cannot hold ----------------------------------------

@pytest.mark.parametrize("bad", ["my doc", "a\tb", "a\nb", "a\x00b", "a\u2028b", "a\x0cb"])
def test_ids_with_whitespace_or_nul_are_refused(bad):
    with pytest.raises(QLogError, match="whitespace or a NUL byte"):
        check_id(bad, "docid")


def test_run_writer_refuses_a_docid_with_a_space_instead_of_writing_seven_columns():
    with pytest.raises(QLogError, match="'my doc'"):
        list(format_run_lines("q1", [Hit("my doc", 1.0)], "t"))


# --- line numbers and line ends -------------------------------------------------------

def test_non_utf8_byte_is_reported_with_its_line(tmp_path):
    for name, good in (("topics.tsv", b"q{i}\tparse\n"), ("run.txt", b"q1 Q0 d{i} {i} 1.0 t\n"),
                       ("qrels.txt", b"q1 0 d{i} 1\n"), ("corpus.jsonl", b'{{"id": "d{i}", "contents": "x"}}\n')):
        path = tmp_path / name
        # 5,000 good lines first, so the bad byte is far beyond the first read buffer.
        path.write_bytes(b"".join(good.replace(b"{i}", str(i).encode()).replace(b"{{", b"{").replace(b"}}", b"}")
                                  for i in range(1, 5001)) + b"q2\tbad \xff byte\n")
        reader = {"topics.tsv": read_topics, "run.txt": read_run, "qrels.txt": read_qrels,
                  "corpus.jsonl": lambda p: list(iter_documents(p))}[name]
        with pytest.raises(QLogError, match=rf"{name}:5001: not UTF-8 \(byte 0xff at column 8\)"):
            reader(path)


def test_tsv_topics_split_only_on_newlines(tmp_path):
    path = tmp_path / "topics.tsv"
    path.write_text("q1\tparse\x0cthe\u2028file\x1cnow\r\nq2\tsecond\n", encoding="utf-8")
    topics = read_topics(path)
    assert list(topics) == ["q1", "q2"] and topics["q1"] == "parse\x0cthe\u2028file\x1cnow"


# --- outputs and arguments checked before any work -------------------------

@pytest.fixture
def inputs(tmp_path) -> dict[str, Path]:
    (tmp_path / "idx").mkdir()
    (tmp_path / "idx" / "segments_1").write_bytes(b"")  # never opened: every refusal comes first
    (tmp_path / "topics.tsv").write_text("q1\tparse file\n")
    (tmp_path / "qrels.txt").write_text("q1 0 d1 1\n")
    (tmp_path / "run.txt").write_text("q1 Q0 d1 1 1.0 t\n")
    return {"idx": tmp_path / "idx", "topics": tmp_path / "topics.tsv", "qrels": tmp_path / "qrels.txt",
            "run": tmp_path / "run.txt", "dir": tmp_path}


@pytest.mark.parametrize("output, needle", [("{dir}", "is a folder"), ("", "is empty"),
                                            ("{dir}/missing/run.txt", "does not exist")])
def test_search_refuses_an_unusable_output_before_searching(inputs, output, needle):
    before = tree(inputs["dir"])
    proc = run_verb("search", "--index", inputs["idx"], "--topics", inputs["topics"],
                "--output", output.format(**inputs))
    assert_one_error(proc, needle)
    assert tree(inputs["dir"]) == before


def test_outputs_in_a_read_only_folder_are_refused_first(inputs):
    import os
    ro = inputs["dir"] / "ro"
    ro.mkdir()
    ro.chmod(0o555)
    try:
        if os.access(ro, os.W_OK) and not can_drop_root():
            pytest.skip("running as a user who can write anywhere, with no user namespace to drop root in")
        assert_one_error(verb("search", "--index", inputs["idx"], "--topics", inputs["topics"],
                              "--output", ro / "run.txt", not_root=True), "not writable")
        assert not (ro / "run.txt").exists()
    finally:
        ro.chmod(0o755)


@pytest.mark.parametrize("args, needle", [
    (("eval", "--qrels", "{qrels}", "--run", "{run}", "--output", "{dir}"), "is a folder"),
    (("compare", "--qrels", "{qrels}", "--runs", "{run}", "{run}", "--csv", "{dir}/no/x.csv"), "does not exist"),
    (("compare", "--qrels", "{qrels}", "--runs", "{run}", "{run}", "--seed", "-1"), "--seed"),
    (("sweep", "--index", "{idx}", "--topics", "{topics}", "--qrels", "{qrels}", "--out", "{dir}/sw", "--hits", "0"),
     "--hits"),
    (("sweep", "--index", "{idx}", "--topics", "{topics}", "--qrels", "{qrels}", "--out", "{dir}/sw",
      "--hits", "3000000000"), "--hits"),
    (("sweep", "--index", "{idx}", "--topics", "{topics}", "--qrels", "{qrels}", "--out", "{dir}/sw",
      "--metric", "recall"), "several values"),
    (("sweep", "--index", "{idx}", "--topics", "{topics}", "--qrels", "{qrels}", "--out", "{run}"), "not a folder"),
    (("sweep", "--index", "{idx}", "--topics", "{topics}", "--qrels", "{qrels}", "--out", "{dir}/sw",
      "--k1", "1e39"), "k1"),
    (("search", "--index", "{idx}", "--topics", "{topics}", "--output", "{dir}/r.txt", "--hits", "3000000000"),
     "--hits"),
    (("search", "--index", "{idx}", "--topics", "{topics}", "--output", "{dir}/r.txt", "--q", "1e308"), "q"),
    (("demo", "--work", "{run}"), "not a folder"),
    (("corpus",), "required"),
    (("corpus", "--source", "{dir}", "--out", "{dir}/c", "--language", "cobol"), "cobol"),
    (("corpus", "--source", "{idx}", "--out", "{dir}/missing/parent/x"), "does not exist"),
    (("table", "--sweeps", "{dir}/sw1"), "not a complete sweep summary"),
    (("prepare", "--format", "csn", "--input", "{run}", "{run}", "--out", "{dir}/p"), "more than once"),
])
def test_verbs_refuse_bad_arguments_in_one_line(inputs, args, needle):
    (inputs["dir"] / "sw1").mkdir(exist_ok=True)
    (inputs["dir"] / "sw1" / "summary.json").write_text(json.dumps({"name": "x", "docs": 3}))
    before = tree(inputs["dir"])
    proc = run_verb(args[0], *(a.format(**inputs) for a in args[1:]))
    assert_one_error(proc, needle)
    assert tree(inputs["dir"]) == before


def test_malformed_summary_is_a_clear_error(tmp_path):
    (tmp_path / "summary.json").write_text("[1, 2]")
    with pytest.raises(QLogError, match="not a sweep summary"):
        load_summary(tmp_path)


def test_budget_label_names_budgets_that_are_not_whole_kilotokens():
    assert budget_label("8192") == "8K" and budget_label("123") == "123"


# --- the JVM's heap -------------------------------------------------------------------

@pytest.mark.jvm  # the options are checked by starting java with them
def test_qlog_java_opts_reach_the_jvm_options(monkeypatch):
    monkeypatch.setenv("QLOG_JAVA_OPTS", "-Xmx2g -XX:+UseSerialGC")
    assert jvm_options()[-2:] == ["-Xmx2g", "-XX:+UseSerialGC"]
    monkeypatch.setenv("QLOG_JAVA_OPTS", "Xmx2g")
    with pytest.raises(QLogError, match="QLOG_JAVA_OPTS"):
        jvm_options()


def _final_flags(opts: list[str]) -> dict[str, str]:
    from qlog_pyserini.jvm.toolchain import find_jdk

    out = subprocess.run([str(find_jdk().java), *opts, "-XX:+PrintFlagsFinal", "-version"], capture_output=True,
                         text=True, check=True).stdout
    return {line.split()[1]: line.split()[3] for line in out.splitlines() if len(line.split()) >= 4}


@pytest.mark.jvm  # the JVM itself reports the heap and collector it was started with
@pytest.mark.parametrize("user, initial_mb, ours", [("", 64, True), ("-Xms128m", 128, False),
                                                    ("-Xmx512m -Xms32m", 32, False), ("-XX:+UseG1GC", None, False)])
def test_the_heap_and_collector_are_ours_unless_the_user_picks_them(monkeypatch, user, initial_mb, ours):
    from qlog_pyserini.jvm.toolchain import embedded_jvm_options

    monkeypatch.setenv("QLOG_JAVA_OPTS", user)
    opts = embedded_jvm_options()
    flags = _final_flags(opts)
    if initial_mb is not None:
        assert int(flags["InitialHeapSize"]) == initial_mb << 20
    assert (flags["UseParallelGC"] == "true") == ours  # otherwise the user's choice, or the JVM's default
    if "-XX:+UseG1GC" in user:
        assert flags["UseG1GC"] == "true"
    if ours:
        assert int(flags["NewSize"]) == int(flags["MaxNewSize"]) == 32 << 20
        assert flags["UseAdaptiveSizePolicy"] == "false"
    assert (opts.count("-Xms64m") == 1) == ours
    assert "-Xms64m" not in jvm_options()  # the indexer's own java process keeps the JVM's default


@pytest.mark.jvm
def test_anserini_logs_through_log4j_simple_logger_unless_the_user_configures_log4j(monkeypatch, tmp_path):
    from qlog_pyserini.jvm.toolchain import SIMPLE_LOG4J, embedded_jvm_options, find_jdk, jvm_options

    monkeypatch.setenv("QLOG_JAVA_OPTS", "")
    monkeypatch.delenv("PYSERINI_VERBOSE_JVM", raising=False)
    opts = embedded_jvm_options()
    assert all(o in opts for o in SIMPLE_LOG4J) and not any(o in jvm_options() for o in SIMPLE_LOG4J)
    # the factory named is in the fatjar's log4j-api: an Anserini logger made under these options is
    # log4j's simple logger, at WARN
    from qlog_pyserini.jvm.toolchain import pyserini_jar

    probe = tmp_path / "Probe.java"
    probe.write_text("public class Probe { public static void main(String[] a) { var l = "
                     "org.apache.logging.log4j.LogManager.getLogger(\"x\"); "
                     "System.out.println(l.getClass().getName() + \" \" + l.getLevel()); } }")
    out = subprocess.run([str(find_jdk().java), *SIMPLE_LOG4J, "-cp", str(pyserini_jar()), str(probe)],
                         capture_output=True, text=True, timeout=120)
    assert "org.apache.logging.log4j.simple.SimpleLogger WARN" in out.stdout, out.stdout + out.stderr
    for user in ("-Dlog4j2.configurationFile=/x.xml", "-Dorg.apache.logging.log4j.simplelog.level=INFO"):
        monkeypatch.setenv("QLOG_JAVA_OPTS", user)
        assert not any(o in embedded_jvm_options() for o in SIMPLE_LOG4J)
    monkeypatch.setenv("QLOG_JAVA_OPTS", "")
    monkeypatch.setenv("PYSERINI_VERBOSE_JVM", "1")
    assert not any(o in embedded_jvm_options() for o in SIMPLE_LOG4J)


@pytest.mark.jvm
def test_the_native_heap_is_trimmed_unless_the_user_sets_the_interval(monkeypatch):
    from qlog_pyserini.jvm.toolchain import NATIVE_TRIM_SINCE, embedded_jvm_options, find_jdk

    monkeypatch.setenv("QLOG_JAVA_OPTS", "")
    expected = "1000" if find_jdk().version >= NATIVE_TRIM_SINCE else "0"
    assert _final_flags(embedded_jvm_options())["TrimNativeHeapInterval"] == expected
    monkeypatch.setenv("QLOG_JAVA_OPTS", "-XX:TrimNativeHeapInterval=0")
    assert _final_flags(embedded_jvm_options())["TrimNativeHeapInterval"] == "0"


@pytest.mark.parametrize("name, params", [("qld", {"mu": 1e39}), ("idf-gamma", {"gamma": float("inf")}),
                                          ("qld", {"mu": 0})])
def test_parameters_a_java_float_cannot_hold_are_refused_before_java(name, params):
    from qlog_pyserini.lucene.similarities import make_similarity

    with pytest.raises(QLogError, match="illegal (mu|gamma) value"):
        make_similarity(name, **params)


# --- q grids: every item a number, negative ones included -----------------------------

@pytest.mark.parametrize("grid", ["", " ", "0.5,,0.7", "0.5,0.7,", ",1"])
def test_a_grid_with_an_empty_item_is_refused(grid):
    with pytest.raises(QLogError, match="empty"):
        parse_grid(grid)


@pytest.mark.parametrize("grid", ["", "0.5,,0.7"])
def test_sweep_refuses_an_empty_grid_item_before_any_work(grid, tmp_path):
    proc = run_verb("sweep", "--index", tmp_path / "no-index", "--topics", tmp_path / "t.tsv", "--qrels",
                    tmp_path / "q.txt", "--q-grid", grid, "--out", tmp_path / "sw")
    assert "empty" in assert_one_error(proc, "grid")
    assert not (tmp_path / "sw").exists()


@pytest.mark.parametrize("value", ["-1,3", "-0.5,0.5", "-1", "-.5,...,0.5"])
def test_a_grid_starting_with_a_negative_value_is_a_value_not_an_option(value):
    from qlog_pyserini.cli.parser import verb_parser

    parser = verb_parser("sweep", "test")
    parser.add_argument("--q-grid")
    parser.add_argument("--flag", action="store_true")
    assert parser.parse_args(["--q-grid", value, "--flag"]).q_grid == value


def test_sweep_reads_a_negative_grid_as_its_value(tmp_path):
    proc = run_verb("sweep", "--index", tmp_path / "no-index", "--topics", tmp_path / "t.tsv", "--qrels",
                    tmp_path / "q.txt", "--q-grid", "-1,3", "--out", tmp_path / "sw")
    assert "--q-grid" not in assert_one_error(proc)
