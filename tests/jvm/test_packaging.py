"""The wheel carries the compiled similarity jar, and an installed wheel searches from any folder with it.

Built with ``python -m build --no-isolation`` (the installed Pyserini gives javac its fatjar) and
installed without network (``pip install --no-deps --no-index --target``); the checkout is not on
the path of the process that searches, and its working folder is ``/``.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import zipfile

import pytest
from conftest import ROOT  # noqa: E402

pytestmark = pytest.mark.jvm


def _generated(folder: str, names: list[str]) -> set[str]:
    """What a build generated: Maven's target/, the jar cache java-similarity/build/, caches and packaged jars.

    qlog_pyserini/build/ is source (the ``build`` verb's package), so "build" is only dropped under java-similarity/.
    """
    drop = {"target", "__pycache__", "_jars"} | ({"build"} if "java-similarity" in folder else set())
    return drop & set(names)


@pytest.fixture(scope="module")
def wheel(tmp_path_factory):
    pytest.importorskip("build", reason="python -m build is needed (pip install build)")
    # Built from a copy of the source tree, so that setuptools' build/ and egg-info stay out of the checkout.
    src = tmp_path_factory.mktemp("src") / "qlog-pyserini"
    src.mkdir()
    for name in ("qlog_pyserini", "java-similarity", "setup.py", "setup.cfg", "pyproject.toml", "MANIFEST.in", "README.md"):
        if (ROOT / name).is_dir():
            shutil.copytree(ROOT / name, src / name, ignore=_generated)
        elif (ROOT / name).is_file():
            shutil.copy2(ROOT / name, src / name)
    out = tmp_path_factory.mktemp("dist")
    proc = subprocess.run([sys.executable, "-m", "build", "--no-isolation", "--wheel", "--outdir", str(out), str(src)],
                          capture_output=True, text=True, timeout=900)
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]
    (whl,) = out.glob("qlog_pyserini-*.whl")
    return whl


def test_wheel_carries_the_jar_with_our_classes(wheel):
    with zipfile.ZipFile(wheel) as z:
        jar = z.read("qlog_pyserini/_jars/qlog-similarity.jar")
    inner = wheel.parent / "inner.jar"
    inner.write_bytes(jar)
    with zipfile.ZipFile(inner) as z:
        names = set(z.namelist())
        manifest = z.read("META-INF/MANIFEST.MF").decode()
    for cls in ("io/qlog/similarities/QLogBM25Similarity.class", "io/qlog/search/QLogSearcher.class",
                "io/qlog/pyserini/SimilarityInstaller.class"):
        assert cls in names
    assert not [n for n in names if n.startswith("io/qlog/bench/")]  # benchmarks are in the bench jar, never shipped
    assert "Compiled-Against: anserini-" in manifest


def test_installed_wheel_searches_from_root_with_its_packaged_jar(wheel, tmp_path, tiny_index):
    target = tmp_path / "site"
    proc = subprocess.run([sys.executable, "-m", "pip", "install", "--no-deps", "--no-index", "--target", str(target),
                           str(wheel)], capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stderr
    topics = tmp_path / "topics.tsv"
    topics.write_text("q1\tz0001 z0010\nq2\tz0025\n")
    run = tmp_path / "run.txt"
    env = {**os.environ, "PYTHONPATH": str(target)}
    code = (f"import sys, qlog_pyserini; from qlog_pyserini.build.jar import similarity_jar; "
            f"print(qlog_pyserini.__file__); print(similarity_jar()); "
            f"from qlog_pyserini.search.__main__ import main; "
            f"main(['--index', {str(tiny_index)!r}, '--topics', {str(topics)!r}, '--output', {str(run)!r}, "
            f"'--q', '0.5', '--hits', '5', '--quiet'])")
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, cwd="/", timeout=600)
    assert proc.returncode == 0, proc.stderr
    module_file, jar = proc.stdout.split()[:2]
    assert module_file.startswith(str(target)) and not module_file.startswith(str(ROOT))
    assert jar == str(target / "qlog_pyserini" / "_jars" / "qlog-similarity.jar")
    lines = run.read_text().splitlines()
    assert len(lines) == 10 and lines[0].split()[5] == "qlog-bm25-q0.5-lucene"
