"""Compile ``java-similarity/`` against Pyserini's Anserini fatjar into a cached jar.

The jar's name carries a hash of the Java sources, the fatjar (path, size, mtime) and the JDK
version, so editing a source or upgrading Pyserini rebuilds it and nothing else does. It is built
on first use by :mod:`qlog_pyserini.jvm`, or explicitly::

    python -m qlog_pyserini.build [--force]
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
from qlog_pyserini.project import PROJECT_ROOT

JAVA_ROOT = PROJECT_ROOT / "java-similarity"
# The Maven modules whose classes Pyserini's JVM needs: the similarities (Lucene only) and the
# Anserini-dependent searcher, indexer and statistics. The Solr module is Maven-only.
JAVA_MODULES = ("qlog-similarity", "qlog-anserini")


def jar_dir() -> Path:
    """Where built jars are cached: ``$QLOG_JAR_DIR``, else ``java-similarity/build``."""
    return Path(os.environ.get("QLOG_JAR_DIR", PROJECT_ROOT / "java-similarity" / "build"))


def source_roots() -> list[Path]:
    """The ``src/main/java`` folders javac compiles: the same sources Maven builds."""
    roots = [JAVA_ROOT / m / "src" / "main" / "java" for m in JAVA_MODULES]
    roots = [r for r in roots if r.is_dir()]
    legacy = JAVA_ROOT / "src" / "main" / "java"  # the single-folder layout before the Maven build
    if not roots and legacy.is_dir():
        roots = [legacy]
    if not roots:
        raise QLogError(f"Java sources not found under {JAVA_ROOT}; install qlog-pyserini from its source tree "
                        "(pip install -e .) or from a wheel, which carries the compiled jar")
    return roots


def java_sources() -> list[tuple[Path, Path]]:
    """Every ``.java`` file to compile, as ``(root, file)`` pairs in a stable order."""
    sources = [(root, f) for root in source_roots() for f in sorted(root.rglob("*.java"))]
    if not sources:
        raise QLogError(f"no .java files under {JAVA_ROOT}")
    return sources


def build_key() -> str:
    """Hash of everything the compiled classes depend on."""
    h = hashlib.sha256()
    for root, src in java_sources():
        h.update(str(src.relative_to(root)).encode())
        h.update(src.read_bytes())
    fat = pyserini_jar()
    st = fat.stat()
    h.update(f"{fat.resolve()}|{st.st_size}|{st.st_mtime_ns}|java{find_jdk().version}".encode())
    return h.hexdigest()[:16]


def similarity_jar(force: bool = False, verbose: bool = False) -> Path:
    """Path of the compiled jar, building it if it is missing, stale, or ``force`` is set."""
    target = jar_dir() / f"qlog-similarity-{build_key()}.jar"
    if target.is_file() and not force:
        return target
    jdk = find_jdk()
    target.parent.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(prefix="qlog-javac-") as tmp:
        classes = Path(tmp) / "classes"
        cmd = [str(jdk.javac), "--release", str(MIN_JAVA), "-encoding", "UTF-8", "-Xlint:-options",
               "-cp", str(pyserini_jar()), "-d", str(classes), *(str(f) for _, f in java_sources())]
        if verbose:
            print(" ".join(cmd), file=sys.stderr)
        proc = subprocess.run(cmd, capture_output=True, text=True)
        if proc.returncode != 0:
            raise QLogError(f"javac failed ({jdk.javac}):\n{proc.stderr.strip()}")
        # A jar is a zip; writing it here avoids depending on the JDK's jar tool.
        fd, tmp_jar = tempfile.mkstemp(suffix=".jar", dir=target.parent)
        os.close(fd)
        with zipfile.ZipFile(tmp_jar, "w", zipfile.ZIP_DEFLATED) as z:
            z.writestr("META-INF/MANIFEST.MF", "Manifest-Version: 1.0\nCreated-By: qlog-pyserini\n")
            for cls in sorted(classes.rglob("*.class")):
                z.write(cls, cls.relative_to(classes).as_posix())
        os.replace(tmp_jar, target)
    for old in target.parent.glob("qlog-similarity-*.jar"):
        if old != target:
            old.unlink(missing_ok=True)
    return target
