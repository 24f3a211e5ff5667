"""setuptools build hook: the wheel carries the compiled Lucene similarity jar as package data.

``python -m build`` (or ``pip install .``) compiles ``java-similarity/*/src/main/java`` with a JDK >= 21
against the Anserini fatjar of the installed Pyserini into ``qlog_pyserini/_jars/qlog-similarity.jar``,
as Pyserini ships its own fatjar. The compiler needs that fatjar: build without isolation in an
environment that has ``pyserini==2.4.0`` (``python -m build --no-isolation``), or point
``QLOG_PYSERINI_FATJAR`` at an ``anserini-*-fatjar.jar``. An editable install (``pip install -e .``)
packages nothing: it compiles and caches the jar from the sources on first use, and again whenever
they change.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

from setuptools import setup
from setuptools.command.build_py import build_py

HERE = Path(__file__).resolve().parent


class build_py_with_jar(build_py):  # named like setuptools' own commands
    def run(self) -> None:
        super().run()
        if getattr(self, "editable_mode", False):
            return
        sys.path.insert(0, str(HERE))  # this source tree's qlog_pyserini, not an installed one
        from qlog_pyserini.errors import QLogError
        from qlog_pyserini.jvm.jar import PACKAGED_JAR, compile_jar

        fatjar = os.environ.get("QLOG_PYSERINI_FATJAR")
        target = Path(self.build_lib) / "qlog_pyserini" / PACKAGED_JAR.parent.name / PACKAGED_JAR.name
        try:
            compile_jar(target, fatjar=Path(fatjar) if fatjar else None)
        except QLogError as e:
            raise SystemExit(f"error: cannot compile the similarity jar for the wheel: {e}\n"
                             "Build in an environment with pyserini==2.4.0 and a JDK >= 21 "
                             "(python -m build --no-isolation), or set QLOG_PYSERINI_FATJAR.") from None
        print(f"packaged {target}", file=sys.stderr)


setup(cmdclass={"build_py": build_py_with_jar})
