"""Offline, the Pyserini route (``install_qlog``, ``QLogLuceneSearcher``) fails on import with one clear
error that names the cause and the offline route; ``QLogSearcher`` still imports and searches.

Real Pyserini 2.4.0 is imported in a subprocess whose every network fetch is refused (URLError), as on a
machine without network (tests/pyserini/offline/sitecustomize.py with an empty fixture folder).
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import ROOT

OFFLINE = Path(__file__).resolve().parent / "offline"

pytestmark = pytest.mark.jvm


# Every URL urllib opens fails as it does without a network (offline/sitecustomize.py only stubs torch here).
NO_NETWORK = """
import urllib.error, urllib.request
class NoNetwork(urllib.request.BaseHandler):
    handler_order = 100
    def refuse(self, req):
        raise urllib.error.URLError("[Errno -3] Temporary failure in name resolution")
    http_open = https_open = refuse
urllib.request.install_opener(urllib.request.build_opener(NoNetwork()))
"""


def _offline(code: str, tmp_path) -> subprocess.CompletedProcess:
    from qlog_pyserini.jvm.toolchain import find_jdk

    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(OFFLINE), str(ROOT)]),
           "PYSERINI_CACHE": str(tmp_path / "cache"), "JAVA_HOME": str(find_jdk().home)}
    env.pop("QLOG_TEST_PYSERINI_FIXTURE", None)
    return subprocess.run([sys.executable, "-c", NO_NETWORK + code], capture_output=True, text=True, env=env,
                          timeout=600, cwd=tmp_path)


@pytest.mark.parametrize("name", ["install_qlog", "QLogLuceneSearcher"])
def test_the_pyserini_route_offline_is_one_clear_import_error(name, tmp_path):
    proc = _offline(f"from qlog_pyserini import {name}", tmp_path)
    assert proc.returncode == 1
    last = proc.stderr.strip().splitlines()[-1]
    assert last.startswith("ImportError: install_qlog and QLogLuceneSearcher import pyserini.search.lucene"), last
    assert "needs the network" in last and "QLogSearcher" in last and "work offline" in last
    assert "URLError" not in proc.stderr.replace(last, "")  # not Pyserini's download traceback
    assert len(proc.stderr.strip().splitlines()) < 20, proc.stderr


def test_qlogsearcher_works_offline(tmp_path, tiny_index):
    proc = _offline(f"from qlog_pyserini import QLogSearcher; print(len(QLogSearcher({str(tiny_index)!r}).search('z0001')))",
                    tmp_path)
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert proc.stdout.strip() == "1"
