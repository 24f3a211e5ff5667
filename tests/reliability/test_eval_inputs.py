"""Evaluation inputs: every measure asked for is printed, scores trec_eval cannot rank are refused with their file
and line, and a run that answers no judged query is one error, said the same way by ``eval``, ``compare`` and
``evaluate()``.

The reference is the trec_eval binary itself, asked for one measure per call (where a family is never split)."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest
from conftest import run_verb
from reliability.reliability_helpers import assert_one_error

from qlog_pyserini.errors import QLogError

pytestmark = pytest.mark.jvm  # trec_eval from Pyserini's jar


@pytest.fixture
def judged(tmp_path: Path) -> tuple[Path, Path]:
    qrels, run = tmp_path / "qrels.txt", tmp_path / "run.txt"
    qrels.write_text("q1 0 d1 1\nq1 0 d2 1\nq2 0 d3 1\nq3 0 d5 2\n")
    lines = ["q1 Q0 d9 1 9.0 t", "q1 Q0 d8 2 8.0 t", "q1 Q0 d1 3 7.0 t", "q1 Q0 d7 4 6.0 t", "q1 Q0 d6 5 5.5 t",
             "q1 Q0 d2 6 5.0 t", "q2 Q0 d3 1 4.0 t", "q3 Q0 d4 1 3.0 t", "q3 Q0 d5 2 2.0 t"]
    run.write_text("\n".join(lines) + "\n")
    return qrels, run


def _alone(qrels: Path, run: Path, measure: str) -> float:
    """The binary's own value of one measure, asked for alone (its family not shared with any other -m)."""
    from qlog_pyserini.eval.trec_eval import trec_eval_binary

    out = subprocess.run([str(trec_eval_binary()), "-c", "-m", measure, str(qrels), str(run)],
                         capture_output=True, text=True, check=True).stdout.split()
    return float(out[2])


@pytest.mark.parametrize("metrics", ["recip_rank,success.1,success.5,success.10", "recall.10,recall.100",
                                     "P.5,ndcg_cut.10,P.10,ndcg_cut.5"])
def test_eval_prints_every_measure_of_a_family(judged, metrics):
    proc = run_verb("eval", "--qrels", judged[0], "--run", judged[1], "--metrics", metrics)
    assert proc.returncode == 0, proc.stderr
    printed = dict(line.split() for line in proc.stdout.splitlines())
    assert list(printed) == metrics.split(",")
    for name, value in printed.items():
        assert float(value) == pytest.approx(_alone(*judged, name), abs=1e-4), name


def test_trec_eval_passes_a_family_once_with_all_its_cutoffs():
    from qlog_pyserini.eval.trec_eval import measure_arguments

    assert measure_arguments(["recip_rank", "success.1", "success.5", "success.10"]) == \
        ["recip_rank", "success.1,5,10"]
    assert measure_arguments(["P.5,10", "map", "P.10", "P.20"]) == ["P.5,10,20", "map"]
    assert measure_arguments(["recall", "recall.7"]) == ["recall.5,10,15,20,30,100,200,500,1000,7"]


@pytest.mark.parametrize("score", ["1e39", "-5e38", "3.5e38"])
def test_a_score_beyond_a_32_bit_float_is_refused_with_file_and_line(judged, score):
    qrels, run = judged
    run.write_text(run.read_text() + f"q2 Q0 d4 2 {score} t\n")
    assert_one_error(run_verb("eval", "--qrels", qrels, "--run", run), f"run.txt:10: score '{score}'")
    from qlog_pyserini.eval.quick import evaluate

    with pytest.raises(QLogError, match=f"run.txt:10: score '{score}'.*32-bit"):
        evaluate(run, qrels)


def test_the_largest_32_bit_float_score_is_kept(judged):
    qrels, run = judged
    run.write_text(run.read_text().replace("4.0", "3.4e38"))
    assert run_verb("eval", "--qrels", qrels, "--run", run).returncode == 0


def test_a_run_that_answers_no_judged_query_is_one_error_everywhere(judged, tmp_path):
    qrels, _ = judged
    stray = tmp_path / "stray.txt"
    stray.write_text("x1 Q0 d1 1 3.0 t\nx2 Q0 d2 1 2.0 t\n")
    messages = {assert_one_error(run_verb("eval", "--qrels", qrels, "--run", stray), "answers no query the qrels judge"),
                assert_one_error(run_verb("compare", "--qrels", qrels, "--runs", stray, stray, "--resamples", "10"),
                                 "answers no query the qrels judge")}
    from qlog_pyserini.eval.quick import evaluate
    from qlog_pyserini.formats.trec import Hit

    for run in (stray, {"x1": [Hit("d1", 3.0)]}):
        with pytest.raises(QLogError, match="answers no query the qrels judge") as e:
            evaluate(run, qrels)
        messages.add(f"error: {e.value}")
    assert len({m.split(" answers no query", 1)[1] for m in messages}) == 1, messages
