"""The JVM bridge: our classes load next to Pyserini's, and a JVM started without them is a clear error."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap

from conftest import ROOT  # noqa: E402


def run_python(code: str) -> subprocess.CompletedProcess:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    return subprocess.run([sys.executable, "-c", textwrap.dedent(code)], capture_output=True, text=True,
                          env=env, timeout=300)


def test_jvm_started_by_someone_else_without_our_jar_is_refused(tiny_index):
    proc = run_python(f"""
        import os
        from qlog_pyserini.jvm.toolchain import find_jdk, pyserini_jar
        os.environ["JAVA_HOME"] = str(find_jdk().home)
        import jnius_config
        jnius_config.add_classpath(str(pyserini_jar()))   # Pyserini's jar only, as pyserini.pyclass does
        import jnius                                       # starts the JVM
        from qlog_pyserini.errors import QLogError
        from qlog_pyserini.search.searcher import QLogSearcher
        try:
            QLogSearcher({str(tiny_index)!r})
        except QLogError as e:
            print("REFUSED:", e)
        """)
    assert proc.returncode == 0, proc.stderr
    assert "REFUSED: a JVM is already running without the qlog-pyserini classes" in proc.stdout


def test_our_classes_and_pyserinis_share_one_jvm(tiny_index):
    proc = run_python(f"""
        from qlog_pyserini.search.searcher import QLogSearcher
        from qlog_pyserini.jvm.bridge import jclass
        s = QLogSearcher({str(tiny_index)!r}, q=0.5)
        print(s.similarity)
        print(jclass("io.anserini.search.SimpleSearcher").__name__)
        """)
    assert proc.returncode == 0, proc.stderr
    lines = proc.stdout.split()
    assert lines[0] == "QLogBM25(k1=0.9,b=0.4,q=0.5,form=lucene)" and lines[1] == "io.anserini.search.SimpleSearcher"
