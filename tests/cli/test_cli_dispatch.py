"""The `qlog` console script / `python -m qlog_pyserini` dispatcher, and the verb layout it relies on."""

from __future__ import annotations

import ast
import contextlib
import importlib
import io
import os
import re
import subprocess
import sys

import pytest
from conftest import ROOT

from qlog_pyserini.__main__ import VERBS, available_verbs
from qlog_pyserini.errors import QLogError

PACKAGE = ROOT / "qlog_pyserini"


def _run(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "qlog_pyserini", *args], capture_output=True, text=True, cwd=ROOT,
                          timeout=120)


#: verbs whose library is a lower layer's: build's is the JVM layer's jar (qlog_pyserini.jvm.jar), index's the
#: Lucene core's indexer (qlog_pyserini.lucene.indexer)
LIBRARY_BELOW = {"build", "index"}
#: the command-line side: a verb's __main__.py, the flags beside it, and the shared parser in cli/
COMMAND_LINE_FILES = ("__main__.py", "flags.py")


def _command_line_side(path) -> bool:
    return path.name in COMMAND_LINE_FILES or path.parent.name == "cli"


#: the only modules at the package's top level: its core (formula, errors), the public API and the dispatcher
CORE = {"__init__", "__main__", "formula", "errors"}


def verb_folders() -> dict:
    """verb -> its package folder: every ``__main__.py`` under the package (a nested one, bench/tantivy_rewrite/,
    is the verb ``bench.tantivy_rewrite``)."""
    return {p.parent.relative_to(PACKAGE).as_posix().replace("/", "."): p.parent for p in PACKAGE.rglob("__main__.py")
            if p.parent != PACKAGE}


def test_every_verb_is_a_package_with_its_command_line_in_main():
    # The one rule: verb V is the package qlog_pyserini/V/, its command line V/__main__.py, its library beside it.
    cli = verb_folders()
    assert set(cli) <= set(VERBS), set(cli) - set(VERBS)
    assert set(available_verbs()) == set(cli)
    assert set(VERBS) - set(cli) <= {"solr"}  # the only verb an installation may lack
    for verb, folder in cli.items():
        main = (folder / "__main__.py").read_text()
        assert "def main(" in main and "run_cli(main)" in main, verb
        library = [p for p in folder.glob("*.py") if p.name not in ("__init__.py", "__main__.py", "flags.py")]
        assert library or verb in LIBRARY_BELOW, f"{verb}/ holds only its command line: its library belongs beside it"


def test_top_level_holds_only_the_core():
    assert {p.stem for p in PACKAGE.glob("*.py")} == CORE
    # no command line hides elsewhere: every main() that parses arguments is in a __main__.py
    for path in PACKAGE.rglob("*.py"):
        if not _command_line_side(path):
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


def test_idf_form_is_declared_once_and_refused_with_its_choices():
    # one declaration (cli.options), so every verb lists the same forms and refuses an unknown one the same way
    declaring = [p.relative_to(PACKAGE).as_posix() for p in PACKAGE.rglob("*.py") if '"--idf-form"' in p.read_text()]
    assert declaring == ["cli/options.py"]
    takers = [p.parent.name for p in PACKAGE.glob("*/__main__.py") if "add_idf_form_option(" in p.read_text()]
    assert {"search", "sweep", "rewrite"} <= set(takers)
    for verb in takers:
        out = io.StringIO()
        with contextlib.redirect_stdout(out), pytest.raises(SystemExit):
            importlib.import_module(f"qlog_pyserini.{verb}.__main__").main(
                ["configset", "--help"] if verb == "solr" else ["--help"])
        assert "--idf-form {lucene,rsj}" in out.getvalue(), verb
        if verb != "solr":  # its subcommands' required options are checked first
            with pytest.raises(QLogError, match=r"argument --idf-form: illegal idf form: okapi, must be one of lucene, rsj"):
                importlib.import_module(f"qlog_pyserini.{verb}.__main__").main(["--idf-form", "okapi"])


#: verbs with a --threads of their own meaning: bench times a list of thread counts (1 and all cores by default)
THREAD_LISTS = {"bench"}


def _help(verb: str, *args: str) -> str:
    out = io.StringIO()
    with contextlib.redirect_stdout(out), pytest.raises(SystemExit):
        importlib.import_module(f"qlog_pyserini.{verb}.__main__").main([*args, "--help"])
    return out.getvalue()


def test_threads_is_declared_once_with_one_default_and_refused_below_one():
    # one declaration (cli.options): every verb's --threads has the same default and is refused below 1 when parsed
    declaring = sorted(p.relative_to(PACKAGE).as_posix() for p in PACKAGE.rglob("*.py")
                       if re.search(r'add_argument\(\s*"--threads"', p.read_text()))
    assert declaring == ["bench/__main__.py", "cli/options.py"]
    default = min(2, os.cpu_count() or 1)
    subcommand = {"solr": ("search",)}  # solr's search and sweep take it
    takers = {verb: subcommand.get(verb, ()) for verb in available_verbs()
              if verb not in THREAD_LISTS and "--threads" in _help(verb, *subcommand.get(verb, ()))}
    assert {"search", "lolo", "demo", "sweep", "index", "reproduce", "solr"} <= set(takers)
    for verb, sub in takers.items():
        assert f"(default {default}: 2, or 1 on a one-" in " ".join(_help(verb, *sub).split()), verb
        for bad, message in (("0", "must be at least 1, got 0"), ("two", "not a whole number: 'two'")):
            with pytest.raises(QLogError, match=rf"^argument --threads: {message} "):
                importlib.import_module(f"qlog_pyserini.{verb}.__main__").main([*sub, "--threads", bad])


def test_readme_documents_every_verb():
    readme = (ROOT / "README.md").read_text()
    documented = set(re.findall(r"^\| `([\w.]+)[ `]", readme, flags=re.MULTILINE))
    assert set(VERBS) <= documented


def _imports(path):
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.ImportFrom) and node.module:
            yield from ({node.module} | {f"{node.module}.{a.name}" for a in node.names})
        elif isinstance(node, ast.Import):
            yield from (a.name for a in node.names)


def test_library_never_imports_the_command_line_side():
    # dependencies one way: command line -> library -> JVM bridge; a library signature takes values, never a Namespace
    for path in PACKAGE.rglob("*.py"):
        if _command_line_side(path):
            continue
        for name in _imports(path):
            assert not (name.endswith((".__main__", ".flags")) or name == "qlog_pyserini.cli"
                        or name.startswith("qlog_pyserini.cli.")), \
                f"{path} imports the command-line module {name}"
        assert "argparse.Namespace" not in path.read_text(), f"{path} takes an argparse.Namespace"


def test_library_writes_to_stderr_only_through_progress():
    # one channel for warnings and informational lines: --quiet silences the same lines in every verb
    for path in PACKAGE.rglob("*.py"):
        if _command_line_side(path) or path.relative_to(PACKAGE).as_posix() == "system/progress.py":
            continue
        text = path.read_text()
        assert "file=sys.stderr" not in text and "sys.stderr.write" not in text, \
            f"{path} writes to stderr itself: use qlog_pyserini.system.progress.info or warn"


def test_messages_and_usage_errors_take_the_shared_channels():
    # warnings and info lines through system.progress (so --quiet and the "warning:" prefix are the same everywhere),
    # bad input as a QLogError raised where it enters (one "error:" line through run_cli)
    for path in PACKAGE.rglob("*.py"):
        if path.relative_to(PACKAGE).as_posix() == "system/progress.py":
            continue
        text = path.read_text()
        for call in ("logging.basicConfig(", "logging.getLogger(", "parser.error(", ".error(f\""):
            assert call not in text, f"{path} calls {call}..."


def test_the_shared_layer_never_names_a_verb():
    # system/ serves every verb: a verb's kinds of output and folder names live with the verb, not in system/
    for path in (PACKAGE / "system").glob("*.py"):
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.Constant) and isinstance(node.value, str):
                assert node.value not in VERBS, f"{path.name}:{node.lineno} names the verb {node.value!r}"


def _private(name: str) -> bool:
    return name.startswith("_") and not (name.startswith("__") and name.endswith("__"))


def _module_name(path, root) -> str:
    parts = list(path.relative_to(root).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _private_names_defined(tree: ast.AST) -> set[str]:
    """Every underscore name a module defines: functions, classes, variables, attributes it assigns, parameters."""
    names = set()
    for node in ast.walk(tree):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            names.add(node.name)
        elif isinstance(node, (ast.Name, ast.Attribute)) and isinstance(node.ctx, ast.Store):
            names.add(node.id if isinstance(node, ast.Name) else node.attr)
    return {n for n in names if _private(n)}


def private_names_crossing_modules(package):
    """``path:line what`` for every underscore name one module of ``package`` takes from another: imported
    (``from qlog_pyserini.x import _y``, relative imports too) or reached as an attribute of anything but
    ``self``, ``cls`` or ``super()`` (``obj._y``, ``module._y``) where ``_y`` is a name the package defines:
    underscore names of other libraries (``os._exit``, a namedtuple's ``_replace``) are theirs to keep."""
    trees = {path: ast.parse(path.read_text()) for path in sorted(package.rglob("*.py"))}
    defined = set().union(*map(_private_names_defined, trees.values()))
    found = []
    for path, tree in trees.items():
        module, here = _module_name(path, package.parent), path.relative_to(package.parent)
        package_name = module if path.name == "__init__.py" else module.rpartition(".")[0]
        for node in ast.walk(tree):
            if isinstance(node, ast.ImportFrom):
                source = node.module or ""
                if node.level:
                    base = package_name.split(".")[:len(package_name.split(".")) - node.level + 1]
                    source = ".".join(base + ([source] if source else []))
                if source.partition(".")[0] == package.name and source != module:
                    found += [f"{here}:{node.lineno} imports {a.name} from {source}" for a in node.names if _private(a.name)]
            elif isinstance(node, ast.Attribute) and _private(node.attr) and node.attr in defined:
                owner = node.value
                if isinstance(owner, ast.Name) and owner.id in ("self", "cls"):
                    continue
                if isinstance(owner, ast.Call) and isinstance(owner.func, ast.Name) and owner.func.id == "super":
                    continue
                found.append(f"{here}:{node.lineno} reaches {ast.unparse(node)}")
    return found


def test_no_private_name_crosses_a_module_boundary():
    # What another module needs is public; a private module (Pyserini's _searcher.py) may hold public names.
    found = private_names_crossing_modules(PACKAGE)
    assert not found, "\n".join(found)


def test_the_private_name_check_sees_imports_and_attribute_access(tmp_path):
    # a method reaching another object's _state is caught in the module that defines it too
    package = tmp_path / "qlog_pyserini"
    (package / "area").mkdir(parents=True)
    (package / "__init__.py").write_text("")
    (package / "area" / "__init__.py").write_text("from qlog_pyserini.area.lib import __version__, public\n")
    (package / "area" / "lib.py").write_text(
        "import os\n__version__ = '1'\n_TABLE = {}\ndef public(): return _TABLE\n"
        "class Thing:\n    def __init__(self): self._state = 1\n"
        "    def same(self, other): return self._state == other._state\n")
    (package / "area" / "user.py").write_text(
        "from qlog_pyserini.area.lib import _TABLE, Thing\nfrom .lib import _TABLE as again\nimport os\n"
        "def peek(t: Thing): return t._state, os._exit, super()._state\n")
    assert private_names_crossing_modules(package) == [
        "qlog_pyserini/area/lib.py:7 reaches other._state",
        "qlog_pyserini/area/user.py:1 imports _TABLE from qlog_pyserini.area.lib",
        "qlog_pyserini/area/user.py:2 imports _TABLE from qlog_pyserini.area.lib",
        "qlog_pyserini/area/user.py:4 reaches t._state",
    ]


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


@pytest.mark.parametrize("args", [("--help",), ("eval", "--help"), ("cobol",)])
def test_a_closed_pipe_ends_the_dispatcher_quietly(args):
    # `python -m qlog_pyserini --help | head -1`: the reader is gone before the first line is written
    import os

    read, write = os.pipe()
    os.close(read)
    try:
        proc = subprocess.run([sys.executable, "-m", "qlog_pyserini", *args], stdout=write, stderr=subprocess.PIPE,
                              text=True, cwd=ROOT, timeout=120)
    finally:
        os.close(write)
    assert "Traceback" not in proc.stderr and "BrokenPipeError" not in proc.stderr, proc.stderr
    assert proc.returncode == (2 if args == ("cobol",) else 141) or proc.returncode == 0, proc.returncode
