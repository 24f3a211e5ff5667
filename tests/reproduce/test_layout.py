"""The shape of ``reproduce``: one stage table, each stage a module with one ``run``, no import back into the pipeline."""

from __future__ import annotations

import ast
import json
import subprocess
import sys

from conftest import ROOT

from qlog_pyserini.reproduce.pipeline import STAGES

PACKAGE = ROOT / "qlog_pyserini" / "reproduce"
PIPELINE = "qlog_pyserini.reproduce.pipeline"


def _imported(path) -> set[str]:
    """Every module ``path`` imports, at its top level or inside a function (``from a import b`` gives a and a.b)."""
    names = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:  # relative: resolved against the package
                base = ".".join(["qlog_pyserini", "reproduce", *filter(None, [base])])
            names |= {base} | {f"{base}.{a.name}" for a in node.names}
        elif isinstance(node, ast.Import):
            names |= {a.name for a in node.names}
    return names


def test_importing_the_pipeline_loads_every_stage_and_none_imports_it_back():
    # a fresh interpreter: what importing the pipeline alone loads, with nothing imported before it
    code = ("import json, sys; import qlog_pyserini.reproduce.pipeline; "
            "print(json.dumps(sorted(m for m in sys.modules if m.startswith('qlog_pyserini.reproduce.'))))")
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT, timeout=120)
    assert proc.returncode == 0, proc.stderr
    loaded = set(json.loads(proc.stdout))
    stage_modules = {stage.run.__module__ for stage in STAGES.values()}
    assert stage_modules <= loaded  # imported at the pipeline's top level, not inside a function
    for module in loaded - {PIPELINE}:
        path = PACKAGE / f"{module.rsplit('.', 1)[1]}.py"
        assert not any(n == PIPELINE or n.startswith(PIPELINE + ".") for n in _imported(path)), \
            f"{module} imports the pipeline back"
    # and no module of the package but the command line imports it
    for path in PACKAGE.glob("*.py"):
        if path.name not in ("pipeline.py", "__main__.py"):
            assert PIPELINE not in _imported(path), path.name


def test_each_stage_is_one_run_of_a_module_of_its_own():
    modules = [stage.run.__module__ for stage in STAGES.values()]
    assert len(set(modules)) == len(modules)
    assert all(stage.run.__name__ == "run" for stage in STAGES.values())
    # the pipeline walks the table: it names no stage but in STAGES' rows
    source = (PACKAGE / "pipeline.py").read_text()
    body = source[source.index("def select_stages("):]
    assert not any(f'"{name}"' in body for name in STAGES), "a stage named outside the table"


def test_the_cache_helpers_are_public_and_shared():
    for path in PACKAGE.glob("*.py"):
        names = _imported(path)
        assert not any(n.startswith("qlog_pyserini.reproduce.") and n.rsplit(".", 1)[1].startswith("_")
                       and not n.rsplit(".", 1)[1].startswith("__") for n in names), path.name
