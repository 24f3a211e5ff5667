"""``index --instances SET``: every corpus of a set indexed in one JVM, equal to what ``index --corpus`` builds."""

from __future__ import annotations

import itertools
import json
import shutil
from pathlib import Path
from typing import Callable

import pytest
from conftest import ROOT, run_verb
from instances.gitrepos import commit, git

from qlog_pyserini.formats.instances import corpus_path, read_instances
from qlog_pyserini.jvm.bridge import jclass
from qlog_pyserini.lucene.fields import batch_search_fields, index_fields
from qlog_pyserini.lucene.searcher import QLogSearcher
from qlog_pyserini.predict.rule import predict_q

pytestmark = pytest.mark.jvm


@pytest.fixture(scope="module")
def code_set(tmp_path_factory) -> Path:
    """An instance set over two trees of a repository made of this project's own Python sources."""
    work = tmp_path_factory.mktemp("code-set")
    repo = work / "repos" / "me__code"
    repo.mkdir(parents=True)
    git(repo, "init", "-q")
    sources = {p.relative_to(ROOT).as_posix(): p.read_text(encoding="utf-8")
               for p in sorted((ROOT / "qlog_pyserini").rglob("*.py"))[:120]}
    first = commit(repo, "import", sources, "2020-01-01T00:00:00Z")
    second = commit(repo, "touch the formula", {"qlog_pyserini/formula.py": sources["qlog_pyserini/formula.py"]
                                                + "\n# q-log note\n"}, "2020-02-01T00:00:00Z")
    third = commit(repo, "touch errors", {"qlog_pyserini/errors.py": sources["qlog_pyserini/errors.py"] + "\n# x\n"},
                   "2020-03-01T00:00:00Z")
    rows = [{"instance_id": f"me__code-{i}", "repo": "me/code", "base_commit": base, "problem_statement": text,
             "patch": git(repo, "diff", base, fix)}
            for i, (base, fix, text) in enumerate([(first, second, "the q logarithm of the idf odds"),
                                                   (second, third, "one error line and exit code 2")])]
    (work / "records.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))
    result = run_verb("prepare", "--format", "swebench", "--input", work / "records.jsonl", "--repos",
                      work / "repos", "--language", "python", "--output", work / "set", "--quiet")
    assert result.returncode == 0, result.stderr
    return work / "set"


def _terms(index: Path) -> dict:
    """Every term of the contents field with its df and total frequency, and the statistics, read with Lucene."""
    reader = jclass("org.apache.lucene.index.DirectoryReader").open(
        jclass("org.apache.lucene.store.FSDirectory").open(jclass("java.io.File")(str(index)).toPath()))
    try:
        terms: dict[str, tuple[int, int]] = {}
        leaves = reader.leaves()
        for i in range(leaves.size()):  # the two indexes may hold different segments: sum over them
            it = leaves.get(i).reader().terms("contents").iterator()
            while (term := it.next()) is not None:
                df, ttf = terms.get(term.utf8ToString(), (0, 0))
                terms[term.utf8ToString()] = (df + it.docFreq(), ttf + it.totalTermFreq())
        return {"documents": reader.numDocs(), "sum_ttf": reader.getSumTotalTermFreq("contents"),
                "sum_df": reader.getSumDocFreq("contents"), "terms": terms}
    finally:
        reader.close()


def test_batch_indexes_equal_the_index_verb_and_are_reused(code_set, tmp_path):
    indexes = tmp_path / "indexes"
    result = run_verb("index", "--instances", code_set, "--index", indexes, "--threads", "2", "--quiet")
    assert result.returncode == 0, result.stderr
    keys = sorted({i.corpus for i in read_instances(code_set)})
    assert len(keys) == 2 and "2 indexes built" in result.stdout
    record = json.loads((indexes / "instances.json").read_text())
    assert record["instances"] == str(code_set.resolve()) and sorted(record["corpora"]) == keys
    for key in keys:
        alone = tmp_path / f"alone-{key}"
        result = run_verb("index", "--corpus", corpus_path(code_set, key), "--index", alone, "--threads", "2",
                          "--quiet")
        assert result.returncode == 0, result.stderr
        ours, theirs = _terms(indexes / key), _terms(alone)
        assert ours == theirs and ours["documents"] == record["corpora"][key]["documents"] > 50
        assert len(ours["terms"]) > 1000
        queries = ["q logarithm idf", "error exit code", "index corpus jsonl threads"]
        runs = [QLogSearcher(str(i), q=1.0).batch_search(queries, ["a", "b", "c"], k=20, threads=1)
                for i in (indexes / key, alone)]  # q = 1: Lucene's BM25
        assert runs[0] == runs[1] and all(len(hits) == 20 for hits in runs[0].values())

    again = run_verb("index", "--instances", code_set, "--index", indexes, "--quiet")
    assert again.returncode == 0 and "0 indexes built (0 documents) and 2 reused" in again.stdout
    # a corpus that changed is rebuilt; the other index is kept as it was
    changed = corpus_path(code_set, keys[0])
    lines = changed.read_text().splitlines(keepends=True)
    changed.write_text("".join(lines[:-1]))
    kept = (indexes / keys[1] / "segments_1").stat().st_mtime_ns
    third = run_verb("index", "--instances", code_set, "--index", indexes, "--quiet")
    assert "1 indexes built" in third.stdout and "1 reused" in third.stdout, third.stderr
    assert _terms(indexes / keys[0])["documents"] == len(lines) - 1
    assert (indexes / keys[1] / "segments_1").stat().st_mtime_ns == kept
    assert sorted(p.name for p in indexes.iterdir()) == sorted([".qlog-pyserini.json", "instances.json", *keys,
                                                                *(k + ".units" for k in keys)])


def test_units_and_path_field(code_set, tmp_path):
    """The same run builds each corpus's units index; both indexes hold a path field beside contents."""
    indexes = tmp_path / "indexes"
    assert run_verb("index", "--instances", code_set, "--index", indexes, "--quiet").returncode == 0
    key = sorted({i.corpus for i in read_instances(code_set)})[0]
    record = json.loads((indexes / "instances.json").read_text())["corpora"][key]
    files = [json.loads(line) for line in corpus_path(code_set, key).read_text().splitlines()]
    with QLogSearcher(str(indexes / key)) as s, QLogSearcher(str(indexes / f"{key}.units")) as u:
        assert index_fields(s) == index_fields(u) == ["contents", "id", "path"]
        assert u.num_docs == record["units"] > 3 * s.num_docs
        # the path field matches a file by a piece of its name the contents' tokenizer keeps whole
        hits = batch_search_fields(s, ["searcher"], ["q"], {"path": 1.0}, k=1000)["q"]
        assert {h.docid for h in hits} == {f["id"] for f in files if "searcher" in f["id"].lower()}
        # every line of a file is in one of its units: the units of formula.py hold its text
        path = "qlog_pyserini/formula.py"
        text = next(f["contents"] for f in files if f["id"] == path).partition("\n")[2]
        unit_hits = u.search("qlog formula logarithm", k=1000)
        ids = [h.docid for h in unit_hits if h.docid.startswith(path + "#")]
        assert ids and all(u.doc_text(i).startswith(path + "\n") for i in ids)
        lines = set()
        for docid in (d for d in _docids(indexes / f"{key}.units") if d.startswith(path + "#")):
            start, end = map(int, docid.rpartition("#")[2].split("-"))
            lines.update(range(start, end + 1))
        rows = text.split("\n")
        assert {i + 1 for i, row in enumerate(rows) if row.strip()} <= lines


def _docids(index: Path) -> list[str]:
    reader = jclass("org.apache.lucene.index.DirectoryReader").open(
        jclass("org.apache.lucene.store.FSDirectory").open(jclass("java.io.File")(str(index)).toPath()))
    try:
        stored = reader.storedFields()
        return [str(stored.document(d).get("id")) for d in range(reader.maxDoc())]
    finally:
        reader.close()


def test_bad_input(code_set, tmp_path):
    def fails(*args, match):
        result = run_verb("index", *args)
        assert result.returncode == 2 and result.stderr.startswith("error: ") and match in result.stderr, result.stderr

    fails("--instances", tmp_path, "--index", tmp_path / "i", match="is not an instance set")
    theirs = tmp_path / "theirs"
    theirs.mkdir()
    (theirs / "notes.txt").write_text("mine")
    fails("--instances", code_set, "--index", theirs, match="refusing")
    fails("--instances", code_set, "--corpus", code_set, "--index", tmp_path / "i", match="not allowed with")
    broken = tmp_path / "broken"
    shutil.copytree(code_set, broken)
    next((broken / "corpora").iterdir()).unlink()
    fails("--instances", broken, "--index", tmp_path / "i", match="lacks corpora/")


def _run(path: Path) -> dict[str, list[tuple[str, str]]]:
    run: dict[str, list[tuple[str, str]]] = {}
    for line in path.read_text().splitlines():
        qid, _, docid, _, score, _ = line.split()
        run.setdefault(qid, []).append((docid, score))
    return run


def _indexed_search(code_set: Path, tmp_path: Path) -> tuple[Path, Callable[..., dict]]:
    """The set indexed by ``index --instances``, and ``search --instances`` over it: (run file name, *flags) -> run."""
    indexes = tmp_path / "indexes"
    assert run_verb("index", "--instances", code_set, "--index", indexes, "--quiet").returncode == 0

    def search(name, *flags):
        result = run_verb("search", "--instances", code_set, "--index", indexes, "--output", tmp_path / name,
                          "--quiet", *flags)
        assert result.returncode == 0, result.stderr
        return _run(tmp_path / name)

    return indexes, search


def test_search_instances_units_path_and_label_free_b(code_set, tmp_path):
    indexes, search = _indexed_search(code_set, tmp_path)
    plain = search("plain.txt")
    assert search("file.txt", "--units", "file") == plain  # the default configuration is today's run
    best = search("max.txt", "--units", "max")
    instances = read_instances(code_set)
    topics = dict(line.split("\t", 1) for line in (code_set / "topics.tsv").read_text().splitlines())
    for instance in instances:
        with QLogSearcher(str(indexes / f"{instance.corpus}.units")) as u:
            top = u.search(topics[instance.instance_id], k=1)[0]
        assert best[instance.instance_id][0] == (top.docid.rpartition("#")[0], f"{top.score:.6f}")
    with_path = search("path.txt", "--path-weight", "1")
    assert with_path != plain and set(with_path) == set(plain)
    # b from the index's verboseness: every document's L_d / |d| read here, averaged, b = 1 - 1/mean
    key = instances[0].corpus
    members = [i.instance_id for i in instances if i.corpus == key]
    with QLogSearcher(str(indexes / key)) as s:
        reader = s.java.reader
        vectors = reader.termVectors()
        ratios = [t.getSumTotalTermFreq() / t.size() for t in (vectors.get(d, "contents") for d in range(reader.maxDoc()))
                  if t is not None and t.size()]
    b = 1 - len(ratios) / sum(ratios)
    va, fixed = search("va.txt", "--b-va"), search("b.txt", "--b", repr(b))
    assert {q: va[q] for q in members} == {q: fixed[q] for q in members} and 0.3 < b < 0.95
    # --auto is its flags spelled out, q the corpus rule of each index (--q auto on an instance set)
    spelled = ("--units", "fuse", "--path-weight", "1", "--evidence", "--b-va", "--q", "auto")
    assert search("auto.txt", "--auto") == search("spelled.txt", *spelled)
    # the rule's constants reach every index: the paper's rule moves these small ones, each to its own predict_q
    paper = {"variant": "hapax-per-token", "c": 7.28, "q_min": 0.05, "shrink_docs": 0, "step": 0}
    moved = search("moved.txt", "--q", "auto", *(x for k, v in paper.items() for x in (f"--auto-{k.replace('_', '-')}",
                                                                                       str(v))))
    qs = {}
    for instance in instances:
        qs.setdefault(instance.corpus, predict_q(indexes / instance.corpus, **paper).q)
    assert any(q < 1 for q in qs.values()), qs
    for corpus, q in qs.items():
        at_q = search(f"q-{corpus}.txt", "--q", repr(q))
        assert {i.instance_id: moved[i.instance_id] for i in instances if i.corpus == corpus} == \
            {i.instance_id: at_q[i.instance_id] for i in instances if i.corpus == corpus}
    failed = run_verb("search", "--topics", code_set / "topics.tsv", "--index", indexes / key, "--output",
                      tmp_path / "x.txt", "--units", "max")
    assert failed.returncode == 2 and "applies to --instances only" in failed.stderr
    for flags, match in ((("--auto", "--q", "0.5"), "--auto chooses"), (("--auto", "--auto-c", "3"), "--auto chooses"),
                         (("--units", "fuse", "--q", "auto-files", "--auto-c", "3"), "--auto-* options set the corpus"),
                         (("--b-va", "--b", "0.3"), "--b-va and --b"),
                         (("--q", "auto", "--rm3"), "--auto and --q auto on an instance set search with (q-log) BM25 "
                                                    "alone"),
                         (("--units", "fuse", "--q", "auto-query"), "auto-query does not combine")):
        failed = run_verb("search", "--instances", code_set, "--index", indexes, "--output", tmp_path / "y.txt", *flags)
        assert failed.returncode == 2 and match in failed.stderr, failed.stderr
        assert failed.stderr.count("error:") == 1 and not (tmp_path / "y.txt").exists()


def _fused_by_hand(*rankings: list[tuple[str, float]], k: int = 60) -> dict[str, float]:
    """Reciprocal-rank fusion written out: ids tied on score share the mean of 1 / (k + r) over their positions."""
    scores: dict[str, float] = {}
    for ranking in rankings:
        position = 1
        for _, group in itertools.groupby(ranking, key=lambda hit: hit[1]):
            ids = [docid for docid, _ in group]
            share = sum(1 / (k + r) for r in range(position, position + len(ids))) / len(ids)
            for docid in ids:
                scores[docid] = scores.get(docid, 0.0) + share
            position += len(ids)
    return scores


def test_search_instances_history_fuses_each_base_commits_recent_files(code_set, tmp_path):
    indexes, search = _indexed_search(code_set, tmp_path)
    history = search("history.txt", "--history")
    topics = dict(line.split("\t", 1) for line in (code_set / "topics.tsv").read_text().splitlines())
    for instance in read_instances(code_set):
        qid = instance.instance_id
        recent = sorted(instance.activity.items(), key=lambda pc: (-pc[1], pc[0]))
        with QLogSearcher(str(indexes / instance.corpus)) as s:  # the file ranking at full precision
            files = [(h.docid, float(f"{h.score:.12g}")) for h in s.search(topics[qid], k=1000)]
        want = _fused_by_hand(files, [(p, float(c)) for p, c in recent])
        got = {docid: float(score) for docid, score in history[qid]}
        # a run's printed scores step down by 1e-6 through a tie so that trec_eval keeps the order: at most 120 here
        assert got == pytest.approx({d: want[d] for d in got}, abs=1.5e-4) and len(got) == len(want)
        assert [d for d, _ in history[qid]] == sorted(want, key=lambda d: (-round(want[d], 12), d))[:len(got)]
    # the second base commit touched the formula once more: it leads the history's ranking there
    second = read_instances(code_set)[1]
    assert max(second.activity, key=second.activity.get) == "qlog_pyserini/formula.py"
    assert second.activity["qlog_pyserini/formula.py"] == 2 and set(second.activity.values()) == {1, 2}
    spelled = ("--units", "fuse", "--path-weight", "1", "--evidence", "--b-va", "--q", "auto", "--history")
    assert search("auto-history.txt", "--auto", "--history") == search("spelled-history.txt", *spelled)


def test_sweep_localize_rows(code_set, tmp_path):
    """sweep --instances --localize: 'file' measured through the localizer equals the grid's BM25 measured by the
    sweep's own scorer; every configuration asked for is a system compared with BM25 and tuned BM25."""
    indexes = tmp_path / "indexes"
    assert run_verb("index", "--instances", code_set, "--index", indexes, "--quiet").returncode == 0
    out = tmp_path / "sweep"
    result = run_verb("sweep", "--instances", code_set, "--index", indexes, "--out", out, "--resamples", 200,
                      "--q-grid", "0.5", "--k1-grid", "0.9", "--b-grid", "0.4,0.75", "--localize", "file",
                      "fuse+path+va", "auto", "--quiet")
    assert result.returncode == 0, result.stderr
    import pandas as pd

    per_query = pd.read_csv(out / "per_query.csv", index_col="qid")
    measures = [c.partition(":")[2] for c in per_query.columns if c.startswith("bm25:")]
    for m in measures:
        assert per_query[f"localize:file:{m}"].tolist() == pytest.approx(per_query[f"bm25:{m}"].tolist()), m
    summary = json.loads((out / "summary.json").read_text())
    assert {"localize:fuse+path+va", "localize:auto"} <= set(summary["systems"])
    assert "localize:auto vs bm25_cv" in summary["comparisons"]
    assert "auto (label-free)" in (out / "summary.md").read_text()
    failed = run_verb("sweep", "--instances", code_set, "--index", indexes, "--out", tmp_path / "x", "--localize",
                      "best+path")
    assert failed.returncode == 2 and "--localize 'best+path'" in failed.stderr
