"""A JVM that cannot start, or runs out of heap, is one ``error:`` line that says what to change, for the
in-process JVM (``search``) and the indexer's (``index``) alike, and leaves no crash file behind."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from conftest import ROOT
from reliability.reliability_helpers import assert_one_error, tree

pytestmark = pytest.mark.jvm

JUNK = ["-Xmx1q", "-XX:+NoSuchOption", "--frob", "-Xss1k", "-version", "-Xmx2m"]


def _verb(name: str, *args, opts: str, cwd: Path):
    import subprocess
    import sys

    env = {**os.environ, "PYTHONPATH": str(ROOT), "QLOG_JAVA_OPTS": opts}
    return subprocess.run([sys.executable, "-m", f"qlog_pyserini.{name}", *map(str, args)], capture_output=True,
                          text=True, env=env, cwd=cwd, timeout=600)


@pytest.fixture
def work(tmp_path: Path) -> Path:
    with open(tmp_path / "corpus.jsonl", "w") as f:
        for i in range(3000):
            f.write(json.dumps({"id": f"d{i}", "contents": f"parse file {i} " + f"w{i % 89} " * 40}) + "\n")
    (tmp_path / "topics.tsv").write_text("q1\tparse file\n")
    return tmp_path


@pytest.mark.parametrize("opts", JUNK)
def test_junk_jvm_options_are_one_error_line_for_search(opts, work, tiny_index):
    before = tree(work)
    proc = _verb("search", "--index", tiny_index, "--topics", work / "topics.tsv", "--output", work / "run.txt",
                 opts=opts, cwd=work)
    assert_one_error(proc, "QLOG_JAVA_OPTS")
    assert tree(work) == before


@pytest.mark.parametrize("opts", JUNK)
def test_junk_jvm_options_are_one_error_line_for_index(opts, work):
    before = tree(work)
    proc = _verb("index", "--corpus", work / "corpus.jsonl", "--index", work / "idx", "--quiet", opts=opts, cwd=work)
    assert_one_error(proc, "QLOG_JAVA_OPTS")
    assert tree(work) == before


def test_an_indexer_out_of_heap_says_so_and_leaves_no_crash_file(work):
    before = tree(work)
    proc = _verb("index", "--corpus", work / "corpus.jsonl", "--index", work / "idx", "--quiet", "--threads", "1",
                 opts="-Xmx8m", cwd=work)
    line = assert_one_error(proc, "ran out of Java heap")
    assert "-Xmx" in line and "QLOG_JAVA_OPTS" in line
    assert tree(work) == before, "a crash file or a half-built index was left behind"
