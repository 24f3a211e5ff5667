"""The JVM bridge: importing the package configures the classpath; a JVM started without our jar gets it appended."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap

import pytest
from conftest import ROOT  # noqa: E402

pytestmark = pytest.mark.jvm  # every test here starts the JVM or runs Java


def run_python(code: str) -> subprocess.CompletedProcess:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    return subprocess.run([sys.executable, "-c", textwrap.dedent(code)], capture_output=True, text=True,
                          env=env, timeout=300)


def test_jvm_started_by_someone_else_without_our_jar_gets_it_appended(tiny_index):
    proc = run_python(f"""
        import os
        from qlog_pyserini.jvm.toolchain import find_jdk, pyserini_jar
        os.environ["JAVA_HOME"] = str(find_jdk().home)
        import jnius_config
        jnius_config.set_classpath(str(pyserini_jar()))   # Pyserini's jar only, as pyserini.pyclass does
        import jnius                                       # starts the JVM
        from jnius import autoclass
        classpath = autoclass("java.lang.System").getProperty("java.class.path")
        print("OURS AT START:", "qlog-similarity" in classpath)
        from qlog_pyserini.lucene.searcher import QLogSearcher
        s = QLogSearcher({str(tiny_index)!r}, q=0.5)
        print("SIMILARITY:", s.similarity)
        print("HITS:", len(s.search("z0001 z0010", 5)))
        """)
    assert proc.returncode == 0, proc.stderr
    assert "OURS AT START: False" in proc.stdout
    assert "SIMILARITY: QLogBM25(k1=0.9,b=0.4,q=0.5,form=lucene)" in proc.stdout
    assert "HITS: 5" in proc.stdout


def test_importing_the_package_configures_the_classpath_without_starting_the_jvm():
    # Import never compiles; build the jar first so that there is an up-to-date one to configure.
    assert run_python("from qlog_pyserini.jvm.jar import similarity_jar; similarity_jar()").returncode == 0
    proc = run_python("""
        import jnius_config
        import qlog_pyserini
        print("RUNNING:", jnius_config.vm_running)
        print("CLASSPATH:", " ".join(jnius_config.classpath or []))
        import jnius
        from jnius import autoclass
        print("LOADS:", autoclass("io.qlog.search.QLogSearcher").__name__)
        """)
    assert proc.returncode == 0, proc.stderr
    assert "RUNNING: False" in proc.stdout
    classpath = next(l for l in proc.stdout.splitlines() if l.startswith("CLASSPATH:"))
    assert "anserini-" in classpath and "qlog-similarity" in classpath
    assert "LOADS: io.qlog.search.QLogSearcher" in proc.stdout


def test_our_classes_and_pyserinis_share_one_jvm(tiny_index):
    proc = run_python(f"""
        from qlog_pyserini.lucene.searcher import QLogSearcher
        from qlog_pyserini.jvm.bridge import jclass
        s = QLogSearcher({str(tiny_index)!r}, q=0.5)
        print(s.similarity)
        print(jclass("io.anserini.search.SimpleSearcher").__name__)
        """)
    assert proc.returncode == 0, proc.stderr
    lines = proc.stdout.split()
    assert lines[0] == "QLogBM25(k1=0.9,b=0.4,q=0.5,form=lucene)" and lines[1] == "io.anserini.search.SimpleSearcher"
