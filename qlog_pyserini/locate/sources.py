"""Where ``locate`` reads a repository's files: a work tree on disk, or one commit of any repository.

A work tree's files are git's own list, ``git ls-files -co --exclude-standard``: tracked files as they are on
disk (uncommitted changes included) and untracked files that no ignore rule covers. A commit's files are its
tree, read with ``git ls-tree`` and ``git cat-file --batch`` (:class:`~qlog_pyserini.instances.git.GitRepository`),
so a bare mirror serves as well as a clone.

Each file has a *version*: what tells a changed file from an unchanged one without reading it. For a commit
it is the blob id. For a work tree it is the file's modification time and size, and a file whose version
changed is read and compared by the SHA-256 of its content, so a touched but unchanged file is not indexed
again.
"""

from __future__ import annotations

import hashlib
import os
import stat
import time
from collections import Counter
from dataclasses import dataclass
from pathlib import Path
from typing import Callable, Iterator, Sequence

from qlog_pyserini.errors import QLogError
from qlog_pyserini.instances.git import GitRepository, git_env
from qlog_pyserini.instances.rules import ASSEMBLED_REASONS, LANGUAGE_RULES, FileRules
from qlog_pyserini.system.processes import run

#: A file or folder changed this close to a listing may change again within the clock's grain without changing
#: its modification time: it is looked at again (a file read, the folders listed) at the next call.
RACY_NS = 2_000_000_000
#: A language is detected when at least this share of a repository's source files (by extension) is in it.
DETECT_SHARE = 0.05


@dataclass(frozen=True)
class Candidate:
    """A file of the repository: its path, git mode, size in bytes and version (see the module docstring)."""

    path: str
    mode: str
    size: int | None
    version: str


def content_sha(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


class WorkTree:
    """The files of a work tree, uncommitted and untracked ones included, read from disk.

    Listing the untracked files walks the whole tree (``git ls-files -o``), the largest part of a warm call on
    a large repository. So the listing is kept with the state it was taken in: git's index file, the
    repository's exclude file, every folder that holds a listed file or holds such a folder, and every
    ``.gitignore`` listed. A file added or removed changes its folder's modification time, a ``git add`` or
    ``git rm`` the index, an edited ignore rule its file; while none of these changed, the listing stands and
    only the listed files are looked at. A state taken within the clock's grain of a change (:data:`RACY_NS`)
    is not trusted. What this does not see at once: a file added to a folder that holds only ignored files
    and no listed one (it is listed at the next change elsewhere, as git's own untracked cache would miss it
    without its per-folder records).
    """

    kind = "worktree"

    def __init__(self, repo: GitRepository) -> None:
        self.repo = repo
        out = run(["git", "-C", str(repo.path), "rev-parse", "--show-toplevel", "--git-path", "index",
                   "--git-path", "info/exclude"], env=git_env())
        if out.returncode != 0:
            raise QLogError(f"{str(repo.path)!r} is a repository without a work tree (a bare mirror): "
                            "give --rev to read one of its commits")
        top, index, exclude = out.stdout.decode().splitlines()[:3]
        self.root = Path(top)
        self._git_files = [self.root / index if not os.path.isabs(index) else Path(index),
                           self.root / exclude if not os.path.isabs(exclude) else Path(exclude)]
        self.identity = f"worktree:{self.root}"
        self._listing: list[tuple[str, str]] = []
        self._watched: list[str] = []  # folders (relative, "" the top) and ignore files the listing depends on
        self._state: tuple | None = None
        self._listed_ns = 0
        self.listing_generation = 0  # counts the listings taken: what depends on the paths alone is kept meanwhile

    def _stat_state(self, watched: Sequence[str], listed_ns: int) -> tuple | None:
        """The modification times of what the listing depends on; None when one is not older than the listing
        (``listed_ns``, when git started listing) by the clock's grain, and so cannot vouch for it."""
        state = []
        top = f"{self.root}{os.sep}"
        for path in [*map(str, self._git_files), *(top + w if w else str(self.root) for w in watched)]:
            try:
                st = os.stat(path)
            except OSError:
                state.append(None)
                continue
            if st.st_mtime_ns >= listed_ns - RACY_NS:
                return None
            state.append((st.st_mtime_ns, st.st_size, st.st_ino))
        return tuple(state)

    def _list(self) -> list[tuple[str, str]]:
        """``(path, git mode)`` of every tracked and untracked file, from git or from the kept listing."""
        if self._state is not None and self._stat_state(self._watched, self._listed_ns) == self._state:
            return self._listing
        listed_ns = time.time_ns()
        out = run(["git", "-C", str(self.root), "ls-files", "-z", "-c", "-o", "--exclude-standard", "-s"],
                  env=git_env())
        if out.returncode != 0:
            raise QLogError(f"git ls-files failed in {str(self.root)!r}: {out.stderr.decode(errors='replace').strip()}")
        listing: dict[str, str] = {}
        for record in out.stdout.split(b"\0"):
            if not record:
                continue
            # tracked: "<mode> <sha> <stage>\t<path>"; untracked: "<path>" alone
            meta, tab, raw = record.partition(b"\t")
            path = (raw if tab else record).decode("utf-8", "surrogateescape")
            listing.setdefault(path, meta.split()[0].decode() if tab else "100644")  # a conflict: once per stage
        folders = {""}
        for path in listing:
            parts = path.split("/")[:-1]
            for i in range(1, len(parts) + 1):
                folders.add("/".join(parts[:i]))
        self._watched = sorted(folders) + sorted(p for p in listing if p.rsplit("/", 1)[-1] == ".gitignore")
        self._listing, self._listed_ns = list(listing.items()), listed_ns
        self.listing_generation += 1
        self._state = self._stat_state(self._watched, listed_ns)
        return self._listing

    def head(self) -> str | None:
        """The commit checked out (its history is the work tree's: :mod:`qlog_pyserini.localize.activity`), None
        before the first commit."""
        return self.repo.head()

    def candidates(self, wanted: Callable[[str], bool] | None = None) -> list[Candidate]:
        """The files; only those ``wanted`` by path (all by default) are looked at on disk, the others have size 0
        and no version (for a rule that drops a file by its path alone)."""
        found = []
        root = f"{self.root}{os.sep}"
        for path, mode in self._list():
            if wanted is not None and not wanted(path):
                found.append(Candidate(path, mode, 0, ""))
                continue
            try:
                st = os.lstat(root + path)
            except OSError:
                continue  # a tracked file deleted from the work tree
            if mode != "160000":  # a submodule keeps its mode; a file's is what is on disk now
                mode = "120000" if stat.S_ISLNK(st.st_mode) else "100644"
            found.append(Candidate(path, mode, st.st_size, f"{st.st_mtime_ns}:{st.st_size}"))
        return found

    def read(self, paths: Sequence[str]) -> Iterator[tuple[str, bytes | None]]:
        """``(path, content)``, None for a file that cannot be read."""
        for path in paths:
            try:
                yield path, (self.root / path).read_bytes()
            except OSError:
                yield path, None


class Revision:
    """The files of one commit of a repository (a clone or a bare mirror), read from git's objects."""

    kind = "rev"

    def __init__(self, repo: GitRepository, rev: str) -> None:
        self.repo = repo
        found = repo.resolve([rev])[rev] if rev and not rev.startswith("-") else None
        if found is None:
            raise QLogError(f"repository {str(repo.path)!r} has no commit {rev!r}")
        self.commit, self.tree = found
        self.identity = f"rev:{Path(repo.path).resolve()}:{self.commit}"
        self.listing_generation = 1  # a commit's files never change
        self._entries: dict[str, Candidate] | None = None

    def head(self) -> str | None:
        """The commit whose history is read (:mod:`qlog_pyserini.localize.activity`): this one."""
        return self.commit

    def candidates(self, wanted: Callable[[str], bool] | None = None) -> list[Candidate]:
        if self._entries is None:  # a commit's tree never changes: read once
            self._entries = {e.path: Candidate(e.path, e.mode, e.size, e.sha) for e in self.repo.tree(self.tree)}
        return list(self._entries.values())

    def read(self, paths: Sequence[str]) -> Iterator[tuple[str, bytes | None]]:
        """``(path, content)``, None for a file whose blob the repository lacks (a partial clone, a mirror without
        its largest files: git lists the file with no size), which ``cat-file`` would refuse to read."""
        by_sha: dict[str, list[str]] = {}
        entries = {c.path: c for c in self.candidates()}
        for path in paths:
            if entries[path].size is None:
                yield path, None
                continue
            by_sha.setdefault(entries[path].version, []).append(path)
        for sha, data in self.repo.read_objects(list(by_sha)):
            for path in by_sha[sha]:
                yield path, data


def detect_languages(paths: Sequence[str]) -> tuple[str, ...]:
    """The languages at least :data:`DETECT_SHARE` of the files with a known extension are in, most files first.

    ``.h`` counts for no language (C's and C++'s both); a repository with no source file of any language is
    :class:`QLogError`."""
    counts: Counter[str] = Counter()
    for path in paths:
        name = path.rsplit("/", 1)[-1]
        if name.endswith(".h"):
            continue
        for language, rules in LANGUAGE_RULES.items():
            if name.endswith(rules.extensions) and name not in rules.extensions:
                counts[language] += 1
                break
    total = sum(counts.values())
    if not total:
        raise QLogError(f"no source file of a known language ({', '.join(LANGUAGE_RULES)}) in the repository; "
                        "give --language")
    chosen = [lang for lang, n in counts.most_common() if n >= DETECT_SHARE * total]
    return tuple(chosen)


def open_source(repo: str | os.PathLike, rev: str | None) -> WorkTree | Revision:
    """The files ``locate`` reads: the work tree of ``repo``, or commit ``rev`` of it; :class:`QLogError` when
    ``repo`` is not a folder, not a repository, or lacks ``rev``."""
    if not str(repo) or not Path(repo).is_dir():
        raise QLogError(f"--repo {str(repo)!r} is not a folder")
    git = GitRepository(repo)
    try:
        return WorkTree(git) if rev is None else Revision(git, rev)
    except BaseException:
        git.close()
        raise


class KeptFiles:
    """prepare's path rules over a repository's files, each file's answer kept: a work tree listed at every call
    changes in few paths, and the rules read only the path, mode and size."""

    def __init__(self, rules: FileRules) -> None:
        self.rules = rules
        self.fingerprint = rules.fingerprint()
        self._reasons: dict[tuple[str, str, int | None], str | None] = {}

    def wanted(self, path: str) -> bool:
        """Whether a regular file at ``path`` may be kept, its size aside (the rules before the size cap)."""
        key = (path, "100644", 0)
        if key not in self._reasons:
            self._reasons[key] = self.rules.path_reason(path, "100644", 0)
        return self._reasons[key] is None

    def split(self, candidates: Sequence[Candidate]) -> tuple[list[Candidate], Counter[str], list[str]]:
        """The candidates the rules keep, how many each rule dropped, and the paths dropped as generated
        (:data:`~qlog_pyserini.instances.rules.ASSEMBLED_REASONS`), which an issue may still name."""
        kept, dropped, generated = [], Counter[str](), []
        reasons = self._reasons
        for c in candidates:
            key = (c.path, c.mode, c.size)
            if key in reasons:
                reason = reasons[key]
            else:
                reason = reasons[key] = self.rules.path_reason(c.path, c.mode, c.size)
            if reason is None:
                kept.append(c)
            else:
                dropped[reason] += 1
                if reason in ASSEMBLED_REASONS:
                    generated.append(c.path)
        return kept, dropped, generated
