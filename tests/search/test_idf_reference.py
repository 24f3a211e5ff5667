"""The IDF reference table the Java tests read (java-similarity/qlog-similarity/src/test/resources/io/qlog/
similarities/idf-reference.tsv): each value recomputed here with 40-digit decimals, independently of numpy and of
qlog_pyserini.formula, and the Python reference formula checked against it."""

from __future__ import annotations

from decimal import Decimal, getcontext

import pytest
from conftest import ROOT

from qlog_pyserini.formula import idf_q

TABLE = ROOT / "java-similarity/qlog-similarity/src/test/resources/io/qlog/similarities/idf-reference.tsv"


def _rows() -> list[tuple[float, int, int, float, str, str]]:
    rows = []
    for line in TABLE.read_text(encoding="utf-8").splitlines():
        if line.strip() and not line.startswith("#"):
            expected, n, big_n, q, form, why = line.split("\t")
            rows.append((float(expected), int(n), int(big_n), float(q), form, why))
    return rows


def _decimal_idf(n: int, big_n: int, q: float, form: str) -> Decimal:
    getcontext().prec = 40
    odds = (Decimal(big_n) - n + Decimal("0.5")) / (n + Decimal("0.5"))
    odds = odds + 1 if form == "lucene" else odds
    q = Decimal(repr(q))
    value = odds.ln() if q == 1 else (((1 - q) * odds.ln()).exp() - 1) / (1 - q)
    return max(Decimal(0), value)


def test_the_table_covers_both_forms_and_both_sides_of_q_one():
    rows = _rows()
    assert len(rows) == 12  # as many as TestQLogIdf reads
    assert {r[4] for r in rows} == {"lucene", "rsj"}
    assert min(r[3] for r in rows) < 1 < max(r[3] for r in rows)
    assert any(r[0] == 0.0 for r in rows)  # the floor


@pytest.mark.parametrize("expected, n, big_n, q, form, why", _rows(), ids=lambda v: v if isinstance(v, str) else None)
def test_each_value_is_ln_q_of_the_odds(expected, n, big_n, q, form, why):
    exact = _decimal_idf(n, big_n, q, form)
    assert expected == pytest.approx(float(exact), rel=1e-15, abs=1e-15), why
    assert float(idf_q(n, big_n, q, form)) == pytest.approx(float(exact), rel=1e-12, abs=1e-12), why
