"""Outputs we own: the folders and files a verb writes, written atomically, and never anyone else's.

Every verb that writes a folder (``index``, ``sweep``, ``corpus``, ``prepare``, ``demo``,
``reproduce``) goes through :func:`check_output_dir` before any work and :func:`publish_dir` at
the end, so one rule decides what ``--overwrite`` may delete:

* never ``/``, the home folder, the current folder or any of its ancestors, an input, or any
  folder that contains an input (``--index .`` next to the corpus is refused, not executed);
* an existing non-empty folder only with ``--overwrite``, and even then only when this tool wrote
  it: it carries our marker file :data:`MARKER` (written into every folder we publish), or it
  is an older output of the same kind recognisable by its own files (a Lucene index holding
  nothing but Lucene files; a ``prepare``/``corpus`` folder with its ``manifest.json``; a sweep
  with ``summary.json`` and ``runs/``). Anything else (a ``keep.txt`` beside the index files) is
  refused with a message that says why.

Work happens in a hidden staging folder or file beside the output, named
``.<name>.<purpose>-<pid>-<random>`` (:func:`staging_dir`, and :func:`atomic_output` for files), so
that after a ``kill -9`` the next run can recognise and remove the leftovers of dead processes
(:func:`sweep_stale`) without ever touching a live run's. Child processes are in
:mod:`qlog_pyserini.system.processes`, signals in :mod:`qlog_pyserini.system.signals`.
"""


from __future__ import annotations

import contextlib
import json
import os
import re
import shutil
import tempfile
from pathlib import Path
from typing import IO, Any, Iterable, Iterator

from qlog_pyserini.errors import QLogError
from qlog_pyserini.system.processes import pid_alive
from qlog_pyserini.system.progress import info

MARKER = ".qlog-pyserini.json"
KINDS = ("index", "sweep", "prepare", "corpus", "demo", "reproduce")

# .<name>.<purpose>-<pid>-<random>[.tmp]: purpose is a lower-case word, random is mkstemp/mkdtemp's.
_STAGING = re.compile(r"^\.(?P<name>.+)\.(?P<purpose>[a-z]+)-(?P<pid>\d+)-[A-Za-z0-9_]+(?:\.tmp)?$")
# Files a Lucene index consists of (segments, per-segment files, the write lock) and the ones we add.
_LUCENE_FILE = re.compile(r"^(segments_[0-9a-z]+|pending_segments_[0-9a-z]+|segments\.gen|write\.lock|_[0-9a-z]+.*)$")


# --------------------------------------------------------------------------------------------
# Output folders we own


def _real(path: str | os.PathLike) -> Path:
    return Path(os.path.realpath(os.path.expanduser(os.fspath(path))))


def _is_within(child: Path, parent: Path) -> bool:
    return child == parent or parent in child.parents


def is_lucene_index(path: Path) -> bool:
    """True if ``path`` holds a ``segments_N`` file and nothing but Lucene's files and our marker."""
    names = [p.name for p in path.iterdir()]
    return (any(n.startswith("segments_") for n in names)
            and all(_LUCENE_FILE.match(n) or n == MARKER for n in names))


def is_owned(path: str | os.PathLike, kind: str) -> bool:
    """True if the existing folder ``path`` was written by this tool as an output of ``kind``."""
    path = Path(path)
    marker = path / MARKER
    if marker.is_file():
        try:
            return json.loads(marker.read_text(encoding="utf-8")).get("kind") == kind
        except (OSError, ValueError, AttributeError):
            return False
    # Outputs written before the marker existed, recognised by what only we put there.
    if kind == "index":
        return is_lucene_index(path)
    if kind == "prepare":
        return (path / "manifest.json").is_file()
    if kind == "corpus":
        return (path / "manifest.json").is_file() and (path / "corpus.jsonl").is_file()
    if kind == "sweep":
        return (path / "summary.json").is_file() and (path / "runs").is_dir()
    if kind == "reproduce":
        return {p.name for p in path.iterdir()} <= {"corpora", "runs", "scaling", "sweeps", "ablation"}
    return False


_LEGACY_SIGN = {"index": ", and holds files a Lucene index does not", "prepare": " and has no manifest.json",
                "corpus": " and has no manifest.json with corpus.jsonl",
                "sweep": " and has no summary.json with runs/",
                "reproduce": " and holds more than corpora/, runs/, scaling/, sweeps/"}


def check_not_precious(path: str | os.PathLike, option: str = "--out",
                       inputs: Iterable[str | os.PathLike] = ()) -> Path:
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
    for given in inputs:
        if given is None:
            continue
        if _is_within(_real(given), real):
            raise QLogError(f"{option} {text!r} is or contains the input {os.fspath(given)!r}; "
                            "writing there would replace the input")
    return Path(text)


def check_output_dir(path: str | os.PathLike, kind: str, *, option: str = "--out",
                     inputs: Iterable[str | os.PathLike] = (), overwrite: bool = False) -> Path:
    """``path`` as a :class:`Path` if a ``kind`` output may be written there, else :class:`QLogError`.

    Called before any long work. See the module docstring for the rule; the parent folder must exist
    and be writable (a missing parent is a typo, not something to create).
    """
    if kind not in KINDS:
        raise ValueError(f"unknown output kind {kind!r}")
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
        if any(real.iterdir()):
            if not overwrite:
                raise QLogError(f"output folder {text!r} ({option}) exists and is not empty; "
                                "pass --overwrite to replace it")
            if not is_owned(real, kind):
                raise QLogError(
                    f"refusing to replace {option} {text!r}: it is not a{'n' if kind[0] in 'aeiou' else ''} "
                    f"{kind} folder this tool wrote (it has no {MARKER}{_LEGACY_SIGN.get(kind, '')}); "
                    "remove it yourself or choose another folder")
    return out


def staging_dir(out: str | os.PathLike, purpose: str) -> Path:
    """A fresh hidden folder beside ``out`` (``.<name>.<purpose>-<pid>-XXXX``) for building it.

    The dead leftovers of earlier runs for the same ``out`` are removed first. The folder gets the
    mode an ordinary ``mkdir`` would give it (``mkdtemp`` makes it private).
    """
    out = Path(out)
    if not re.fullmatch(r"[a-z]+", purpose):
        raise ValueError(f"purpose {purpose!r} must be a lower-case word")
    sweep_stale(out.parent if str(out.parent) else Path("."), out.name)
    path = Path(tempfile.mkdtemp(prefix=f".{out.name}.{purpose}-{os.getpid()}-", dir=out.parent))
    os.chmod(path, 0o777 & ~_umask())
    return path


def write_marker(folder: str | os.PathLike, kind: str, **details: Any) -> None:
    """Mark ``folder`` as a ``kind`` output of this tool (what ``--overwrite`` may later replace)."""
    with open(Path(folder) / MARKER, "w", encoding="utf-8") as f:
        json.dump({"tool": "qlog-pyserini", "kind": kind, **details}, f)
        f.write("\n")


def publish_dir(staging: str | os.PathLike, out: str | os.PathLike, kind: str, overwrite: bool = False) -> None:
    """Move the finished ``staging`` folder to ``out``, replacing an owned ``out`` (checked again now).

    The old folder is renamed aside first and removed only after the new one is in place, so a
    crash in between leaves either the old or the new output (plus a stale ``.old-<pid>`` folder
    the next run removes), never neither.
    """
    staging, out = Path(staging), Path(out)
    write_marker(staging, kind)
    if out.exists() and (not out.is_dir() or any(out.iterdir())):
        if not overwrite or not out.is_dir() or not is_owned(out, kind):
            raise QLogError(f"{str(out)!r} appeared or changed while building and is not ours to replace; "
                            "the new output was not written")
        old = Path(tempfile.mkdtemp(prefix=f".{out.name}.old-{os.getpid()}-", dir=out.parent))
        os.replace(out, old / "x")
        os.replace(staging, out)
        shutil.rmtree(old, ignore_errors=True)
        return
    if out.is_dir():
        out.rmdir()
    os.replace(staging, out)


def temp_prefix(path: str | os.PathLike, purpose: str = "tmp") -> str:
    """The ``mkstemp`` prefix of a temporary beside ``path``: ``.<name>.<purpose>-<pid>-``."""
    return f".{Path(path).name}.{purpose}-{os.getpid()}-"


def sweep_stale(parent: str | os.PathLike, name: str) -> list[Path]:
    """Remove our temporaries for output ``name`` in ``parent`` whose owning process is dead; returns them.

    Only names of our own pattern (``.<name>.<purpose>-<pid>-XXXX``) are considered, and only those
    whose pid is not a running process, so a concurrent run's staging is never touched.
    """
    removed = []
    try:
        entries = list(os.scandir(parent))
    except OSError:
        return removed
    for entry in entries:
        m = _STAGING.match(entry.name)
        if not m or m.group("name") != name or pid_alive(int(m.group("pid"))):
            continue
        path = Path(entry.path)
        try:
            if entry.is_dir(follow_symlinks=False):
                shutil.rmtree(path)
            else:
                path.unlink()
        except OSError:
            continue
        removed.append(path)
        info(f"removed {path}, left behind by an earlier run that was killed")
    return removed


def check_output_file(path: str | os.PathLike, option: str = "--output") -> Path:
    """``path`` if a file can be written there atomically, else :class:`QLogError`; checked before work."""
    text = os.fspath(path)
    if not str(text).strip():
        raise QLogError(f"{option} is empty")
    p = Path(text)
    if text.endswith(os.sep) or p.is_dir():
        raise QLogError(f"{option} {text!r} is a folder; give a file name")
    parent = p.parent if str(p.parent) else Path(".")
    if not parent.is_dir():
        raise QLogError(f"output folder {str(parent)!r} of {option} does not exist")
    if not os.access(parent, os.W_OK | os.X_OK):
        raise QLogError(f"cannot write {option} {text!r}: its folder is not writable")
    if p.exists() and not os.access(p, os.W_OK) and not os.access(parent, os.W_OK):
        raise QLogError(f"cannot write {option} {text!r}: permission denied")
    return p


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask


# --------------------------------------------------------------------------------------------
# Files written atomically


@contextlib.contextmanager
def atomic_output(path: str | os.PathLike, mode: str = "w") -> Iterator[IO]:
    """Write to a temporary file beside ``path`` and rename it into place only on success.

    A crash or an exception leaves no partial file behind. The parent folder must exist:
    a missing folder is a user error, not something to create silently.
    """
    path = check_output_file(path, "output")
    parent = path.parent if str(path.parent) else Path(".")
    # The temporary's name carries our pid, so a later run can tell a killed run's leftover from
    # a live one's and remove it (safety.sweep_stale).
    sweep_stale(parent, path.name)
    fd, tmp = tempfile.mkstemp(prefix=temp_prefix(path), suffix=".tmp", dir=parent)
    os.chmod(tmp, 0o666 & ~_umask())  # mkstemp makes 0600; give the file the mode open() would
    try:
        with os.fdopen(fd, mode, encoding=None if "b" in mode else "utf-8") as f:
            yield f
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(tmp)
        raise


def write_text(path: str | os.PathLike, text: str) -> None:
    """Write ``text`` to ``path`` atomically (:func:`atomic_output`)."""
    with atomic_output(path) as f:
        f.write(text)


def write_json(path: str | os.PathLike, data: Any, indent: int = 2) -> None:
    """Write ``data`` as JSON (UTF-8, newline-terminated) to ``path`` atomically."""
    with atomic_output(path) as f:
        json.dump(data, f, indent=indent, ensure_ascii=False)
        f.write("\n")
