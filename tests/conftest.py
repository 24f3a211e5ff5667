"""Shared test fixtures. Real collections are read in place from ../shared/data and skipped when absent."""

from __future__ import annotations

import ast
import fcntl
import inspect
import os
import shutil
import subprocess
import sys
from pathlib import Path
from types import ModuleType
from typing import Callable, Sequence

import pytest

ROOT = Path(__file__).resolve().parents[1]
SHARED_DATA = Path(os.environ.get("QLOG_SHARED_DATA", ROOT.parent / "shared" / "data"))

# The JVMs the tests start compile with C1 only, as Lucene's own test runs do (its build's tests.jvmargs): most
# live for seconds, where C2's compiling costs more CPU than its code saves, and the suite is CPU-bound on two
# workers (measured on a 2-core machine, the whole suite with the Solr and reproduce tests runs faster with C1).
# Results do not depend on the compiler (Java's float arithmetic is strict). Every verb the tests start, and the
# JVM inside the test process, reads it through $QLOG_JAVA_OPTS; the SolrCloud launcher is given it directly.
# A value of one's own (QLOG_JAVA_OPTS= for none) wins; tests of the variable itself set their own.
TEST_JVM_OPTIONS = "-XX:TieredStopAtLevel=1"
os.environ.setdefault("QLOG_JAVA_OPTS", TEST_JVM_OPTIONS)


# Tests are marked by what they need, so `pytest -m "not jvm and not data"` runs the pure-Python
# ones on a machine without a JDK (most of their time goes to the command-line contract tests, which
# run verbs as child processes): a test using one of these fixtures is marked here; modules that
# start the JVM otherwise mark themselves with `pytestmark = pytest.mark.jvm`.
JVM_FIXTURES = frozenset({"tiny_index", "stdlib_index", "csn_ruby", "csn_ruby_runs", "instance_set"})


# The suite runs on two pytest-xdist workers (setup.cfg's addopts: -n 2 --dist loadscope), one work unit at a time
# (work_unit), so module fixtures are built once; each worker is a process with session fixtures of its own, and the
# indexes among them are built by whichever worker asks first and reused by the other (built_once). A unit is a test
# file, but the tests under tests/solr/ are one unit, so one worker starts the SolrCloud cluster (a Maven build and
# two Solr nodes, about 20 s) for all the tests taking a solr_url. The units are this suite's own scheduler's
# (pytest_xdist_make_scheduler) rather than xdist_group marks: xdist's --dist loadgroup carries a mark by rewriting
# node ids, which pytest 9.2 ignores (https://github.com/pytest-dev/pytest-xdist/issues/1386), and the tests then
# spread one by one.
SOLR_FOLDER = "tests/solr/"


def work_unit(nodeid: str) -> str:
    """The work unit of the test ``nodeid``: its file, or tests/solr/ for every test there."""
    path = nodeid.split("::", 1)[0]
    return SOLR_FOLDER if path.startswith(SOLR_FOLDER) else path


@pytest.hookimpl(optionalhook=True)  # xdist's hook: absent with -p no:xdist
def pytest_xdist_make_scheduler(config, log):
    """--dist loadscope with work_unit's units (xdist's own loadscope would split a file's classes)."""
    if config.getvalue("dist") != "loadscope":
        return None
    from xdist.scheduler import LoadScopeScheduling

    class GroupScheduling(LoadScopeScheduling):
        def _split_scope(self, nodeid: str) -> str:
            return work_unit(nodeid)

    return GroupScheduling(config, log)


# The longest units (`--durations`: tests/solr/ about 100 s, these files about 100 s each, on a suite of 7.5 minutes
# on two workers) go to the workers first: started last, one of them would keep a worker busy alone at the end while
# the other has nothing left to do.
LONGEST_GROUPS = (SOLR_FOLDER, "tests/pyserini/test_lucene.py", "tests/reproduce/test_stages.py")


def pytest_collection_modifyitems(config, items) -> None:
    for item in items:
        names = set(getattr(item, "fixturenames", ()))
        if "shared_data" in names:
            item.add_marker(pytest.mark.data)
        if names & JVM_FIXTURES:
            item.add_marker(pytest.mark.jvm)
        # the cluster is started once only if every test taking it is in the unit that starts it
        assert "solr_url" not in names or work_unit(item.nodeid) == SOLR_FOLDER, \
            f"{item.nodeid} takes solr_url outside {SOLR_FOLDER}"
    root = Path(__file__).resolve().parent.parent
    moved = [g for g in LONGEST_GROUPS if not (root / g).exists()]
    assert not moved, f"LONGEST_GROUPS names files that are gone: {moved}"
    # a stable sort: every worker collects the same order, as xdist requires, and each unit keeps its own
    first = {group: rank for rank, group in enumerate(LONGEST_GROUPS)}
    items.sort(key=lambda item: first.get(work_unit(item.nodeid), len(first)))


def _jvm_forbidden(*_args, **_kwargs):
    pytest.fail("this test starts Java but is not marked jvm (add @pytest.mark.jvm)", pytrace=False)


@pytest.fixture(autouse=True)
def _only_jvm_tests_start_java(request, monkeypatch) -> None:
    """Keep the markers honest: in a test not marked ``jvm``, finding the JDK or starting the JVM fails it."""
    if request.node.get_closest_marker("jvm") is not None:
        yield
        return
    import sys

    from qlog_pyserini.jvm import bridge, toolchain

    real = {"find_jdk": toolchain.find_jdk, "start_jvm": bridge.start_jvm}
    for name, module in list(sys.modules.items()):
        if name.startswith("qlog_pyserini") and module is not None:
            for attr in real:
                if callable(getattr(module, attr, None)):
                    monkeypatch.setattr(module, attr, _jvm_forbidden)
    yield
    # A module first imported during this test took the forbidding stand-in by name (``from ... import
    # find_jdk``), out of monkeypatch's reach: give it the real function back, or a later jvm test would fail.
    for name, module in list(sys.modules.items()):
        if name.startswith("qlog_pyserini") and module is not None:
            for attr, function in real.items():
                if getattr(module, attr, None) is _jvm_forbidden:
                    setattr(module, attr, function)


@pytest.fixture(autouse=True)
def _not_quiet() -> None:
    """An in-process CLI call with --quiet silences the process; each test starts talkative again."""
    from qlog_pyserini.system import progress

    progress.set_quiet(False)


def run_verb(name: str, *args: object, cwd: Path | None = None,
             timeout: float | None = None) -> subprocess.CompletedProcess:
    """``python -m qlog_pyserini.<name> args...`` run in this process, as ``run_cli`` runs it, output captured.

    What a child process would show is what this returns (exit code, stdout, stderr), without the second or
    two a fresh interpreter spends importing numpy, pandas and scipy: so a test of a verb's refusals or
    messages runs in milliseconds. A crash is not turned into an exit code: its traceback fails the test.
    The real entry point (``python -m`` in a fresh process) keeps its own tests, one per verb at least.
    ``timeout`` (seconds) fails a verb that runs longer, as ``subprocess.run``'s would.
    """
    import contextlib
    import importlib
    import io
    import signal

    from qlog_pyserini.cli.parser import run_cli
    from qlog_pyserini.system import progress

    module = importlib.import_module(f"qlog_pyserini.{name}.__main__")
    argv = [str(a) for a in args]
    out, err = io.StringIO(), io.StringIO()
    handlers = {s: signal.getsignal(s) for s in (signal.SIGTERM, signal.SIGHUP, signal.SIGALRM)}
    here = os.getcwd()

    def timed_out(*_):
        raise TimeoutError(f"python -m qlog_pyserini.{name} ran for more than {timeout} s")

    try:
        if cwd is not None:
            os.chdir(cwd)
        if timeout is not None:
            signal.signal(signal.SIGALRM, timed_out)
            signal.setitimer(signal.ITIMER_REAL, timeout)
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            try:
                run_cli(module.main, argv)
                code = 0
            except SystemExit as e:  # run_cli always ends in sys.exit, as the process would
                code = e.code if isinstance(e.code, int) else 0 if e.code is None else 1
                if not isinstance(e.code, (int, type(None))):
                    print(e.code, file=sys.stderr)
    finally:
        if timeout is not None:
            signal.setitimer(signal.ITIMER_REAL, 0)
        os.chdir(here)
        for s, handler in handlers.items():  # run_cli installs its SIGTERM/SIGHUP handlers; the runner keeps its own
            signal.signal(s, handler)
        progress.set_quiet(False)  # a --quiet run silences the process; the next test starts talkative
    return subprocess.CompletedProcess([sys.executable, "-m", f"qlog_pyserini.{name}", *argv], code,
                                       out.getvalue(), err.getvalue())


def built_once(tmp_path_factory: pytest.TempPathFactory, name: str, build: Callable[[Path], None]) -> Path:
    """The folder ``name`` filled by ``build(folder)`` once per test run, whichever pytest-xdist worker asks first.

    The workers' temporary folders lie in the run's own base folder: the first worker to ask builds there under
    a lock and marks the folder done, the other waits for the lock and reuses it (without xdist the run's base
    folder is this process's). A build that failed or was skipped leaves no mark, so the next worker tries again
    in a clean folder. Tests only read what is built here, as they read any session fixture.
    """
    base = tmp_path_factory.getbasetemp()
    if os.environ.get("PYTEST_XDIST_WORKER"):
        base = base.parent  # the run's folder, above each worker's popen-gwN
    folder, done = base / f"built-{name}", base / f"built-{name}.done"
    with open(base / f"built-{name}.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)  # released when the file closes
        if not done.is_file():
            if folder.exists():
                shutil.rmtree(folder)  # what a failed or skipped build left
            folder.mkdir()
            build(folder)
            done.touch()
    return folder


@pytest.fixture(scope="session")
def shared_data() -> Path:
    """``../shared/data``; tests that use it skip when it is absent."""
    if not SHARED_DATA.is_dir():
        pytest.skip(f"{SHARED_DATA} is absent")
    return SHARED_DATA


# A synthetic corpus whose statistics are known by construction: term "z<df>" occurs in exactly
# df documents, with a known frequency, and every document is shorter than 40 tokens so Lucene's
# one-byte length norm stores its length exactly. Tokens like "z0010" pass Anserini's English
# analyzer unchanged (no stopword, no stemmable suffix).
TINY_N = 60
TINY_DFS = (1, 2, 10, 25, 40)


def tiny_documents() -> dict[str, list[str]]:
    """docid -> analyzed tokens, deterministic."""
    docs: dict[str, list[str]] = {}
    for i in range(TINY_N):
        tokens: list[str] = []
        for df in TINY_DFS:
            if i % (TINY_N // df) == 0 and i // (TINY_N // df) < df:
                tokens += [f"z{df:04d}"] * (1 + (i % 3))
        tokens += [f"f{i:03d}x{j}" for j in range(2 + (i * 7) % 20)]  # filler, unique per document
        docs[f"doc/{i:03d}.go:F{i}"] = tokens
    return docs


@pytest.fixture(scope="session")
def tiny_corpus(tmp_path_factory) -> Path:
    """The synthetic corpus as an Anserini JsonCollection file."""
    import json

    path = tmp_path_factory.mktemp("tiny") / "corpus.jsonl"
    with open(path, "w") as f:
        for docid, tokens in tiny_documents().items():
            f.write(json.dumps({"id": docid, "contents": " ".join(tokens)}) + "\n")
    return path


@pytest.fixture(scope="session")
def tiny_index(tiny_corpus, tmp_path_factory) -> Path:
    """A Lucene index of the synthetic corpus, built by qlog_pyserini.index (Anserini's indexer)."""
    from qlog_pyserini.index import build_index

    return built_once(tmp_path_factory, "tiny-index",
                      lambda folder: build_index(tiny_corpus, folder / "index", threads=1, progress=False)) / "index"


STDLIB_MODULES = ("argparse", "difflib", "shutil", "textwrap", "json.decoder", "json.encoder",
                  "email.message", "http.client", "tarfile", "zipfile", "configparser", "calendar")


@pytest.fixture(scope="session")
def stdlib_code(tmp_path_factory) -> tuple[Path, Path]:
    """A small real code corpus: documented functions of a few standard-library modules.

    Returns (corpus.jsonl, topics.tsv): document = the function's source without its docstring,
    query = the docstring's first line, docid = module:qualname.
    """
    import ast
    import importlib
    import inspect
    import json

    folder = tmp_path_factory.mktemp("stdlib")
    corpus, topics = folder / "corpus.jsonl", folder / "topics.tsv"
    with open(corpus, "w") as c, open(topics, "w") as t:
        for name in STDLIB_MODULES:
            source = inspect.getsource(importlib.import_module(name))
            tree = ast.parse(source)
            for node in ast.walk(tree):
                if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                    doc = ast.get_docstring(node)
                    if not doc or len(doc.split()) < 3:
                        continue
                    body = node.body[1:] or [ast.Pass()]
                    node.body = body
                    docid = f"{name}:{node.name}:{node.lineno}"
                    c.write(json.dumps({"id": docid, "contents": ast.unparse(node)}) + "\n")
                    t.write(f"q-{docid}\t{' '.join(doc.split(chr(10))[0].split())}\n")
    return corpus, topics


@pytest.fixture(scope="session")
def stdlib_index(stdlib_code, tmp_path_factory) -> Path:
    """The stdlib corpus indexed (its documents are the same in every worker: this Python's own modules)."""
    from qlog_pyserini.index import build_index

    return built_once(tmp_path_factory, "stdlib-index",
                      lambda folder: build_index(stdlib_code[0], folder / "index", threads=2, progress=False)) / "index"


# An instance set as prepare writes it, from standard-library packages: each package a "repository" whose files
# (path, a newline, the file's text) are one corpus; an issue is a function's docstring line (or two, from two
# files: an issue whose fix changes two files); its answers are the files holding those functions.
INSTANCE_PACKAGES = {"email": "python", "json": "python", "logging": "python", "http": "python-net",
                     "urllib": "python-net"}


def write_instance_set(folder: Path) -> Path:
    """The instance set ``folder/set`` (instances.jsonl, topics.tsv, qrels.txt, corpora/<key>.jsonl)."""
    import ast
    import hashlib
    import importlib
    import json

    root = folder / "set"
    (root / "corpora").mkdir(parents=True)
    instances, topics, qrels = [], [], []
    for package, language in INSTANCE_PACKAGES.items():
        base = Path(importlib.import_module(package).__file__).parent
        files = sorted(base.glob("*.py"))
        texts = {f"Lib/{package}/{f.name}": f.read_text(encoding="utf-8") for f in files}
        key = hashlib.sha1("".join(sorted(texts)).encode()).hexdigest()[:12]
        with open(root / "corpora" / f"{key}.jsonl", "w", encoding="utf-8") as c:
            for path, text in texts.items():
                c.write(json.dumps({"id": path, "contents": path + "\n" + text}) + "\n")
        documented = []
        for path, text in texts.items():
            for node in ast.walk(ast.parse(text)):
                if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                    doc = ast.get_docstring(node)
                    if doc and len(doc.split()) >= 4:
                        documented.append((path, node.lineno, " ".join(doc.split("\n")[0].split())))
        documented.sort()
        picked = [documented[i * len(documented) // 5] for i in range(5)]
        two = [documented[0], next(d for d in reversed(documented) if d[0] != documented[0][0])] \
            if len(texts) > 1 else []
        cases = [([p], text) for p, _, text in picked]
        if two:
            cases.append(([two[0][0], two[1][0]], f"{two[0][2]} {two[1][2]}"))
        for n, (answers, text) in enumerate(cases):
            iid = f"py__{package}-{n}"
            instances.append({"instance_id": iid, "repo": f"py/{package}", "language": language,
                              "base_commit": "0" * 40, "corpus": key, "answers": sorted(set(answers))})
            topics.append(f"{iid}\t{text}\n")
            qrels += [f"{iid} 0 {a} 1\n" for a in sorted(set(answers))]
    (root / "instances.jsonl").write_text("".join(json.dumps(i) + "\n" for i in instances), encoding="utf-8")
    (root / "topics.tsv").write_text("".join(topics), encoding="utf-8")
    (root / "qrels.txt").write_text("".join(qrels), encoding="utf-8")
    return root


@pytest.fixture(scope="session")
def instance_set(tmp_path_factory) -> tuple[Path, Path]:
    """(SET, DIR): a small instance set of five repositories and its indexes, DIR/<key>/ built by the index verb's
    library from SET/corpora/<key>.jsonl."""
    from qlog_pyserini.index import build_index

    def build(folder: Path) -> None:
        root = write_instance_set(folder)
        (folder / "indexes").mkdir()
        for corpus in sorted((root / "corpora").glob("*.jsonl")):
            build_index(corpus, folder / "indexes" / corpus.stem, threads=1, progress=False)

    folder = built_once(tmp_path_factory, "instance-set", build)
    return folder / "set", folder / "indexes"


@pytest.fixture(scope="session")
def stdlib_qrels(stdlib_code) -> Path:
    """TREC qrels for the stdlib fixture: each query's own function is relevant."""
    topics = stdlib_code[1]
    path = topics.parent / "qrels.txt"
    with open(topics) as t, open(path, "w") as q:
        for line in t:
            qid = line.split("\t", 1)[0]
            q.write(f"{qid} 0 {qid[2:]} 1\n")
    return path


@pytest.fixture(scope="session")
def csn_ruby(shared_data, tmp_path_factory) -> tuple[Path, Path]:
    """CodeSearchNet Ruby (test + valid) prepared and indexed once per session: (prepared folder, index)."""
    from qlog_pyserini.lucene.indexer import build_index
    from qlog_pyserini.prepare.datasets import prepare_csn

    folder = shared_data / "csn-ruby"
    if not (folder / "test.jsonl").is_file():
        pytest.skip("csn-ruby is absent")

    def build(work: Path) -> None:
        prepared = prepare_csn([folder / "test.jsonl", folder / "valid.jsonl"], work / "data")
        build_index(prepared.out / "corpus", work / "index", threads=2, progress=False)

    work = built_once(tmp_path_factory, "csn-ruby", build)
    return work / "data", work / "index"


#: the q values the CSN-Ruby runs are searched at: BM25 itself, the headline q, and a small q whose large
#: scores are closer than a float's step when written with 6 decimals
CSN_RUBY_QS = (1.0, 0.7, 0.3)


@pytest.fixture(scope="session")
def csn_ruby_runs(csn_ruby, tmp_path_factory) -> dict[float, Path]:
    """CSN-Ruby's topics searched once per session at each q of ``CSN_RUBY_QS`` (1000 hits): q -> TREC run file.

    Several evaluations read the same runs (our metrics, trec_eval, pytrec_eval, ir_measures, ranx); each
    search of 1261 topics to depth 1000 takes seconds, so it is done once. Each file is checked here to hold
    the searcher's ranking in its order, so a test reading the file in rank order evaluates that ranking.
    """
    from qlog_pyserini.formats.topics import read_topics
    from qlog_pyserini.formats.trec import write_run
    from qlog_pyserini.lucene.batch import search_topics
    from qlog_pyserini.lucene.searcher import QLogSearcher

    data, index = csn_ruby

    def build(folder: Path) -> None:
        topics = read_topics(data / "topics.tsv")
        with QLogSearcher(index) as searcher:
            for q in CSN_RUBY_QS:
                searcher.set_q(q)
                results = search_topics(searcher, topics, hits=1000, threads=2, progress=False)
                run = folder / f"run.q{q}.txt"
                write_run(run, results, tag=f"q{q}")
                # the file's docids in line order, each line's rank its place in its query (read_run would take
                # seconds on these 1.26M lines; a split is enough for this check)
                written: dict[str, list[str]] = {}
                with open(run, encoding="utf-8") as f:
                    for line in f:
                        qid, _, docid, rank = line.split(" ", 4)[:4]
                        docids = written.setdefault(qid, [])
                        docids.append(docid)
                        assert int(rank) == len(docids), f"run at q = {q}: {qid} {docid} at rank {rank}"
                assert all(written.get(qid, []) == [h.docid for h in hits]
                           for qid, hits in results.items()), f"the run file at q = {q} is not the searcher's ranking"
                assert set(written) <= set(results)

    folder = built_once(tmp_path_factory, "csn-ruby-runs", build)
    return {q: folder / f"run.q{q}.txt" for q in CSN_RUBY_QS}


def stdlib_functions(modules: Sequence[ModuleType], queries: int) -> tuple[list[str], list[str]]:
    """The functions of ``modules`` as a small code corpus: each function's code without its docstring, and the
    first line of the first ``queries`` docstrings of three words or more as queries."""
    texts, lines = [], []
    for module in modules:
        for node in ast.walk(ast.parse(inspect.getsource(module))):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                doc = ast.get_docstring(node)
                node.body = node.body[1:] if doc else node.body
                texts.append(ast.unparse(node) if node.body else node.name)
                if doc and len(doc.split()) >= 3:
                    lines.append(doc.splitlines()[0])
    return texts, lines[:queries]


def same_ranking(got: list[tuple[str, float]], want: list[tuple[str, float]], rel: float = 0.0,
                 tol: float = 1e-9) -> str | None:
    """None when the scores agree at every rank within ``rel`` (relative) plus ``tol`` (absolute) and the ids
    agree at every rank whose score is not tied with a neighbour's (float rounding may reorder only equal
    scores); else what differs."""
    if len(got) != len(want):
        return f"{len(got)} hits vs {len(want)}"
    close = lambda a, b: abs(a - b) <= rel * max(abs(a), abs(b)) + tol  # noqa: E731
    for i, ((gid, gs), (wid, ws)) in enumerate(zip(got, want)):
        if not close(gs, ws):
            return f"rank {i + 1}: score {gs} vs {ws}"
        tied = (i > 0 and close(want[i - 1][1], ws)) or (i + 1 < len(want) and close(want[i + 1][1], ws)) \
            or i + 1 == len(want)
        if gid != wid and not tied:
            return f"rank {i + 1}: {gid} vs {wid}"
    return None
