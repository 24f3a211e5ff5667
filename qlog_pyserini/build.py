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
from typing import Sequence

from .errors import ArgumentParser, QLogError, run_cli
from .toolchain import MIN_JAVA, find_jdk, pyserini_jar

PROJECT_ROOT = Path(__file__).resolve().parent.parent
JAVA_SOURCES = PROJECT_ROOT / "java-similarity" / "src" / "main" / "java"


def jar_dir() -> Path:
    """Where built jars are cached: ``$QLOG_JAR_DIR``, else ``java-similarity/build``."""
    return Path(os.environ.get("QLOG_JAR_DIR", PROJECT_ROOT / "java-similarity" / "build"))


def java_sources() -> list[Path]:
    if not JAVA_SOURCES.is_dir():
        raise QLogError(f"Java sources not found at {JAVA_SOURCES}; install qlog-pyserini from its source tree (pip install -e .)")
    sources = sorted(JAVA_SOURCES.rglob("*.java"))
    if not sources:
        raise QLogError(f"no .java files under {JAVA_SOURCES}")
    return sources


def build_key() -> str:
    """Hash of everything the compiled classes depend on."""
    h = hashlib.sha256()
    for src in java_sources():
        h.update(str(src.relative_to(JAVA_SOURCES)).encode())
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
               "-cp", str(pyserini_jar()), "-d", str(classes), *map(str, java_sources())]
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


def main(argv: Sequence[str] | None = None) -> int:
    parser = ArgumentParser(
        prog="python -m qlog_pyserini.build",
        description="Compile the q-log BM25 Lucene similarity (java-similarity/) against the installed "
                    "Pyserini's Anserini fatjar with a JDK >= 21, and cache the jar. Searching builds it "
                    "on first use; run this to build ahead of time or to check the toolchain.")
    parser.add_argument("--force", action="store_true", help="rebuild even if a jar for these sources exists")
    args = parser.parse_args(argv)
    jdk = find_jdk()
    jar = similarity_jar(force=args.force, verbose=True)
    print(f"JDK:       {jdk.home} (Java {jdk.version})")
    print(f"Pyserini:  {pyserini_jar()}")
    print(f"built jar: {jar}")
    return 0


if __name__ == "__main__":
    run_cli(main)
