"""The `qlog` console script / `python -m qlog_pyserini` dispatcher, and the verb layout it relies on."""

from __future__ import annotations

import ast
import contextlib
import importlib
import io
import re
import subprocess
import sys

import pytest
from conftest import ROOT

from qlog_pyserini.__main__ import VERBS, available_verbs

PACKAGE = ROOT / "qlog_pyserini"


def _run(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "qlog_pyserini", *args], capture_output=True, text=True, cwd=ROOT,
                          timeout=120)


#: the only modules at the package's top level: its core (formula, errors), the public API and the dispatcher
CORE = {"__init__", "__main__", "formula", "errors"}


def test_every_verb_is_a_package_with_its_command_line_in_main():
    # The one rule: verb V is the package qlog_pyserini/V/, its command line V/__main__.py, its library beside it.
    cli = {p.parent.name for p in PACKAGE.glob("*/__main__.py")}
    assert cli <= set(VERBS), cli - set(VERBS)
    assert set(available_verbs()) == cli
    assert set(VERBS) - cli <= {"solr"}  # the only verb an installation may lack
    for verb in cli:
        main = (PACKAGE / verb / "__main__.py").read_text()
        assert "def main(" in main and "run_cli(main)" in main, verb
        library = [p for p in (PACKAGE / verb).glob("*.py") if p.name not in ("__init__.py", "__main__.py")]
        assert library, f"{verb}/ holds only its command line: its library belongs beside it"


def test_top_level_holds_only_the_core():
    assert {p.stem for p in PACKAGE.glob("*.py")} == CORE
    # no command line hides elsewhere: every main() that parses arguments is in a __main__.py
    for path in PACKAGE.rglob("*.py"):
        if path.name != "__main__.py" and path.parent.name != "cli":
            assert "ArgumentParser(" not in path.read_text(), f"{path} builds a command line outside __main__.py"


def test_every_verbs_help_names_the_command_as_typed_and_takes_quiet():
    # every verb's parser comes from cli.parser.verb_parser (reproduce is run as scripts/reproduce)
    for verb in available_verbs():
        out = io.StringIO()
        with contextlib.redirect_stdout(out), pytest.raises(SystemExit) as stop:
            importlib.import_module(f"qlog_pyserini.{verb}.__main__").main(["--help"])
        assert stop.value.code == 0, verb
        command = "scripts/reproduce" if verb == "reproduce" else f"python -m qlog_pyserini.{verb}"
        assert out.getvalue().startswith(f"usage: {command} "), (verb, out.getvalue()[:80])
        assert "--quiet" in out.getvalue(), verb


def test_readme_documents_every_verb():
    readme = (ROOT / "README.md").read_text()
    documented = set(re.findall(r"^\| `(\w+)[ `]", readme, flags=re.MULTILINE))
    assert set(VERBS) - {"solr"} <= documented


def _imports(path):
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.ImportFrom) and node.module:
            yield from ({node.module} | {f"{node.module}.{a.name}" for a in node.names})
        elif isinstance(node, ast.Import):
            yield from (a.name for a in node.names)


def test_library_never_imports_the_command_line_side():
    # dependencies one way: command line -> library -> JVM bridge; a library signature takes values, never a Namespace
    for path in PACKAGE.rglob("*.py"):
        if path.name == "__main__.py" or path.parent.name == "cli":
            continue
        for name in _imports(path):
            assert not (name.endswith(".__main__") or name == "qlog_pyserini.cli" or name.startswith("qlog_pyserini.cli.")), \
                f"{path} imports the command-line module {name}"
        assert "argparse.Namespace" not in path.read_text(), f"{path} takes an argparse.Namespace"


def test_dispatcher_runs_the_verb_module():
    proc = _run("table", "--sweeps", "/nonexistent-sweep")
    assert proc.returncode == 2
    assert proc.stderr.strip().splitlines() == ["error: '/nonexistent-sweep' is not a sweep folder (no summary.json)"]


def test_dispatcher_help_and_unknown_verb():
    ok = _run("--help")
    assert ok.returncode == 0 and all(v in ok.stdout for v in available_verbs())
    bad = _run("cobol")
    assert bad.returncode == 2 and bad.stderr.startswith("error: unknown verb 'cobol'")
    assert _run().returncode == 2
