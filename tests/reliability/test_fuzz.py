"""The fuzz test: malformed topics, runs, qrels and corpora fed to every verb that reads them.

Seeded and bounded: valid files are mutated in ways that each make them invalid (a missing column,
a score of ``nan``, a byte that is not UTF-8, a duplicate id, broken JSON, an id with whitespace, an
empty file, ...), at random lines. Every verb must answer with exit code 2 and exactly one ``error:``
line, and leave the folder exactly as it found it: no output, no temporary. The verbs run in this
process (``run_cli`` as ``python -m`` runs them) so the whole test takes seconds.
"""

from __future__ import annotations

import json
import random
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
               _json_line(lambda d, rng: [d["id"]])],
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
    return [(kind, n) for kind in MUTATORS for n in range(CASES_PER_KIND)]


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
