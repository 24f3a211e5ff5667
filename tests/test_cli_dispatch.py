"""The `qlog` console script / `python -m qlog_pyserini` dispatcher, and the verb layout it relies on."""

from __future__ import annotations

import ast
import re
import subprocess
import sys

from conftest import ROOT

from qlog_pyserini.__main__ import VERBS, available_verbs

PACKAGE = ROOT / "qlog_pyserini"


def _run(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "qlog_pyserini", *args], capture_output=True, text=True, cwd=ROOT,
                          timeout=120)


def test_every_cli_module_is_a_verb_and_every_listed_verb_runs():
    # verb modules: top-level modules and packages that have a command line
    cli = {p.stem for p in PACKAGE.glob("*.py") if "def main(" in p.read_text() and p.stem != "__main__"}
    cli |= {p.parent.name for p in PACKAGE.glob("*/__main__.py")}
    assert cli <= set(VERBS), cli - set(VERBS)
    assert set(available_verbs()) == cli
    assert set(VERBS) - cli <= {"solr"}  # the only verb an installation may lack


def test_readme_documents_every_verb():
    readme = (ROOT / "README.md").read_text()
    documented = set(re.findall(r"^\| `(\w+)[ `]", readme, flags=re.MULTILINE))
    assert set(VERBS) - {"solr"} <= documented


def test_library_never_imports_a_command_line_module():
    cli_modules = {f"qlog_pyserini.{v}" for v in VERBS if (PACKAGE / f"{v}.py").is_file()}
    cli_modules |= {f"qlog_pyserini.{p.parent.name}.__main__" for p in PACKAGE.glob("*/__main__.py")}
    for path in PACKAGE.rglob("*.py"):
        rel = path.relative_to(ROOT).with_suffix("")
        if ".".join(rel.parts) in cli_modules or path.name == "__main__.py":
            continue
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.ImportFrom) and node.module:
                names = {node.module} | {f"{node.module}.{a.name}" for a in node.names}
                assert not names & cli_modules, f"{path} imports a command-line module: {names & cli_modules}"


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
