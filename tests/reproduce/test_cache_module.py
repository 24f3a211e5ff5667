"""reproduce's shared modules: the cache holds the cache only (the cached sweep is a module of its own), and no class
name of reproduce's is also one of the search library's."""

from __future__ import annotations

import ast

from conftest import ROOT

PACKAGE = ROOT / "qlog_pyserini"


def _tree(relative: str) -> ast.Module:
    return ast.parse((PACKAGE / relative).read_text())


def _imported_modules(tree: ast.Module) -> set[str]:
    return {node.module for node in ast.walk(tree) if isinstance(node, ast.ImportFrom) and node.module} | \
        {a.name for node in ast.walk(tree) if isinstance(node, ast.Import) for a in node.names}


def _defined(tree: ast.Module, kind) -> set[str]:
    return {node.name for node in tree.body if isinstance(node, kind)}


def test_the_cache_runs_no_sweep_and_the_cached_sweep_has_its_own_module():
    cache = _tree("reproduce/cache.py")
    assert not {m for m in _imported_modules(cache) if m.startswith("qlog_pyserini.sweep")}
    assert "sweep" not in _defined(cache, ast.FunctionDef)
    assert "sweep" in _defined(_tree("reproduce/sweeps.py"), ast.FunctionDef)


def test_search_and_reproduce_name_their_classes_apart():
    search = _defined(_tree("search/run.py"), ast.ClassDef)
    reproduce = _defined(_tree("reproduce/cache.py"), ast.ClassDef)
    assert not search & reproduce, search & reproduce
