"""The cache folder of one repository's ``locate`` index: a Lucene index and the manifest that keeps it current.

``<root>/<key>/`` (``key`` a hash of the repository's path and whether its work tree or which commit is read,
and of the languages when they are given) holds exactly these entries, the only ones ``locate`` ever writes or
deletes there:

- ``stamp.json``: the cache format, this package's version, the Anserini jar the index was written with and how
  files are cut into units (``UNITS_VERSION``). A
  folder whose stamp is absent, unreadable or another's is rebuilt, never used.
- ``manifest.json``: per indexed file its version (blob id, or modification time and size) and content
  SHA-256; per skipped file (binary, unreadable, generated) its version and reason; the languages and the
  fingerprint of the file rules. It is removed while the index is being changed, so a run killed half-way
  leaves a cache the next run rebuilds.
- ``index/``: the Lucene index of the files (``io.qlog.index.IndexUpdater``), with the path field
  (:mod:`qlog_pyserini.localize.paths`), not synced to the device: an index an operating-system crash tore fails
  to open, and is rebuilt.
- ``units/``: the Lucene index of the files' units (:mod:`qlog_pyserini.localize.units`, docids
  ``path#start-end``), with the path field and a keyword field ``file`` holding the file's path, by which a
  changed or deleted file's units are deleted together.
- ``symbols.json``: per indexed file its content SHA-256 and the names it defines
  (:class:`qlog_pyserini.localize.symbols.SymbolTable`), so a new process reads only the files changed since; a
  file whose digest differs is read again, an unreadable one is ignored.
- ``lock``: an advisory lock (``flock``) that serialises updates and searches across processes.

The root is ``$QLOG_CACHE/locate``, else ``$XDG_CACHE_HOME/qlog-pyserini/locate`` (``~/.cache/...``).
"""

from __future__ import annotations

import contextlib
import fcntl
import hashlib
import json
import os
import shutil
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Iterator

from qlog_pyserini import __version__
from qlog_pyserini.eval.trec_eval import cache_dir
from qlog_pyserini.jvm.toolchain import pyserini_jar
from qlog_pyserini.localize.units import UNITS_VERSION
from qlog_pyserini.system.outputs import write_json, write_text

FORMAT = 2
STAMP, MANIFEST, INDEX, UNITS, LOCK = "stamp.json", "manifest.json", "index", "units", "lock"
SYMBOLS = "symbols.json"
READY = "ready"


def default_cache_root() -> Path:
    return cache_dir() / "locate"


def cache_key(identity: str, languages: tuple[str, ...] | None) -> str:
    return hashlib.sha256(f"{identity}\n{','.join(languages or ())}".encode()).hexdigest()[:20]


def stamp() -> dict[str, Any]:
    """What a cache written by this version says of itself."""
    return {"tool": "qlog-pyserini locate", "format": FORMAT, "version": __version__, "anserini": pyserini_jar().name,
            "units": UNITS_VERSION}


@dataclass
class Manifest:
    """What the index holds: ``files`` ``{path: [version, sha256]}``, ``skipped`` ``{path: [version, reason]}``."""

    languages: tuple[str, ...]
    rules: str
    files: dict[str, list[str]] = field(default_factory=dict)
    skipped: dict[str, list[str]] = field(default_factory=dict)
    generation: int = 0
    scanned_ns: int = 0  # when the work tree was last listed: files changed within the clock's grain are re-read

    def to_json(self, state: str) -> dict[str, Any]:
        return {"state": state, "generation": self.generation, "languages": list(self.languages), "rules": self.rules,
                "scanned_ns": self.scanned_ns, "files": self.files, "skipped": self.skipped}

    @classmethod
    def from_json(cls, data: Any) -> "Manifest | None":
        """The manifest ``data`` describes, None unless it is a complete one in the ready state."""
        try:
            if data.get("state") != READY:
                return None
            files, skipped = data["files"], data["skipped"]
            if not (isinstance(files, dict) and isinstance(skipped, dict)
                    and all(isinstance(v, list) and len(v) == 2 for v in (*files.values(), *skipped.values()))):
                return None
            return cls(tuple(data["languages"]), str(data["rules"]), files, skipped, int(data["generation"]),
                       int(data["scanned_ns"]))
        except (AttributeError, KeyError, TypeError, ValueError):
            return None


class IndexCache:
    """One repository's cache folder (see the module docstring)."""

    def __init__(self, folder: Path) -> None:
        self.folder = folder
        self.index_dir = folder / INDEX
        self.units_dir = folder / UNITS
        # the manifest last read or written, under the stat of the files it came from: a call that finds them
        # unchanged does not parse it again
        self._known: tuple[tuple, Manifest] | None = None

    def _files_stat(self) -> tuple:
        stats = [os.stat(self.folder / name) for name in (STAMP, MANIFEST)]
        return tuple((s.st_ino, s.st_mtime_ns, s.st_size) for s in stats)

    @contextlib.contextmanager
    def locked(self) -> Iterator[None]:
        """Hold the folder's lock: no other process updates or searches this index meanwhile."""
        self.folder.mkdir(parents=True, exist_ok=True)
        with open(self.folder / LOCK, "a+b") as f:
            fcntl.flock(f.fileno(), fcntl.LOCK_EX)
            try:
                yield
            finally:
                fcntl.flock(f.fileno(), fcntl.LOCK_UN)

    def load(self) -> Manifest | None:
        """The manifest, or None when the folder is not a sound cache of this version (then it is rebuilt)."""
        try:
            seen = self._files_stat()
            for index in (self.index_dir, self.units_dir):
                if not any(p.name.startswith("segments_") for p in index.iterdir()):
                    return None
            if self._known is not None and self._known[0] == seen:
                return self._known[1]
            if json.loads((self.folder / STAMP).read_text(encoding="utf-8")) != stamp():
                return None
            manifest = Manifest.from_json(json.loads((self.folder / MANIFEST).read_text(encoding="utf-8")))
        except (OSError, ValueError):
            return None
        if manifest is None:
            return None
        self._known = (seen, manifest)
        return manifest

    def clear(self) -> None:
        """Delete what ``locate`` writes here (and nothing else), before a rebuild."""
        self._known = None
        for name in (MANIFEST, STAMP, SYMBOLS):
            with contextlib.suppress(FileNotFoundError):
                (self.folder / name).unlink()
        for index in (self.index_dir, self.units_dir):
            if index.is_symlink() or index.is_file():
                index.unlink()
            elif index.exists():
                shutil.rmtree(index)

    def begin(self) -> None:
        """Before the index is changed: a run killed before :meth:`commit` leaves no manifest, and so a cache that is
        rebuilt."""
        self._known = None
        self.folder.mkdir(parents=True, exist_ok=True)
        with contextlib.suppress(FileNotFoundError):
            (self.folder / MANIFEST).unlink()
        if not (self.folder / STAMP).is_file():
            write_json(self.folder / STAMP, stamp())

    def load_symbols(self) -> object:
        """The saved symbol table's JSON, or None when there is none or it cannot be read."""
        try:
            return json.loads((self.folder / SYMBOLS).read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return None

    def save_symbols(self, data: dict) -> None:
        write_text(self.folder / SYMBOLS, json.dumps(data, ensure_ascii=False) + "\n")

    def commit(self, manifest: Manifest) -> None:
        # json.dumps, not json.dump: one call of the C encoder, where dump writes a file chunk by chunk in Python
        write_text(self.folder / MANIFEST, json.dumps(manifest.to_json(READY), ensure_ascii=False) + "\n")
        self._known = (self._files_stat(), manifest)
