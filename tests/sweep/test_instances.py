"""Instance sets (issue -> files): search --instances against the search verb and Anserini per index, and
sweep --instances against pytrec_eval and a plain Recall@K-tokens walk on the same runs."""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path

import pandas as pd
import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from conftest import run_verb, same_ranking  # noqa: E402
from markdown_tables import has_cells
from oracles import anserini_bm25_searcher, hits_from_anserini

from qlog_pyserini.eval.budget import code_token_count
from qlog_pyserini.formats.instances import read_instance_set
from qlog_pyserini.formats.trec import read_run
from qlog_pyserini.lucene.searcher import QLogSearcher
from qlog_pyserini.predict.files import FilesRule

pytestmark = pytest.mark.jvm

HITS = 40
# small grids: every family has more than one point, the engines' default is (1.2, 0.75)
GRIDS = ("--q-grid", "0.3,0.6", "--k1-grid", "0.9,1.5", "--b-grid", "0.4,1.0")


def _groups(set_dir: Path) -> dict[str, list[dict]]:
    groups: dict[str, list[dict]] = {}
    for line in (set_dir / "instances.jsonl").read_text().splitlines():
        record = json.loads(line)
        groups.setdefault(record["corpus"], []).append(record)
    return groups


def _search(set_dir: Path, index_dir: Path, out: Path, *flags: object) -> dict:
    r = run_verb("search", "--instances", set_dir, "--index", index_dir, "--output", out, "--hits", HITS, *flags)
    assert r.returncode == 0, r.stderr
    return read_run(out)


def test_search_instances_at_q1_is_the_search_verb_and_anserini_on_each_index(instance_set, tmp_path):
    set_dir, index_dir = instance_set
    run = _search(set_dir, index_dir, tmp_path / "run.txt")
    topics = dict(line.split("\t", 1) for line in (set_dir / "topics.tsv").read_text().splitlines())
    assert set(run) == set(topics)
    lines = (tmp_path / "run.txt").read_text().splitlines()
    for key, members in _groups(set_dir).items():
        ids = [m["instance_id"] for m in members]
        sub = tmp_path / f"{key}.tsv"
        sub.write_text("".join(f"{q}\t{topics[q]}\n" for q in ids))
        r = run_verb("search", "--index", index_dir / key, "--topics", sub, "--output", tmp_path / f"{key}.run",
                     "--hits", HITS)
        assert r.returncode == 0, r.stderr
        # the same lines, byte for byte, as the search verb gives on that corpus's own index
        assert [x for x in lines if x.split(" ", 1)[0] in ids] == (tmp_path / f"{key}.run").read_text().splitlines()
        anserini = anserini_bm25_searcher(index_dir / key, 0.9, 0.4)
        for q in ids:
            want = [(h.docid, h.score) for h in hits_from_anserini(anserini.search(topics[q], HITS))]
            assert same_ranking([(h.docid, h.score) for h in run[q]], want, rel=1e-6) is None, q
            assert {d for d in (m["answers"] for m in members if m["instance_id"] == q) for d in d} <= \
                {h.docid for h in hits_from_anserini(anserini.search(topics[q], 1000))}


def test_search_instances_refusals(instance_set, tmp_path):
    set_dir, index_dir = instance_set
    cases = [
        (("--instances", set_dir, "--topics", set_dir / "topics.tsv", "--index", index_dir), "one of them"),
        (("--instances", set_dir, "--index", tmp_path / "none"), "is not a folder"),
        (("--instances", tmp_path / "empty", "--index", index_dir), "has no instances.jsonl"),
    ]
    empty = tmp_path / "empty"
    empty.mkdir()
    (tmp_path / "out").mkdir()
    cases.append((("--instances", set_dir, "--index", empty), "have no index"))
    # indexes built by the index verb alone lack the units index and the path field: refused, never searched empty
    cases.append((("--instances", set_dir, "--index", index_dir, "--units", "max"), "needs the units index"))
    cases.append((("--instances", set_dir, "--index", index_dir, "--path-weight", "1"), "has no field 'path'"))
    for args, message in cases:
        r = run_verb("search", *args, "--output", tmp_path / "out" / "run.txt")
        assert r.returncode == 2 and message in r.stderr and r.stderr.count("\n") == 1, (args, r.stderr)
        assert not (tmp_path / "out" / "run.txt").exists()
    for args, message in ((("--instances", set_dir, "--topics", set_dir / "topics.tsv"), "does not apply"),
                          (("--instances", set_dir, "--similarity", "idf-gamma"), "must be qlog"),
                          (("--instances", set_dir, "--metric", "map"), "not measured on an instance set"),
                          (("--topics", set_dir / "topics.tsv", "--qrels", set_dir / "qrels.txt", "--tune-bm25",
                            "--similarity", "idf-gamma"), "needs --similarity qlog")):
        r = run_verb("sweep", *args, "--index", index_dir, "--out", tmp_path / "out" / "sweep")
        assert r.returncode == 2 and message in r.stderr and r.stderr.count("\n") == 1, (args, r.stderr)
        assert not (tmp_path / "out" / "sweep").exists()
    broken = tmp_path / "broken"
    broken.mkdir()
    for name in ("topics.tsv", "qrels.txt"):
        (broken / name).write_text((set_dir / name).read_text())
    first = json.loads((set_dir / "instances.jsonl").read_text().splitlines()[0])
    first["answers"] = ["Lib/none.py"]
    (broken / "instances.jsonl").write_text(json.dumps(first) + "\n")
    r = run_verb("sweep", "--instances", broken, "--index", index_dir, "--out", tmp_path / "sweep")
    assert r.returncode == 2 and "disagree" in r.stderr and not (tmp_path / "sweep").exists()


def _walk(ranking: list[str], answers: set[str], tokens: dict[str, int], budget: int, every: bool) -> float:
    """Recall@K-tokens of one ranking, written plainly: fill the budget in rank order, stop at the first overflow."""
    used, inside = 0, set()
    for docid in ranking:
        if used + tokens[docid] > budget:
            break
        used += tokens[docid]
        inside.add(docid)
    return float(answers <= inside if every else bool(answers & inside))


@pytest.fixture(scope="module")
def swept(instance_set, tmp_path_factory):
    set_dir, index_dir = instance_set
    out = tmp_path_factory.mktemp("instance-sweep") / "sweep"
    r = run_verb("sweep", "--instances", set_dir, "--index", index_dir, "--out", out, "--hits", HITS,
                 "--resamples", 500, "--budgets", "2000,8000,30000", *GRIDS)
    assert r.returncode == 0, r.stderr
    return out


def test_sweep_points_equal_pytrec_eval_and_a_plain_walk_on_the_search_runs(instance_set, swept, tmp_path):
    import pytrec_eval

    set_dir, index_dir = instance_set
    instance_set_ = read_instance_set(set_dir)
    tokens = {}
    for corpus in (set_dir / "corpora").glob("*.jsonl"):
        for line in corpus.read_text().splitlines():
            doc = json.loads(line)
            tokens[doc["id"]] = code_token_count(doc["contents"])
    per_query = pd.read_csv(swept / "per_query.csv", index_col="qid")
    points = pd.read_csv(swept / "points.csv")
    evaluator = pytrec_eval.RelevanceEvaluator(instance_set_.qrels, {"recip_rank", "ndcg_cut.10", "success.1,5,10"})
    for flags, point, system in (((), (0.9, 0.4, 1.0), "bm25"), (("--k1", 1.2, "--b", 0.75), (1.2, 0.75, 1.0), "engine"),
                                 (("--q", 0.3), (0.9, 0.4, 0.3), None), (("--q", "auto-files"), None, "auto")):
        run = _search(set_dir, index_dir, tmp_path / "run.txt", *flags)
        measured = evaluator.evaluate({q_: {h.docid: h.score for h in hits} for q_, hits in run.items()})
        want = pd.DataFrame({"recip_rank": {q_: m["recip_rank"] for q_, m in measured.items()},
                             "ndcg_cut.10": {q_: m["ndcg_cut_10"] for q_, m in measured.items()},
                             **{f"success.{k}": {q_: m[f"success_{k}"] for q_, m in measured.items()} for k in (1, 5, 10)}})
        for budget in (2000, 8000, 30000):
            for every, column in ((False, "recall_tokens"), (True, "recall_tokens_all")):
                want[f"{column}.{budget}"] = pd.Series(
                    {q_: _walk([h.docid for h in hits], set(instance_set_.qrels[q_]), tokens, budget, every)
                     for q_, hits in run.items()})
        row = points[(points.k1 == point[0]) & (points.b == point[1]) & (points.q == point[2])] if point else None
        assert row is None or len(row) == 1
        for column in want.columns:
            if row is not None:
                assert row[column].iloc[0] == pytest.approx(want[column].mean(), abs=1e-12), (flags, column)
            if system is not None:
                got = per_query[f"{system}:{column}"]
                assert got.to_dict() == pytest.approx(want[column].reindex(got.index).to_dict(), abs=1e-12), column
    # some instance has two answers, and some budget separates "at least one fits" from "every one fits"
    assert (per_query["bm25:recall_tokens.8000"] != per_query["bm25:recall_tokens_all.8000"]).any() or \
        (per_query["bm25:recall_tokens.30000"] != per_query["bm25:recall_tokens_all.30000"]).any()


def test_sweep_cross_validation_holds_repositories_out_and_scores_the_chosen_points(swept):
    summary = json.loads((swept / "summary.json").read_text())
    per_query = pd.read_csv(swept / "per_query.csv", index_col="qid")
    points = pd.read_csv(swept / "points.csv")
    # --q auto-files on an instance set: the files rule, each index's q from its mean file length
    rule = FilesRule()
    assert summary["auto"]["rule"] == {"rule": "files", "q": rule.q, "min_length": rule.min_length}
    assert per_query["auto:q"].to_dict() == {q: rule.q_for(length) for q, length in _mean_lengths(swept).items()}
    assert summary["cv"]["unit"] == "repository" and summary["cv"]["folds"] == 5
    assert per_query.groupby("repo")["fold"].nunique().eq(1).all()  # a repository lies in one fold
    assert per_query["fold"].nunique() == 5
    assert summary["points"] == len(points) == len({(r.k1, r.b, r.q) for r in points.itertuples()})
    per_point = pd.read_csv(swept / "per_point.csv", index_col="qid")
    assert list(per_point.index) == list(per_query.index) and len(per_point.columns) == len(points)
    assert per_point["k1=0.9,b=0.4,q=1"].equals(per_query["bm25:recip_rank"])
    assert per_point["k1=1.2,b=0.75,q=1"].equals(per_query["engine:recip_rank"])
    for r in points.itertuples():
        assert per_point[f"k1={r.k1:g},b={r.b:g},q={r.q:g}"].mean() == pytest.approx(r.recip_rank, abs=1e-12)
    for family, system in (("qlog", "qlog_cv"), ("bm25", "bm25_cv"), ("joint", "joint_cv")):
        chosen = summary["cv"][family]["chosen"]
        for fold, rows in per_query.groupby("fold"):
            k1, b, q = chosen[fold]
            assert rows[f"{system}:point"].eq(f"k1={k1:g},b={b:g},q={q:g}").all()
            if family == "qlog":
                assert (k1, b) == (0.9, 0.4)
            if family == "bm25":
                assert q == 1.0
            if family == "joint":
                assert k1 == 0.9
        assert summary["tables"]["all"][0]["means"][system]["recip_rank"] == pytest.approx(
            per_query[f"{system}:recip_rank"].mean())
    # every language and repository row is a slice of the same per-instance scores
    for kind, column in (("language", "language"), ("repository", "repo")):
        rows = summary["tables"][kind]
        assert sum(r["instances"] for r in rows) == len(per_query)
        for r in rows:
            ids = per_query.index[per_query[column] == r["group"]]
            assert r["means"]["qlog_cv"]["recip_rank"] == pytest.approx(per_query.loc[ids, "qlog_cv:recip_rank"].mean())
    text = (swept / "summary.md").read_text()
    assert summary["verdict"] in text and "tuned BM25" in summary["verdict"]
    assert has_cells(text, "python-net") and has_cells(text, "py/urllib")
    # each group's row: its name and instance count, then the selection metric of every system
    for r in summary["tables"]["language"] + summary["tables"]["repository"]:
        means = [f"{r['means'][s]['recip_rank']:.4f}" for s in summary["systems"]]
        assert has_cells(text, r["group"], str(r["instances"]), *means)


def test_instance_folds_fall_back_to_instances_for_one_repository(instance_set, tmp_path):
    from qlog_pyserini.sweep.baselines import TuningGrids
    from qlog_pyserini.sweep.instances import InstanceSweepSettings, instance_folds

    set_dir, _ = instance_set
    one = tmp_path / "one"
    one.mkdir()
    keep = [line for line in (set_dir / "instances.jsonl").read_text().splitlines() if '"py/email"' in line]
    ids = {json.loads(line)["instance_id"] for line in keep}
    (one / "instances.jsonl").write_text("\n".join(keep) + "\n")
    for name in ("topics.tsv", "qrels.txt"):
        (one / name).write_text("".join(line + "\n" for line in (set_dir / name).read_text().splitlines()
                                        if line.split()[0] in ids))
    settings = InstanceSweepSettings(grids=TuningGrids((0.5,), (0.9,), (0.4,)))
    fold_of, unit = instance_folds(read_instance_set(one), settings)
    assert unit == "instance" and set(fold_of) == ids and len(set(fold_of.values())) == 5


def test_corpus_rule_options_on_an_instance_set_are_refused_not_ignored(instance_set, tmp_path):
    set_dir, index_dir = instance_set
    for verb, out in (("search", ("--output", tmp_path / "run.txt")), ("sweep", ("--out", tmp_path / "sweep"))):
        r = run_verb(verb, "--instances", set_dir, "--index", index_dir, *out, "--auto-c", 3,
                     *(("--q", "auto-files") if verb == "search" else ()))
        assert r.returncode == 2 and r.stderr.startswith("error:") and "--auto-" in r.stderr, (verb, r.stderr)
        assert not (tmp_path / "run.txt").exists() and not (tmp_path / "sweep").exists()


def _mean_lengths(swept: Path) -> dict[str, float]:
    """Each instance's index mean file length, checked against the avgdl Lucene's own BM25 explains."""
    summary = json.loads((swept / "summary.json").read_text())
    instance_set = read_instance_set(summary["instance_set"])
    out = {}
    for key, members in instance_set.by_corpus().items():
        with QLogSearcher(Path(summary["indexes"]) / key) as searcher:
            mean = searcher.mean_length()
            searcher.set_similarity("bm25")
            query = instance_set.topics[members[0].instance_id]
            explained = searcher.explain(query, searcher.search(query, 1)[0].docid)
            avgdl = float(re.search(r"([0-9.]+) = avgdl", explained).group(1))
            assert mean == pytest.approx(avgdl, rel=1e-6) and mean > 0
        out.update({m.instance_id: mean for m in members})
    return out


def test_search_auto_moves_the_indexes_whose_files_reach_the_rules_length_and_leaves_the_others(
        instance_set, tmp_path, monkeypatch):
    import qlog_pyserini.search.run as search_run

    set_dir, index_dir = instance_set
    instance_set_ = read_instance_set(set_dir)
    lengths = {}
    for key in instance_set_.by_corpus():
        with QLogSearcher(index_dir / key) as searcher:
            lengths[key] = searcher.mean_length()
    assert len(set(lengths.values())) > 1
    rule = FilesRule(q=0.3, min_length=(min(lengths.values()) + max(lengths.values())) / 2)
    monkeypatch.setattr(search_run, "files_rule_for", lambda auto: rule)  # the shipped length moves none of these
    auto = _search(set_dir, index_dir, tmp_path / "auto.txt", "--q", "auto-files")
    at = {q: _search(set_dir, index_dir, tmp_path / f"q{q}.txt", "--q", q) for q in (0.3, 1.0)}
    moved = 0
    for key, members in instance_set_.by_corpus().items():
        q = rule.q_for(lengths[key])
        moved += q == 0.3
        for m in members:
            want = [(h.docid, h.score) for h in at[q][m.instance_id]]
            assert same_ranking([(h.docid, h.score) for h in auto[m.instance_id]], want, rel=1e-6) is None
    assert 0 < moved < len(lengths)


def test_grid_values_are_the_grid_passes_and_corpora_on_two_threads_change_nothing(instance_set):
    from qlog_pyserini.search.instances import corpus_indexes
    from qlog_pyserini.sweep.baselines import TuningGrids
    from qlog_pyserini.sweep.instances import ISSUE_METRICS, InstanceSweepSettings, measure_points
    from qlog_pyserini.sweep.measure import PointScorer

    set_dir, index_dir = instance_set
    instances = read_instance_set(set_dir)
    indexes = corpus_indexes(instances, index_dir)
    key, members = max(instances.by_corpus().items(), key=lambda item: len(item[1]))
    ids = [m.instance_id for m in members]
    with QLogSearcher(indexes[key]) as searcher:
        scorer = PointScorer(searcher, {q: instances.topics[q] for q in ids}, {q: instances.qrels[q] for q in ids},
                             instances.qrels_path, ISSUE_METRICS, HITS, 1, every_relevant=True)
        models = [searcher.make_similarity("qlog", k1=k1, b=b, q=q) for k1, b, q in ((0.9, 0.4, 1.0), (1.2, 0.75, 0.3))]
        grid = scorer.score_grid_values(models, budgets=(2000, 30000))
        passes = scorer.score_grid(models, budgets=(2000, 30000))
    for m, result in enumerate(passes):
        assert grid.qids == list(result.metrics.per_query.index)
        assert (grid.values[m] == result.metrics.per_query[grid.metrics].to_numpy()).all()
        assert (grid.recall[m] == result.recall[grid.budgets].to_numpy()).all()
        assert (grid.recall_every[m] == result.recall_every[grid.budgets].to_numpy()).all()
    grids = TuningGrids(q_grid=(0.3, 0.6), k1_grid=(0.9,), b_grid=(0.4, 1.0))
    lengths = {}
    for key in instances.by_corpus():
        with QLogSearcher(indexes[key]) as searcher:
            lengths[key] = searcher.mean_length()
    rule = FilesRule(q=0.3, min_length=(min(lengths.values()) + max(lengths.values())) / 2)  # some indexes move
    measured = [measure_points(instances, indexes, grids.points(),
                               InstanceSweepSettings(grids=grids, hits=HITS, threads=threads, budgets=(2000, 30000),
                                                     auto=rule), progress=False) for threads in (1, 2)]
    assert len(instances.by_corpus()) > 2 and set(measured[0]) == set(measured[1])
    q_of = {i.instance_id: rule.q_for(lengths[key]) for key, members in instances.by_corpus().items() for i in members}
    assert measured[0]["auto_q"]["q"].to_dict() == q_of and len(set(q_of.values())) == 2
    for point, frame in measured[0].items():
        pd.testing.assert_frame_equal(frame, measured[1][point], check_exact=True)
        assert list(frame.index) == [i.instance_id for i in instances.instances]


def test_a_corpus_whose_instances_get_no_hit_measures_zero_as_an_unanswered_instance_does():
    # a configuration may answer none of a corpus's instances (a commit message of stopwords); trec_eval -c counts
    # each as 0, which is what the evaluator gives an unanswered instance beside an answered one
    from qlog_pyserini.formats.trec import Hit
    from qlog_pyserini.sweep.instances import ISSUE_METRICS
    from qlog_pyserini.sweep.localized import measure_runs

    class NoText:
        def doc_text(self, docid):
            raise AssertionError("no hit, no text to count")

    empty = measure_runs({"q1": []}, {"q1": {"a.py": 1}}, NoText(), ISSUE_METRICS, [8192], "rt", "rta")
    beside = measure_runs({"q1": [], "q2": [Hit("a.py", 1.0)]}, {"q1": {"a.py": 1}, "q2": {"a.py": 1}},
                      type("T", (), {"doc_text": lambda self, d: "a.py\nx"})(), ISSUE_METRICS, [8192], "rt", "rta")
    assert empty.loc["q1"].to_dict() == beside.loc["q1"].to_dict()
    assert (empty.loc["q1"] == 0).all() and beside.loc["q2", "recip_rank"] == 1.0


def test_localize_names_spell_the_history_flag():
    from qlog_pyserini.errors import QLogError
    from qlog_pyserini.localize.ranking import Localization
    from qlog_pyserini.localize.run import AUTO
    from qlog_pyserini.sweep.localized import parse_configuration

    how, model = parse_configuration("auto+history")
    assert how.history and how.name() == "fuse+path+evidence+history" and model == AUTO[1]
    assert not parse_configuration("auto")[0].history
    assert parse_configuration("fuse+path+history")[0] == Localization("fuse", 1.0, False, True)
    with pytest.raises(QLogError, match="'auto\\+history'"):
        parse_configuration("auto+evidence")
