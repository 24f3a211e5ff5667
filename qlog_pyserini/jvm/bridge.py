"""The JVM bridge: one JVM per process, with Pyserini's fatjar and our similarity jar on its classpath.

Two separate steps, as in Pyserini (``pyserini._jvm.configure_classpath``, then ``pyserini.pyclass``):

1. :func:`configure_classpath` puts both jars on pyjnius's classpath while no JVM runs. Importing
   ``qlog_pyserini`` does this, so whoever starts the JVM next (``pyserini.pyclass`` on any
   ``import pyserini.search``, or :func:`start_jvm`) starts one JVM that has both.
2. :func:`start_jvm` starts it if nobody has, and makes sure our classes are loadable. When a JVM
   already runs without them (Pyserini was imported first, or the jar had to be rebuilt), our jar is
   appended to the running JVM's application class path, which is what the JDK's own
   ``Instrumentation.appendToSystemClassLoaderSearch`` does for agents. So import order never matters.

This module never imports ``pyserini.search``, ``pyserini.index`` or ``pyserini.eval``: Pyserini 2.4.0
fetches its prebuilt-index catalogue from the network when they are imported.
"""

from __future__ import annotations

import contextlib
import os
import sys
import threading
from pathlib import Path
from typing import Any, Iterator

from qlog_pyserini.errors import QLogError
from qlog_pyserini.jvm.jar import current_jar, similarity_jar
from qlog_pyserini.jvm.toolchain import JAVA_OPTS_ENV, embedded_jvm_options, find_jdk, pyserini_jar

PROBE_CLASS = "io.qlog.search.QLogSearcher"
APP_CLASS_LOADER = "jdk.internal.loader.ClassLoaders$AppClassLoader"
_lock = threading.RLock()
_started = False


def java_error(e: Exception) -> str:
    """The first line of a Java exception's message, without the Java stack."""
    text = str(getattr(e, "innermessage", None) or e).strip().splitlines()
    return text[0] if text else type(e).__name__


def is_java_exception(e: Exception) -> bool:
    """Whether ``e`` was thrown in Java (pyjnius's ``JavaException``, checked by name so jnius is not imported)."""
    return type(e).__name__ == "JavaException"


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


def jvm_running() -> bool:
    """Whether pyjnius has started this process's JVM (by us, Pyserini or anyone)."""
    import jnius_config

    return bool(jnius_config.vm_running)


def _add_to_jnius(jar: Path) -> None:
    import jnius_config

    # pyjnius locates libjvm through JAVA_HOME when jnius is first imported, whoever imports it.
    os.environ["JAVA_HOME"] = str(find_jdk().home)
    # jnius_config.classpath, not get_classpath(): that one imports jnius, which starts the JVM.
    present = set(jnius_config.classpath or ())
    jnius_config.add_classpath(*(p for p in (str(pyserini_jar()), str(jar)) if p not in present))
    options = set(jnius_config.get_options())
    jnius_config.add_options(*(o for o in embedded_jvm_options() if o not in options))


def configure_classpath() -> Path | None:
    """Put Pyserini's fatjar and our jar on pyjnius's classpath, without starting a JVM.

    Returns the jar added, or None when nothing could be added now: a JVM already runs, or the jar
    is not built yet (an editable checkout whose Java sources changed; it is built, and appended to
    the JVM, on first use). Never compiles, so importing the package stays cheap.
    """
    with _lock:
        if jvm_running():
            return None
        jar = current_jar()
        if jar is not None:
            _add_to_jnius(jar)
        return jar


def start_jvm() -> None:
    """Start the JVM with our classes, or make an already running one able to load them."""
    global _started
    with _lock:
        if _started:
            return
        if not jvm_running():
            _add_to_jnius(similarity_jar())  # checks $QLOG_JAVA_OPTS first (toolchain.checked_java_options)
            try:
                with _quiet_stderr():
                    import jnius  # noqa: F401  (starts the JVM)
            except SystemError as e:  # pyjnius' "JVM failed to start": the reason went to the silenced stderr
                raise QLogError(f"the JVM failed to start ({e}); run with PYSERINI_VERBOSE_JVM=1 to see the JVM's "
                                f"own message, and check {JAVA_OPTS_ENV}") from None
        _ensure_our_classes()
        _started = True


def _loadable(name: str) -> bool:
    from jnius import JavaException, autoclass

    try:
        autoclass(name)
        return True
    except JavaException:
        return False


def _ensure_our_classes() -> None:
    if _loadable(PROBE_CLASS):
        return
    jar = similarity_jar()
    _append_to_running_jvm(jar)
    if not _loadable(PROBE_CLASS):
        raise QLogError(f"a JVM is already running and {PROBE_CLASS} cannot be loaded from {jar}")


def _append_to_running_jvm(jar: Path) -> None:
    """Append ``jar`` to the application class loader's search path of the running JVM.

    The JDK's application class loader has no public method for this (agents reach it through
    ``Instrumentation``); pyjnius calls its package-private ``appendToClassPathForInstrumentation``
    through JNI, which does not apply Java's access checks. The loader is checked to be the JDK's
    own before it is cast, so another JVM fails with a clear error instead of a crash.
    """
    from jnius import JavaException, autoclass, cast

    loader = autoclass("java.lang.ClassLoader").getSystemClassLoader()
    kind = loader.getClass().getName()
    if kind != APP_CLASS_LOADER:
        raise QLogError(
            f"a JVM is already running without the qlog-pyserini classes, and its class loader ({kind}) cannot "
            "take our jar; import qlog_pyserini before anything starts the JVM (e.g. before pyserini.search)")
    try:
        app = cast(autoclass(APP_CLASS_LOADER, include_protected=True, include_private=True), loader)
        app.appendToClassPathForInstrumentation(str(jar))
    except (JavaException, AttributeError) as e:
        raise QLogError(
            f"a JVM is already running without the qlog-pyserini classes and adding {jar} to it failed ({e}); "
            "import qlog_pyserini before anything starts the JVM (e.g. before pyserini.search)") from None


def jclass(name: str) -> Any:
    """A Java class by its fully qualified name, starting the JVM on first use."""
    start_jvm()
    from jnius import autoclass

    return autoclass(name)


def jar_class(jar: Path, name: str) -> Any:
    """Class ``name`` from ``jar``, a jar kept apart from ours (the bench jar): the JVM is started, and ``jar`` is
    appended to its class path unless ``name`` is loadable already."""
    start_jvm()
    with _lock:
        if not _loadable(name):
            _append_to_running_jvm(jar)
            if not _loadable(name):
                raise QLogError(f"{name} cannot be loaded from {jar}")
    return jclass(name)


def jcast(name: str, obj: Any) -> Any:
    """``jnius.cast``: view ``obj`` as class ``name`` (pyjnius sometimes picks the wrong overload otherwise)."""
    from jnius import cast

    return cast(name, obj)


def java_list(items: list[str]) -> Any:
    """A ``java.util.ArrayList<String>`` holding ``items``."""
    lst = jclass("java.util.ArrayList")()
    for item in items:
        lst.add(item)
    return lst


class _DetachOnExit:
    """Held in a thread-local: when its thread ends, CPython drops it in that thread, and it detaches it."""

    def __init__(self) -> None:
        self.pid = os.getpid()

    def __del__(self) -> None:
        # a child forked from this process drops the other threads' locals too: the JVM is not its own, and a
        # detach there waits forever on a lock of a JVM thread the child does not have
        if os.getpid() != self.pid:
            return
        try:
            from jnius import detach

            detach()
        except Exception:  # interpreter shutdown, or the thread was never attached: nothing to undo
            pass


_thread_guard = threading.local()


def detach_when_thread_ends() -> None:
    """Detach the calling thread from the JVM when it ends (a no-op on the main thread).

    pyjnius attaches every Python thread that calls Java and never detaches it, so each short-lived
    thread would leave a Java thread (and its stack) behind for the life of the process. Call this
    before Java calls made from threads that may be short-lived; :class:`QLogSearcher` does.
    """
    if threading.current_thread() is not threading.main_thread() and not hasattr(_thread_guard, "guard"):
        _thread_guard.guard = _DetachOnExit()
