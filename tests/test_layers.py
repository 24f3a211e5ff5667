"""The packages of qlog_pyserini form layers: every import goes to the same layer or a lower one, and no
packages import each other in a circle. The graph is read from the sources (every import statement, those
inside functions too), as Lucene's modules are checked to depend downward only."""

from __future__ import annotations

import ast
from pathlib import Path

from conftest import ROOT

PACKAGE = ROOT / "qlog_pyserini"

#: the package's top-level modules that are not a layer's package: the public API and the dispatcher
ROOT_NODE = "qlog_pyserini"

#: each package (or top-level module) of qlog_pyserini and its layer, lowest first
LAYERS = {
    # the base: errors, the formula, files and processes, formats, the JDK and the jar, the shared parser
    "base": {"errors", "formula", "system", "formats", "jvm", "cli"},
    # Lucene: the searcher, similarities, the indexer and index checks, analyzers, index statistics
    "core": {"analysis", "lucene", "stats"},
    # what the experiments are about: evaluation, the label-free q, instance sets, corpora, dataset adapters
    "domain": {"localize", "eval", "predict", "instances", "corpus", "prepare", "integrations"},
    # verbs and orchestration over them
    "verbs": {"locate", "search", "index", "build", "compare", "sweep", "table", "lolo", "bench", "demo", "fetch",
              "reproduce", "rewrite", "solr", "pyterrier", ROOT_NODE},
}
ORDER = list(LAYERS)
#: the bottom of the base, which system builds on (system reads no Java: the JDK's part of provenance is jvm's)
BOTTOM = {"errors", "formula"}


def _node(parts: list[str], package: Path) -> str:
    """The layer node of a module given as its dotted parts under the package: its top-level package or module."""
    if not parts or parts[0] in ("__init__", "__main__"):
        return ROOT_NODE
    return parts[0] if (package / parts[0]).is_dir() or (package / f"{parts[0]}.py").is_file() else ROOT_NODE


def package_edges(package: Path) -> dict[tuple[str, str], list[str]]:
    """``{(importer, imported): ["path:line", ...]}`` over the top-level packages of ``package``, from every
    import statement in every module (relative imports resolved, ``from qlog_pyserini import x`` read as x)."""
    edges: dict[tuple[str, str], list[str]] = {}
    for path in sorted(package.rglob("*.py")):
        parts = list(path.relative_to(package).with_suffix("").parts)
        here = _node(parts, package)
        home = parts[:-1]  # the package a relative import starts from (the module's own, for __init__ too)
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.Import):
                targets = [a.name.split(".") for a in node.names]
            elif isinstance(node, ast.ImportFrom):
                if node.level:
                    base = [package.name, *home[:len(home) - node.level + 1]]
                    module = base + (node.module.split(".") if node.module else [])
                else:
                    module = (node.module or "").split(".")
                targets = [module + [a.name] for a in node.names] if module == [package.name] else [module]
            else:
                continue
            for target in targets:
                if target[0] != package.name:
                    continue
                there = _node(target[1:], package)
                if there != here:
                    edges.setdefault((here, there), []).append(f"{path.relative_to(package.parent)}:{node.lineno}")
    return edges


def cycles(edges) -> list[list[str]]:
    """The strongly connected components of more than one package (Tarjan's algorithm), each sorted."""
    graph: dict[str, set[str]] = {}
    for a, b in edges:
        graph.setdefault(a, set()).add(b)
        graph.setdefault(b, set())
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    found = []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        for w in sorted(graph[v]):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while True:
                w = stack.pop()
                component.append(w)
                if w == v:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return sorted(found)


def layer_of(name: str) -> int:
    return next(i for i, members in enumerate(LAYERS.values()) if name in members)


def upward_edges(edges) -> list[str]:
    """Every import from a package into a package of a higher layer, with where it is."""
    return [f"{a} ({ORDER[layer_of(a)]}) imports {b} ({ORDER[layer_of(b)]}): {', '.join(where)}"
            for (a, b), where in sorted(edges.items()) if layer_of(b) > layer_of(a)]


def test_every_package_has_one_layer():
    names = [n for members in LAYERS.values() for n in members]
    assert len(names) == len(set(names)), "a package is in two layers"
    present = {p.name for p in PACKAGE.iterdir() if (p / "__init__.py").is_file()}
    present |= {p.stem for p in PACKAGE.glob("*.py") if p.stem not in ("__init__", "__main__")} | {ROOT_NODE}
    assert present == set(names), f"place these in LAYERS: {sorted(present - set(names))}; " \
                                  f"gone: {sorted(set(names) - present)}"


def test_the_package_graph_has_no_cycle():
    assert cycles(package_edges(PACKAGE)) == []


def test_every_import_goes_to_the_same_layer_or_a_lower_one():
    found = upward_edges(package_edges(PACKAGE))
    assert not found, "\n".join(found)


def test_the_base_builds_on_errors_and_the_formula_only():
    # system, formats, jvm and cli import nothing above the base, and system nothing but its bottom
    edges = package_edges(PACKAGE)
    for (a, b), where in edges.items():
        if a in LAYERS["base"]:
            assert b in LAYERS["base"], f"{a} imports {b}: {where}"
        if a == "system":
            assert b in BOTTOM, f"system imports {b}: {where}"


def test_the_graph_sees_every_kind_of_import(tmp_path):
    # a function-level import, a relative one and `from qlog_pyserini import x` are edges too; a cycle is found
    package = tmp_path / "qlog_pyserini"
    for name in ("low", "high", "other"):
        (package / name).mkdir(parents=True)
        (package / name / "__init__.py").write_text("")
    (package / "__init__.py").write_text("from qlog_pyserini.low import thing\n")
    (package / "errors.py").write_text("")
    (package / "low" / "lib.py").write_text("def f():\n    from qlog_pyserini.high.mod import g\n")
    (package / "high" / "mod.py").write_text("from ..low import lib\nfrom qlog_pyserini import errors, other\n"
                                             "import qlog_pyserini.low.lib\nfrom . import mod\n")
    edges = package_edges(package)
    assert {e: len(w) for e, w in edges.items()} == {
        (ROOT_NODE, "low"): 1, ("low", "high"): 1, ("high", "low"): 2, ("high", "errors"): 1, ("high", "other"): 1}
    assert edges[("low", "high")] == ["qlog_pyserini/low/lib.py:2"]
    assert cycles(edges) == [["high", "low"]]
