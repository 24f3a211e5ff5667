"""Compile ``java-similarity/`` against Pyserini's Anserini fatjar into a cached jar.

Where the jar comes from:

- a source checkout (``pip install -e .``): compiled from ``java-similarity/*/src/main/java`` into
  ``java-similarity/build/`` under a name that carries a hash of the Java sources, the fatjar (path,
  size, mtime) and the JDK version, so editing a source or upgrading Pyserini rebuilds it and nothing
  else does;
- an installed wheel: the jar packaged in ``qlog_pyserini/_jars/`` at wheel-build time
  (``setup.py``'s build hook calls :func:`compile_jar`), as Pyserini ships its fatjar.

It is built on first use by :mod:`qlog_pyserini.jvm`, or explicitly::

    python -m qlog_pyserini.build [--force] [--bench]

The benchmark programs (``java-similarity/qlog-benchmark``: ``io.qlog.bench.SearchBenchmark``) are compiled
into a jar of their own, ``qlog-benchmark-<hash>.jar`` beside it (:func:`bench_jar`), against the similarity
jar: no benchmark class is in the jar a user installs, and a wheel carries no bench jar.
"""

from __future__ import annotations

import hashlib
import os
import subprocess
import sys
import tempfile
import zipfile
from pathlib import Path

from qlog_pyserini.errors import QLogError
from qlog_pyserini.jvm.toolchain import MIN_JAVA, find_jdk, pyserini_jar
from qlog_pyserini.system.project import PROJECT_ROOT

JAVA_ROOT = PROJECT_ROOT / "java-similarity"
# The Maven modules whose classes Pyserini's JVM needs: the similarities (Lucene only) and the
# Anserini-dependent searcher, indexer and statistics. The Solr module is Maven-only.
JAVA_MODULES = ("qlog-similarity", "qlog-anserini")
# The benchmark programs: their own jar, on the classpath only of what benchmarks (python -m qlog_pyserini.bench).
BENCH_MODULES = ("qlog-benchmark",)
# The jar a wheel carries (package data); absent in a source checkout, which builds its own.
PACKAGED_JAR = Path(__file__).resolve().parent.parent / "_jars" / "qlog-similarity.jar"


def jar_dir() -> Path:
    """Where built jars are cached: ``$QLOG_JAR_DIR``, else ``java-similarity/build``."""
    return Path(os.environ.get("QLOG_JAR_DIR", PROJECT_ROOT / "java-similarity" / "build"))


def _existing_source_roots(modules: tuple[str, ...] = JAVA_MODULES) -> list[Path]:
    roots = [JAVA_ROOT / m / "src" / "main" / "java" for m in modules]
    return [r for r in roots if r.is_dir()]


def has_sources() -> bool:
    """Whether the Java sources are here (a source checkout), so the jar is built from them."""
    return bool(_existing_source_roots())


def source_roots() -> list[Path]:
    """The ``src/main/java`` folders javac compiles: the same sources Maven builds."""
    roots = _existing_source_roots()
    if not roots:
        raise QLogError(f"Java sources not found under {JAVA_ROOT}; install qlog-pyserini from its source tree "
                        "(pip install -e .) or from a wheel, which carries the compiled jar")
    return roots


def bench_source_roots() -> list[Path]:
    """The ``src/main/java`` folders of the benchmark programs, compiled into the bench jar."""
    roots = _existing_source_roots(BENCH_MODULES)
    if not roots:
        raise QLogError(f"the benchmark sources ({', '.join(BENCH_MODULES)}) are not under {JAVA_ROOT}: the bench "
                        "jar is built in a source checkout (pip install -e .); a wheel carries none")
    return roots


def java_sources(roots: list[Path] | None = None) -> list[tuple[Path, Path]]:
    """Every ``.java`` file under ``roots`` (default :func:`source_roots`), as ``(root, file)`` pairs in a stable order."""
    sources = [(root, f) for root in (source_roots() if roots is None else roots) for f in sorted(root.rglob("*.java"))]
    if not sources:
        raise QLogError(f"no .java files under {JAVA_ROOT}")
    return sources


def build_key() -> str:
    """Hash of everything the compiled classes depend on."""
    fat = pyserini_jar()
    st = fat.stat()
    return _source_key(java_sources(), f"{fat.resolve()}|{st.st_size}|{st.st_mtime_ns}|java{find_jdk().version}")


def _source_key(sources: list[tuple[Path, Path]], compiled_against: str) -> str:
    h = hashlib.sha256()
    for root, src in sources:
        h.update(str(src.relative_to(root)).encode())
        h.update(src.read_bytes())
    h.update(compiled_against.encode())
    return h.hexdigest()[:16]


def current_jar() -> Path | None:
    """The jar to use if it exists and is up to date, else None; never compiles (cheap, for import time)."""
    if not has_sources():
        return PACKAGED_JAR if PACKAGED_JAR.is_file() else None
    try:
        target = jar_dir() / f"qlog-similarity-{build_key()}.jar"
    except QLogError:  # no JDK or no Pyserini yet: the first real use reports it
        return None
    return target if target.is_file() else None


def similarity_jar(force: bool = False, verbose: bool = False) -> Path:
    """Path of the jar: the packaged one in a wheel; in a checkout the cached build, rebuilt when stale or ``force``."""
    if not has_sources() and PACKAGED_JAR.is_file() and not force:
        return PACKAGED_JAR
    target = jar_dir() / f"qlog-similarity-{build_key()}.jar"
    if target.is_file() and not force:
        return target
    compile_jar(target, verbose=verbose)
    _drop_stale(target, "qlog-similarity-")
    return target


def bench_jar(force: bool = False, verbose: bool = False) -> Path:
    """Path of the bench jar (the benchmark programs), compiled against the similarity jar and cached as it is:
    rebuilt when a benchmark source or the similarity jar changes, or ``force``."""
    sources = java_sources(bench_source_roots())
    main = similarity_jar(verbose=verbose)
    target = jar_dir() / f"qlog-benchmark-{_source_key(sources, main.name)}.jar"
    if target.is_file() and not force:
        return target
    compile_jar(target, verbose=verbose, sources=sources, classpath=(main,))
    _drop_stale(target, "qlog-benchmark-")
    return target


def _drop_stale(target: Path, prefix: str) -> None:
    """Remove the cached jars of other sources beside ``target``, the ones this module named ``prefix<hash>.jar``."""
    for old in target.parent.glob(f"{prefix}*.jar"):
        if old != target:
            old.unlink(missing_ok=True)


def compile_jar(target: Path, fatjar: Path | None = None, verbose: bool = False,
                sources: list[tuple[Path, Path]] | None = None, classpath: tuple[Path, ...] = ()) -> Path:
    """Compile ``sources`` (default :func:`java_sources`) against ``fatjar`` (default: the installed Pyserini's)
    and ``classpath`` into ``target``.

    The jar appears atomically: a failed compile leaves no file at ``target``.
    """
    jdk = find_jdk()
    fatjar = fatjar or pyserini_jar()
    sources = java_sources() if sources is None else sources
    target.parent.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(prefix="qlog-javac-") as tmp:
        classes = Path(tmp) / "classes"
        cmd = [str(jdk.javac), "--release", str(MIN_JAVA), "-encoding", "UTF-8", "-Xlint:-options",
               "-cp", os.pathsep.join(str(p) for p in (fatjar, *classpath)), "-d", str(classes),
               *(str(f) for _, f in sources)]
        if verbose:
            print(" ".join(cmd), file=sys.stderr)
        proc = subprocess.run(cmd, capture_output=True, text=True)
        if proc.returncode != 0:
            raise QLogError(f"javac failed ({jdk.javac}):\n{proc.stderr.strip()}")
        # A jar is a zip; writing it here avoids depending on the JDK's jar tool. The manifest names
        # the fatjar compiled against, so a packaged jar can be matched to its Pyserini.
        fd, tmp_jar = tempfile.mkstemp(suffix=".jar", dir=target.parent)
        os.close(fd)
        with zipfile.ZipFile(tmp_jar, "w", zipfile.ZIP_DEFLATED) as z:
            z.writestr("META-INF/MANIFEST.MF", "Manifest-Version: 1.0\nCreated-By: qlog-pyserini\n"
                                               f"Compiled-Against: {fatjar.name}\n")
            for cls in sorted(classes.rglob("*.class")):
                z.write(cls, cls.relative_to(classes).as_posix())
        os.replace(tmp_jar, target)
    return target
