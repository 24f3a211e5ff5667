"""Finding the JDK and Pyserini's jar, and the cached javac build."""

from __future__ import annotations

import os
import shutil
import subprocess
import zipfile
from pathlib import Path

import pytest

from qlog_pyserini.errors import QLogError
from qlog_pyserini.build import jar as build
from qlog_pyserini.jvm import toolchain

pytestmark = pytest.mark.jvm  # every test here starts the JVM or runs Java


def fake_jdk(root: Path, version: str) -> Path:
    home = root / f"jdk-{version}"
    (home / "bin").mkdir(parents=True)
    for tool in ("java", "javac"):
        (home / "bin" / tool).write_text("#!/bin/sh\nexit 1\n")
        (home / "bin" / tool).chmod(0o755)
    (home / "release").write_text(f'JAVA_VERSION="{version}"\n')
    return home


@pytest.fixture()
def no_system_jdks(monkeypatch, tmp_path):
    monkeypatch.setattr(toolchain, "SYSTEM_JVM_DIRS", (str(tmp_path / "jvm"),))
    monkeypatch.setenv("PATH", str(tmp_path / "empty-bin"))
    monkeypatch.delenv("JAVA_HOME", raising=False)
    monkeypatch.delenv("QLOG_JAVA_HOME", raising=False)
    toolchain.find_jdk.cache_clear()
    yield tmp_path
    toolchain.find_jdk.cache_clear()


def test_no_jdk_says_what_to_install(no_system_jdks):
    with pytest.raises(QLogError, match=r"no JDK found.*JDK >= 21"):
        toolchain.find_jdk()


def test_old_jdk_is_refused_by_name(no_system_jdks, monkeypatch):
    monkeypatch.setenv("JAVA_HOME", str(fake_jdk(no_system_jdks, "17.0.15")))
    with pytest.raises(QLogError, match=r"JDK >= 21 is needed.*Java 17"):
        toolchain.find_jdk()


def test_newest_adequate_jdk_wins_over_old_java_home(no_system_jdks, monkeypatch):
    (no_system_jdks / "jvm").mkdir()
    fake_jdk(no_system_jdks / "jvm", "21.0.2")
    fake_jdk(no_system_jdks / "jvm", "25")
    monkeypatch.setenv("JAVA_HOME", str(fake_jdk(no_system_jdks, "17")))
    jdk = toolchain.find_jdk()
    assert jdk.version == 25 and jdk.home.name == "jdk-25"


def test_an_adequate_java_home_wins_over_a_newer_system_jdk(no_system_jdks, monkeypatch):
    (no_system_jdks / "jvm").mkdir()
    fake_jdk(no_system_jdks / "jvm", "25")
    chosen = no_system_jdks / "mine"
    chosen.mkdir()
    monkeypatch.setenv("JAVA_HOME", str(fake_jdk(chosen, "21.0.2")))
    assert toolchain.find_jdk().version == 21
    toolchain.find_jdk.cache_clear()
    monkeypatch.setenv("QLOG_JAVA_HOME", str(fake_jdk(no_system_jdks, "24")))
    assert toolchain.find_jdk().version == 24


def test_missing_pyserini_is_a_clear_error(monkeypatch):
    import importlib.util

    monkeypatch.setattr(importlib.util, "find_spec", lambda name: None)
    toolchain.pyserini_jar.cache_clear()
    try:
        with pytest.raises(QLogError, match="pip install --no-deps pyserini==2.4.0"):
            toolchain.pyserini_jar()
    finally:
        monkeypatch.undo()
        toolchain.pyserini_jar.cache_clear()


def test_jar_is_cached_and_rebuilt_when_a_source_changes(monkeypatch, tmp_path):
    src = tmp_path / "java"
    for root in build.source_roots():
        shutil.copytree(root, src, dirs_exist_ok=True)
    monkeypatch.setattr(build, "source_roots", lambda: [src])
    monkeypatch.setenv("QLOG_JAR_DIR", str(tmp_path / "jars"))
    first = build.similarity_jar()
    assert first.is_file()
    mtime = first.stat().st_mtime_ns
    assert build.similarity_jar() == first and first.stat().st_mtime_ns == mtime  # cached, not rebuilt
    with zipfile.ZipFile(first) as z:
        assert "io/qlog/similarities/QLogBM25Similarity.class" in z.namelist()
    java = next(src.rglob("QLogBM25Similarity.java"))
    java.write_text(java.read_text() + "\n// edited\n")
    second = build.similarity_jar()
    assert second != first and second.is_file() and not first.exists()


def test_compile_error_is_reported(monkeypatch, tmp_path):
    src = tmp_path / "java"
    (src / "x").mkdir(parents=True)
    (src / "x" / "Broken.java").write_text("package x; class Broken { int f( }")
    monkeypatch.setattr(build, "source_roots", lambda: [src])
    monkeypatch.setenv("QLOG_JAR_DIR", str(tmp_path / "jars"))
    with pytest.raises(QLogError, match="javac failed"):
        build.similarity_jar()
    assert not list((tmp_path / "jars").glob("*.jar"))


def test_shipped_jar_holds_no_benchmark_and_the_bench_jar_runs_beside_it(monkeypatch, tmp_path):
    """The similarity jar users install carries no io/qlog/bench class; the benchmark programs are in the bench jar,
    compiled against it, and SearchBenchmark runs from the two (its usage line, exit 2, on no arguments)."""
    monkeypatch.setenv("QLOG_JAR_DIR", str(tmp_path / "jars"))
    main = build.similarity_jar()
    bench = build.bench_jar()
    with zipfile.ZipFile(main) as z:
        shipped = z.namelist()
    with zipfile.ZipFile(bench) as z:
        benched = z.namelist()
    assert "io/qlog/search/QLogSearcher.class" in shipped
    assert not [n for n in shipped if n.startswith("io/qlog/bench/")]
    assert "io/qlog/bench/SearchBenchmark.class" in benched
    assert not [n for n in benched if n.endswith(".class") and not n.startswith("io/qlog/bench/")]
    assert build.bench_jar() == bench  # cached
    classpath = os.pathsep.join(str(p) for p in (toolchain.pyserini_jar(), main, bench))
    proc = subprocess.run([str(toolchain.find_jdk().java), "-cp", classpath, "io.qlog.bench.SearchBenchmark"],
                          capture_output=True, text=True, timeout=120)
    assert proc.returncode == 2 and proc.stderr.startswith("usage: SearchBenchmark INDEX TOPICS"), proc.stderr
    alone = subprocess.run([str(toolchain.find_jdk().java), "-cp", os.pathsep.join(classpath.split(os.pathsep)[:2]),
                            "io.qlog.bench.SearchBenchmark"], capture_output=True, text=True, timeout=120)
    assert alone.returncode == 1 and "ClassNotFoundException: io.qlog.bench.SearchBenchmark" in alone.stderr


def test_bench_jar_is_rebuilt_when_a_benchmark_source_changes(monkeypatch, tmp_path):
    src = tmp_path / "bench"
    for root in build.bench_source_roots():
        shutil.copytree(root, src, dirs_exist_ok=True)
    monkeypatch.setattr(build, "bench_source_roots", lambda: [src])
    monkeypatch.setenv("QLOG_JAR_DIR", str(tmp_path / "jars"))
    first = build.bench_jar()
    java = next(src.rglob("SearchBenchmark.java"))
    java.write_text(java.read_text() + "\n// edited\n")
    second = build.bench_jar()
    assert second != first and second.is_file() and not first.exists()
    assert len(list((tmp_path / "jars").glob("qlog-similarity-*.jar"))) == 1  # the similarity jar is kept
