"""The fuzz test: malformed topics, runs, qrels and corpora fed to every verb that reads them.

Seeded and bounded: valid files are mutated in ways that each make them invalid (a missing column,
a score of ``nan``, a byte that is not UTF-8, a duplicate id, broken JSON, an id with whitespace, an
empty file, ...), at random lines. Every verb must answer with exit code 2 and exactly one ``error:``
line, and leave the folder exactly as it found it: no output, no temporary. The verbs run in this
process (``run_cli`` as ``python -m`` runs them) so the whole test takes seconds.

Beside malformed files: a lone surrogate escaped in a corpus line, an output that is one of the inputs
(by name, hard link or symlink), a disk that fills up at a random write (a fault-injecting writer), junk
JVM options, and random JSON from a server where Solr should be, all one ``error:`` line and nothing
left behind; and a byte-order mark before any input file, which changes no output at all.
"""

from __future__ import annotations

import json
import os
import random
import subprocess
import sys
from pathlib import Path
from typing import Callable

import pytest
from reliability.reliability_helpers import tree

from qlog_pyserini.cli import parser as cli

pytestmark = pytest.mark.jvm  # search and sweep open a real (tiny) index
SEED = 1313
CASES_PER_KIND = 6

Mutator = Callable[[list[str], random.Random], list[str]]


def _at(lines: list[str], rng: random.Random) -> int:
    return rng.randrange(len(lines))


def _edit(lines: list[str], i: int, line: str) -> list[str]:
    return lines[:i] + [line] + lines[i + 1:]


def _bad_utf8(lines, rng):  # a byte that is not UTF-8, somewhere inside a line
    i = _at(lines, rng)
    cut = rng.randrange(len(lines[i]) + 1)
    return _edit(lines, i, lines[i][:cut] + "\udcff" + lines[i][cut:])


def _empty(lines, rng):
    return []


def _duplicate_line(lines, rng):
    i = _at(lines, rng)
    return lines[:i + 1] + [lines[i]] + lines[i + 1:]


def _split_fields(line: str, sep: str | None) -> list[str]:
    return line.split(sep) if sep else line.split()


def _field(sep: str | None, index: int, values: list[str]) -> Mutator:
    def mutate(lines, rng):
        i = _at(lines, rng)
        parts = _split_fields(lines[i], sep)
        parts[index] = rng.choice(values)
        return _edit(lines, i, (sep or " ").join(parts))
    return mutate


def _drop_field(sep: str | None) -> Mutator:
    def mutate(lines, rng):
        i = _at(lines, rng)
        parts = _split_fields(lines[i], sep)
        del parts[rng.randrange(len(parts))]
        return _edit(lines, i, (sep or " ").join(parts))
    return mutate


def _json_line(change: Callable[[dict, random.Random], object]) -> Mutator:
    def mutate(lines, rng):
        i = _at(lines, rng)
        return _edit(lines, i, json.dumps(change(json.loads(lines[i]), rng)))
    return mutate


def _cut_json(lines, rng):
    i = _at(lines, rng)
    return _edit(lines, i, lines[i][:rng.randrange(1, len(lines[i]) - 1)])


def _dup_docid(lines, rng):
    i, j = rng.sample(range(len(lines)), 2)
    doc = json.loads(lines[j])
    doc["id"] = json.loads(lines[i])["id"]
    return _edit(lines, j, json.dumps(doc))


MUTATORS: dict[str, list[Mutator]] = {
    "topics": [_bad_utf8, _empty, _duplicate_line, _field("\t", 0, ["q 1", "q\u20031", ""]),
               lambda lines, rng: _edit(lines, _at(lines, rng), "no tab on this line")],
    "run": [_bad_utf8, _empty, _drop_field(None), _field(None, 4, ["nan", "-inf", "inf", "abc", "1.2.3"]),
            _field(None, 3, ["first", "1.5", "x"]),
            lambda lines, rng: _edit(lines, _at(lines, rng), lines[0] + " extra")],
    "qrels": [_bad_utf8, _empty, _drop_field(None), _field(None, 3, ["1.5", "x", "nan"])],
    "corpus": [_bad_utf8, _empty, _cut_json, _dup_docid,
               _json_line(lambda d, rng: {**d, "id": rng.choice(["a b", "a\tb", ""])}),
               _json_line(lambda d, rng: {"id": d["id"]}),
               _json_line(lambda d, rng: [d["id"]]),
               _json_line(lambda d, rng: {**d, rng.choice(["id", "contents"]): rng.choice(["x\ud800", "\udfff y"])})],
}


def _valid(folder: Path) -> dict[str, list[str]]:
    docs = [f"d{i}" for i in range(12)]
    return {
        "topics": [f"q{i}\tparse file {i}" for i in range(8)],
        "run": [f"q{i} Q0 {d} {r + 1} {10 - r}.5 t" for i in range(8) for r, d in enumerate(docs[:5])],
        "qrels": [f"q{i} 0 d{i} 1" for i in range(8)],
        "corpus": [json.dumps({"id": d, "contents": f"parse file {d} words"}) for d in docs],
    }


def _write(path: Path, lines: list[str]) -> Path:
    path.write_bytes("".join(line + "\n" for line in lines).encode("utf-8", "surrogateescape"))
    return path


def _verbs(kind: str, bad: Path, good: dict[str, Path], index: Path, out: Path) -> list[tuple[str, list[str]]]:
    """Every verb that reads a file of ``kind``, reading ``bad`` in its place and writing under ``out``."""
    f = {**{k: str(v) for k, v in good.items()}, kind: str(bad)}
    common_sweep = ["--index", str(index), "--topics", f["topics"], "--qrels", f["qrels"], "--q-grid", "0.5",
                    "--no-auto", "--hits", "5", "--resamples", "10", "--quiet", "--out", str(out / "sweep")]
    return {
        "topics": [("search", ["--index", str(index), "--topics", f["topics"], "--output", str(out / "run.txt")]),
                   ("sweep", common_sweep),
                   ("prepare", ["--format", "trec", "--corpus", f["corpus"], "--topics", f["topics"],
                                "--qrels", f["qrels"], "--out", str(out / "prepared")])],
        "run": [("eval", ["--qrels", f["qrels"], "--run", f["run"], "--output", str(out / "eval.csv")]),
                ("compare", ["--qrels", f["qrels"], "--runs", str(good["run"]), f["run"], "--resamples", "10",
                             "--csv", str(out / "cmp.csv")])],
        "qrels": [("eval", ["--qrels", f["qrels"], "--run", f["run"], "--output", str(out / "eval.csv")]),
                  ("compare", ["--qrels", f["qrels"], "--runs", f["run"], f["run"], "--resamples", "10"]),
                  ("sweep", common_sweep),
                  ("prepare", ["--format", "trec", "--corpus", f["corpus"], "--topics", f["topics"],
                               "--qrels", f["qrels"], "--out", str(out / "prepared")])],
        "corpus": [("index", ["--corpus", f["corpus"], "--index", str(out / "index"), "--quiet"]),
                   ("prepare", ["--format", "trec", "--corpus", f["corpus"], "--topics", f["topics"],
                                "--qrels", f["qrels"], "--out", str(out / "prepared")])],
    }[kind]


def _run_verb(name: str, argv: list[str], capsys) -> tuple[int, str]:
    import importlib

    module = importlib.import_module(f"qlog_pyserini.{name}.__main__")
    capsys.readouterr()
    with pytest.raises(SystemExit) as e:
        cli.run_cli(module.main, argv)
    return e.value.code, capsys.readouterr().err


def _cases() -> list[tuple[str, int]]:
    return [(kind, n) for kind in MUTATORS for n in range(max(CASES_PER_KIND, len(MUTATORS[kind])))]


@pytest.mark.parametrize("kind, n", _cases())
def test_malformed_input_is_one_error_line_and_leaves_nothing(kind, n, tmp_path, tiny_index, capsys):
    rng = random.Random(f"{SEED}-{kind}-{n}")
    valid = _valid(tmp_path)
    inputs = tmp_path / "in"
    inputs.mkdir()
    good = {k: _write(inputs / f"{k}.{'jsonl' if k == 'corpus' else 'tsv' if k == 'topics' else 'txt'}", v)
            for k, v in valid.items()}
    mutate = MUTATORS[kind][n % len(MUTATORS[kind])]
    bad = _write(inputs / f"bad-{kind}.{good[kind].suffix.lstrip('.')}", mutate(list(valid[kind]), rng))
    out = tmp_path / "out"
    out.mkdir()
    for name, argv in _verbs(kind, bad, good, tiny_index, out):
        before = tree(tmp_path)
        code, err = _run_verb(name, argv, capsys)
        lines = [line for line in err.splitlines() if line.strip()]
        errors = [line for line in lines if line.startswith("error: ")]
        assert code == 2, (name, kind, mutate, err[-2000:])
        assert len(errors) == 1 and lines[-1] == errors[0] and "Traceback" not in err, (name, err[-2000:])
        assert tree(tmp_path) == before, (name, kind, "left something behind")


# ---------------------------------------------------------------------------------------------
# Byte-order marks, lone surrogates, outputs that are inputs, full disks, junk JVM options, non-Solr JSON



def _files(tmp_path: Path) -> dict[str, Path]:
    inputs = tmp_path / "in"
    inputs.mkdir()
    return {k: _write(inputs / f"{k}.{'jsonl' if k == 'corpus' else 'tsv' if k == 'topics' else 'txt'}", v)
            for k, v in _valid(tmp_path).items()}


def _file_outputs(good: dict[str, Path], index: Path, out: Path) -> list[tuple[str, list[str], str, list[str]]]:
    """(verb, argv with {OUT} for the output, the output's option, the inputs it reads) of every file writer."""
    g = {k: str(v) for k, v in good.items()}
    return [
        ("search", ["--index", str(index), "--topics", g["topics"], "--output", "{OUT}"], "--output", [g["topics"]]),
        ("eval", ["--qrels", g["qrels"], "--run", g["run"], "--output", "{OUT}"], "--output", [g["qrels"], g["run"]]),
        ("compare", ["--qrels", g["qrels"], "--runs", g["run"], g["run"], "--resamples", "10", "--markdown", "{OUT}"],
         "--markdown", [g["qrels"], g["run"]]),
        ("compare", ["--qrels", g["qrels"], "--runs", g["run"], g["run"], "--resamples", "10", "--csv", "{OUT}"],
         "--csv", [g["qrels"], g["run"]]),
    ]


@pytest.mark.parametrize("n", range(CASES_PER_KIND))
def test_an_output_that_is_an_input_is_one_error_line(n, tmp_path, tiny_index, capsys):
    rng = random.Random(f"{SEED}-output-is-input-{n}")
    good = _files(tmp_path)
    out = tmp_path / "out"
    out.mkdir()
    name, argv, option, inputs = rng.choice(_file_outputs(good, tiny_index, out))
    victim = Path(rng.choice(inputs))
    target = victim
    if rng.random() < 0.5:  # the same file by another name: a hard link, or a symlink
        target = out / f"alias-{n}{victim.suffix}"
        (os.link if rng.random() < 0.5 else os.symlink)(victim, target)
    before = tree(tmp_path)
    code, err = _run_verb(name, [str(target) if a == "{OUT}" else a for a in argv], capsys)
    errors = [line for line in err.splitlines() if line.startswith("error: ")]
    assert code == 2 and len(errors) == 1 and option in errors[0] and "input" in errors[0], (name, err[-2000:])
    assert tree(tmp_path) == before


def _eval_output(name: str, argv: list[str], capsys) -> str:
    code, err = _run_verb(name, argv, capsys)
    assert code == 0, err[-2000:]
    return capsys.readouterr().out


@pytest.mark.parametrize("kind", ["run", "qrels", "topics", "corpus"])
def test_a_byte_order_mark_changes_nothing(kind, tmp_path, tiny_index, capsys):
    """A file that starts with a UTF-8 byte-order mark reads as the same file without it, in every verb."""
    good = _files(tmp_path)
    marked = tmp_path / "in" / f"bom-{good[kind].name}"
    marked.write_bytes(b"\xef\xbb\xbf" + good[kind].read_bytes())
    out = tmp_path / "out"
    out.mkdir()
    for name, argv in _verbs(kind, good[kind], good, tiny_index, out):
        if name in ("sweep", "prepare", "index"):
            continue  # folders; their readers are the ones exercised below
        plain = _run_verb(name, argv, capsys)
        plain_files = {p.name: p.read_bytes() for p in out.iterdir()}
        for p in out.iterdir():
            p.unlink()
        again = _run_verb(name, [str(marked) if a == str(good[kind]) else a for a in argv], capsys)
        assert plain[0] == again[0] == 0, (name, plain[1][-1000:], again[1][-1000:])
        # the same bytes, but for the input's own name where an output records it (compare's CSV)
        named = {p.name: p.read_bytes().replace(str(marked).encode(), str(good[kind]).encode()) for p in out.iterdir()}
        assert named == plain_files, name
        for p in out.iterdir():
            p.unlink()
    from qlog_pyserini.formats.documents import iter_documents
    from qlog_pyserini.formats.topics import read_topics
    from qlog_pyserini.formats.trec import read_qrels, read_run

    reader = {"run": read_run, "qrels": read_qrels, "topics": read_topics,
              "corpus": lambda p: list(iter_documents(p))}[kind]
    assert reader(marked) == reader(good[kind])


@pytest.mark.parametrize("n", range(CASES_PER_KIND))
def test_a_disk_that_fills_up_is_one_error_line_and_leaves_nothing(n, tmp_path, tiny_index, capsys, monkeypatch):
    """A fault-injecting writer: the k-th write of a verb's output (or its flush) fails with ENOSPC, as on a full disk."""
    import errno

    from qlog_pyserini.system import outputs

    rng = random.Random(f"{SEED}-full-disk-{n}")
    good = _files(tmp_path)
    out = tmp_path / "out"
    out.mkdir()
    name, argv, option, _ = rng.choice(_file_outputs(good, tiny_index, out))
    fail_at = rng.randrange(1, 4)
    real_fdopen = outputs.os.fdopen

    class Full:
        def __init__(self, f) -> None:
            self.f, self.writes = f, 0

        def write(self, data):
            self.writes += 1
            if self.writes >= fail_at:
                raise OSError(errno.ENOSPC, "No space left on device")
            return self.f.write(data)

        def flush(self):  # fewer writes than fail_at: the buffered bytes find the disk full at the flush
            raise OSError(errno.ENOSPC, "No space left on device")

        def __getattr__(self, attr):
            return getattr(self.f, attr)

        def __enter__(self):
            return self

        def __exit__(self, *exc):
            return self.f.__exit__(*exc)

    monkeypatch.setattr(outputs.os, "fdopen", lambda *a, **k: Full(real_fdopen(*a, **k)))
    target = out / f"result-{n}.txt"
    before = tree(tmp_path)
    code, err = _run_verb(name, [str(target) if a == "{OUT}" else a for a in argv], capsys)
    errors = [line for line in err.splitlines() if line.startswith("error: ")]
    assert code == 2 and len(errors) == 1 and "no space left" in errors[0] and str(target) in errors[0], err[-2000:]
    assert "Traceback" not in err
    assert tree(tmp_path) == before


JUNK_JVM_OPTIONS = ["-Xmx1q", "-XX:+NoSuchOption", "--frob", "-Xss1k", "-version", "-Xmx2m", "-XX:MaxRAM=frob",
                    "-Xms4g -Xmx1g", "-jar x.jar", "--help", "-XX:NewSize=-1"]


@pytest.mark.parametrize("n", range(3))
def test_junk_jvm_options_are_one_error_line(n, tmp_path):
    from conftest import ROOT
    from reliability.reliability_helpers import assert_one_error

    rng = random.Random(f"{SEED}-jvm-{n}")
    good = _files(tmp_path)
    opts = rng.choice(JUNK_JVM_OPTIONS)
    before = tree(tmp_path)
    env = {**os.environ, "PYTHONPATH": str(ROOT), "QLOG_JAVA_OPTS": opts}
    proc = subprocess.run([sys.executable, "-m", "qlog_pyserini.index", "--corpus", str(good["corpus"]), "--index",
                           str(tmp_path / "idx"), "--quiet"], capture_output=True, text=True, env=env, timeout=600)
    assert_one_error(proc, "QLOG_JAVA_OPTS")
    assert tree(tmp_path) == before


def _random_json(rng: random.Random, depth: int = 0) -> object:
    kinds = ["int", "float", "str", "null", "bool"] + (["list", "dict"] if depth < 3 else [])
    kind = rng.choice(kinds)
    if kind == "list":
        return [_random_json(rng, depth + 1) for _ in range(rng.randrange(3))]
    if kind == "dict":
        keys = ["response", "docs", "id", "score", "responseHeader", "numFound", "error", "x"]
        return {rng.choice(keys): _random_json(rng, depth + 1) for _ in range(rng.randrange(1, 4))}
    return {"int": lambda: rng.randrange(-5, 100), "float": lambda: rng.choice([1.5, float("nan"), -0.0]),
            "str": lambda: rng.choice(["", "d1", "x y"]), "null": lambda: None,
            "bool": lambda: rng.random() < 0.5}[kind]()


@pytest.mark.parametrize("n", range(2 * CASES_PER_KIND))
def test_json_that_is_not_solr_is_one_error_line(n, tmp_path, capsys):
    from reliability.reliability_helpers import answering

    rng = random.Random(f"{SEED}-solr-{n}")
    body = _random_json(rng)
    if n % 2:  # a Solr-shaped answer with one broken document
        body = {"response": {"docs": [{"id": "d1", "score": 1.0}, _random_json(rng)]}}
    good = _files(tmp_path)
    before = tree(tmp_path)
    with answering(json.dumps(body)) as url:
        code, err = _run_verb("solr", ["search", "--solr", url, "--collection", "c", "--topics", str(good["topics"]),
                                       "--output", str(tmp_path / "run.txt")], capsys)
    if code == 0:  # a random answer can be a valid, empty Solr response; then a (empty) run is right
        assert isinstance(body, dict) and (tmp_path / "run.txt").is_file()
        return
    errors = [line for line in err.splitlines() if line.startswith("error: ")]
    assert code == 2 and len(errors) == 1 and "not a Solr response" in errors[0], (body, err[-2000:])
    assert tree(tmp_path) == before
