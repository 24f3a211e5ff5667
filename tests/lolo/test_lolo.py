"""Leave-one-family-out arithmetic on synthetic sweeps with known answers, and the CLI on a real index."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import ROOT, run_verb  # noqa: E402
from markdown_tables import has_cells, row_of

from qlog_pyserini.errors import QLogError
from qlog_pyserini.lolo.fit import (
    Evidence,
    LoloOptions,
    RuleParams,
    Sweep,
    apply_rule,
    auto_summary,
    candidate_grid,
    collect_evidence,
    evaluate_rule,
    fit_c,
    fit_rule,
    grid_lookup,
    leave_one_family_out,
    leave_one_out_c,
    mean_recovery,
    read_sweep,
    recovery,
    run_lolo,
)
from qlog_pyserini.lolo.report import format_markdown

GRID = [round(0.05 * i, 10) for i in range(1, 31)]  # 0.05 .. 1.5


def test_fit_c_through_the_origin():
    assert fit_c([1.0, 2.0], [-1.0, -3.0]) == pytest.approx(2.0)  # 1 - q = 2h exactly
    assert fit_c([1.0, 2.0], [0.0, -2.0]) == pytest.approx((1 * 1 + 2 * 3) / 5)  # 1.4, not the free-intercept slope 2
    assert fit_c([0.0, 0.0], [0.3, 0.5]) == 0.0  # no evidence: BM25
    with pytest.raises(ValueError):
        fit_c([0.1], [0.5, 0.6])


def test_leave_one_out_c_known_answers():
    cs = leave_one_out_c([0.1, 0.2, 0.05], [0.5, 0.2, 0.9])
    # by hand: (0.2*0.8 + 0.05*0.1)/(0.2^2 + 0.05^2), (0.1*0.5 + 0.05*0.1)/(0.1^2 + 0.05^2), (0.1*0.5 + 0.2*0.8)/(0.1^2 + 0.2^2)
    assert cs == pytest.approx([0.165 / 0.0425, 4.4, 4.2])
    with pytest.raises(ValueError, match="two corpora"):
        leave_one_out_c([0.1], [0.5])


def test_recovery_and_its_undefined_case():
    assert recovery(0.45, 0.4, 0.6) == pytest.approx(0.25)
    assert recovery(0.6, 0.4, 0.6) == 1.0
    assert recovery(0.4, 0.4, 0.6) == 0.0
    assert recovery(0.3, 0.4, 0.6) == pytest.approx(-0.5)  # worse than BM25
    assert recovery(0.7, 0.4, 0.6) == pytest.approx(1.5)  # an off-grid q_pred can beat the grid's best
    assert recovery(0.5, 0.4, 0.4) is None  # no gain to recover
    assert recovery(0.5, 0.4, 0.3) is None
    assert mean_recovery([1.0, None, 0.5]) == 0.75 and mean_recovery([None]) is None


def test_grid_lookup_tolerance():
    scores = {0.3: 0.5, 1.0: 0.4}
    assert grid_lookup(scores, 1 - 0.7) == 0.5  # 0.30000000000000004
    assert grid_lookup(scores, 0.3001) is None


def synthetic(name: str, q_opt: float, peak: float, flat: bool = False) -> Sweep:
    """A sweep whose metric is M(q) = peak - (q - q_opt)^2 (constant if ``flat``), known at every q."""
    def m(q: float) -> float:
        return peak if flat else peak - (q - q_opt) ** 2

    scores = {q: m(q) for q in GRID}
    return Sweep(name=name, index=Path(name), topics=Path("t"), qrels=Path("r"), metric="ndcg_cut.10", scores=scores,
                 baseline_score=m(1.0), oracle_value=q_opt, oracle_score=m(q_opt))


class Oracle:
    """M(q) off the grid from the synthetic formula; records every call."""

    def __init__(self, sweeps):
        self.by_name = {s.name: s for s in sweeps}
        self.calls: list[tuple[str, float]] = []

    def __call__(self, sweep: Sweep, q: float) -> float:
        self.calls.append((sweep.name, q))
        if sweep.scores[1.0] == sweep.oracle_score:
            return sweep.oracle_score
        return sweep.oracle_score - (q - sweep.oracle_value) ** 2


SWEEPS = [synthetic("A", 0.5, 0.6), synthetic("B", 0.2, 0.5), synthetic("C", 0.9, 0.4)]
H = [0.1, 0.2, 0.05]


def test_fitted_rule_known_answers():
    evaluate = Oracle(SWEEPS)
    result = evaluate_rule(SWEEPS, H, evaluate, variant="h")
    rows = {r.name: r for r in result.rows}
    # q_pred = 1 - c_loo * h: A 1 - 0.38824 = 0.61176, B 1 - 0.88 = 0.12, C 1 - 0.21 = 0.79, all off the grid.
    assert [rows[n].q_pred for n in "ABC"] == pytest.approx([0.6117647059, 0.12, 0.79])
    assert all(r.measured for r in result.rows) and len(evaluate.calls) == 3
    # recovery = 1 - (q_pred - q_opt)^2 / (1 - q_opt)^2 for these curves
    assert [rows[n].recovery for n in "ABC"] == pytest.approx([0.9500346021, 0.99, -0.21])
    assert result.mean_recovery == pytest.approx(0.5766782007)
    assert result.c_all == pytest.approx(0.215 / 0.0525) and result.mode == "fit"
    assert rows["A"].m_base == pytest.approx(0.35) and rows["A"].m_opt == 0.6


def test_fixed_c_known_answers_and_grid_hits():
    evaluate = Oracle(SWEEPS)
    result = evaluate_rule(SWEEPS, H, evaluate, variant="h", c=7.28)
    rows = {r.name: r for r in result.rows}
    assert [rows[n].q_pred for n in "ABC"] == pytest.approx([0.272, 0.05, 0.636])
    assert not rows["B"].measured and "B" not in [n for n, _ in evaluate.calls]  # q_min is on the grid: no search
    assert [rows[n].recovery for n in "ABC"] == pytest.approx([0.792064, 0.96484375, -5.9696])
    assert result.c_all == 7.28 and result.mode == "fixed"


def test_rule_on_the_line_recovers_everything_without_searching():
    h = [0.05, 0.1, 0.2]
    sweeps = [synthetic(f"L{i}", round(1 - 4 * x, 10), 0.5) for i, x in enumerate(h)]  # q_opt = 1 - 4h exactly

    def never(sweep: Sweep, q: float) -> float:
        raise AssertionError(f"searched {sweep.name} at {q}")

    result = evaluate_rule(sweeps, h, never)
    assert [r.c for r in result.rows] == pytest.approx([4.0] * 3)
    assert [r.recovery for r in result.rows] == [1.0, 1.0, 1.0] and result.mean_recovery == 1.0


def test_no_gain_corpus_is_na_and_left_out_of_the_mean():
    sweeps = SWEEPS + [synthetic("D", 1.0, 0.3, flat=True)]
    result = evaluate_rule(sweeps, H + [0.01], Oracle(sweeps))
    rows = {r.name: r for r in result.rows}
    assert rows["D"].recovery is None
    assert result.counted == 3
    assert result.mean_recovery == pytest.approx(mean_recovery([rows[n].recovery for n in "ABC"]))
    text = format_markdown([result], "ndcg_cut.10")
    assert row_of(text, "D")[-1] == "n/a" and "over 3 of 4 corpora" in text  # recovery n/a, out of the mean
    assert has_cells(text, "paper (h_tok)", "leave-one-out fit", "0.72", "")


def test_run_lolo_with_given_features_shows_rules_side_by_side():
    feats = {s.name: {"hapax-per-token": x, "df-slope": 2 * x, "sample-hapax-per-token": None}
             for s, x in zip(SWEEPS, H)}
    results, notes = run_lolo(SWEEPS, ["hapax-per-token", "df-slope", "sample-hapax-per-token"], Oracle(SWEEPS),
                              feature_values=feats)
    assert [(r.variant, r.mode) for r in results] == [("hapax-per-token", "fit"), ("hapax-per-token", "fixed"),
                                                      ("df-slope", "fit")]  # no published c for df-slope
    # c fitted on 2h is half the c fitted on h, so the predictions, and the recoveries, are the same
    assert results[2].mean_recovery == pytest.approx(results[0].mean_recovery)
    assert notes == ["sample-hapax-per-token: skipped, not available for A, B, C"]


def write_summary(folder: Path, **over) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    summary = {"name": folder.name, "index": "idx", "topics": "topics.tsv", "qrels": "qrels.txt",
               "similarity": "qlog", "parameter": "q", "idf_form": "lucene", "k1": 0.9, "b": 0.4,
               "metric": "ndcg_cut.10", "grid": [0.5, 1.0], "scores": {"0.5": 0.3, "1": 0.2},
               "baseline_value": 1.0, "baseline_score": 0.2, "oracle_value": 0.5, "oracle_score": 0.3, "hits": 100}
    summary.update(over)
    (folder / "summary.json").write_text(json.dumps({k: v for k, v in summary.items() if v is not None}))
    return folder


def test_read_sweep(tmp_path):
    folder = write_summary(tmp_path / "s1")
    (folder / "idx").mkdir()
    s = read_sweep(folder)
    assert s.index == folder / "idx"  # relative path found beside summary.json
    assert s.topics == Path("topics.tsv")  # exists nowhere: kept as given
    assert s.scores == {0.5: 0.3, 1.0: 0.2} and s.m_base == 0.2 and s.hits == 100 and s.name == "s1"
    with pytest.raises(QLogError, match="missing keys oracle_score"):
        read_sweep(write_summary(tmp_path / "s2", oracle_score=None))
    with pytest.raises(QLogError, match="sweep of q-log BM25's q"):
        read_sweep(write_summary(tmp_path / "s3", parameter="gamma", similarity="idf-gamma"))
    with pytest.raises(QLogError, match="not a sweep folder"):
        read_sweep(tmp_path / "nothing")


# --- the CLI on a real index ----------------------------------------------------------------------------

@pytest.fixture(scope="module")
def real_sweeps(stdlib_index, stdlib_code, tmp_path_factory) -> tuple[Path, Path, Path]:
    """Two sweep folders over the stdlib fixture (grid 0.05, 0.5, 1), scores measured by searching."""
    from qlog_pyserini.lolo.evaluate import SearchEvaluator

    root = tmp_path_factory.mktemp("sweeps")
    qrels = root / "qrels.txt"
    with open(stdlib_code[1]) as t, open(qrels, "w") as q:
        for line in t:
            qid = line.split("\t", 1)[0]
            q.write(f"{qid} 0 {qid[2:]} 1\n")  # each query's own function is relevant
    base = Sweep(name="x", index=stdlib_index, topics=stdlib_code[1], qrels=qrels, metric="ndcg_cut.10",
                 scores={1.0: 0.0}, baseline_score=0.0, oracle_value=1.0, oracle_score=0.0)
    ev = SearchEvaluator()
    scores = {q: ev.measure(base, q) for q in (0.05, 0.5, 1.0)}
    ev.close()
    best = max(scores, key=lambda q: (scores[q], q))
    folders = []
    for name, oracle_score in (("py-a", scores[best]), ("py-b", scores[best] + 0.1)):  # py-b's summary is wrong
        folders.append(write_summary(root / name, index=str(stdlib_index), topics=str(stdlib_code[1]),
                                     qrels=str(qrels), grid=sorted(scores), hits=1000,
                                     scores={f"{q:g}": s for q, s in scores.items()}, baseline_score=scores[1.0],
                                     oracle_value=best, oracle_score=oracle_score))
    return folders[0], folders[1], qrels


def cli(verb: str, *args: str) -> subprocess.CompletedProcess:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    return subprocess.run([sys.executable, "-m", f"qlog_pyserini.{verb}", *map(str, args)],
                          capture_output=True, text=True, env=env, timeout=900)


def test_lolo_cli_measures_off_grid_q_like_the_search_cli(real_sweeps, stdlib_index, stdlib_code, tmp_path):
    a, b, qrels = real_sweeps
    md, js = tmp_path / "lolo.md", tmp_path / "lolo.json"
    proc = cli("lolo", "--sweeps", a, b, "--variant", "hapax-per-token", "--c", "1", "--output", md, "--json", js)
    assert proc.returncode == 0, proc.stderr
    assert md.read_text() == proc.stdout and "## h = hapax-per-token, fixed c = 1" in proc.stdout
    # py-b's summary claims a score its own run does not have: the re-measurement says so
    assert "warning: py-b: re-measuring" in proc.stderr and "py-a: re-measuring" not in proc.stderr
    payload = json.loads(js.read_text())
    results = payload["per_variant"]
    # the rule report: each held-out corpus's row comes from a rule fitted on the other family only
    assert "): the rule fitted without the corpus's family" in proc.stdout and "## Choosing the shrinkage n0" in proc.stdout
    assert [r["name"] for r in payload["loco"]] == ["py-a", "py-b"] and payload["default"]["summary"]["corpora"] == 2
    fixed = next(r for r in results if r["mode"] == "fixed")
    row = next(r for r in fixed["rows"] if r["name"] == "py-a")
    assert row["measured"] and 0.05 < row["q_pred"] < 1 and row["q_pred"] not in (0.5,)
    assert row["recovery"] == recovery(row["m_pred"], row["m_base"], row["m_opt"])

    # the same number by another road: the search CLI at q_pred, then trec_eval
    from qlog_pyserini.eval.trec_eval import trec_eval

    run = tmp_path / "run.txt"
    search = run_verb("search", "--index", stdlib_index, "--topics", stdlib_code[1], "--output", run,
                      "--q", repr(row["q_pred"]), "--quiet")
    assert search.returncode == 0, search.stderr
    assert row["m_pred"] == trec_eval(qrels, run, ["ndcg_cut.10"], per_query=False).aggregate["ndcg_cut.10"]


def test_lolo_cli_refusals(real_sweeps, tmp_path):
    a, b, _ = real_sweeps
    for args, needle in (((a, "--variant", "nope"), "unknown variant"),
                         ((tmp_path, ), "not a sweep folder"),
                         ((a, a), "names must be unique"),
                         ((a, "--output", tmp_path / "no" / "x.md"), "does not exist")):
        proc = run_verb("lolo", "--sweeps", *args)  # in process: the test above starts lolo's real entry point
        lines = [l for l in proc.stderr.splitlines() if l.strip()]
        assert proc.returncode == 2 and needle in lines[-1] and "Traceback" not in proc.stderr, proc.stderr


# --- the safe rule: fit and leave-one-family-out ---------------------------------------------------------

def curve(q_opt: float, top: float, base: float = 0.3, width: float = 0.5) -> dict[float, float]:
    """A concave NDCG(q) curve on the 0.05 grid with its maximum ``top`` above BM25 at ``q_opt``."""
    out = {}
    for q in GRID:
        bump = top * max(0.0, 1 - ((q - q_opt) / width) ** 2) if q_opt != 1.0 else 0.0
        at_one = top * max(0.0, 1 - ((1.0 - q_opt) / width) ** 2) if q_opt != 1.0 else 0.0
        out[q] = round(base + bump - at_one, 6)
    return out


def evidence(name: str, q_opt: float, top: float, h: float, docs: int, kind: str = "code") -> Evidence:
    """A synthetic corpus; ``BASE-SIZE`` names a subsample of BASE, of BASE's family."""
    scores = curve(q_opt, top)
    best = max(scores, key=lambda q: (scores[q], -abs(q - 1)))
    s = Sweep(name=name, index=Path("."), topics=Path("."), qrels=Path("."), metric="m", scores=scores,
              baseline_score=scores[1.0], oracle_value=best, oracle_score=scores[best], docs=docs)
    return Evidence(sweep=s, docs=docs, features={"sample-df-slope": h}, family=name.split("-")[0], kind=kind)


def no_search(sweep, q):
    raise AssertionError(f"q = {q} is on the grid; no search expected")


def test_family_is_the_one_the_sweep_recorded(tmp_path):
    # read from summary.json, never guessed from a name: "cosqa-500" is cosqa's subsample only if its sweep says so
    sub = read_sweep(write_summary(tmp_path / "cosqa-500", family="cosqa"))
    alone = read_sweep(write_summary(tmp_path / "go-code-10k"))
    assert (sub.family, alone.family) == ("cosqa", "go-code-10k")
    got = collect_evidence([sub, alone], text=["cosqa"], feature_values={"cosqa-500": {}, "go-code-10k": {}},
                           docs={"cosqa-500": 500, "go-code-10k": 10_000})
    assert [(e.family, e.kind) for e in got] == [("cosqa", "text"), ("go-code-10k", "code")]


def test_options_are_checked_before_any_work():
    checked = LoloOptions(variants=["all"], shrinks=[5000, 0, 5000]).check()
    assert checked.shrinks == [0, 5000] and "hapax-per-token" in checked.variants
    for bad, needle in ((LoloOptions(variants=["nope"]), "unknown variant 'nope'"),
                        (LoloOptions(q_min=1.5), "--q-min must be at most 1"),
                        (LoloOptions(c=float("nan")), "--c must be finite"),
                        (LoloOptions(threads=0), "--threads must be at least 1"),
                        (LoloOptions(shrinks=[-1]), "must list integers >= 0")):
        with pytest.raises(QLogError, match=needle):
            bad.check()


def test_fit_rule_prefers_recovery_but_never_breaks_a_training_corpus():
    # three code corpora whose optimum moves with h; a text corpus (h = 0) where any move hurts
    corpora = [evidence("a", 0.6, 0.05, 0.3, 50_000), evidence("b", 0.7, 0.04, 0.2, 50_000),
               evidence("c", 0.8, 0.03, 0.1, 50_000), evidence("t", 1.0, 0.0, 0.0, 3_000, kind="text")]
    cands = candidate_grid()
    p = fit_rule(corpora, cands, no_search)
    rows = apply_rule(corpora, p, no_search)
    assert all(r.rel_change >= -0.0025 for r in rows)
    assert auto_summary(rows)["mean_recovery_code"] > 0.8
    # a corpus with a small h where moving at all loses (q_opt = 1, a steep curve): the fit must protect it,
    # even at the price of recovery elsewhere
    trap = evidence("trap", 1.0, 0.0, 0.04, 50_000)
    trap.sweep.scores.update({q: round(0.3 - 0.2 * (1 - q), 6) for q in GRID if q < 1})
    p2 = fit_rule(corpora + [trap], cands, no_search)
    assert apply_rule([trap], p2, no_search)[0].rel_change >= -0.0025
    assert apply_rule([trap], p, no_search)[0].rel_change < -0.0025  # the first fit would have hurt it


def test_shrinkage_is_chosen_when_small_corpora_lose():
    # big corpora gain at q = 0.6; their small subsamples (same h) lose below q = 0.9
    big = [evidence(f"x{i}", 0.6, 0.05, 0.3, 100_000) for i in range(3)]
    small = []
    for i in range(3):
        e = evidence(f"x{i}-500", 0.95, 0.001, 0.3, 500)
        e.sweep.scores.update({q: round(0.3 - 0.05 * (0.9 - q), 6) for q in GRID if q < 0.9})
        small.append(e)
    p = fit_rule(big + small, candidate_grid(), no_search)
    assert p.shrink_docs > 0
    assert all(r.rel_change >= -0.0025 for r in apply_rule(small, p, no_search))
    assert all(r.q_auto < 0.8 for r in apply_rule(big, p, no_search))


def test_leave_one_family_out_never_sees_the_held_out_family():
    corpora = [evidence("a", 0.6, 0.05, 0.3, 50_000), evidence("a-2k", 0.6, 0.05, 0.3, 2_000),
               evidence("b", 0.7, 0.04, 0.2, 50_000), evidence("c", 0.8, 0.03, 0.1, 50_000)]
    cands = candidate_grid(cs=(0.5, 1.0, 2.0), q_mins=(0.6, 0.7), shrinks=(0, 2000))
    rows = leave_one_family_out(corpora, cands, no_search)
    for r in rows:
        training = [e for e in corpora if e.family != r.family]
        assert r.params == fit_rule(training, cands, no_search)  # fitted on the other families only
    assert rows[0].params == rows[1].params  # a corpus and its subsample are held out together
    assert [r.name for r in rows] == ["a", "a-2k", "b", "c"]


def test_rule_params_q_is_the_rule():
    from qlog_pyserini.predict.rule import auto_q

    p = RuleParams("sample-df-slope", 2.0, 0.6, 1000)
    assert p.q(0.3, 3000) == auto_q(0.3, 3000, 2.0, 0.6, 1000, 0.05)


def test_shrinkage_is_selected_by_held_out_outcomes():
    from qlog_pyserini.lolo.fit import select_shrinkage

    corpora = []
    for i in range(3):
        corpora.append(evidence(f"x{i}", 0.6, 0.05, 0.3, 100_000))
        small = evidence(f"x{i}-500", 0.95, 0.001, 0.3, 500)
        small.sweep.scores.update({q: round(0.3 - 0.05 * (0.9 - q), 6) for q in GRID if q < 0.9})
        corpora.append(small)
    cands = candidate_grid(cs=(0.5, 1.0, 2.0, 4.0), q_mins=(0.6, 0.7), shrinks=(0,))
    sel = select_shrinkage(corpora, cands, no_search, shrinks=(0, 1000, 5000))
    assert set(sel.outcomes) == {0, 1000, 5000} and sel.chosen > 0
    chosen = auto_summary(sel.outcomes[sel.chosen])
    assert not chosen["below_floor"]
    assert chosen["mean_recovery_code"] > auto_summary(sel.outcomes[0])["mean_recovery_code"]
    assert all(r.params.shrink_docs == n0 for n0, rows in sel.outcomes.items() for r in rows)
