"""``python -m qlog_pyserini.corpus`` end to end, and its refusals."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import ROOT  # noqa: E402

from qlog_pyserini.corpus.__main__ import main, parse_source
from qlog_pyserini.errors import QLogError
from qlog_pyserini.formats.topics import read_topics
from qlog_pyserini.formats.trec import read_qrels

GO = """package shop

// Add adds two integers and returns the sum.
func Add(a, b int) int { return a + b }

// Sub subtracts the second integer from the first.
func Sub(a, b int) int { return a - b }
"""

PY = '''def area(r):
    """Compute the area of a circle of radius r."""
    return 3.14159 * r * r
'''


def tiny_tree(root: Path) -> Path:
    (root / "shop").mkdir(parents=True)
    (root / "shop" / "calc.go").write_text(GO)
    (root / "shop" / "calc_test.go").write_text(GO)
    (root / "geo.py").write_text(PY)
    return root


def run(*args: str) -> subprocess.CompletedProcess:
    env = {**os.environ, "PYTHONPATH": str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", "")}
    return subprocess.run([sys.executable, "-m", "qlog_pyserini.corpus", *args],
                          capture_output=True, text=True, cwd=ROOT, env=env, timeout=300)


def test_cli_end_to_end(tmp_path):
    src = tiny_tree(tmp_path / "src")
    out = tmp_path / "bench"
    r = run("--source", f"{src}=demo", "--out", str(out), "--queries", "2", "--seed", "1")
    assert r.returncode == 0, r.stderr
    assert r.stdout == ""
    assert "2 queries" in r.stderr.splitlines()[-1]
    corpus = [json.loads(x) for x in (out / "corpus.jsonl").read_text().splitlines()]
    assert [d["_id"] for d in corpus] == ["demo/geo.py:area", "demo/shop/calc.go:Add", "demo/shop/calc.go:Sub"]
    queries = [json.loads(x) for x in (out / "queries.jsonl").read_text().splitlines()]
    assert len(queries) == 2 and all(q["_id"].startswith("q:demo/") for q in queries)
    qrels = (out / "qrels" / "test.tsv").read_text().splitlines()
    assert qrels[0] == "query-id\tcorpus-id\tscore" and len(qrels) == 3
    # and the TREC layout of the same judgments and queries, for eval, sweep and compare
    assert read_qrels(out / "qrels.txt") == {q: {d: int(g)} for q, d, g in (x.split("\t") for x in qrels[1:])}
    assert read_topics(out / "topics.tsv") == {q["_id"]: q["text"] for q in queries}
    manifest = json.loads((out / "manifest.json").read_text())
    assert manifest["sources"][0]["label"] == "demo" and manifest["counts"]["files_skipped_test"] == 1


def test_cli_reports_vendored_folders_and_archives(tmp_path, capsys):
    src = tiny_tree(tmp_path / "src")
    (src / "node_modules" / "m").mkdir(parents=True)
    (src / "node_modules" / "m" / "geo.py").write_text(PY)
    assert main(["--source", str(src), "--out", str(tmp_path / "bench"), "--quiet"]) == 0
    assert "skipped: 1 test file, 1 vendored folder)" in capsys.readouterr().err
    (tmp_path / "src.rar").write_bytes(b"Rar!")
    with pytest.raises(QLogError, match=r"\.jar, \.whl, \.tar\.gz, \.tgz"):
        main(["--source", str(tmp_path / "src.rar"), "--out", str(tmp_path / "b2"), "--quiet"])


def test_cli_language_filter_and_overwrite_in_process(tmp_path, capsys):
    src = tiny_tree(tmp_path / "src")
    out = tmp_path / "bench"
    assert main(["--source", str(src), "--out", str(out), "--language", "python", "--quiet"]) == 0
    corpus = (out / "corpus.jsonl").read_text().splitlines()
    assert [json.loads(x)["_id"] for x in corpus] == ["src/geo.py:area"]  # default label: the base name
    assert "1 documents, 1 queries" in capsys.readouterr().err
    r = run("--source", str(src), "--out", str(out), "--quiet")
    assert r.returncode == 2 and r.stderr.startswith("error: ") and "not empty" in r.stderr
    assert (out / "corpus.jsonl").read_text().splitlines() == corpus  # untouched
    r = run("--source", str(src), "--out", str(out), "--quiet", "--overwrite")
    assert r.returncode == 0, r.stderr
    assert len((out / "corpus.jsonl").read_text().splitlines()) == 3


def test_cli_missing_source_is_one_line_and_leaves_no_folder(tmp_path):
    out = tmp_path / "bench"
    r = run("--source", str(tmp_path / "nowhere"), "--out", str(out))
    assert r.returncode == 2
    assert r.stderr.count("\n") == 1 and r.stderr.startswith("error: source ") and "not found" in r.stderr
    assert list(tmp_path.iterdir()) == []


def test_cli_missing_parent_of_out_is_refused_not_created(tmp_path):
    (tmp_path / "src").mkdir()
    (tmp_path / "src" / "a.py").write_text(PY)
    r = run("--source", str(tmp_path / "src"), "--out", str(tmp_path / "new" / "bench"))
    assert r.returncode == 2 and r.stderr.count("\n") == 1 and "does not exist" in r.stderr
    assert sorted(p.name for p in tmp_path.iterdir()) == ["src"]


def test_cli_rejects_both_query_options(tmp_path):
    # cli.ArgumentParser: a usage error is a QLogError, which run_cli prints as one line with exit 2
    with pytest.raises(QLogError, match="not allowed with"):
        main(["--source", str(tmp_path), "--out", str(tmp_path / "o"), "--queries", "3", "--query-fraction", "0.5"])


def test_parse_source():
    assert parse_source("/src/go=go1.19") == ("/src/go", "go1.19")
    assert parse_source("/src/go") == ("/src/go", None)
    assert parse_source("/a=b/src") == ("/a=b/src", None)  # '=' inside a folder name
    assert parse_source("lib/src.zip=jdk21") == ("lib/src.zip", "jdk21")
