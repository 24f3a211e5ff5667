"""No function of qlog_pyserini runs over 80 lines: a longer one is split into named steps (read from the
sources with ast, as the layering test reads the imports)."""

from __future__ import annotations

import ast

from conftest import ROOT

PACKAGE = ROOT / "qlog_pyserini"
MAX_LINES = 80


def long_functions(package=PACKAGE, limit: int = MAX_LINES) -> list[str]:
    """``path:line name (n lines)`` of every function or method over ``limit`` lines, decorators excluded."""
    found = []
    for path in sorted(package.rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                lines = node.end_lineno - node.lineno + 1
                if lines > limit:
                    found.append(f"{path.relative_to(package.parent)}:{node.lineno} {node.name} ({lines} lines)")
    return found


def test_no_function_is_over_80_lines():
    assert long_functions() == []


def test_the_scan_finds_a_long_function(tmp_path):
    package = tmp_path / "pkg"
    package.mkdir()
    body = "\n".join(f"        x{i} = {i}" for i in range(80))
    (package / "m.py").write_text(f"def short():\n    return 1\n\n\nclass C:\n    def long(self):\n{body}\n")
    assert long_functions(package) == ["pkg/m.py:6 long (81 lines)"]
