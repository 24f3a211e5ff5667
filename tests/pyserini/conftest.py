"""Fixtures that run the genuine Pyserini 2.4.0 (``pyserini.search.lucene``, ``from_prebuilt_index``,
``get_topics``) offline, in subprocesses.

Pyserini needs two things this machine lacks, and the tests supply both through
``tests/pyserini/offline/sitecustomize.py``, put first on the subprocesses' PYTHONPATH:
stand-ins for torch & co. (imported by Pyserini's impact searcher, never used by BM25), and a urllib
handler serving Pyserini's network fetches from the fixture folder built here:

- ``castorini/prebuilt-indexes/lucene/other-inverted.json``: a catalogue entry ``qlog-tiny`` for a
  small two-field index (``contents`` and ``title``, document vectors stored), with its real md5,
  size and statistics, and ``msmarco-v1-passage-impact.json`` with the two entries Pyserini's
  catalogue module looks up at import;
- ``downloads/lucene-inverted.qlog-tiny.tar.gz``: that index as Pyserini's tarballs are made;
- ``castorini/eval/topics.json`` and ``topics/topics.qlog-tiny.tsv``: a topic set by name.

The package itself never sees any of this: it calls Pyserini's own functions.
"""

from __future__ import annotations

import hashlib
import json
import os
import random
import shutil
import subprocess
import sys
import tarfile
import textwrap
from pathlib import Path

import pytest
from conftest import ROOT  # noqa: E402

OFFLINE = Path(__file__).resolve().parent / "offline"
PREBUILT = "qlog-tiny"
ARCHIVE = "lucene-inverted.qlog-tiny.20261201"
TOPIC_SET = "qlog-tiny-topics"

WORDS = ([f"w{i}" for i in range(250)] +
         "parse json config file socket upgrade handle request body token stream buffer".split())


def tiny_corpus() -> tuple[list[dict], dict[str, str]]:
    """A deterministic two-field corpus (``title`` and ``contents``) and 40 queries over it."""
    rng = random.Random(7)
    docs = []
    for i in range(500):
        body = " ".join(rng.choice(WORDS) for _ in range(rng.randint(5, 40)))
        title = " ".join(rng.choice(WORDS) for _ in range(rng.randint(1, 4)))
        docs.append({"id": f"d{i:03d}", "title": title, "contents": body})
    topics = {f"q{i}": " ".join(rng.choice(WORDS) for _ in range(rng.randint(2, 5))) for i in range(40)}
    return docs, topics


def pyserini_env(fixture: Path, cache: Path) -> dict[str, str]:
    """The environment of a subprocess that runs real Pyserini offline against ``fixture``."""
    from qlog_pyserini.jvm.toolchain import find_jdk

    return {**os.environ, "PYTHONPATH": os.pathsep.join([str(OFFLINE), str(ROOT)]),
            "QLOG_TEST_PYSERINI_FIXTURE": str(fixture), "PYSERINI_CACHE": str(cache),
            # A Pyserini user points JAVA_HOME at a JDK >= 21; pyserini.pyclass starts the JVM from it.
            "JAVA_HOME": str(find_jdk().home)}


def run_pyserini(code: str, fixture: Path, cache: Path, timeout: int = 600) -> dict:
    """Run ``code`` (which prints one JSON object as its last line) with real Pyserini; its result."""
    proc = subprocess.run([sys.executable, "-c", textwrap.dedent(code)], capture_output=True, text=True,
                          env=pyserini_env(fixture, cache), timeout=timeout, cwd=str(cache))
    assert proc.returncode == 0, proc.stderr[-4000:]
    return json.loads(proc.stdout.strip().splitlines()[-1])


def pyserini_cli(module: str, args: list, fixture: Path, cache: Path) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", module, *map(str, args)], capture_output=True, text=True,
                          env=pyserini_env(fixture, cache), timeout=600, cwd=str(cache))


def _build_index(docs: list[dict], out: Path) -> None:
    from qlog_pyserini.jvm.toolchain import find_jdk, jvm_options, pyserini_jar

    src = out.parent / "json"
    src.mkdir(parents=True)
    with open(src / "docs.jsonl", "w") as f:
        for d in docs:
            f.write(json.dumps(d) + "\n")
    # Anserini's IndexCollection as Pyserini's BEIR "flat" indexes are built: title as its own field.
    subprocess.run([str(find_jdk().java), *jvm_options(), "-cp", str(pyserini_jar()), "io.anserini.index.IndexCollection",
                    "-collection", "JsonCollection", "-generator", "DefaultLuceneDocumentGenerator",
                    "-input", str(src), "-index", str(out), "-threads", "1", "-fields", "title",
                    "-storePositions", "-storeDocvectors", "-storeRaw"],
                   check=True, capture_output=True, timeout=600)


@pytest.fixture(scope="session")
def pyserini_fixture(tmp_path_factory) -> dict:
    """The fixture folder, a local copy of the tiny index, its topics file, and a fresh Pyserini cache."""
    root = tmp_path_factory.mktemp("pyserini-fixture")
    docs, topics = tiny_corpus()
    index = root / "local" / "index"
    _build_index(docs, index)
    topics_file = root / "local" / "topics.tsv"
    topics_file.write_text("".join(f"{q}\t{t}\n" for q, t in topics.items()))

    fixture = root / "fixture"
    lucene = fixture / "castorini" / "prebuilt-indexes" / "lucene"
    lucene.mkdir(parents=True)
    stand_in = {"description": "test stand-in for an entry Pyserini looks up at import", "md5": "0" * 32, "size": 1}
    (lucene / "msmarco-v1-passage-impact.json").write_text(json.dumps([
        {"name": name, "filename": f"{name}.tar.gz", "urls": [f"https://fixture.invalid/{name}.tar.gz"], **stand_in}
        for name in ("msmarco-v1-passage.unicoil", "msmarco-v2-passage.unicoil-0shot")]))

    downloads = fixture / "downloads"
    downloads.mkdir()
    staged = root / "stage" / ARCHIVE
    shutil.copytree(index, staged)
    (staged / "write.lock").unlink(missing_ok=True)
    tarball = downloads / f"{ARCHIVE}.tar.gz"
    with tarfile.open(tarball, "w:gz") as tar:
        tar.add(staged, arcname=ARCHIVE)
    md5 = hashlib.md5(tarball.read_bytes()).hexdigest()

    cache = root / "cache"
    cache.mkdir()
    # The catalogue entry carries the index's real statistics: from_prebuilt_index validates them.
    (lucene / "other-inverted.json").write_text("[]")
    stats = run_pyserini(f"""
        import json
        from pyserini.index.lucene import LuceneIndexReader
        print(json.dumps(LuceneIndexReader({str(index)!r}).stats()))
        """, fixture, cache)
    (lucene / "other-inverted.json").write_text(json.dumps([{
        "name": PREBUILT, "description": "qlog-pyserini test index (two fields, document vectors)",
        "filename": tarball.name, "urls": [f"https://fixture.invalid/{tarball.name}"], "md5": md5,
        "size": tarball.stat().st_size, "documents": stats["documents"],
        "unique_terms": stats["unique_terms"], "total_terms": stats["total_terms"]}]))

    eval_dir = fixture / "castorini" / "eval"
    (eval_dir / "topics").mkdir(parents=True)
    shutil.copy(topics_file, eval_dir / "topics" / "topics.qlog-tiny.tsv")
    (eval_dir / "topics.json").write_text(json.dumps({TOPIC_SET: {
        "path": "topics.qlog-tiny.tsv", "reader_class": "io.anserini.search.topicreader.TsvStringTopicReader"}}))
    (eval_dir / "topics-aliases.json").write_text("{}")
    return {"fixture": fixture, "cache": cache, "index": index, "topics": topics_file, "queries": topics,
            "tarball": tarball, "prebuilt": PREBUILT, "topic_set": TOPIC_SET}


@pytest.fixture(scope="session")
def run_with_pyserini(pyserini_fixture):
    """``run(code)``: run code with real Pyserini offline; it prints one JSON object last, returned parsed."""
    return lambda code: run_pyserini(code, pyserini_fixture["fixture"], pyserini_fixture["cache"])


@pytest.fixture(scope="session")
def cli_with_pyserini(pyserini_fixture):
    """``cli(module, args)``: ``python -m module args`` with real Pyserini offline."""
    return lambda module, args: pyserini_cli(module, args, pyserini_fixture["fixture"], pyserini_fixture["cache"])
