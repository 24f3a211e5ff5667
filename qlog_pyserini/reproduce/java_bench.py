"""Running a benchmark program of the Maven build (``java-similarity``): a ``main`` class in a module's test
sources (it reuses the test fixtures and clusters), started as ``java`` with the module's test classpath.

The classpath comes from Maven once per module and process (``mvn test-compile dependency:build-classpath``,
written to the module's ``target/qlog-bench.classpath``); the JVM gets the options and launcher the module's
tests run with (surefire's ``argLine`` and ``jvm`` in its ``pom.xml``: heap, the non-root wrapper the OpenSearch
and Elasticsearch nodes need), with assertions on as surefire enables them.
"""

from __future__ import annotations

import os
import re
import shlex
import xml.etree.ElementTree as ET
from dataclasses import dataclass, field
from pathlib import Path

from qlog_pyserini.errors import QLogError
from qlog_pyserini.system import processes
from qlog_pyserini.system.outputs import atomic_output
from qlog_pyserini.system.project import PROJECT_ROOT

JAVA_ROOT = PROJECT_ROOT / "java-similarity"
CLASSPATH_FILE = "target/qlog-bench.classpath"
# the module's own classes first, then its dependencies as Maven resolved them (reactor modules as folders)
CLASSPATH = f"target/test-classes:target/classes:$(cat {CLASSPATH_FILE})"
_POM = "{http://maven.apache.org/POM/4.0.0}"
_PROPERTY = re.compile(r"\$\{([^}]+)\}")
_built: set[str] = set()  # modules whose classpath this process has built


def classpath_command(module: str) -> list[str]:
    """Maven compiling ``module``'s tests (and the modules it needs) and writing its test classpath."""
    return ["mvn", "-B", "-q", "-pl", module, "-am", "test-compile", "dependency:build-classpath",
            f"-Dmdep.outputFile={CLASSPATH_FILE}", "-Dmdep.includeScope=test"]


@dataclass(frozen=True)
class TestJvm:
    """How surefire starts ``module``'s test JVM: a launcher script or plain java, its options, its environment."""

    launcher: str | None
    options: tuple[str, ...]
    env: dict[str, str] = field(default_factory=dict)


def _surefire(pom: Path) -> tuple[dict[str, str], ET.Element | None]:
    root = ET.parse(pom).getroot()
    props = {p.tag.removeprefix(_POM): (p.text or "") for p in root.findall(f"{_POM}properties/*")}
    for plugin in root.findall(f"{_POM}build/{_POM}plugins/{_POM}plugin"):
        if plugin.findtext(f"{_POM}artifactId") == "maven-surefire-plugin":
            return props, plugin.find(f"{_POM}configuration")
    return props, None


def test_jvm(module: str, java_home: Path) -> TestJvm:
    """The test JVM of ``module`` as its ``pom.xml`` (and the parent's properties) configure surefire."""
    parent_props, _ = _surefire(JAVA_ROOT / "pom.xml")
    props, conf = _surefire(JAVA_ROOT / module / "pom.xml")
    values = {**parent_props, **props, "project.basedir": str(JAVA_ROOT / module), "java.home": str(java_home)}

    def resolve(text: str) -> str:
        for _ in range(5):  # properties naming properties
            text = _PROPERTY.sub(lambda m: values.get(m.group(1), m.group(0)), text)
        if _PROPERTY.search(text):
            raise QLogError(f"{module}/pom.xml: surefire's configuration names an unknown property: {text}")
        return text

    if conf is None:
        return TestJvm(None, ())
    launcher = conf.findtext(f"{_POM}jvm")
    env = {e.tag.removeprefix(_POM): resolve(e.text or "") for e in conf.findall(f"{_POM}environmentVariables/*")}
    return TestJvm(resolve(launcher) if launcher else None, tuple(resolve(conf.findtext(f"{_POM}argLine") or "").split()),
                   env)


@dataclass(frozen=True)
class JavaBench:
    """One run of ``main_class`` (in ``module``'s test sources) writing a table to its last argument."""

    module: str
    main_class: str
    args: tuple[str, ...] = ()  # the words before OUT (which table, for a program writing several)
    properties: tuple[str, ...] = ()  # -Dname=value

    def java_args(self, out: Path, data: Path) -> list[str]:
        """The JVM's arguments after its options: the properties, the class, its arguments."""
        return ["-ea", f"-Dqlog.csn={data}", *(f"-D{p}" for p in self.properties), "-cp", CLASSPATH,
                self.main_class, *self.args, str(out)]

    def run(self, out: Path, data: Path, java_home: Path, log: Path) -> None:
        """Builds the classpath (once per module and process), then runs the program; the output of both goes to
        ``log``. A failure raises QLogError with the log's tail."""
        env = {**os.environ, "JAVA_HOME": str(java_home)}
        output: list[bytes] = []
        try:
            if self.module not in _built:
                _run(classpath_command(self.module), JAVA_ROOT, env, output)
                _built.add(self.module)
            module_dir = JAVA_ROOT / self.module
            classpath = CLASSPATH.replace(f"$(cat {CLASSPATH_FILE})",
                                          (module_dir / CLASSPATH_FILE).read_text().strip())
            jvm = test_jvm(self.module, java_home)
            cmd = [jvm.launcher or str(java_home / "bin" / "java"), *jvm.options,
                   *(classpath if a == CLASSPATH else a for a in self.java_args(out.resolve(), data.resolve()))]
            _run(cmd, module_dir, {**env, **jvm.env}, output)
        except QLogError as e:
            raise QLogError(f"{e} (log {log})") from None
        finally:
            with atomic_output(log, "wb") as f:
                f.write(b"".join(output))
        if not out.is_file():
            raise QLogError(f"{self.main_class} wrote no table (log {log})")

    def shown(self, out: str, data: str, java_home: Path) -> str:
        """The two commands as one types them from the project root, with ``out`` and ``data`` as given."""
        jvm = test_jvm(self.module, java_home)
        launcher = (f"QLOG_TEST_JAVA=java {os.path.relpath(jvm.launcher, JAVA_ROOT / self.module)}"
                    if jvm.launcher else "java")
        words = [shlex.quote(a) if a != CLASSPATH else f'"{CLASSPATH}"'
                 for a in [*jvm.options, *self.java_args(Path(out), Path(data))]]
        return (f"cd java-similarity && {shlex.join(classpath_command(self.module))} && cd {self.module} && "
                f"{launcher} {' '.join(words)}")


def _run(cmd: list[str], cwd: Path, env: dict[str, str], output: list[bytes]) -> None:
    proc = processes.run(cmd, cwd=cwd, env=env)
    output.append(proc.stdout + proc.stderr)
    if proc.returncode != 0:
        tail = "\n".join((proc.stdout + proc.stderr).decode(errors="replace").strip().splitlines()[-15:])
        raise QLogError(f"`{shlex.join(cmd[:8])} ...` failed (exit {proc.returncode}):\n{tail}")
