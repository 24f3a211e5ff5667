"""The error boundary: bad input is one ``error:`` line and exit 2 where it enters; any other exception is a bug
and keeps its traceback (QLogError subclasses ValueError, so catching ValueError around a verb's work would print
a numpy or pandas bug as bad input)."""

from __future__ import annotations

import pytest
from conftest import run_verb
from reliability.reliability_helpers import assert_one_error


@pytest.mark.jvm
def test_a_bug_inside_the_sweep_is_a_traceback_not_bad_input(tmp_path, monkeypatch):
    import qlog_pyserini.sweep.__main__ as sweep_main

    def broken(*args, **kwargs):
        raise ValueError("operands could not be broadcast together with shapes (3,) (4,)")

    monkeypatch.setattr(sweep_main, "run_sweep", broken)
    (tmp_path / "topics.tsv").write_text("q1\tparse config\n")
    (tmp_path / "qrels.txt").write_text("q1 0 d1 1\n")
    with pytest.raises(ValueError, match="could not be broadcast"):
        run_verb("sweep", "--index", tmp_path / "index", "--topics", tmp_path / "topics.tsv", "--qrels",
                 tmp_path / "qrels.txt", "--out", tmp_path / "sw", "--no-auto", "--q-grid", "0.5")


@pytest.mark.parametrize("q, needle", [("abc", "argument --q: illegal q value: 'abc', must be a number"),
                                       ("5", "argument --q: illegal q value: 5.0"),
                                       ("nan", "argument --q: illegal q value: NaN")])
def test_search_reads_q_as_a_number_or_an_auto_mode_where_it_enters(tmp_path, q, needle):
    proc = run_verb("search", "--index", tmp_path / "index", "--topics", tmp_path / "t.tsv", "--output",
                    tmp_path / "run.txt", "--q", q)
    assert_one_error(proc, needle)
