"""Outputs we own: the folders and files a verb writes, written atomically, and never anyone else's.

Every verb that writes a folder goes through :func:`check_output_dir` before any work and
:func:`publish_dir` (or :func:`staged_output`) at the end, naming the :class:`OutputKind` it writes,
so one rule decides what ``--overwrite`` may delete:

* never ``/``, the home folder, the current folder or any of its ancestors, an input, or any
  folder that contains an input (``--index .`` next to the corpus is refused, not executed);
* an existing non-empty folder only with ``--overwrite``, and even then only when this tool wrote
  every entry in it: it carries our marker file :data:`MARKER` (written into every folder we
  publish) whose manifest lists every file and folder we wrote there, and it holds nothing else
  (a ``notes.txt`` added beside our files, or a ``runs/mine.txt`` inside our ``runs/``, makes the
  folder the user's). What else a kind counts as its own (an unmarked Lucene index for ``index``,
  everything in a marked work folder) its :class:`OutputKind` says. Anything else is refused with a
  message that says why;
* a mount point is refused before any work (it cannot be renamed aside, so replacing it would
  fail only at the end); a symbolic link to a folder is followed: the output is published where
  the link points, and the link stays.

An output file (a run, a CSV, a report) may never be an input of the same command, by resolved
path or by identity (a hard link: the same ``st_dev`` and ``st_ino``), nor lie inside an input
folder, nor be another output of the same command (:func:`check_output_file`). A disk that fills
up while we write is one line naming the path (:func:`disk_errors`), with nothing half-written left.

Work happens in a hidden staging folder or file beside the output, named
``.<name>.<purpose>-<pid>-<random>`` (:func:`staging_dir`, and :func:`atomic_output` for files), so
that after a ``kill -9`` the next run can recognise and remove the leftovers of dead processes
(:func:`sweep_stale`) without ever touching a live run's. Child processes are in
:mod:`qlog_pyserini.system.processes`, signals in :mod:`qlog_pyserini.system.signals`.
"""


from __future__ import annotations

import contextlib
import errno
import json
import os
import re
import shutil
import stat
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any, Callable, Iterable, Iterator

from qlog_pyserini.errors import QLogError
from qlog_pyserini.system.processes import pid_alive
from qlog_pyserini.system.progress import warn
from qlog_pyserini.system.signals import signals_deferred

MARKER = ".qlog-pyserini.json"

# .<name>.<purpose>-<pid>-<random>[.tmp]: purpose is a lower-case word, random is mkstemp/mkdtemp's.
_STAGING = re.compile(r"^\.(?P<name>.+)\.(?P<purpose>[a-z]+)-(?P<pid>\d+)-[A-Za-z0-9_]+(?:\.tmp)?$")
_NO_SPACE = (errno.ENOSPC, errno.EDQUOT)


@dataclass(frozen=True)
class OutputKind:
    """A kind of output folder, as the verb that writes it declares it. ``name`` is what the marker records;
    a plain name given where a kind is asked for is ``OutputKind(name)``: only its manifest counts as ours.

    ``work``: a work folder later runs add to (each run's outputs inside it carry markers of their own), so
    once marked as this kind everything in it is ours. ``adopts``: an unmarked folder that is still ours to
    replace (``adopted``, e.g. "a Lucene index", names it in refusals). ``regrows``: a top-level entry the
    output's own users add after it was published (Lucene's ``write.lock``), not counted against it.
    """

    name: str
    work: bool = False
    adopts: Callable[[Path], bool] | None = None
    adopted: str = ""
    regrows: Callable[[str], bool] | None = None

    def __post_init__(self) -> None:
        if not re.fullmatch(r"[a-z]+(-[a-z]+)*", self.name):
            raise ValueError(f"output kind {self.name!r} must be a lower-case word")


def output_kind(kind: OutputKind | str) -> OutputKind:
    """``kind``, or the plain kind of that name."""
    return kind if isinstance(kind, OutputKind) else OutputKind(kind)


# --------------------------------------------------------------------------------------------
# Output folders we own


def _real(path: str | os.PathLike) -> Path:
    return Path(os.path.realpath(os.path.expanduser(os.fspath(path))))


def _is_within(child: Path, parent: Path) -> bool:
    return child == parent or parent in child.parents


def entries(folder: str | os.PathLike) -> list[str]:
    """Every file and folder under ``folder`` (hidden ones too, links not followed) as sorted relative
    POSIX paths, our marker excepted: the manifest :func:`write_marker` records."""
    folder = Path(folder)
    found = []
    for root, dirs, files in os.walk(folder):
        rel = Path(root).relative_to(folder)
        found += [(rel / name).as_posix() for name in (*dirs, *files)]
    return sorted(e for e in found if e != MARKER)


def _read_marker(path: Path) -> dict | None:
    try:
        data = json.loads((path / MARKER).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    return data if isinstance(data, dict) else None


def foreign_entries(path: str | os.PathLike, kind: OutputKind | str) -> list[str]:
    """What in the existing folder ``path`` this tool did not write as a ``kind`` output; ``[]`` if nothing.

    ``["."]`` means the folder itself is not ours (no marker of that kind, and not one the kind adopts).
    """
    path, kind = Path(path), output_kind(kind)
    marker = _read_marker(path)
    if marker is None:
        if (path / MARKER).exists():
            return ["."]  # a marker we cannot read proves nothing
        return [] if kind.adopts is not None and kind.adopts(path) else ["."]
    if marker.get("kind") != kind.name:
        return ["."]
    if kind.work:
        return []
    listed = marker.get("entries")
    if not isinstance(listed, list):
        return ["."]
    ours = set(listed)
    foreign = [e for e in entries(path) if e not in ours]
    if kind.regrows is not None:
        foreign = [e for e in foreign if "/" in e or not kind.regrows(e)]
    return foreign


def is_owned(path: str | os.PathLike, kind: OutputKind | str) -> bool:
    """True if this tool wrote every entry of the existing folder ``path`` as an output of ``kind``."""
    return not foreign_entries(path, kind)


def _not_ours(option: str, text: str, kind: OutputKind, foreign: list[str]) -> str:
    article = "an" if kind.name[0] in "aeiou" else "a"
    if foreign == ["."]:
        why = f"it has no {MARKER} of {article} {kind.name} output" + (
            f" and holds files {kind.adopted} does not" if kind.adopted else "")
    else:
        shown = ", ".join(foreign[:3]) + (f" and {len(foreign) - 3} more" if len(foreign) > 3 else "")
        why = f"it holds entries this tool did not write there ({shown})"
    return (f"refusing to replace {option} {text!r}: it is not {article} {kind.name} folder this tool wrote ({why}); "
            "remove it yourself or choose another folder")


def check_not_precious(path: str | os.PathLike, option: str = "--out",
                       inputs: Iterable[str | os.PathLike | None] = ()) -> Path:
    """``path`` unless it is empty, ``/``, home, the current folder or a parent of it, or is or holds an input."""
    text = os.fspath(path)
    if not str(text).strip():
        raise QLogError(f"{option} is empty")
    real = _real(text)
    home = _real(Path.home())
    cwd = _real(Path.cwd())
    if real == Path(real.anchor) or real == home:
        raise QLogError(f"{option} {text!r} is {'/' if real == Path(real.anchor) else 'your home folder'}; "
                        "give a folder of its own")
    if _is_within(cwd, real):
        raise QLogError(f"{option} {text!r} is the current folder or one of its parents; give a folder of its own")
    check_not_an_input(text, option, inputs)
    return Path(text)


def _same_file(a: Path, b: Path) -> bool:
    try:
        sa, sb = os.stat(a), os.stat(b)
    except OSError:
        return False
    return (sa.st_dev, sa.st_ino) == (sb.st_dev, sb.st_ino)


def check_not_an_input(path: str | os.PathLike, option: str, inputs: Iterable[str | os.PathLike | None]) -> None:
    """:class:`QLogError` if the output ``path`` is an input, holds one, or lies inside an input folder.

    Paths are compared resolved (symbolic links, ``..``) and, for files that exist, by identity
    (``st_dev``, ``st_ino``), so a hard link to an input is refused too: writing it would replace the input.
    """
    text = os.fspath(path)
    real = _real(text)
    for given in inputs:
        if given is None:
            continue
        source = _real(given)
        if _is_within(source, real) or _same_file(real, source):
            raise QLogError(f"{option} {text!r} is or contains the input {os.fspath(given)!r}; "
                            "an output may never be an input: writing there would replace it")
        if source.is_dir() and _is_within(real, source):
            raise QLogError(f"{option} {text!r} lies inside the input folder {os.fspath(given)!r}; "
                            "an output may never be written into an input")


def _target(out: str | os.PathLike) -> Path:
    # A symbolic link to a folder is followed: the output is built beside, and published at, its target.
    out = Path(out)
    return _real(out) if out.is_symlink() else out


def check_output_dir(path: str | os.PathLike, kind: OutputKind | str, *, option: str = "--out",
                     inputs: Iterable[str | os.PathLike | None] = (), overwrite: bool = False) -> Path:
    """``path`` as a :class:`Path` if a ``kind`` output may be written there, else :class:`QLogError`.

    Called before any long work. See the module docstring for the rule; the parent folder must exist
    and be writable (a missing parent is a typo, not something to create).
    """
    kind = output_kind(kind)
    out = check_not_precious(path, option, inputs)
    text = os.fspath(path)
    real = _real(out)
    parent = real.parent
    if not parent.is_dir():
        raise QLogError(f"output folder {os.path.dirname(text.rstrip(os.sep)) or '.'!r} does not exist "
                        f"(the parent of {option} {text!r}; it is not created for you)")
    if not os.access(parent, os.W_OK | os.X_OK):
        raise QLogError(f"cannot write into the parent folder of {option} {text!r} (permission denied)")
    if real.exists() or out.is_symlink():
        if not real.is_dir():
            raise QLogError(f"{option} {text!r} exists and is not a folder")
        if os.path.ismount(real):
            raise QLogError(f"{option} {text!r} is a mount point, which cannot be replaced by a new folder; "
                            "give a folder inside it")
        if any(real.iterdir()):
            if not overwrite:
                raise QLogError(f"output folder {text!r} ({option}) exists and is not empty; "
                                "pass --overwrite to replace it")
            foreign = foreign_entries(real, kind)
            if foreign:
                raise QLogError(_not_ours(option, text, kind, foreign))
            check_not_locked(real, f"{option} {text!r}")
    return out


def work_dir(path: str | os.PathLike, kind: OutputKind, *, option: str = "--work",
             inputs: Iterable[str | os.PathLike | None] = ()) -> Path:
    """The work folder ``path`` of ``kind`` (a ``work`` kind), created and marked: it must be new, empty or
    already this kind's (:func:`check_output_dir` with ``overwrite``, before any work); its parent must exist."""
    if not kind.work:
        raise ValueError(f"{kind.name!r} is not a work folder kind")
    out = check_output_dir(path, kind, option=option, inputs=inputs, overwrite=True)
    out.mkdir(exist_ok=True)
    write_marker(out, kind)
    return out


#: the lock file of a Lucene index: an IndexWriter holds it (an OS file lock) while it is open
WRITE_LOCK = "write.lock"


def lock_holders(folder: str | os.PathLike) -> dict[Path, int]:
    """Each ``write.lock`` under ``folder`` that a process holds locked, with that process's id (from Linux's
    /proc/locks; empty where it cannot be read). Nothing is opened or locked here: a POSIX lock of this
    process would be released by closing any descriptor of the file, the JVM's among them."""
    locks = [Path(root) / WRITE_LOCK for root, _, files in os.walk(folder) if WRITE_LOCK in files]
    if not locks:
        return {}
    try:
        with open("/proc/locks") as f:
            table = f.read().splitlines()
    except OSError:
        return {}
    held: dict[tuple[int, int, int], int] = {}
    for line in table:
        fields = line.split()
        if len(fields) < 6 or fields[1] == "->":  # "->": a process waiting for the lock, not holding it
            continue
        try:
            major, minor, inode = fields[5].split(":")
            held[(int(major, 16), int(minor, 16), int(inode))] = int(fields[4])
        except ValueError:
            continue
    found = {}
    for lock in locks:
        try:
            st = lock.stat()
        except OSError:
            continue
        pid = held.get((os.major(st.st_dev), os.minor(st.st_dev), st.st_ino))
        if pid is not None:
            found[lock] = pid
    return found


def check_not_locked(folder: str | os.PathLike, what: str) -> None:
    """QLogError if a Lucene IndexWriter holds a ``write.lock`` under ``folder``: replacing the folder would
    pull the index from under that writer (it dies with AlreadyClosedException, its documents lost)."""
    held = lock_holders(folder)
    if held:
        lock, pid = next(iter(held.items()))
        raise QLogError(f"{what} is open for writing: its {lock.relative_to(folder)} is held by process {pid} "
                        "(a Lucene IndexWriter); close that writer first, nothing was replaced")


def check_results_dir(path: str | os.PathLike, names: Iterable[str], *, option: str = "--out",
                      inputs: Iterable[str | os.PathLike | None] = ()) -> Path:
    """``path`` if the files ``names`` may be (re)written in it one by one, else :class:`QLogError`.

    For a results folder shared with other files (the project's ``results/``): nothing in it is
    deleted, and a file of ``names`` that exists is replaced only when the folder's ``results`` marker
    lists it as ours (:func:`mark_results`). Its parent must exist; the folder is created by the caller.
    """
    out = check_not_precious(path, option, inputs)
    text = os.fspath(path)
    real = _real(out)
    if not real.parent.is_dir():
        raise QLogError(f"output folder {os.path.dirname(text.rstrip(os.sep)) or '.'!r} does not exist "
                        f"(the parent of {option} {text!r}; it is not created for you)")
    if real.exists() and not real.is_dir():
        raise QLogError(f"{option} {text!r} exists and is not a folder")
    marker = _read_marker(real) if real.is_dir() else None
    ours = set(marker.get("entries") or []) if marker and marker.get("kind") == "results" else set()
    clash = [n for n in names if (real / n).exists() and n not in ours]
    if clash:
        raise QLogError(f"refusing to write into {option} {text!r}: it already holds {', '.join(clash[:3])}, "
                        f"which this tool did not write there (no {MARKER} listing it); "
                        "remove them yourself or choose another folder")
    return out


def mark_results(folder: str | os.PathLike, names: Iterable[str]) -> None:
    """Record ``names`` as written by us in ``folder``'s ``results`` marker, beside what it listed already."""
    folder = Path(folder)
    marker = _read_marker(folder) or {}
    listed = set(marker.get("entries") or []) if marker.get("kind") == "results" else set()
    listed |= {n for n in names if (folder / n).exists()}
    write_json(folder / MARKER, {"tool": "qlog-pyserini", "kind": "results", "entries": sorted(listed)})


def staging_dir(out: str | os.PathLike, purpose: str) -> Path:
    """A fresh hidden folder beside ``out`` (``.<name>.<purpose>-<pid>-XXXX``) for building it.

    The dead leftovers of earlier runs for the same ``out`` are removed first. The folder gets the
    mode an ordinary ``mkdir`` would give it (``mkdtemp`` makes it private).
    """
    out = _target(out)
    if not re.fullmatch(r"[a-z]+", purpose):
        raise ValueError(f"purpose {purpose!r} must be a lower-case word")
    sweep_stale(out.parent if str(out.parent) else Path("."), out.name)
    with disk_errors(out.parent):
        path = Path(tempfile.mkdtemp(prefix=f".{out.name}.{purpose}-{os.getpid()}-", dir=out.parent))
    os.chmod(path, 0o777 & ~_umask())
    return path


def write_marker(folder: str | os.PathLike, kind: OutputKind | str, **details: Any) -> None:
    """Mark ``folder`` as a ``kind`` output of this tool, with the manifest of every entry it holds now
    (what ``--overwrite`` may later replace; see :func:`foreign_entries`)."""
    folder = Path(folder)
    listed = entries(folder)
    write_json(folder / MARKER, {"tool": "qlog-pyserini", "kind": output_kind(kind).name, **details, "entries": listed},
               indent=None)


def record_entries(folder: str | os.PathLike, *names: str) -> None:
    """Add ``names`` (relative paths) to the manifest of our marked output ``folder``: files we add to an
    output after publishing it (a cache stamp) stay ours to replace. A folder without a manifest is left alone."""
    folder = Path(folder)
    marker = _read_marker(folder)
    if marker is None or not isinstance(marker.get("entries"), list):
        return
    write_json(folder / MARKER, {**marker, "entries": sorted({*marker["entries"], *names})}, indent=None)


def publish_dir(staging: str | os.PathLike, out: str | os.PathLike, kind: OutputKind | str,
                overwrite: bool = False) -> None:
    """Move the finished ``staging`` folder to ``out``, replacing an owned ``out`` (checked again now).

    The new folder and the old one trade places in one step (Linux's ``renameat2`` with
    ``RENAME_EXCHANGE``), and the old one, now at the staging path, is removed: at any moment the old
    or the new output is in place, never neither. Where the exchange is missing, the old folder is
    renamed aside (``.<name>.old-<pid>-*``) and the new one into place with Ctrl-C, SIGTERM and
    SIGHUP deferred until both are done; after a ``kill -9`` there, the next run puts the old
    folder back (:func:`sweep_stale`).
    """
    staging, out = Path(staging), _target(out)
    write_marker(staging, kind)
    if out.exists() and (not out.is_dir() or any(out.iterdir())):
        if not overwrite or not out.is_dir() or not is_owned(out, kind):
            raise QLogError(f"{str(out)!r} appeared or changed while building and is not ours to replace; "
                            "the new output was not written")
        check_not_locked(out, repr(str(out)))  # a writer may have opened it while this one was built
        if exchange_paths(staging, out):
            shutil.rmtree(staging, ignore_errors=True)
            return
        old = Path(tempfile.mkdtemp(prefix=f".{out.name}.{_ASIDE}-{os.getpid()}-", dir=out.parent))
        with signals_deferred():
            os.replace(out, old / "x")
            os.replace(staging, out)
        shutil.rmtree(old, ignore_errors=True)
        return
    if out.is_dir():
        out.rmdir()
    os.replace(staging, out)


@contextlib.contextmanager
def staged_output(out: str | os.PathLike, kind: OutputKind | str, purpose: str = "building", *, overwrite: bool = False,
                  built: str | None = None) -> Iterator[Path]:
    """Build the output folder ``out`` in a fresh :func:`staging_dir` (the block's value) and :func:`publish_dir`
    it as ``out`` when the block completes; the staging folder is removed however the block ends.

    ``built`` names a subfolder of the staging folder to publish instead of all of it (the indexer stages
    its input beside the index it builds). ``out`` was checked by :func:`check_output_dir` before the work.
    """
    stage = staging_dir(out, purpose)
    try:
        yield stage
        publish_dir(stage / built if built else stage, out, kind, overwrite=overwrite)
    finally:
        shutil.rmtree(stage, ignore_errors=True)


_ASIDE = "old"  # the purpose of an old output renamed aside while the new one is moved in
_RENAME_EXCHANGE = 2  # linux/fs.h


def exchange_paths(a: str | os.PathLike, b: str | os.PathLike) -> bool:
    """Swap ``a`` and ``b`` (two existing paths on one file system) atomically; False where the system cannot."""
    import ctypes

    try:
        renameat2 = ctypes.CDLL(None, use_errno=True).renameat2
    except (OSError, AttributeError):  # not Linux, or a C library older than glibc 2.28
        return False
    at_fdcwd = -100
    if renameat2(at_fdcwd, os.fsencode(a), at_fdcwd, os.fsencode(b), _RENAME_EXCHANGE) == 0:
        return True
    if ctypes.get_errno() in (errno.EINVAL, errno.ENOSYS, errno.EOPNOTSUPP):  # a file system without it
        return False
    raise OSError(ctypes.get_errno(), os.strerror(ctypes.get_errno()), str(b))


def temp_prefix(path: str | os.PathLike, purpose: str = "tmp") -> str:
    """The ``mkstemp`` prefix of a temporary beside ``path``: ``.<name>.<purpose>-<pid>-``."""
    return f".{Path(path).name}.{purpose}-{os.getpid()}-"


def sweep_stale(parent: str | os.PathLike, name: str | None) -> list[Path]:
    """Remove our temporaries for output ``name`` (None: for any output) in ``parent`` whose owning process is
    dead; returns them.

    Only names of our own pattern (``.<name>.<purpose>-<pid>-XXXX``) are considered, and only those
    whose pid is not a running process, so a concurrent run's staging is never touched.
    """
    removed = []
    try:
        found = list(os.scandir(parent))
    except OSError:
        return removed
    for entry in found:
        m = _STAGING.match(entry.name)
        if not m or (name is not None and m.group("name") != name) or pid_alive(int(m.group("pid"))):
            continue
        path = Path(entry.path)
        output = Path(parent) / m.group("name")
        if m.group("purpose") == _ASIDE and (path / "x").is_dir() and not os.path.lexists(output):
            # killed between the two renames of a publish: the old output is the only one; it goes back
            try:
                os.replace(path / "x", output)
                path.rmdir()
            except OSError:
                continue
            warn(f"put back {output}, which an earlier run that was killed had moved aside to {path}")
            continue
        try:
            if entry.is_dir(follow_symlinks=False):
                shutil.rmtree(path)
            else:
                path.unlink()
        except OSError:
            continue
        removed.append(path)
        # a deletion the user should hear of even with --quiet: it was ours, but it was on their disk
        warn(f"removed {path}, left behind by an earlier run that was killed")
    return removed


STDOUT = "-"  # the output name every command-line tool reads as standard output


def is_stdout(path: str | os.PathLike | None) -> bool:
    """True if ``path`` is ``-``, standard output."""
    return path is not None and os.fspath(path) == STDOUT


def report_stream(*outputs: str | os.PathLike | None) -> IO:
    """Where a verb prints its human-readable report: standard error when one of its ``outputs`` is ``-``
    (standard output then carries that output alone, for the next program in the pipe), else standard output."""
    return sys.stderr if any(is_stdout(o) for o in outputs) else sys.stdout


# Names of a descriptor this process already holds: /dev/stdout, /dev/fd/1, /proc/self/fd/1.
_DESCRIPTOR = re.compile(r"^/(dev/(stdout|stderr|fd/\d+)|proc/(self|thread-self|\d+)/fd/\d+)$")


def writes_in_place(path: str | os.PathLike) -> bool:
    """True if ``path`` is written where it is, appending, never renamed over: a FIFO, a device or a socket
    (a reader waits on that very node), or the name of a descriptor this process holds (``/dev/stdout``: the
    shell's redirection, perhaps a log opened with ``>>``, which a rename or a truncation would destroy)."""
    given = os.path.abspath(os.path.expanduser(os.fspath(path)))
    if _DESCRIPTOR.match(given):
        return True
    try:
        st = os.stat(given)
    except FileNotFoundError:
        return False
    except OSError as e:
        raise QLogError(f"cannot write {os.fspath(path)!r}: {os.strerror(e.errno)}") from None
    return not stat.S_ISREG(st.st_mode)


def check_output_file(path: str | os.PathLike, option: str = "--output",
                      inputs: Iterable[str | os.PathLike | None] = ()) -> Path:
    """``path`` if a file can be written there and it is none of ``inputs`` (nor inside one), else
    :class:`QLogError`; checked before work. ``-`` is standard output; a FIFO or a device is written in
    place (:func:`writes_in_place`); a symbolic link is written through, at its target, and stays a link."""
    text = os.fspath(path)
    if not str(text).strip():
        raise QLogError(f"{option} is empty")
    p = Path(text)
    if is_stdout(text):
        return p
    if text.endswith(os.sep) or p.is_dir():
        raise QLogError(f"{option} {text!r} is a folder; give a file name")
    if writes_in_place(p):
        if not os.access(p, os.W_OK):
            raise QLogError(f"cannot write {option} {text!r}: permission denied")
        return p
    if p.is_symlink():
        try:
            os.stat(p, follow_symlinks=False)
            target = Path(os.path.realpath(p, strict=False))
        except (OSError, RuntimeError):
            raise QLogError(f"{option} {text!r} is a symbolic link that cannot be resolved (a loop?)") from None
        if not target.parent.is_dir():
            raise QLogError(f"{option} {text!r} is a symbolic link into a folder that does not exist "
                            f"({str(target.parent)!r})")
        check_not_an_input(text, option, inputs)
        _check_writable(target, option, text)
        return p
    _check_writable(p, option, text)
    check_not_an_input(text, option, inputs)
    return p


def _check_writable(p: Path, option: str, text: str) -> None:
    parent = p.parent if str(p.parent) else Path(".")
    if not parent.is_dir():
        raise QLogError(f"output folder {str(parent)!r} of {option} does not exist")
    if not os.access(parent, os.W_OK | os.X_OK):
        raise QLogError(f"cannot write {option} {text!r}: its folder is not writable")
    if p.exists() and not os.access(p, os.W_OK) and not os.access(parent, os.W_OK):
        raise QLogError(f"cannot write {option} {text!r}: permission denied")


def check_output_files(outputs: dict[str, str | os.PathLike | None],
                       inputs: Iterable[str | os.PathLike | None] = ()) -> None:
    """:func:`check_output_file` for each given ``{option: path}`` of one command, and no two the same file
    (nor two on standard output)."""
    inputs = list(inputs)
    given = [(option, path) for option, path in outputs.items() if path is not None]
    on_stdout = [option for option, path in given if is_stdout(path)]
    if len(on_stdout) > 1:
        raise QLogError(f"{' and '.join(on_stdout)} both write to standard output (-); give one of them a file")
    for i, (option, path) in enumerate(given):
        earlier = [p for _, p in given[:i] if not is_stdout(p)]
        check_output_file(path, option, [*inputs, *([] if is_stdout(path) else earlier)])


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask


# --------------------------------------------------------------------------------------------
# Files written atomically


@contextlib.contextmanager
def disk_errors(path: str | os.PathLike) -> Iterator[None]:
    """Turn a full disk (or quota) while writing ``path`` into one :class:`QLogError` naming it.

    Whatever the caller cleans up on an exception (a temporary, a staging folder) is still cleaned up:
    the error propagates, only as the one line a user can act on.
    """
    try:
        yield
    except OSError as e:
        if e.errno == errno.EFBIG:  # a file system's (or the process's) largest file: as final as a full disk
            raise QLogError(f"cannot write {os.fspath(e.filename or path)!r}: a file there would exceed the largest "
                            f"file allowed ({os.strerror(e.errno)}); nothing half-written was kept") from None
        if e.errno not in _NO_SPACE:
            raise
        where = e.filename or path
        raise QLogError(f"no space left on the device of {os.fspath(where)!r} "
                        f"({os.strerror(e.errno)}); nothing half-written was kept") from None
    except Exception as e:
        # The same, from Java writing our file (the run writer): java.io.IOException through pyjnius.
        if type(e).__name__ != "JavaException" or "No space left on device" not in str(e):
            raise
        raise QLogError(f"no space left on the device of {os.fspath(path)!r} (No space left on device); "
                        "nothing half-written was kept") from None


@contextlib.contextmanager
def atomic_output(path: str | os.PathLike, mode: str = "w") -> Iterator[IO]:
    """Write to a temporary file beside ``path`` and rename it into place only on success.

    A crash or an exception leaves no partial file behind; a full disk is one :class:`QLogError`
    naming ``path``. The parent folder must exist: a missing folder is a user error, not something
    to create silently. An existing file keeps its permission bits. A symbolic link is written through:
    the temporary lies beside its target, which is replaced, and the link stays. ``-`` is standard
    output, and a FIFO or a device (:func:`writes_in_place`) is opened and written in place, streaming:
    nothing is renamed over them.
    """
    if is_stdout(path):
        yield from _stdout(mode)
        return
    path = check_output_file(path, "output")
    if writes_in_place(path):
        appending = mode.replace("w", "a")
        with disk_errors(path), open(path, appending, encoding=None if "b" in mode else "utf-8") as f:
            yield f
        return
    target = _target(path)
    parent = target.parent if str(target.parent) else Path(".")
    # The temporary's name carries our pid, so a later run can tell a killed run's leftover from
    # a live one's and remove it (sweep_stale).
    sweep_stale(parent, target.name)
    try:
        keep = stat.S_IMODE(os.stat(target).st_mode)  # a 0600 run stays private
    except FileNotFoundError:
        keep = 0o666 & ~_umask()  # mkstemp makes 0600; give a new file the mode open() would
    with disk_errors(path):
        fd, tmp = tempfile.mkstemp(prefix=temp_prefix(target), suffix=".tmp", dir=parent)
    os.chmod(tmp, keep)
    try:
        with disk_errors(path):
            with os.fdopen(fd, mode, encoding=None if "b" in mode else "utf-8") as f:
                yield f
                f.flush()
                os.fsync(f.fileno())
            os.replace(tmp, target)
    except BaseException:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(tmp)
        raise


def _stdout(mode: str) -> Iterator[IO]:
    # Standard output is the caller's: flushed, never closed (the interpreter and other writers still hold it).
    sys.stdout.flush()
    stream = (getattr(sys.stdout, "buffer", None) or _TextSink(sys.stdout)) if "b" in mode else sys.stdout
    yield stream
    stream.flush()


class _TextSink:
    """A binary writer over a text-only standard output (one replaced by an in-memory stream)."""

    def __init__(self, text: IO) -> None:
        self.text = text

    def write(self, data: bytes) -> int:
        self.text.write(data.decode("utf-8"))
        return len(data)

    def flush(self) -> None:
        self.text.flush()


def write_text(path: str | os.PathLike, text: str) -> None:
    """Write ``text`` to ``path`` atomically (:func:`atomic_output`)."""
    with atomic_output(path) as f:
        f.write(text)


def write_json(path: str | os.PathLike, data: Any, indent: int | None = 2) -> None:
    """Write ``data`` as JSON (UTF-8, newline-terminated) to ``path`` atomically."""
    with atomic_output(path) as f:
        json.dump(data, f, indent=indent, ensure_ascii=False)
        f.write("\n")
