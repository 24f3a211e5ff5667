"""The q sweep: grid parsing, oracle choice, and a real sweep on the stdlib fixture."""

from __future__ import annotations

import json
from pathlib import Path

import pandas as pd
import pytest
from markdown_tables import markdown_rows

from qlog_pyserini.errors import QLogError
from qlog_pyserini.eval.budget import recall_at_budgets, recall_at_token_budgets
from qlog_pyserini.eval.grid import parse_grid
from qlog_pyserini.eval.trec_eval import trec_eval
from qlog_pyserini.formats.topics import read_topics
from qlog_pyserini.formats.trec import read_qrels, read_run
from qlog_pyserini.lucene.searcher import QLogSearcher
from qlog_pyserini.sweep.run import SweepSettings, choose_oracle, run_sweep, summary_line

pytestmark = pytest.mark.jvm  # every test here starts the JVM or runs Java


def test_parse_grid_progressions():
    assert parse_grid("0.05,0.1,...,0.3,0.5") == [0.05, 0.1, 0.15, 0.2, 0.25, 0.3, 0.5]
    grid = parse_grid("0.05,0.1,...,1.0,1.25,1.5")
    assert len(grid) == 22 and grid[0] == 0.05 and grid[-3:] == [1.0, 1.25, 1.5]
    assert parse_grid("1, 0.5 ,0.5") == [0.5, 1.0]
    for bad, msg in (("0.1,...", "'...'"), ("a,b", "not a number"), ("", "empty"), ("0.2,0.1,...,1", "increasing"),
                     ("nan", "not a finite number")):
        with pytest.raises(QLogError, match=msg):
            parse_grid(bad)


def test_choose_oracle_breaks_ties_towards_bm25():
    assert choose_oracle({0.5: 0.3, 1.0: 0.2}, 1.0) == 0.5
    assert choose_oracle({0.2: 0.3, 0.8: 0.3, 1.0: 0.3}, 1.0) == 1.0  # flat: no change claimed
    assert choose_oracle({0.2: 0.3, 0.8: 0.3, 1.0: 0.1}, 1.0) == 0.8


def _written_run(index, topics_path, path, hits, **model):
    """A run of ``topics_path`` written by the search verb's library (not the sweep), with ``model`` installed."""
    from qlog_pyserini.lucene.batch import write_topics_run

    with QLogSearcher(index) as searcher:
        if model:
            searcher.set_similarity(model.pop("similarity", "qlog"), **model)
        write_topics_run(searcher, read_topics(topics_path), path, "ref", hits=hits, threads=2, progress=False)
    return path


def _recall_of_run(index, run_path, qrels_path, budgets):
    """Recall@K-tokens of a run file, walked over ``{qid: [Hit]}`` with the index's texts."""
    with QLogSearcher(index) as searcher:
        table = recall_at_token_budgets(read_run(run_path), read_qrels(qrels_path), searcher.doc_text, budgets)
    return {str(k): float(v) for k, v in recall_at_budgets(table).items()}


def test_sweep_end_to_end(tmp_path, stdlib_index, stdlib_code, stdlib_qrels):
    out = tmp_path / "sweep"
    settings = SweepSettings(grid=(0.3, 0.7), hits=50, threads=2, resamples=500, budgets=(512, 4096))
    summary = run_sweep(stdlib_index, stdlib_code[1], stdlib_qrels, out, settings, progress=False, name="stdlib-sub",
                        family="stdlib")
    files = {p.name for p in out.iterdir()}
    assert {"sweep.csv", "per_query.csv", "summary.json", "comparison.md", "sweep.png"} <= files
    assert "runs" not in files  # no run file unless asked for: the metrics come from the arrays
    assert (out / "sweep.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    table = pd.read_csv(out / "sweep.csv")
    assert list(table["q"]) == [0.3, 0.7, 1.0]  # q = 1 always added
    # oracle is the best row; BM25 is the q = 1 row and equals trec_eval on a run the search verb writes
    assert summary["oracle_score"] == table["ndcg_cut.10"].max()
    run = _written_run(stdlib_index, stdlib_code[1], tmp_path / "bm25.txt", 50)
    bm25 = trec_eval(stdlib_qrels, run, metrics=["ndcg_cut.10"], per_query=False)
    # computed in process from the arrays; trec_eval prints 4 decimals
    assert f"{summary['baseline_score']:.4f}" == f"{bm25.aggregate['ndcg_cut.10']:.4f}"
    assert summary["baseline_score"] == float(table.loc[table["q"] == 1.0, "ndcg_cut.10"].iloc[0])
    saved = json.loads((out / "summary.json").read_text())
    assert (saved["name"], saved["family"]) == ("stdlib-sub", "stdlib")  # what leave-one-family-out holds out together
    assert saved["docs"] > 300 and saved["queries"] == saved["judged_queries"]
    # Recall@K-tokens from the grid's own passes: BM25's equals the walk over the written run's hits
    r = saved["recall_at_tokens"]["bm25"]
    assert set(r) == {"512", "4096"}
    assert r == pytest.approx(_recall_of_run(stdlib_index, run, stdlib_qrels, (512, 4096)), abs=1e-12)
    assert 0 <= r["512"] <= r["4096"] <= 1  # a larger budget admits at least as much
    assert 0 < r["4096"]
    for budget in ("512", "4096"):  # one column per budget in sweep.csv, the summary's values at BM25 and the oracle
        column = table.set_index("q")[f"recall_tokens.{budget}"]
        assert column[1.0] == r[budget]
        assert column[saved["oracle_value"]] == saved["recall_at_tokens"]["oracle"][budget]
    per_query = pd.read_csv(out / "per_query.csv", index_col=0)
    assert list(per_query.columns) == ["q0.3", "q0.7", "q1", "cv_fold", "cv_q", "cv_score"]
    assert abs(per_query["q1"].mean() - summary["baseline_score"]) < 1e-3
    assert summary["comparison"]["n_queries"] == saved["judged_queries"]


def test_sweep_metrics_equal_trec_eval_on_its_runs(tmp_path, csn_ruby):
    """With keep_runs every point's run is written; trec_eval on it gives the sweep's in-process metrics, and
    the walk over its hits the sweep's Recall@K-tokens."""
    prepared, index = csn_ruby
    out = tmp_path / "sweep"
    settings = SweepSettings(grid=(0.3, 0.7), hits=1000, threads=2, resamples=200, budgets=(512, 8192),
                             keep_runs=True)
    summary = run_sweep(index, prepared / "topics.tsv", prepared / "qrels.txt", out, settings, progress=False)
    table = pd.read_csv(out / "sweep.csv")
    per_query = pd.read_csv(out / "per_query.csv", index_col=0, dtype={0: str})
    assert sorted(p.name for p in (out / "runs").iterdir()) == ["run.q0.3.txt", "run.q0.7.txt", "run.q1.txt"]
    recalls = {}  # q -> the walk over that point's run (each walk parses 1.26M run lines: done once per run)
    for q in (0.3, 0.7, 1.0):
        ev = trec_eval(prepared / "qrels.txt", out / "runs" / f"run.q{q:g}.txt")
        row = table.loc[table["q"] == q].iloc[0]
        for metric, value in ev.aggregate.items():
            assert f"{row[metric]:.4f}" == f"{value:.4f}", (q, metric)
        want = ev.per_query["ndcg_cut.10"]
        got = per_query[f"q{q:g}"].reindex(want.index.astype(str))
        assert [f"{x:.4f}" for x in got] == [f"{x:.4f}" for x in want], q
        recalls[q] = recall = _recall_of_run(index, out / "runs" / f"run.q{q:g}.txt", prepared / "qrels.txt",
                                             (512, 8192))
        assert {b: row[f"recall_tokens.{b}"] for b in recall} == pytest.approx(recall, abs=1e-12), q
    assert summary["recall_at_tokens"]["bm25"] == pytest.approx(recalls[1.0], abs=1e-12)
    assert summary["recall_at_tokens"]["oracle"] == pytest.approx(recalls[summary["oracle_value"]], abs=1e-12)


def test_a_model_without_a_bm25_value_gets_bm25s_recall_from_its_bm25_pass(tmp_path, stdlib_index, stdlib_code,
                                                                          stdlib_qrels):
    """qld has no parameter value at which it is BM25: BM25's metric and Recall@K-tokens come from one BM25
    pass, and equal those of the q-log sweep's q = 1 point (q-log BM25 at q = 1 is BM25)."""
    common = dict(hits=40, threads=2, resamples=100, budgets=(256, 2048))
    qld = run_sweep(stdlib_index, stdlib_code[1], stdlib_qrels, tmp_path / "qld",
                    SweepSettings(grid=(500.0, 1000.0), similarity="qld", **common), progress=False)
    qlog = run_sweep(stdlib_index, stdlib_code[1], stdlib_qrels, tmp_path / "qlog", SweepSettings(grid=(1.0,), **common),
                     progress=False)
    assert qld["baseline_value"] is None and qld["parameter"] == "mu"
    assert qld["baseline_score"] == qlog["baseline_score"]
    assert qld["recall_at_tokens"]["bm25"] == qlog["recall_at_tokens"]["bm25"]
    assert qlog["recall_at_tokens"]["bm25"]["2048"] > 0
    oracle = pd.read_csv(tmp_path / "qld" / "sweep.csv").set_index("mu").loc[qld["oracle_value"]]
    assert qld["recall_at_tokens"]["oracle"] == {b: oracle[f"recall_tokens.{b}"] for b in ("256", "2048")}
    assert not (tmp_path / "qld" / "runs").exists()


def test_a_metric_only_trec_eval_knows_is_read_off_each_points_run(tmp_path, stdlib_index, stdlib_code,
                                                                  stdlib_qrels):
    """bpref is not computed in process: each grid point's run goes to a temporary file for the trec_eval
    binary, whose values the sweep reports; kept runs give trec_eval the same values, and no temporary is left."""
    import tempfile

    before = set(Path(tempfile.gettempdir()).glob("qlog-point-*"))
    common = dict(grid=(0.3, 0.7), metric="bpref", hits=50, threads=2, resamples=100, budgets=(512,))
    run_sweep(stdlib_index, stdlib_code[1], stdlib_qrels, tmp_path / "tmp", SweepSettings(**common), progress=False)
    run_sweep(stdlib_index, stdlib_code[1], stdlib_qrels, tmp_path / "kept", SweepSettings(**common, keep_runs=True),
              progress=False)
    assert set(Path(tempfile.gettempdir()).glob("qlog-point-*")) == before
    table = pd.read_csv(tmp_path / "tmp" / "sweep.csv").set_index("q")
    assert table.equals(pd.read_csv(tmp_path / "kept" / "sweep.csv").set_index("q"))
    for q in (0.3, 0.7, 1.0):
        ev = trec_eval(stdlib_qrels, tmp_path / "kept" / "runs" / f"run.q{q:g}.txt", metrics=["bpref", "ndcg_cut.10"])
        assert table.loc[q, "bpref"] == ev.aggregate["bpref"] and table.loc[q, "ndcg_cut.10"] == ev.aggregate["ndcg_cut.10"]
    assert table["bpref"].nunique() > 1  # the points' runs differ


def test_sweep_refusals(tmp_path, stdlib_index, stdlib_code, stdlib_qrels):
    with pytest.raises(QLogError, match="no parameter to sweep"):
        run_sweep(stdlib_index, stdlib_code[1], stdlib_qrels, tmp_path / "x", SweepSettings(grid=(1.0,), similarity="dph"),
                  progress=False)
    (tmp_path / "full").mkdir()
    (tmp_path / "full" / "f").write_text("x")
    with pytest.raises(QLogError, match="--overwrite"):
        run_sweep(stdlib_index, stdlib_code[1], stdlib_qrels, tmp_path / "full", SweepSettings(grid=(1.0,)), progress=False)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["full"]  # no staging folder left


def test_sweep_cli_auto_adds_the_predicted_q(tmp_path, stdlib_index, stdlib_code, stdlib_qrels):
    from qlog_pyserini.predict.rule import predict_q
    from qlog_pyserini.sweep.__main__ import main

    out = tmp_path / "sweep"
    assert main(["--index", str(stdlib_index), "--topics", str(stdlib_code[1]), "--qrels", str(stdlib_qrels),
                 "--out", str(out), "--q-grid", "0.5,auto", "--hits", "20", "--resamples", "100", "--quiet",
                 "--keep-runs"]) == 0
    saved = json.loads((out / "summary.json").read_text())
    # --keep-runs: one run per point (the label-free q's included) and the per-query q's run
    labels = sorted(f"run.q{v:g}.txt" for v in saved["grid"]) + ["run.auto-query.txt"]
    assert sorted(p.name for p in (out / "runs").iterdir()) == sorted(labels)
    want = predict_q(stdlib_index)
    assert saved["auto"]["q"] == pytest.approx(want.q)
    table = pd.read_csv(out / "sweep.csv")
    row = table.loc[(table["q"] - round(want.q, 10)).abs() < 1e-9]
    assert len(row) == 1 and saved["auto"]["score"] == float(row["ndcg_cut.10"].iloc[0])
    # the reported q is not a candidate of the oracle unless it is on the asked grid
    assert saved["oracle_value"] in (0.5, 1.0)
    assert "provenance" in saved and saved["provenance"]["command"].startswith("python -m qlog_pyserini.sweep")


def test_plot_marks_the_oracle_the_cross_validated_and_the_label_free_q(tmp_path):
    import pandas as pd

    from qlog_pyserini.eval.report import plot_sweep

    table = pd.DataFrame({"q": [0.5, 0.7, 0.85, 1.0], "ndcg_cut.10": [0.30, 0.33, 0.32, 0.29]})
    labels = plot_sweep(table, "q", "ndcg_cut.10", 0.29, 0.7, tmp_path / "s.png", cv=((0.7, 0.5, 0.7), 0.31),
                        auto=(0.85, 0.32))
    assert labels == ["q-log BM25", "BM25 = 0.2900", "oracle q = 0.7: 0.3300",
                      "cross-validated (q = 0.5/0.7): 0.3100", "label-free q = 0.85: 0.3200"]
    assert (tmp_path / "s.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert plot_sweep(table, "q", "ndcg_cut.10", 0.29, 0.7, tmp_path / "t.png")[-1] == "oracle q = 0.7: 0.3300"


def test_sweep_auto_query_run_equals_the_grid_runs_at_each_querys_q(tmp_path, stdlib_index, stdlib_code, stdlib_qrels):
    """The per-query pass (one batch, a q per query) against the grid's passes (one installed q each)."""
    from qlog_pyserini.formats.topics import read_topics
    from qlog_pyserini.lucene.searcher import QLogSearcher
    from qlog_pyserini.predict.per_query import query_doc_freqs
    from qlog_pyserini.predict.query_rule import QueryRuleSettings, query_qs
    from qlog_pyserini.predict.rule import predict_q

    out = tmp_path / "sweep"
    prediction = predict_q(stdlib_index)
    # a steep rule, so that on this small corpus the queries are spread over several q values
    rule = QueryRuleSettings(rare_df=3, gain=12.0, q_floor=0.5)
    settings = SweepSettings(grid=tuple(x / 20 for x in range(10, 21)), hits=30, resamples=100, keep_runs=True)
    summary = run_sweep(stdlib_index, stdlib_code[1], stdlib_qrels, out, settings, progress=False,
                        prediction=prediction, query_rule=rule)
    per_query = pd.read_csv(out / "per_query.csv", index_col=0)
    topics = read_topics(stdlib_code[1])
    with QLogSearcher(stdlib_index) as s:
        want = dict(zip(topics, query_qs(query_doc_freqs(s, list(topics.values())), prediction, rule)))
    assert per_query["auto_query_q"].to_dict() == {q: want[q] for q in per_query.index}
    assert per_query["auto_query_q"].nunique() >= 2
    at_own_q = [per_query.at[qid, f"q{q:g}"] for qid, q in per_query["auto_query_q"].items()]
    # the grid's per-query values are computed in process, the one-pass run's by trec_eval (4 decimals)
    assert per_query["auto_query_score"].tolist() == pytest.approx(at_own_q, abs=5e-5)
    aq = summary["auto_query"]
    assert aq["score"] == pytest.approx(sum(at_own_q) / len(at_own_q), abs=1e-4)
    assert sum(aq["q_distribution"].values()) == len(per_query)
    assert aq["rule"]["gain"] == 12.0 and aq["corpus_q"] == prediction.q
    assert summary["per_query_oracle_score"] >= max(summary["scores"].values())
    assert "auto-query" in (out / "comparison.md").read_text()
    # the in-process scores of the one-pass run are trec_eval's on the run it wrote (kept with keep_runs)
    want = trec_eval(stdlib_qrels, out / "runs" / "run.auto-query.txt", metrics=["ndcg_cut.10"]).per_query
    want.index = want.index.astype(str)
    got = per_query["auto_query_score"].rename(index=str).reindex(want.index)
    assert [f"{x:.4f}" for x in got] == [f"{x:.4f}" for x in want["ndcg_cut.10"]]


def test_tuned_bm25_beside_qlog_equals_separate_sweeps_at_each_k1_b(tmp_path, stdlib_index, stdlib_code, stdlib_qrels):
    """Tuned BM25, the joint (b, q) choice and the engines' default come from the q sweep's own pass; each point's
    per-query scores equal a sweep run with that k1 and b, and each family's choice is the best mean on the other
    folds (ties toward BM25 0.9/0.4), on the folds of q's cross-validation."""
    from qlog_pyserini.sweep.crossval import distance

    common = dict(hits=50, threads=2, resamples=300, budgets=(512,))
    settings = SweepSettings(grid=(0.5,), k1_grid=(0.9, 1.2), b_grid=(0.4, 0.75), **common)
    summary = run_sweep(stdlib_index, stdlib_code[1], stdlib_qrels, tmp_path / "tuned", settings, progress=False)
    per_query = pd.read_csv(tmp_path / "tuned" / "per_query.csv", index_col=0)
    fold = per_query["cv_fold"]
    # every (k1, b, q) point measured by a sweep of its own, as a BM25 reference point or a q grid point
    reference = {}
    for k1 in (0.9, 1.2):
        for b in (0.4, 0.75):
            out = tmp_path / f"k1{k1}-b{b}"
            run_sweep(stdlib_index, stdlib_code[1], stdlib_qrels, out,
                      SweepSettings(grid=(0.5,), k1=k1, b=b, **common), progress=False)
            single = pd.read_csv(out / "per_query.csv", index_col=0)
            reference[(k1, b, 1.0)], reference[(k1, b, 0.5)] = single["q1"], single["q0.5"]
    tuned = summary["tuned"]
    assert tuned["engine"]["score"] == pytest.approx(reference[(1.2, 0.75, 1.0)].mean(), abs=1e-12)
    families = {"bm25": [(k1, b, 1.0) for k1 in (0.9, 1.2) for b in (0.4, 0.75)],
                "qlog": [(0.9, 0.4, 0.5), (0.9, 0.4, 1.0)],
                "joint": [(0.9, b, q) for b in (0.4, 0.75) for q in (0.5, 1.0)]}
    assembled = {}
    for family, points in families.items():
        scores = pd.Series(0.0, index=per_query.index)
        chosen = []
        for f in sorted(fold.unique()):
            train = fold.index[fold != f]
            means = {p: reference[p].loc[train].mean() for p in points}
            best = max(means.values())
            pick = min((p for p in points if means[p] >= best - 1e-12), key=lambda p: (distance(p, (0.9, 0.4, 1.0)), p))
            chosen.append(list(pick))
            scores[fold.index[fold == f]] = reference[pick].loc[fold.index[fold == f]]
        assert tuned[family]["chosen"] == chosen, family
        assert tuned[family]["score"] == pytest.approx(scores.mean(), abs=1e-12), family
        assembled[family] = scores
    assert tuned["qlog"]["score"] == pytest.approx(summary["cv"]["score"], abs=1e-12)  # the same folds as q's CV
    assert tuned["qlog_vs_tuned"]["diff"] == pytest.approx(assembled["qlog"].mean() - assembled["bm25"].mean())
    assert tuned["verdict"] in (tmp_path / "tuned" / "comparison.md").read_text()
    assert "tuned BM25 CV" in summary_line(summary)
    with pytest.raises(QLogError, match="both a k1 grid and a b grid"):
        SweepSettings(grid=(0.5,), k1_grid=(0.9,))
    # the table verb's rows: tuned BM25 beside q-log for the sweep that measured it, nothing for the others
    from qlog_pyserini.table.rows import format_tuned_markdown, load_summary, table_rows

    table = table_rows([summary, load_summary(tmp_path / "k10.9-b0.4")])
    assert table["tuned_cv"].iloc[0] == tuned["bm25"]["score"] and pd.isna(table["tuned_cv"].iloc[1])
    assert table["qlog_vs_tuned_p"].iloc[0] == tuned["qlog_vs_tuned"]["p_randomization"]
    md = format_tuned_markdown(table)
    header, row = markdown_rows(md)  # one row
    assert md.startswith("| corpus") and dict(zip(header, row))["tuned BM25 (CV)"] == f"{tuned['bm25']['score']:.4f}"
    assert format_tuned_markdown(table.iloc[1:]) == ""
