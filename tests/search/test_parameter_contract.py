"""The q-log BM25 parameter contract is decided once, in the Java ``QLogBM25Similarity`` constructor (Lucene's
own checks for k1 and b); Python's :func:`qlog_pyserini.formula.check_qlog` must refuse the same values with
the same message, so a user reads one sentence whichever API or engine they used."""

from __future__ import annotations

import math

import pytest

from qlog_pyserini import formula
from qlog_pyserini.errors import QLogError

pytestmark = pytest.mark.jvm

BAD = [(5.0, 0.9, 0.4, "lucene"), (-1.5, 0.9, 0.4, "lucene"), (math.nan, 0.9, 0.4, "lucene"),
       (math.inf, 0.9, 0.4, "rsj"), (0.5, -0.1, 0.4, "lucene"), (0.5, math.inf, 0.4, "lucene"),
       (0.5, 1e39, 0.4, "lucene"), (0.5, 0.9, 1.5, "lucene"), (0.5, 0.9, -0.01, "lucene"),
       (0.5, 0.9, math.nan, "lucene"), (0.5, 0.9, 0.4, "okapi")]
GOOD = [(-1.0, 0.0, 0.0, "lucene"), (3.0, 1e30, 1.0, "rsj"), (1.0, 0.9, 0.4, "LUCENE")]


def _java_message(q, k1, b, form) -> str | None:
    from jnius import JavaException

    from qlog_pyserini.jvm.bridge import jclass

    try:
        jclass("io.qlog.similarities.QLogBM25Similarity")(float(k1), float(b), float(q), form)
    except JavaException as e:
        return str(e.innermessage)
    return None


def test_the_range_of_q_is_javas():
    from qlog_pyserini.jvm.bridge import jclass

    cls = jclass("io.qlog.similarities.QLogBM25Similarity")
    assert (formula.Q_MIN, formula.Q_MAX) == (cls.Q_MIN, cls.Q_MAX)


@pytest.mark.parametrize("args", BAD)
def test_python_refuses_what_java_refuses_in_the_same_words(args):
    expected = _java_message(*args)
    assert expected is not None
    with pytest.raises(QLogError) as e:
        formula.check_qlog(*args)
    assert str(e.value) == expected


@pytest.mark.parametrize("args", GOOD)
def test_python_accepts_what_java_accepts(args):
    assert _java_message(*args) is None
    formula.check_qlog(*args)
