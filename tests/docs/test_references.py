"""Every reference the documentation makes resolves: module and attribute names, repository paths,
``python -m`` commands and Java classes named in README.md, docs/, results/README.md and the package's
docstrings and comments; the ``>>>`` examples run. A stale name planted in a text is caught."""

from __future__ import annotations

import ast
import doctest
import importlib
import io
import re
import subprocess
import tokenize
from functools import cache
from pathlib import Path

import pytest
from conftest import ROOT

from qlog_pyserini.__main__ import VERBS

PACKAGE = ROOT / "qlog_pyserini"
JAVA_ROOT = ROOT / "java-similarity"
MARKDOWN = [ROOT / "README.md", ROOT / "results" / "README.md", *sorted((ROOT / "docs").glob("*.md"))]

# An example that needs the JVM says so with `# doctest: +JVM`; one that needs data a reader brings
# (an index of their own) with `# doctest: +SKIP`, and only its imports are checked.
JVM = doctest.register_optionflag("JVM")

DOTTED = re.compile(r"(?<![\w.])qlog_pyserini(?:\.[A-Za-z_]\w*)+")
RUN_MODULE = re.compile(r"python -m (qlog_pyserini(?:\.\w+)*)(?: +([a-z]\w*))?")
JAVA_CLASS = re.compile(r"(?<![\w.])io\.qlog(?:\.[A-Za-z_]\w*)+")
#: the repository's own top-level folders: a path starting with one of these must exist (or be a build output)
TOP = ("java-similarity", "qlog_pyserini", "tests", "scripts", "results", "docs", ".ci")
PATH = re.compile(r"(?<![\w./-])((?:%s)/[\w./*-]*)" % "|".join(re.escape(t) for t in TOP))
LINK = re.compile(r"\]\(([^)\s#]+)(?:#[^)]*)?\)")
IMPORT = re.compile(r"^\s*from (qlog_pyserini[\w.]*) import ([\w, ]+)|^\s*import (qlog_pyserini[\w.]*)", re.M)


# --- resolving a name without importing it (importing some modules needs Pyserini's full install) ----

def _module_file(dotted: str) -> Path | None:
    base = ROOT.joinpath(*dotted.split("."))
    for candidate in (base.with_suffix(".py"), base / "__init__.py"):
        if candidate.is_file():
            return candidate
    return None


@cache
def _defined(path: Path) -> dict[str, ast.AST | None]:
    """Top-level names a module defines or imports (classes map to their node, to look inside)."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    names: dict[str, ast.AST | None] = {}
    for node in tree.body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            names[node.name] = node if isinstance(node, ast.ClassDef) else None
        elif isinstance(node, ast.Assign):
            for target in node.targets:
                for name in ast.walk(target):
                    if isinstance(name, ast.Name):
                        names[name.id] = None
                if any(isinstance(t, ast.Name) and t.id == "__all__" for t in node.targets):
                    names.update(dict.fromkeys(ast.literal_eval(node.value)))
        elif isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name):
            names[node.target.id] = None
        elif isinstance(node, (ast.Import, ast.ImportFrom)):
            names.update(dict.fromkeys((a.asname or a.name).split(".")[0] for a in node.names))
    return names


def _class_members(node: ast.ClassDef) -> set[str]:
    members = set()
    for item in ast.walk(node):
        if isinstance(item, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            members.add(item.name)
        elif isinstance(item, ast.Name):
            members.add(item.id)
        elif isinstance(item, ast.Attribute) and isinstance(item.value, ast.Name) and item.value.id == "self":
            members.add(item.attr)
    return members


def name_problem(dotted: str) -> str | None:
    """None when ``dotted`` (``qlog_pyserini.a.b.Name.member``) names a module, or an object in one."""
    parts = dotted.split(".")
    for cut in range(len(parts), 0, -1):
        path = _module_file(".".join(parts[:cut]))
        if path is None:
            continue
        rest = parts[cut:]
        if not rest:
            return None
        defined = _defined(path)
        if rest[0] not in defined:
            return f"{dotted}: {'.'.join(parts[:cut])} has no {rest[0]!r}"
        node = defined[rest[0]]
        if len(rest) > 1 and isinstance(node, ast.ClassDef) and rest[1] not in _class_members(node):
            return f"{dotted}: class {rest[0]} has no {rest[1]!r}"
        return None
    return f"{dotted}: no such module"


def run_module_problem(module: str, verb: str | None) -> str | None:
    """``python -m module [verb]`` must name a runnable module (and, for the dispatcher, a verb)."""
    path = _module_file(module)
    if path is None:
        return f"python -m {module}: no such module"
    if path.name == "__init__.py" and not (path.parent / "__main__.py").is_file():
        return f"python -m {module}: a package without __main__.py"
    if module == "qlog_pyserini" and verb is not None and verb not in VERBS:
        return f"python -m qlog_pyserini {verb}: no such verb"
    return None


@cache
def _java_classes() -> frozenset[str]:
    found = set()
    for source in JAVA_ROOT.glob("*/src/*/java/**/*.java"):
        package = re.search(r"^package ([\w.]+);", source.read_text(encoding="utf-8"), re.M)
        found.add(f"{package.group(1)}.{source.stem}" if package else source.stem)
    # engine-templates/: one source per class, compiled into every module whose pom names its ${qlog.engine}
    engines = {e for pom in JAVA_ROOT.glob("*/pom.xml")
               for e in re.findall(r"<qlog\.engine>(\w+)</qlog\.engine>", pom.read_text(encoding="utf-8"))}
    for source in JAVA_ROOT.glob("engine-templates/**/*.java"):
        package = re.search(r"^package ([\w.${}]+);", source.read_text(encoding="utf-8"), re.M)
        found.update(f"{package.group(1).replace('${qlog.engine}', e)}.{source.stem}" for e in engines)
    return frozenset(found)


def java_problem(dotted: str) -> str | None:
    classes = _java_classes()
    # io.qlog.pkg.Class, io.qlog.pkg.Class.member or a package io.qlog.pkg
    if any(dotted == c or dotted.startswith(c + ".") or c.startswith(dotted + ".") for c in classes):
        return None
    return f"{dotted}: no such Java class or package under java-similarity/"


def _ignored(relative: str) -> bool:
    """A build output (jar, target/, _jars/): git ignores it, so its absence in a checkout is no error."""
    # a folder pattern (`_jars/`) matches what is inside it, so ask about a name inside too
    candidates = [relative.rstrip("/"), relative.rstrip("/") + "/-"]
    proc = subprocess.run(["git", "check-ignore", "--no-index", *candidates], cwd=ROOT, capture_output=True)
    return proc.returncode == 0


def path_problem(relative: str, base: Path = ROOT) -> str | None:
    relative = relative.rstrip(".,;:")
    pattern = relative.replace("...", "**")
    if "*" in pattern:
        exists = next(base.glob(pattern.rstrip("/")), None) is not None
    else:
        exists = (base / relative).exists()
    if exists or _ignored(str((base / relative).relative_to(ROOT)) if (base / relative).is_relative_to(ROOT) else relative):
        return None
    return f"{relative}: no such file or folder in the repository"


def problems(text: str, base: Path = ROOT) -> list[str]:
    """Every stale reference in ``text``; relative Markdown links resolve against ``base``."""
    found = [name_problem(m) for m in DOTTED.findall(text)]
    found += [run_module_problem(m, v or None) for m, v in RUN_MODULE.findall(text)]
    found += [java_problem(m) for m in JAVA_CLASS.findall(text)]
    found += [path_problem(p) for p in PATH.findall(text)]
    found += [path_problem(link, base) for link in LINK.findall(text) if "://" not in link and not link.startswith("mailto:")]
    return sorted({p for p in found if p})


# --- where the references are ------------------------------------------------------------------------

@cache
def python_texts(path: Path) -> str:
    """A module's docstrings and comments, the prose that can name other modules (read once per session)."""
    source = path.read_text(encoding="utf-8")
    parts = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)):
            doc = ast.get_docstring(node, clean=False)
            if doc:
                parts.append(doc)
    parts += [tok.string for tok in tokenize.generate_tokens(io.StringIO(source).readline) if tok.type == tokenize.COMMENT]
    return "\n".join(parts)


def python_sources() -> list[Path]:
    return sorted(PACKAGE.rglob("*.py")) + sorted((ROOT / "scripts").glob("*.py"))


@pytest.mark.parametrize("path", MARKDOWN, ids=lambda p: str(p.relative_to(ROOT)))
def test_markdown_references_resolve(path):
    assert problems(path.read_text(encoding="utf-8"), base=path.parent) == []


def test_docstring_and_comment_references_resolve():
    stale = {str(p.relative_to(ROOT)): found for p in python_sources() if (found := problems(python_texts(p)))}
    assert stale == {}


def test_a_planted_stale_reference_is_caught():
    planted = """Read ``qlog_pyserini.corpus_stats`` and :func:`qlog_pyserini.formula.idf_rsj`, run
    `python -m qlog_pyserini.similarities` or `python -m qlog_pyserini cobol`, open
    `java-similarity/src/main/java/io/qlog/similarities/QLogBM25Similarity.java`, `tests/test_similarities.py`
    and [the guide](docs/nowhere.md); the class `io.qlog.solr.NoSuchFactory`."""
    assert problems(planted) == sorted([
        "qlog_pyserini.corpus_stats: qlog_pyserini has no 'corpus_stats'",
        "qlog_pyserini.formula.idf_rsj: qlog_pyserini.formula has no 'idf_rsj'",
        "qlog_pyserini.similarities: qlog_pyserini has no 'similarities'",
        "python -m qlog_pyserini.similarities: no such module",
        "python -m qlog_pyserini cobol: no such verb",
        "java-similarity/src/main/java/io/qlog/similarities/QLogBM25Similarity.java: no such file or folder in the repository",
        "tests/test_similarities.py: no such file or folder in the repository",
        "docs/nowhere.md: no such file or folder in the repository",
        "io.qlog.solr.NoSuchFactory: no such Java class or package under java-similarity/",
    ])
    # and what is there resolves, members of classes and build outputs included
    assert problems("`qlog_pyserini.lucene.searcher.QLogSearcher.set_q`, `python -m qlog_pyserini.sweep`, "
                    "`python -m qlog_pyserini sweep`, `io.qlog.similarities.QLogBM25Similarity`, "
                    "`java-similarity/.../QLogBM25Similarity.java`, `qlog_pyserini/_jars/`, [x](README.md)") == []


def test_a_planted_stale_name_in_a_docstring_is_caught(tmp_path):
    module = tmp_path / "stale.py"
    module.write_text('"""Uses :mod:`qlog_pyserini.evaluation`."""\n# see qlog_pyserini/budget.py\nX = 1\n')
    assert problems(python_texts(module)) == ["qlog_pyserini.evaluation: qlog_pyserini has no 'evaluation'",
                                              "qlog_pyserini/budget.py: no such file or folder in the repository"]


# Written so that this file does not match itself; an error message naming a data file's element by its
# number is no citation,
# so Python is searched in its docstrings and comments only.
TRACKER = re.compile(r"\b(?:issue|item)s? \d+\b|work/i\d+", re.IGNORECASE)


def test_code_and_tests_speak_of_the_product_not_a_tracker():
    sources = [*PACKAGE.rglob("*.py"), *(ROOT / "tests").rglob("*.py"), *(ROOT / "scripts").iterdir(),
               *JAVA_ROOT.glob("*/src/**/*.java"), *MARKDOWN]
    cited = {}
    for path in filter(Path.is_file, sources):
        text = python_texts(path) if path.suffix == ".py" else path.read_text(encoding="utf-8", errors="replace")
        for line in text.splitlines():
            if TRACKER.search(line) and "TRACKER = re.compile" not in line:
                cited.setdefault(str(path.relative_to(ROOT)), []).append(line.strip())
    assert cited == {}


# --- the >>> examples -----------------------------------------------------------------------------------

def _examples() -> list[tuple[str, doctest.DocTest]]:
    finder = doctest.DocTestFinder(exclude_empty=True)
    found = []
    for path in sorted(PACKAGE.rglob("*.py")):
        if ">>>" not in path.read_text(encoding="utf-8"):
            continue
        dotted = ".".join(path.relative_to(ROOT).with_suffix("").parts).removesuffix(".__init__")
        for test in finder.find(importlib.import_module(dotted), dotted):
            if test.examples:
                found.append((dotted, test))
    return found


def _run(test: doctest.DocTest, *, jvm: bool) -> doctest.TestResults:
    # without the JVM, the examples that need none; with it, every example (the JVM ones need the imports before them)
    wanted = [e for e in test.examples if not e.options.get(doctest.SKIP) and (jvm or not e.options.get(JVM))]
    runner = doctest.DocTestRunner(optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE)
    out = io.StringIO()
    result = runner.run(doctest.DocTest(wanted, dict(test.globs), test.name, test.filename, test.lineno, None), out=out.write)
    assert result.failed == 0, out.getvalue()
    return result


def test_every_example_imports_what_exists():
    examples = _examples()
    assert examples, "no >>> examples found"
    for _dotted, test in examples:
        for example in test.examples:
            for module, names, plain in IMPORT.findall(example.source):
                targets = [f"{module}.{n.strip()}" for n in names.split(",")] if module else [plain]
                assert [p for p in map(name_problem, targets) if p] == [], f"{test.name}: {example.source}"


def test_examples_that_need_no_jvm_run():
    assert sum(_run(test, jvm=False).attempted for _, test in _examples()) > 0


@pytest.mark.jvm
def test_examples_that_need_the_jvm_run():
    assert sum(_run(test, jvm=True).attempted for _, test in _examples() if any(e.options.get(JVM) for e in test.examples))


def results_table_files(readme: str) -> set[str]:
    """The files the table "Which command makes each table" of results/README.md names (``x.md/.csv`` names both)."""
    section = readme.split("## Which command makes each table", 1)[1].split("\n## ", 1)[0]
    names = set()
    for row in (line for line in section.splitlines() if line.startswith("| `")):
        for cell in re.findall(r"`([^`]+)`", row.split("|")[1]):
            stem, *extensions = cell.split("/.")
            names.add(stem)
            names.update(f"{stem.rsplit('.', 1)[0]}.{ext}" for ext in extensions)
    return names


def test_every_results_file_is_in_the_results_readme_table():
    named = results_table_files((ROOT / "results" / "README.md").read_text(encoding="utf-8"))
    # README.md is the table's own file; the dot file is the folder's ownership marker (system/outputs.py)
    on_disk = {p.name for p in (ROOT / "results").iterdir() if p.name != "README.md" and not p.name.startswith(".")}
    assert sorted(on_disk - named) == [] and sorted(named - on_disk) == []
    # the parser itself: one file, a file with two extensions, a row that is not a file row
    assert results_table_files("## Which command makes each table\n\n| file(s) | x |\n|---|---|\n"
                               "| `a.md/.json`, `b.png` | s |\n\n## Next\n| `c.md` | t |\n") == {"a.md", "a.json", "b.png"}


def test_every_results_file_names_a_commit_of_the_history():
    # a figure is traceable only to a commit others can check out: not one of an unlanded branch
    import re
    import subprocess

    git = ["git", "-C", str(ROOT)]
    shallow = subprocess.run([*git, "rev-parse", "--is-shallow-repository"], capture_output=True, text=True)
    if shallow.returncode != 0 or shallow.stdout.strip() != "false":
        pytest.skip("not a full git clone")
    named, dirty = {}, []
    for path in sorted((ROOT / "results").glob("*.*")):
        if path.suffix in (".md", ".json"):
            text = path.read_text(encoding="utf-8")
            for sha, changed in re.findall(r'(?:\bcommit |\bgit |"git_commit": ")([0-9a-f]{7,40})\b(\+dirty)?', text):
                named.setdefault(sha, path.name)
                if changed:  # made from sources nobody can check out: the commit plus uncommitted changes
                    dirty.append(path.name)
    assert named and dirty == []
    missing = {sha: where for sha, where in named.items()
               if subprocess.run([*git, "cat-file", "-e", f"{sha}^{{commit}}"], capture_output=True).returncode != 0}
    assert missing == {}
