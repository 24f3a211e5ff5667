"""Finding what the Java side needs: a JDK >= 21 and the installed Pyserini's Anserini fatjar.

Nothing here is hard-coded to a machine. A full JDK (it has ``javac``) of version >= 21 named by
``QLOG_JAVA_HOME``, else by ``JAVA_HOME``, is used: the user chose it. Otherwise the newest such JDK
among the system JVM folders (``/usr/lib/jvm`` and friends) and ``javac`` on ``PATH`` is used.
"""

from __future__ import annotations

import functools
import glob
import os
import re
import shlex
import shutil
import subprocess
from dataclasses import dataclass
from pathlib import Path

from qlog_pyserini.errors import QLogError

MIN_JAVA = 21
SYSTEM_JVM_DIRS = ("/usr/lib/jvm", "/usr/java", "/opt/java", "/Library/Java/JavaVirtualMachines")


@dataclass(frozen=True)
class Jdk:
    home: Path
    version: int

    @property
    def java(self) -> Path:
        return self.home / "bin" / "java"

    @property
    def javac(self) -> Path:
        return self.home / "bin" / "javac"

    @property
    def jar(self) -> Path:
        return self.home / "bin" / "jar"


def _release_version(home: Path) -> int | None:
    """Major version from the JDK's ``release`` file (no process started), else from ``java -version``."""
    release = home / "release"
    text = ""
    if release.is_file():
        text = release.read_text(errors="replace")
        m = re.search(r'JAVA_VERSION="(\d+)(?:\.(\d+))?', text)
        if m:
            major = int(m.group(1))
            return int(m.group(2)) if major == 1 and m.group(2) else major
    try:
        out = subprocess.run([str(home / "bin" / "java"), "-version"], capture_output=True, text=True, timeout=30)
    except (OSError, subprocess.TimeoutExpired):
        return None
    m = re.search(r'version "(\d+)(?:\.(\d+))?', out.stderr + out.stdout)
    if not m:
        return None
    major = int(m.group(1))
    return int(m.group(2)) if major == 1 and m.group(2) else major


def _candidates() -> list[Path]:
    homes: list[Path] = []
    for var in ("QLOG_JAVA_HOME", "JAVA_HOME"):
        if os.environ.get(var):
            homes.append(Path(os.environ[var]))
    for root in SYSTEM_JVM_DIRS:
        for entry in sorted(glob.glob(os.path.join(root, "*")), reverse=True):
            p = Path(entry)
            homes.append(p / "Contents" / "Home" if (p / "Contents" / "Home").is_dir() else p)
    javac = shutil.which("javac")
    if javac:
        homes.append(Path(os.path.realpath(javac)).parent.parent)
    seen, unique = set(), []
    for h in homes:
        r = h.resolve() if h.exists() else h
        if r not in seen:
            seen.add(r)
            unique.append(r)
    return unique


@functools.cache
def find_jdk(min_version: int = MIN_JAVA) -> Jdk:
    """The JDK of at least ``min_version`` with ``javac`` that the environment names, else the newest one found,
    else a clear :class:`QLogError`."""
    found: list[str] = []
    best: Jdk | None = None
    named = {Path(os.environ[v]).resolve() for v in ("QLOG_JAVA_HOME", "JAVA_HOME") if os.environ.get(v)}
    for home in _candidates():
        if not (home / "bin" / "javac").is_file():
            continue
        version = _release_version(home)
        if version is None:
            continue
        found.append(f"{home} (Java {version})")
        if version >= min_version and home in named:
            return Jdk(home, version)  # _candidates lists QLOG_JAVA_HOME before JAVA_HOME
        if version >= min_version and (best is None or version > best.version):
            best = Jdk(home, version)
    if best is not None:
        return best
    if found:
        raise QLogError(
            f"a JDK >= {min_version} is needed (Pyserini's jar holds Java {min_version} classes); "
            f"found only {', '.join(found)}. Install one (e.g. 'apt-get install openjdk-{min_version}-jdk') "
            f"or point JAVA_HOME at it")
    raise QLogError(
        f"no JDK found (looked at JAVA_HOME, {', '.join(SYSTEM_JVM_DIRS)} and PATH); install a JDK >= {min_version} "
        f"(e.g. 'apt-get install openjdk-{min_version}-jdk') or point JAVA_HOME at it")


@functools.cache
def pyserini_jar() -> Path:
    """The ``anserini-*-fatjar.jar`` of the installed Pyserini (found without importing pyserini)."""
    import importlib.util

    spec = importlib.util.find_spec("pyserini")
    if spec is None or not spec.submodule_search_locations:
        raise QLogError("pyserini is not installed; install it with 'pip install --no-deps pyserini==2.4.0'")
    jars_dir = Path(list(spec.submodule_search_locations)[0]) / "resources" / "jars"
    jars = sorted(jars_dir.glob("anserini-*-fatjar.jar"), key=lambda p: p.stat().st_mtime)
    if not jars:
        raise QLogError(f"pyserini is installed but has no anserini-*-fatjar.jar in {jars_dir}; reinstall pyserini==2.4.0")
    return jars[-1]


def pyserini_logging_config() -> Path | None:
    """Pyserini's log4j/JUL config that keeps the JVM's start-up chatter quiet, if present."""
    p = pyserini_jar().parent / "logging.properties"
    return p if p.is_file() else None


JAVA_OPTS_ENV = "QLOG_JAVA_OPTS"


def user_java_options() -> list[str]:
    """``$QLOG_JAVA_OPTS`` split like a shell would (e.g. ``-Xmx4g``); QLogError if it cannot be split."""
    text = os.environ.get(JAVA_OPTS_ENV, "")
    try:
        opts = shlex.split(text)
    except ValueError as e:
        raise QLogError(f"${JAVA_OPTS_ENV} {text!r} cannot be split into options: {e}") from None
    bad = [o for o in opts if not o.startswith("-")]
    if bad:
        raise QLogError(f"${JAVA_OPTS_ENV} holds {bad[0]!r}, which is not a JVM option (options start with '-')")
    return opts


# Options of the `java` launcher, not of the JVM: an embedded JVM (pyjnius) ignores or chokes on them.
LAUNCHER_ONLY = frozenset({"-version", "--version", "-showversion", "--show-version", "-fullversion", "-help", "--help",
                           "-h", "-?", "-X", "--help-extra", "-jar", "-cp", "-classpath", "--class-path", "--dry-run",
                           "--list-modules", "-m", "--module"})
HEAP_HINT = "raise it with e.g. QLOG_JAVA_OPTS=-Xmx4g (the heap limit; the default is a quarter of the machine's memory)"


def checked_java_options() -> list[str]:
    """:func:`user_java_options`, once checked to start a JVM (``java <options> -version``); else one QLogError.

    The check runs only when ``$QLOG_JAVA_OPTS`` is set, once per process. Without it, a bad option
    fails inside pyjnius as a bare ``SystemError: JVM failed to start`` with the JVM's own message
    hidden, or makes the JVM end the whole process.
    """
    opts = user_java_options()
    launcher = [o for o in opts if o.split("=", 1)[0] in LAUNCHER_ONLY]
    if launcher:
        raise QLogError(f"${JAVA_OPTS_ENV} holds {launcher[0]!r}, an option of the java launcher, not of the JVM; "
                        "give only JVM options such as -Xmx4g")
    if opts:
        _probe_options(tuple(opts))
    return opts


@functools.cache
def _probe_options(opts: tuple[str, ...]) -> None:
    try:
        proc = subprocess.run([str(find_jdk().java), *opts, "-version"], capture_output=True, text=True,
                              errors="replace", timeout=120)
    except (OSError, subprocess.TimeoutExpired) as e:
        raise QLogError(f"cannot start java to check ${JAVA_OPTS_ENV}: {e}") from None
    if proc.returncode != 0:
        lines = [ln.strip() for ln in (proc.stderr + proc.stdout).splitlines() if ln.strip()]
        reason = next((ln for ln in lines if not ln.startswith("Error: ") and "initialization of VM" not in ln),
                      lines[0] if lines else f"exit code {proc.returncode}")
        hint = ("; a valid, large enough heap is e.g. -Xmx4g" if "heap" in reason.lower() or "NewSize" in reason
                else "")
        raise QLogError(f"the JVM does not start with ${JAVA_OPTS_ENV}={shlex.join(opts)!r}: {reason}{hint}")


def jvm_options() -> list[str]:
    """The JVM options Pyserini starts its JVM with (vector API module, native access, quiet logs),
    then ``-Xrs`` and ``-XX:+DisableAttachMechanism``, then ``$QLOG_JAVA_OPTS`` (e.g. ``-Xmx4g``; without it the heap limit is the
    JVM's default, a quarter of the machine's memory)."""
    opts = ["--add-modules=jdk.incubator.vector", "--enable-native-access=ALL-UNNAMED", "-Dslf4j.internal.verbosity=WARN"]
    cfg = pyserini_logging_config()
    if cfg is not None and not os.environ.get("PYSERINI_VERBOSE_JVM"):
        opts.append(f"-Djava.util.logging.config.file={cfg}")
    # -Xrs: the JVM leaves SIGTERM, SIGINT and SIGHUP to Python. Without it the JVM inside our
    # process takes SIGTERM over and exits at once, skipping the clean-up of our temporaries.
    opts.append("-Xrs")
    # -Xrs also starts HotSpot's attach listener at once (SIGQUIT cannot start it later), whose socket
    # /tmp/.java_pid<pid> a killed JVM leaves forever. Nothing of ours attaches to the JVM (jcmd, jstack);
    # -XX:-DisableAttachMechanism in $QLOG_JAVA_OPTS, which comes later and wins, allows it again.
    opts.append("-XX:+DisableAttachMechanism")
    return opts + checked_java_options()


def embedded_jvm_options() -> list[str]:
    """:func:`jvm_options` for the JVM inside this process (searching): unless ``$QLOG_JAVA_OPTS``
    picks a collector or sizes the heap, :data:`EMBEDDED_MEMORY` (see there why); unless it sets
    its own interval, :data:`NATIVE_TRIM`; unless it configures log4j, :data:`SIMPLE_LOG4J`. The
    indexer's own ``java`` process keeps the JVM's defaults."""
    opts = jvm_options()
    user = user_java_options()
    ours = []
    if not any(o.startswith(HEAP_SIZE_OPTIONS) or GC_CHOICE.fullmatch(o) for o in user):
        ours += EMBEDDED_MEMORY
    if find_jdk().version >= NATIVE_TRIM_SINCE and not any(o.startswith(NATIVE_TRIM.split("=", 1)[0] + "=")
                                                           for o in user):
        ours.append(NATIVE_TRIM)
    if not os.environ.get("PYSERINI_VERBOSE_JVM") and not any(o.startswith(LOG4J_PROPERTIES) for o in user):
        ours += SIMPLE_LOG4J
    opts[len(opts) - len(user):len(opts) - len(user)] = ours
    return opts


# The embedded (searching) JVM's collector and heap. A search keeps little on the heap (the index is
# memory-mapped, outside it; a batch's hits are a few MB), but each query allocates about half a MB of
# short-lived scorer state inside Lucene. G1, the default, meets that by growing its young generation
# for as long as the process runs (64 MB committed at the start, 200 MB after 30,000 queries here), so
# a long run's resident memory ended well above a short one's. A fixed 32 MB young generation under
# the throughput collector holds every query's garbage until it dies (the live heap is ~20 MB), and
# the heap stays where it started whatever the number of queries; the heap limit is unchanged.
# $QLOG_JAVA_OPTS that picks a collector or any heap size replaces all of these.
INITIAL_HEAP = "-Xms64m"
EMBEDDED_MEMORY = ("-XX:+UseParallelGC", INITIAL_HEAP, "-Xmn32m", "-XX:-UseAdaptiveSizePolicy")
GC_CHOICE = re.compile(r"-XX:[+-]Use\w*GC")
# The JIT's compiler threads malloc and free large arenas while the code warms up; glibc keeps what they
# freed, so resident memory kept rising for the first ~10 s of a run. Trimming the native heap every
# second hands it back (a no-op where there is nothing to trim). A product option from JDK 22 on; JDK 21
# had it only as an experimental backport, so it is left out there.
NATIVE_TRIM = "-XX:TrimNativeHeapInterval=1000"
NATIVE_TRIM_SINCE = 22
# Anserini logs through log4j 2, whose core reads the fatjar's XML configuration and loads some 500
# classes when the first Anserini class is initialised (loading our searcher class took 1.1 s with it
# and 0.3 s without, on a shared machine), for messages a search never needs. log4j's own simple logger
# (in log4j-api) prints warnings and errors to stderr instead. The indexer's java process keeps
# Anserini's configuration (its progress is INFO); PYSERINI_VERBOSE_JVM=1, or any log4j property in
# $QLOG_JAVA_OPTS, keeps it too.
SIMPLE_LOG4J = ("-Dlog4j2.loggerContextFactory=org.apache.logging.log4j.simple.SimpleLoggerContextFactory",
                "-Dorg.apache.logging.log4j.simplelog.level=WARN")
LOG4J_PROPERTIES = ("-Dlog4j2.", "-Dlog4j.", "-Dorg.apache.logging.log4j.")
HEAP_SIZE_OPTIONS = ("-Xms", "-Xmx", "-XX:InitialHeapSize", "-XX:MaxHeapSize", "-XX:MinHeapSize", "-Xmn",
                     "-XX:NewSize", "-XX:MaxNewSize")
