"""The JVM bridge: one JVM per process, with Pyserini's fatjar and our similarity jar on its classpath.

pyjnius fixes the classpath when the JVM starts, so our jar must be added before anything starts
it. Call :func:`jclass` (or anything in :mod:`qlog_pyserini.searcher`) before importing other
JVM-starting modules. This module never imports ``pyserini.search``, ``pyserini.index`` or
``pyserini.eval``: Pyserini 2.4.0 fetches prebuilt-index metadata from the network when they are
imported, and 1.x imports torch.
"""

from __future__ import annotations

import contextlib
import os
import sys
import threading
from typing import Any, Iterable, Iterator

from qlog_pyserini.errors import QLogError
from qlog_pyserini.jvm.build import similarity_jar
from qlog_pyserini.jvm.toolchain import find_jdk, jvm_options, pyserini_jar

PROBE_CLASS = "io.qlog.search.QLogSearcher"
_lock = threading.Lock()
_started = False


@contextlib.contextmanager
def _quiet_stderr() -> Iterator[None]:
    """Silence the JVM's start-up notices (e.g. the vector incubator warning) at the fd level."""
    if os.environ.get("PYSERINI_VERBOSE_JVM"):
        yield
        return
    sys.stderr.flush()
    saved = os.dup(2)
    devnull = os.open(os.devnull, os.O_WRONLY)
    try:
        os.dup2(devnull, 2)
        yield
    finally:
        sys.stderr.flush()
        os.dup2(saved, 2)
        os.close(saved)
        os.close(devnull)


def start_jvm() -> None:
    """Start the JVM with our classes, or check that an already running one has them."""
    global _started
    with _lock:
        if _started:
            return
        import jnius_config

        if jnius_config.vm_running:
            _check_running_jvm()
            _started = True
            return
        jdk = find_jdk()
        jar = similarity_jar()
        # pyjnius locates libjvm through JAVA_HOME when jnius is first imported.
        os.environ["JAVA_HOME"] = str(jdk.home)
        jnius_config.add_classpath(str(pyserini_jar()), str(jar))
        jnius_config.add_options(*jvm_options())
        with _quiet_stderr():
            import jnius  # noqa: F401  (starts the JVM)
        _check_running_jvm()
        _started = True


def _check_running_jvm() -> None:
    from jnius import JavaException, autoclass

    try:
        autoclass(PROBE_CLASS)
    except JavaException:
        raise QLogError(
            "a JVM is already running without the qlog-pyserini classes (something started it first, e.g. "
            "an import of pyserini.search); import qlog_pyserini and create a QLogSearcher before other "
            "JVM users, or run in a fresh process") from None


def jclass(name: str) -> Any:
    """A Java class by its fully qualified name, starting the JVM on first use."""
    start_jvm()
    from jnius import autoclass

    return autoclass(name)


def jcast(name: str, obj: Any) -> Any:
    """``jnius.cast``: view ``obj`` as class ``name`` (pyjnius sometimes picks the wrong overload otherwise)."""
    from jnius import cast

    return cast(name, obj)


def java_list(items: Iterable[Any]) -> Any:
    """A ``java.util.ArrayList`` holding ``items`` (strings or Java objects)."""
    lst = jclass("java.util.ArrayList")()
    for item in items:
        lst.add(item)
    return lst
