"""Where a number came from: the command, the checkout, package versions and the machine, for result tables.

The full record with the Java side (JDK, Anserini jar, the running JVM) is assembled in the JVM layer,
:mod:`qlog_pyserini.jvm.provenance`; this module reads nothing of Java."""

from __future__ import annotations

import os
import platform
import shlex
import subprocess
import sys
import tempfile
from importlib import metadata
from pathlib import Path
from typing import Any, Sequence

from qlog_pyserini.system.project import PROJECT_ROOT


def git_commit() -> str | None:
    """The checkout's commit (with ``+dirty`` when the tracked files outside ``results/`` have changes), or
    None outside git. ``results/`` is left out: it holds what ``reproduce`` writes, so a run that has
    written its first tables must not call itself dirty for the rest."""
    try:
        head = subprocess.run(["git", "-C", str(PROJECT_ROOT), "rev-parse", "--short", "HEAD"],
                              capture_output=True, text=True, timeout=10)
        if head.returncode != 0:
            return None
        dirty = subprocess.run(["git", "-C", str(PROJECT_ROOT), "status", "--porcelain", "--untracked-files=no",
                                "--", ".", ":(exclude)results"],
                               capture_output=True, text=True, timeout=10).stdout.strip()
        return head.stdout.strip() + ("+dirty" if dirty else "")
    except (OSError, subprocess.TimeoutExpired):
        return None


def cpu_model() -> str:
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine()


def memory_gib() -> float | None:
    try:
        for line in Path("/proc/meminfo").read_text().splitlines():
            if line.startswith("MemTotal:"):
                return round(int(line.split()[1]) / 2**20, 1)
    except OSError:
        pass
    return None


def command_line(program: str, argv: Sequence[str] | None) -> str:
    """The command as a user would type it from the project root: ``python -m qlog_pyserini.sweep ...`` for a
    module, ``python scripts/time_issue_sets.py ...`` for a Python script, ``scripts/reproduce ...`` for an executable.

    Paths are written so that a record names no machine's folders: inside the project relative to its root
    (``--index work/go/index``), beside it relative too (``--issues ../shared/data/issues``), under the temporary
    folder as ``$TMPDIR/...`` and under the home folder as ``~/...``; anything else as given.
    """
    args = [_shown_arg(str(a)) for a in (sys.argv[1:] if argv is None else argv)]
    if program.endswith(".py"):
        head = ["python", program]
    elif "/" in program:
        head = [program]
    else:
        head = ["python", "-m", program]
    return " ".join([*head, *map(_quote, args)])


def _quote(arg: str) -> str:
    # $TMPDIR and ~ stay unquoted so the shell expands them where the folders are elsewhere; the rest is quoted
    name, eq, value = arg.partition("=") if arg.startswith("-") else ("", "", arg)
    for label in ("$TMPDIR", "~"):
        if value == label or value.startswith(label + "/"):
            rest = value[len(label) + 1:]
            return (shlex.quote(name + eq) if eq else "") + label + ("/" + shlex.quote(rest) if rest else "")
    return shlex.quote(arg)


def _shown_arg(arg: str) -> str:
    name, eq, value = arg.partition("=")
    if arg.startswith("-") and eq:
        return f"{name}={recorded_path(value)}"
    return arg if arg.startswith("-") else recorded_path(arg)


def project_relative(path: str | os.PathLike, beside: bool = True) -> str | None:
    """``path`` relative to the project root when it lies inside the project (or, with ``beside``, in a folder beside
    it: ``../shared/data``), as typed first (a link inside the project stays the project's), then with links
    resolved; None elsewhere."""
    views = [(Path(os.path.abspath(path)), Path(os.path.abspath(PROJECT_ROOT))), (Path(path).resolve(), PROJECT_ROOT.resolve())]
    for full, root in views:
        if full == root or root in full.parents:
            return os.path.relpath(full, root)
    for full, root in views if beside else ():
        if root.parent in full.parents and root.parent != Path(full.anchor):
            return os.path.relpath(full, root)
    return None


def recorded_path(arg: str) -> str:
    """A path as :func:`command_line` records it (see there); a value that names no path as given."""
    if not arg:
        return arg
    path = Path(arg)
    if not path.is_absolute() and not path.exists():
        return arg  # a value, not a path (or a path that names nothing yet, as typed)
    # typed relative to where the command ran and outside the project, it names no machine folder: kept as typed
    relative = project_relative(path, beside=path.is_absolute())
    if relative is not None or not path.is_absolute():
        return relative or arg
    temp, home = Path(tempfile.gettempdir()), Path.home()
    for full, bases in ((path, (temp, home)), (path.resolve(), (temp.resolve(), home.resolve()))):
        for base, label in zip(bases, ("$TMPDIR", "~")):
            if base != Path(full.anchor) and (full == base or base in full.parents):
                rel = full.relative_to(base)
                return label if rel == Path() else f"{label}/{rel}"
    return arg


def load_average() -> list[float] | None:
    """1, 5 and 15 minute load averages: other work on the machine shows up in timings."""
    try:
        return [round(x, 2) for x in os.getloadavg()]
    except (OSError, AttributeError):
        return None


def machine() -> dict[str, Any]:
    """CPU model, logical cores, RAM, OS, Python and the load average of this machine."""
    try:
        ram = os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")
    except (ValueError, OSError, AttributeError):
        ram = None
    return {"cpu": cpu_model(), "cores": os.cpu_count(), "ram_bytes": ram, "os": platform.platform(),
            "python": platform.python_version(), "load_average": load_average()}


def package_version(pkg: str) -> str | None:
    """The installed distribution's version, or None when it is not installed."""
    try:
        return metadata.version(pkg)
    except metadata.PackageNotFoundError:
        return None


def provenance_markdown(info: dict) -> str:
    """One paragraph naming command, date, versions and machine, for the foot of a result table."""
    return (f"Produced by `{info.get('command')}` on {info['date']} with qlog-pyserini {info['qlog_pyserini']} "
            f"(commit {info['git_commit']}), pyserini {info['pyserini']} ({info['anserini_jar']}), "
            f"Java {info['java']}, Python {info['python']}; machine: {info['machine']}.\n")
