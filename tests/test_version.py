"""The version is written once, in setup.cfg: the package reads it from its installed metadata, or from
setup.cfg when a source tree is imported without being installed."""

from __future__ import annotations

import configparser
import re
import subprocess
import sys
from importlib import metadata

from conftest import ROOT

import qlog_pyserini


def _setup_cfg_version() -> str:
    config = configparser.ConfigParser()
    config.read(ROOT / "setup.cfg")
    return config["metadata"]["version"]


def test_the_version_is_setup_cfgs():
    assert qlog_pyserini.__version__ == metadata.version("qlog-pyserini") == _setup_cfg_version()


def test_a_source_tree_not_installed_reads_setup_cfg():
    # the distribution is hidden from importlib.metadata, as in a checkout put on PYTHONPATH without pip install
    code = ("from importlib import metadata\n"
            "def missing(name):\n    raise metadata.PackageNotFoundError(name)\n"
            "metadata.version = missing\n"
            "import qlog_pyserini\nprint(qlog_pyserini.__version__)\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT, timeout=60, check=True)
    assert out.stdout.strip() == _setup_cfg_version()


def test_the_package_writes_no_version_of_its_own():
    # a version literal anywhere in the package would be a second place to bump
    literal = re.compile(r"^__version__\s*=\s*[\"']", re.MULTILINE)
    assert [p for p in (ROOT / "qlog_pyserini").rglob("*.py") if literal.search(p.read_text())] == []
