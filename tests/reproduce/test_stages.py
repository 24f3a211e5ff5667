"""The stages of ``reproduce`` beyond the sweeps: stage selection, auto-query, bench and engines.

The JVM test runs ``reproduce --quick --stages auto-query,bench`` on tiny inputs and checks the tables against
the verbs they stand for (``table --auto current``, ``lolo --auto-query-only``) and that every table names one
commit and no absolute path; the engines stage's benchmark programs run on a tiny CSN-Ruby of their own.
"""

from __future__ import annotations

import importlib.util
import json
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pandas as pd
import pytest
from conftest import SHARED_DATA, run_verb
from markdown_tables import markdown_rows

from qlog_pyserini.errors import QLogError
from qlog_pyserini.reproduce.__main__ import main
from qlog_pyserini.reproduce.auto_query import MIN_VARIANT_QUERIES
from qlog_pyserini.reproduce.cache import Config
from qlog_pyserini.reproduce.engines import ENGINE_TABLES
from qlog_pyserini.reproduce.pipeline import STAGES, select_stages
from qlog_pyserini.reproduce.report import shown_path
from qlog_pyserini.system.project import PROJECT_ROOT

# the pipeline test runs these; the engines stage at --quick: test_engines_stage_at_quick_runs_the_lucene_rewrite_program
PIPELINE_STAGES = ("auto-query", "bench")
STAGE_NAMES = tuple(STAGES)


def test_select_stages_keeps_run_order_and_rejects_unknown_names():
    assert select_stages() == STAGE_NAMES
    assert select_stages("engines,main") == ("main", "engines")
    assert select_stages(None, "bench,engines") == tuple(n for n in STAGE_NAMES if n not in ("bench", "engines"))
    with pytest.raises(QLogError, match=r"--stages: unknown stage\(s\) nope"):
        select_stages("main,nope")
    with pytest.raises(QLogError, match="no stage left"):
        select_stages("bench", "bench")


def test_unknown_stage_is_refused_before_any_work(tmp_path):
    with pytest.raises(QLogError, match=r"--skip: unknown stage\(s\) sweep"):
        main(["--quick", "--skip", "sweep", "--work", str(tmp_path / "work"), "--out", str(tmp_path / "out")])
    assert not (tmp_path / "work").exists() and not (tmp_path / "out").exists()


def test_every_stage_owns_its_files_and_every_engine_table_is_owned():
    owned = [n for stage in STAGES.values() for n in stage.files]
    assert len(owned) == len(set(owned))
    assert {t.name for t in ENGINE_TABLES} == set(STAGES["engines"].files)
    results = PROJECT_ROOT / "results"
    committed = {p.name for p in results.iterdir() if p.is_file() and not p.name.startswith(".")}
    # every committed result but the narratives (the README, the selection ledger) is some stage's, and listed as
    # reproduce's (so it may rewrite it)
    assert committed - set(owned) == {"README.md", "selection-ledger.md", "provenance.json"}
    marker = json.loads((results / ".qlog-pyserini.json").read_text())
    assert set(marker["entries"]) == committed - {"README.md", "selection-ledger.md"}


def _cfg(tmp_path: Path, quick: bool = True) -> Config:
    return Config(quick=quick, work=tmp_path / "work", out=tmp_path / "out", cache=tmp_path / "cache",
                  shared=tmp_path / "shared", languages=(), queries=1, max_docs=None, grid=[1.0], forms=("lucene",),
                  scaling=(), ablation=(), threads=1, resamples=1, go_target=0)


@pytest.mark.jvm  # the engine tables' commands name the JDK the pom's launcher reads (found, not started)
def test_paths_in_records_are_relative(tmp_path):
    cfg = _cfg(tmp_path)
    assert shown_path(PROJECT_ROOT / "work" / "x.md", cfg) == "work/x.md"
    assert shown_path(PROJECT_ROOT.parent / "shared" / "data", cfg) == "../shared/data"
    assert shown_path(tmp_path / "work" / "engines" / "a.md", cfg) == "WORK/engines/a.md"
    assert shown_path(tmp_path / "shared", cfg) == "SHARED"
    rewrite = next(t for t in ENGINE_TABLES if t.name == "rewrite-bench.md").runs[0]
    data = tmp_path / "work" / "corpora" / "csn-ruby" / "prepared"
    shown = rewrite.shown(tmp_path / "work" / "out.md", data, cfg)
    assert shown.startswith("cd java-similarity && mvn -B -q -pl qlog-similarity -am test-compile "
                            "dependency:build-classpath ")
    assert shown.endswith("-ea -Dqlog.csn=WORK/corpora/csn-ruby/prepared -Dqlog.bench.rounds=1 -cp "
                          '"target/test-classes:target/classes:$(cat target/qlog-bench.classpath)" '
                          "io.qlog.rewrite.RewriteBench WORK/out.md")
    full = rewrite.shown(tmp_path / "out.md", data, _cfg(tmp_path, quick=False))
    assert "-Dqlog.bench.rounds=9" in full
    # the Tantivy table: a Python benchmark program over the same prepared corpus
    tantivy = next(t for t in ENGINE_TABLES if t.name == "tantivy-rewrite-bench.md").runs[0]
    assert tantivy.shown(tmp_path / "work" / "out.md", data, _cfg(tmp_path, quick=False)) == (
        "python -m qlog_pyserini.bench.tantivy_rewrite --corpus WORK/corpora/csn-ruby/prepared/corpus "
        "--topics WORK/corpora/csn-ruby/prepared/topics.tsv --name CSN-Ruby --rounds 15 --output WORK/out.md --quiet")

COMMIT = re.compile(r"\b(?:commit|git) ([0-9a-f]{7,40}(?:\+dirty)?)\b")
ABSOLUTE = re.compile(r"(?<![\w.~])/(?:tmp|work|home|root|usr|opt|var)/")


@pytest.mark.jvm
@pytest.mark.data
def test_quick_new_stages_write_tables_with_one_commit_and_relative_paths(tmp_path, monkeypatch):
    if not (SHARED_DATA / "csn-ruby" / "test.jsonl").is_file():
        pytest.skip("csn-ruby is absent")
    shared = tmp_path / "shared"  # CSN-Ruby only: two families (python-code, csn-ruby), minutes not more
    shared.mkdir()
    (shared / "csn-ruby").symlink_to(SHARED_DATA / "csn-ruby")
    out, work = tmp_path / "out", tmp_path / "work"
    # run from tmp_path with relative folders, as one runs it from the project root with its defaults: the
    # command each table records then names no machine's folders
    monkeypatch.chdir(tmp_path)
    args = ["--quick", "--stages", ",".join(PIPELINE_STAGES), "--languages", "python", "--max-docs", "400",
            "--queries", "150", "--resamples", "200", "--threads", "2", "--work", "work", "--out", "out",
            "--shared", "shared"]
    assert main(args) == 0
    info = json.loads((out / "provenance.json").read_text())
    assert list(info["stages"]) == list(PIPELINE_STAGES)
    assert all(r["seconds"] >= 0 and r["command"].startswith("scripts/reproduce --quick") for r in info["stages"].values())
    assert not (out / "main.md").exists()

    # auto-query: the same rows as the verbs it stands for, run on the stage's sweeps
    # quick's coarse grid lacks the 0.05 steps the per-query rule picks: the stage swept them on its own
    sweeps = [str(work / "quick" / "sweeps-per-query" / f"{name}-lucene") for name in ("python-code", "csn-ruby")]
    assert not (work / "quick" / "sweeps").exists()
    # the query-variant pair: the queries whose text corpus wrote without a leading function name
    from qlog_pyserini.formats.topics import read_topics

    built = work / "quick" / "corpora" / "python-code"
    named = read_topics(built / "prepared" / "topics.tsv")
    unnamed = read_topics(built / "beir" / "queries-without-name.jsonl")
    changed = sum(1 for qid, text in named.items() if unnamed[qid] != text)
    assert changed >= MIN_VARIANT_QUERIES  # 150 stdlib queries: enough start with their function's name
    variants = ["python-code-named", "python-code-unnamed"]
    variant_sweeps = [str(work / "quick" / "sweeps-per-query" / f"{name}-lucene") for name in variants]
    verb_csv, verb_json = tmp_path / "verb.csv", tmp_path / "verb.json"
    assert run_verb("table", "--sweeps", *sweeps, *variant_sweeps, "--auto", "current", "--csv", verb_csv).returncode == 0
    stage = pd.read_csv(out / "auto-query-sweeps.csv")
    pd.testing.assert_frame_equal(stage, pd.read_csv(verb_csv))
    assert list(stage["corpus"]) == ["python-code", "csn-ruby", *variants] and stage["at_auto_query"].notna().all()
    assert list(stage["queries"].iloc[2:]) == [changed] * len(variants)
    assert run_verb("lolo", "--sweeps", *sweeps, "--text", "cacm", "--auto-query-only",
                    "--json", verb_json).returncode == 0
    assert json.loads((out / "auto-query.json").read_text()) == json.loads(verb_json.read_text())

    # bench: one round on the quick pipeline's own code corpus, its check passed
    result = json.loads((out / "bench.json").read_text())
    bench_command = result["reproduce"]["bench_command"]
    assert result["check_passed"] is True and bench_command.startswith("python -m qlog_pyserini.bench --index WORK/")
    assert "--repeats 1" in bench_command and result["reproduce"]["command"].startswith("scripts/reproduce --quick")
    # the verb's own record of its command (its report's Command section) names the folders as the stage does
    report = (out / "bench.md").read_text()
    assert "$TMPDIR" not in report and report.count("python -m qlog_pyserini.bench --index WORK/") == 2

    written = [n for stage_name in PIPELINE_STAGES for n in STAGES[stage_name].files if (out / n).exists()]
    assert {"auto-query-sweeps.md", "auto-query.md", "bench.md", "bench.json"} <= set(written)
    for name in written:
        text = (out / name).read_text()
        commits = set(COMMIT.findall(text))
        if name.endswith(".md"):
            assert len(commits) == 1, (name, commits)
        assert not ABSOLUTE.search(text), (name, ABSOLUTE.search(text))
        assert str(tmp_path) not in text and str(PROJECT_ROOT) not in text, name


def test_every_engine_run_names_a_program_and_options_it_reads():
    """Each run is a program, not a test: a Java class with a main in a module's test sources that reads every
    property the run passes and takes the table's name as an argument, or a Python module whose --help names every
    option the run passes."""
    java = PROJECT_ROOT / "java-similarity"
    shared_helpers = "".join(p.read_text() for p in (java / "qlog-similarity" / "src" / "test").rglob("*.java"))
    for table in ENGINE_TABLES:
        for run in table.runs:
            if isinstance(run.program, str):
                cmd = run.python_command(Path("out.md"), Path("data"), quick=False)
                help_text = subprocess.run([sys.executable, "-m", run.program, "--help"], capture_output=True,
                                           text=True, cwd=PROJECT_ROOT, timeout=120).stdout
                options = [w for w in cmd[3:] if w.startswith("--")]
                assert options and all(re.search(rf"(?<![\w-]){o}\b", help_text) for o in options), (table.name, options)
                continue
            bench = run.java(quick=False)
            cls = bench.main_class.rsplit(".", 1)[1]
            files = list((java / bench.module / "src" / "test").rglob(f"{cls}.java"))
            assert len(files) == 1, (table.name, cls)
            source = files[0].read_text()
            assert "public static void main(String[] args)" in source and not cls.startswith("Test"), table.name
            for arg in bench.args:
                assert f'"{arg}"' in source or f'"{arg}"' in shared_helpers, (table.name, arg)
            for prop in (p.split("=")[0] for p in bench.properties):
                assert f'"{prop}"' in source or f'"{prop}"' in shared_helpers, (table.name, prop)


def test_no_java_test_writes_a_table():
    """The tests of the Maven build assert; only the benchmark programs (a class with a main) write tables."""
    java = PROJECT_ROOT / "java-similarity"
    writes = re.compile(r"Files\.write|Benchmarks\.write|FileWriter|newBufferedWriter|PrintWriter\(")
    offenders = []
    for path in java.glob("*/src/test/java/**/*.java"):
        source = path.read_text()
        if path.name.startswith("Test") or path.name.startswith("IT"):
            assert "public static void main(" not in source, path
            if re.search(r"\.md\b|results/|qlog\.(bench|drift)\.out", source) and writes.search(source):
                offenders.append(str(path.relative_to(java)))
    assert offenders == []
    assert len(list(java.glob("*/src/test/java/**/Test*.java"))) > 20  # the glob reaches the test sources


def test_tables_written_before_a_failing_stage_stay_replaceable(tmp_path, monkeypatch):
    """A run that fails half-way marks what it wrote, so the next run may replace it (not refuse the folder)."""
    from qlog_pyserini.reproduce import pipeline
    from qlog_pyserini.system.outputs import check_results_dir

    cfg = _cfg(tmp_path)

    def half_way(cfg: Config) -> dict:
        (cfg.out / "main.md").write_text("written before the failure\n")
        raise QLogError("a later stage failed")

    monkeypatch.setattr(pipeline, "_run_stages", half_way)
    with pytest.raises(QLogError, match="a later stage failed"):
        pipeline.reproduce(cfg)
    check_results_dir(cfg.out, pipeline.RESULT_FILES)  # would refuse main.md were it not marked ours
    (cfg.out / "bench.md").write_text("someone's notes\n")  # a file the run did not write stays foreign
    with pytest.raises(QLogError, match="bench.md"):
        check_results_dir(cfg.out, pipeline.RESULT_FILES)


def _tiny_csn(folder: Path, n: int = 30) -> Path:
    """A CodeSearchNet-shaped Ruby set (test.jsonl, valid.jsonl) of ``n`` functions, each query its docstring."""
    import random

    rng = random.Random(3)
    words = [f"w{i}" for i in range(25)]
    folder.mkdir(parents=True)
    for name, lo, hi in (("test", 0, n // 2), ("valid", n // 2, n)):
        rows = []
        for i in range(lo, hi):
            doc = rng.sample(words, 3)
            rows.append({"repo": "a/b", "path": f"lib/f{i}.rb", "func_name": f"f{i}", "language": "ruby",
                         "url": f"https://github.com/a/b/blob/0123abc/lib/f{i}.rb#L1-L3",
                         "code": f"def f{i}\n  {' '.join(rng.choices(words, k=8))} {' '.join(reversed(doc))}\nend",
                         "docstring": " ".join(doc), "docstring_tokens": doc})
        (folder / f"{name}.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))
    return folder


def _quick_engine_table(tmp_path: Path, name: str, whole_stage: bool = False) -> tuple[Config, str]:
    """The engine table ``name`` made at --quick on a tiny CSN-Ruby (alone, or by the whole engines stage): the
    config and the table's text, checked to start with its title and to be the only file written to --out."""
    from qlog_pyserini.reproduce import engines

    cfg = _cfg(tmp_path)
    _tiny_csn(cfg.shared / "csn-ruby")
    cfg.out.mkdir()
    table = next(t for t in ENGINE_TABLES if t.name == name)
    if whole_stage:
        engines.run(cfg)
    else:
        engines.engine_table(table, cfg)
    assert sorted(p.name for p in cfg.out.iterdir()) == [name]
    text = (cfg.out / name).read_text()
    assert text.startswith(f"# {table.title}\n")
    return cfg, text


@pytest.mark.jvm  # the provenance names the Java version
@pytest.mark.skipif(importlib.util.find_spec("tantivy") is None, reason="the tantivy package is not installed")
def test_engines_stage_makes_the_tantivy_table_with_its_program(tmp_path):
    """The stage runs the benchmark program (not a test) on CSN-Ruby as the main stage prepares it, one round at
    --quick, and writes the table with the program's command and the provenance."""
    from qlog_pyserini.reproduce.corpora import prepared_labelled

    cfg, text = _quick_engine_table(tmp_path, "tantivy-rewrite-bench.md")
    assert [r[0] for r in markdown_rows(text) if r[0].isdigit()] == ["1"]  # --quick: one round
    assert "CSN-Ruby: 30 documents" in text
    assert ("`python -m qlog_pyserini.bench.tantivy_rewrite --corpus WORK/corpora/csn-ruby/prepared/corpus "
            "--topics WORK/corpora/csn-ruby/prepared/topics.tsv --name CSN-Ruby --rounds 1 "
            "--output WORK/engines/tantivy-rewrite-bench/run-0.md --quiet`") in text
    assert "pytest" not in text and len(set(COMMIT.findall(text))) == 1
    # the corpus is the one the labelled corpora use, prepared once and cached
    assert prepared_labelled("csn-ruby", cfg) == cfg.work / "corpora" / "csn-ruby" / "prepared"


@pytest.mark.jvm
@pytest.mark.skipif(shutil.which("mvn") is None, reason="Maven (mvn) is not on PATH")
def test_engines_stage_at_quick_runs_the_lucene_rewrite_program(tmp_path):
    """--quick makes the one quick table: the stage builds the module's classpath with Maven and runs the Java
    program (not a test) on CSN-Ruby as the main stage prepares it, one timed round, every query counted, the
    commands in the table."""
    cfg, text = _quick_engine_table(tmp_path, "rewrite-bench.md", whole_stage=True)
    rows = re.findall(r"^\| (\d+) \| (\d+) \| ([\d.]+) \| ([\d.]+) \| ([\d.]+) \|$", text, re.M)
    assert [r[0] for r in rows] == ["1"] and all(float(x) > 0 for x in rows[0][1:])
    queries = len((cfg.work / "corpora" / "csn-ruby" / "prepared" / "topics.tsv").read_text().splitlines())
    assert f"CSN-Ruby, 30 documents in one in-memory index, {queries} queries, top 10, q = 0.7." in text
    assert "io.qlog.rewrite.RewriteBench WORK/engines/rewrite-bench/run-0.md`" in text
    assert "-Dqlog.bench.rounds=1" in text and "Test" not in text.split("Command")[1].split("`")[1]
    assert len(set(COMMIT.findall(text))) == 1 and not ABSOLUTE.search(text)
