"""The provenance record of a result table, with its Java side: the JDK, the Anserini jar and the running JVM.

The parts that read no Java (the command, the checkout's commit, package versions, the machine) live in
:mod:`qlog_pyserini.system.provenance`, which the base below the JVM layer uses.
"""

from __future__ import annotations

import datetime as _dt
import os
import platform
from typing import Any

from qlog_pyserini.jvm.toolchain import Jdk, find_jdk, pyserini_jar
from qlog_pyserini.system.provenance import cpu_model, git_commit, memory_gib, package_version


def _java_description(jdk: Jdk) -> str:
    """``25.0.3+9-LTS (Eclipse Adoptium)`` from the JDK's release file; the major version otherwise."""
    fields = {}
    try:
        for line in (jdk.home / "release").read_text(errors="replace").splitlines():
            key, _, value = line.partition("=")
            fields[key.strip()] = value.strip().strip('"')
    except OSError:
        pass
    version = fields.get("JAVA_RUNTIME_VERSION") or fields.get("JAVA_VERSION") or str(jdk.version)
    vendor = fields.get("IMPLEMENTOR")
    return f"{version} ({vendor})" if vendor else version


def jvm_versions() -> dict[str, Any]:
    """Java, Lucene, Anserini, Pyserini and qlog-pyserini versions as the running JVM reports them (starts it)."""
    from qlog_pyserini.jvm.bridge import jclass
    from qlog_pyserini.jvm.jar import similarity_jar

    system = jclass("java.lang.System")
    runtime = jclass("java.lang.Runtime").getRuntime()
    return {"java": f"{system.getProperty('java.vm.name')} {system.getProperty('java.runtime.version')}",
            "java_vendor": str(system.getProperty("java.vm.vendor")), "jvm_max_heap_bytes": int(runtime.maxMemory()),
            "lucene": str(jclass("org.apache.lucene.util.Version").LATEST.toString()),
            "anserini_jar": pyserini_jar().name, "pyserini": package_version("pyserini"),
            "qlog_pyserini": git_commit(), "similarity_jar": similarity_jar().name}


def provenance(command: str | None = None) -> dict:
    """Date, command, versions (qlog-pyserini commit, pyserini, Anserini jar, Java, Python) and machine."""
    jdk = find_jdk()
    return {
        "date": _dt.datetime.now(_dt.timezone.utc).strftime("%Y-%m-%d %H:%M UTC"),
        "command": command,
        "qlog_pyserini": package_version("qlog-pyserini"), "git_commit": git_commit(),
        "pyserini": package_version("pyserini"), "anserini_jar": pyserini_jar().name,
        "java": _java_description(jdk), "python": platform.python_version(),
        "machine": f"{cpu_model()}, {os.cpu_count()} cores, {memory_gib()} GiB",
    }
