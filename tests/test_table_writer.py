"""One markdown table writer: :func:`qlog_pyserini.eval.report.markdown_table`. A module that spells a pipe
table's separator row itself (``|---|---:|``) writes tables by hand, and one that calls pandas' ``to_markdown``
or tabulate is a second writer; this finds both in the package and the scripts (docstrings aside: a table
there is documentation, not output)."""

from __future__ import annotations

import ast
import re
from pathlib import Path

from conftest import ROOT

#: the one table writer's module, and every source scanned
WRITER = ROOT / "qlog_pyserini" / "eval" / "report.py"
SOURCES = sorted((ROOT / "qlog_pyserini").rglob("*.py")) + sorted((ROOT / "scripts").glob("*.py"))
#: a separator row's cell as a string literal holds it: |--- or |:-- opening a cell, ---| or ---:| closing one
SEPARATOR = re.compile(r"\|\s*:?-{2,}|-{2,}:?\s*\|")


def _docstrings(tree: ast.AST) -> set[int]:
    """The ids of the string nodes that are a module's, class's or function's docstring."""
    found = set()
    for node in ast.walk(tree):
        if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)) and node.body:
            first = node.body[0]
            if isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant):
                found.add(id(first.value))
    return found


def separator_literals(path: Path) -> list[str]:
    """``path:line`` of each line with a string literal in ``path`` (f-strings' literal parts included) that spells a
    markdown table's separator, docstrings left out."""
    tree = ast.parse(path.read_text(), filename=str(path))
    docstrings = _docstrings(tree)
    lines = {node.lineno for node in ast.walk(tree)
             if isinstance(node, ast.Constant) and isinstance(node.value, str) and id(node) not in docstrings
             and SEPARATOR.search(node.value)}
    return [f"{path}:{line}" for line in sorted(lines)]


def other_writers(path: Path) -> list[str]:
    """``path:line`` of each call of ``to_markdown`` and each import of tabulate in ``path``."""
    lines = set()
    for node in ast.walk(ast.parse(path.read_text(), filename=str(path))):
        if isinstance(node, ast.Attribute) and node.attr == "to_markdown":
            lines.add(node.lineno)
        elif isinstance(node, ast.Import) and any(a.name.split(".")[0] == "tabulate" for a in node.names):
            lines.add(node.lineno)
        elif isinstance(node, ast.ImportFrom) and (node.module or "").split(".")[0] == "tabulate":
            lines.add(node.lineno)
    return [f"{path}:{line}" for line in sorted(lines)]


def test_only_the_report_module_writes_a_markdown_separator_row():
    assert len(SOURCES) > 100 and WRITER in SOURCES
    found = [hit for path in SOURCES if path != WRITER for hit in separator_literals(path)]
    assert not found, "write these tables with qlog_pyserini.eval.report.markdown_table:\n" + "\n".join(found)


def test_only_the_report_module_calls_a_table_library():
    assert len(other_writers(WRITER)) == 1  # the scan sees the writer's own call
    found = [hit for path in SOURCES if path != WRITER for hit in other_writers(path)]
    assert not found, "write these tables with qlog_pyserini.eval.report.markdown_table:\n" + "\n".join(found)


def test_the_scan_finds_a_hand_written_table_and_leaves_docstrings_alone(tmp_path):
    source = tmp_path / "module.py"
    source.write_text('"""| a | b |\n|---|---:|\n"""\n\n\ndef f(n):\n    """|---|"""\n'
                      '    head = "| x |" + "---:|" * n\n    return f"|:--|{n}|"\n')
    assert separator_literals(source) == [f"{source}:8", f"{source}:9"]
    source.write_text('x = "a | b"  # pipes, dashes -- and a --flag are not a table\ny = "--- |"\n')
    assert separator_literals(source) == [f"{source}:2"]


def test_the_scan_finds_a_second_writer(tmp_path):
    source = tmp_path / "module.py"
    source.write_text("import pandas as pd\nfrom tabulate import tabulate\n\n\ndef f(frame):\n"
                      "    return frame.to_markdown(index=False)\n")
    assert other_writers(source) == [f"{source}:2", f"{source}:6"]
