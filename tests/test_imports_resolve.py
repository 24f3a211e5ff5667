"""Every import of the package's own modules resolves, those inside functions too: a module moved or a name
renamed must not survive until the one run that reaches a lazy import."""

from __future__ import annotations

import ast
import importlib
from pathlib import Path

import qlog_pyserini

PACKAGE = Path(qlog_pyserini.__file__).parent


def own_imports() -> list[tuple[str, str, str]]:
    """``(where, module, name)`` of every ``from qlog_pyserini... import name`` in the package."""
    found = []
    for path in sorted(PACKAGE.rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ImportFrom) and not node.level and (node.module or "").startswith("qlog_pyserini"):
                where = f"{path.relative_to(PACKAGE.parent)}:{node.lineno}"
                found += [(where, node.module, alias.name) for alias in node.names]
    return found


def test_every_own_import_names_a_module_and_a_name_that_exist():
    missing = []
    for where, module, name in own_imports():
        try:
            imported = importlib.import_module(module)
        except ImportError as e:
            if (e.name or "").startswith("qlog_pyserini"):
                missing.append(f"{where}: {module}")
            continue  # an optional package this machine lacks, or one whose import needs the network
        except Exception:  # noqa: BLE001 (a module whose import starts a service: what it names is checked elsewhere)
            continue
        if not hasattr(imported, name):
            try:
                importlib.import_module(f"{module}.{name}")
            except ImportError:
                missing.append(f"{where}: {module}.{name}")
    assert missing == []


def test_the_scan_sees_imports_inside_functions():
    assert any(m == "qlog_pyserini.sweep.instances" and n == "with_every_gold" for _, m, n in own_imports())


