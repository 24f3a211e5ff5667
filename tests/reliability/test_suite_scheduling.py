"""The suite's own work units on two xdist workers: a file's tests on one worker, tests/solr/ on one worker.

A module or session fixture (the SolrCloud cluster, a 30,000-document index) is built once only if its tests
share a worker; when xdist's grouping broke under pytest 9.2, nothing failed and the suite silently built them
twice. A small tree run with tests/conftest.py's scheduler shows where each test ran.
"""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
from pathlib import Path

TESTS = Path(__file__).resolve().parents[1]

RECORD = """
import json, os
from pathlib import Path
import pytest

@pytest.mark.parametrize("i", range(4))
def test_here(request, i):
    out = Path(__file__).resolve().parents[{up}] / "ran"
    out.mkdir(exist_ok=True)
    (out / f"{{os.getpid()}}-{{request.node.nodeid.replace('/', '_')}}.json").write_text(
        json.dumps({{"nodeid": request.node.nodeid, "worker": os.environ["PYTEST_XDIST_WORKER"]}}))
"""


def test_each_unit_runs_on_one_worker(tmp_path):
    (tmp_path / "pytest.ini").write_text("[pytest]\n")
    (tmp_path / "conftest.py").write_text(textwrap.dedent(f"""
        import importlib.util
        spec = importlib.util.spec_from_file_location("qlog_suite_conftest", {str(TESTS / "conftest.py")!r})
        suite = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(suite)
        pytest_xdist_make_scheduler = suite.pytest_xdist_make_scheduler
        """))
    for name, up in (("tests/solr/test_one.py", 2), ("tests/solr/test_two.py", 2), ("tests/test_three.py", 1),
                     ("tests/test_four.py", 1)):
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text(RECORD.format(up=up))
    proc = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-n", "2",
                           "--dist", "loadscope", "tests"], cwd=tmp_path, capture_output=True, text=True,
                          timeout=300)
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]
    ran = [json.loads(p.read_text()) for p in (tmp_path / "ran").iterdir()]
    assert len(ran) == 16
    workers: dict[str, set[str]] = {}
    for r in ran:
        path = r["nodeid"].split("::")[0]
        workers.setdefault("tests/solr/" if path.startswith("tests/solr/") else path, set()).add(r["worker"])
    assert set(workers) == {"tests/solr/", "tests/test_three.py", "tests/test_four.py"}
    assert all(len(w) == 1 for w in workers.values()), workers
    # and both workers had work: units, not the whole suite, go to a worker
    assert len(set().union(*workers.values())) == 2, workers
