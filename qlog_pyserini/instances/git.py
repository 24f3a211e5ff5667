"""Reading repositories straight from git, without a checkout: commits, trees and blobs in batches.

One ``git cat-file --batch`` process per repository serves every blob of every instance (a writer
thread feeds it object ids while the reader takes the contents), so a tree of a thousand files
costs one ``git ls-tree`` and a thousand reads over a pipe, not a thousand processes. Clones and
bare mirrors read alike.
"""

from __future__ import annotations

import collections
import os
import subprocess
import threading
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Iterator, Sequence

from qlog_pyserini.errors import QLogError
from qlog_pyserini.instances.diffs import FileChange
from qlog_pyserini.system.processes import popen, reaped, run

# git's own settings never change what it prints here: no pager, no replace refs, no user config.
# A partial clone never fetches a missing object: reading is offline (git >= 2.44 reads GIT_NO_LAZY_FETCH).
_GIT_ENV = {"GIT_NO_LAZY_FETCH": "1", "GIT_PAGER": "cat", "GIT_NO_REPLACE_OBJECTS": "1", "GIT_CONFIG_NOSYSTEM": "1",
            "GIT_CONFIG_GLOBAL": os.devnull, "LC_ALL": "C"}


def git_env() -> dict[str, str]:
    return {**os.environ, **_GIT_ENV}


def repository_candidates(root: Path, org: str, name: str) -> list[Path]:
    """Where a repository ``org/name`` may be under ``root``: ``org/name`` or ``org__name``, with or without ``.git``."""
    return [root / org / name, root / org / f"{name}.git", root / f"{org}__{name}", root / f"{org}__{name}.git"]


def find_repository(root: Path, org: str, name: str) -> Path | None:
    """The folder holding ``org/name`` under ``root`` (GitHub names match case-insensitively), or None."""
    for path in repository_candidates(root, org, name):
        if path.is_dir():
            return path
    wanted = {p.relative_to(root).as_posix().lower() for p in repository_candidates(root, org, name)}
    try:
        top = list(root.iterdir())
    except OSError:
        return None
    for entry in top:
        if entry.name.lower() in wanted and entry.is_dir():
            return entry
        if entry.name.lower() == org.lower() and entry.is_dir():
            for sub in entry.iterdir():
                if f"{entry.name}/{sub.name}".lower() in wanted and sub.is_dir():
                    return sub
    return None


@dataclass(frozen=True)
class TreeEntry:
    """One entry of ``git ls-tree -r -l``: a blob (file or symbolic link) or a submodule commit."""

    mode: str
    type: str
    sha: str
    size: int | None  # None: the repository lacks the blob (a partial clone)
    path: str


@dataclass(frozen=True)
class Commit:
    """A non-merge commit of the history: its id, its parent (None for a root commit), its changes."""

    sha: str
    parent: str | None
    time: int
    changes: tuple[FileChange, ...]


_RAW_KINDS = {"M": "modified", "A": "added", "D": "deleted", "R": "renamed", "C": "copied", "T": "type-changed"}


class GitRepository:
    """A repository (a clone's work tree, its ``.git``, or a bare mirror) read with git's plumbing commands."""

    def __init__(self, path: str | os.PathLike) -> None:
        self.path = Path(path)
        if not self.path.is_dir():
            raise QLogError(f"repository {str(self.path)!r} does not exist")
        out = self._run("rev-parse", "--absolute-git-dir", check=False)
        if out.returncode != 0:
            raise QLogError(f"{str(self.path)!r} is not a git repository: {out.stderr.decode(errors='replace').strip()}")
        self._batch: subprocess.Popen | None = None
        # git looks upward from a folder: an empty folder inside another work tree would read that repository
        here = self.path.resolve()
        if Path(out.stdout.decode().strip()).resolve() != here:  # not a bare repository or a .git folder
            top = self._run("rev-parse", "--show-toplevel", check=False).stdout.decode().strip()
            if not top or Path(top).resolve() != here:
                raise QLogError(f"{str(self.path)!r} is not a git repository: it is a folder inside the work tree "
                                f"of {top or 'another repository'!r}")

    def _run(self, *args: str, check: bool = True, input: bytes | None = None) -> subprocess.CompletedProcess:
        out = run(["git", "-C", str(self.path), *args], env=git_env(), input=input)
        if check and out.returncode != 0:
            self._fail(args, out)
        return out

    def _fail(self, args: Sequence[str], out: subprocess.CompletedProcess) -> None:
        raise QLogError(f"git {' '.join(args[:2])} failed in {str(self.path)!r}: "
                        f"{out.stderr.decode(errors='replace').strip()}")

    def resolve(self, revisions: Sequence[str]) -> dict[str, tuple[str, str] | None]:
        """``{revision: (commit id, tree id)}`` for each revision, None where the repository lacks it (one process)."""
        query = "".join(f"{rev}^{{commit}}\n{rev}^{{tree}}\n" for rev in revisions).encode()
        lines = self._run("cat-file", "--batch-check", input=query).stdout.decode().splitlines()
        found: dict[str, tuple[str, str] | None] = {}
        for rev, commit, tree in zip(revisions, lines[0::2], lines[1::2]):
            c, t = commit.split(), tree.split()
            found[rev] = (c[0], t[0]) if len(c) == 3 and c[1] == "commit" and len(t) == 3 and t[1] == "tree" else None
        return found

    def tree(self, tree: str) -> list[TreeEntry]:
        """Every blob and submodule of ``tree``, recursively, with sizes (one ``git ls-tree``)."""
        out = self._run("ls-tree", "-r", "-l", "-z", "--full-tree", tree, check=False)
        if out.returncode == 0:
            listed = [(meta.split(), path) for meta, path in _tree_records(out.stdout)]
            return [TreeEntry(mode, kind, sha, _size(size), path) for (mode, kind, sha, size), path in listed]
        if not _missing_object(out):
            self._fail(("ls-tree", tree), out)
        # a partial clone: -l reads every blob for its size and stops at the first one the clone lacks; the
        # tree is listed without sizes, and the blobs it holds are sized (a missing one: None, blob-missing)
        listed = [(meta.split(), path) for meta, path in _tree_records(self._run("ls-tree", "-r", "-z", "--full-tree",
                                                                                  tree).stdout)]
        sizes = self._present_sizes(tree)
        return [TreeEntry(mode, kind, sha, sizes.get(sha) if kind == "blob" else 0, path)
                for (mode, kind, sha), path in listed]

    def _present_sizes(self, tree: str) -> dict[str, int]:
        """``{sha: size}`` of the objects under ``tree`` this repository holds: ``rev-list --missing=print`` marks
        the ones it lacks (cat-file, like ls-tree -l, stops at the first), then one ``cat-file --batch-check``."""
        out = self._run("rev-list", "--objects", "--missing=print", "--no-object-names", tree).stdout.decode()
        present = [line for line in out.split() if not line.startswith("?")]
        query = "".join(f"{sha}\n" for sha in present).encode()
        sizes: dict[str, int] = {}
        for line in self._run("cat-file", "--batch-check", input=query).stdout.decode().splitlines():
            parts = line.split()
            if len(parts) == 3 and parts[2].isdigit():
                sizes[parts[0]] = int(parts[2])
        return sizes

    def read_objects(self, shas: Sequence[str]) -> Iterator[tuple[str, bytes]]:
        """``(sha, content)`` for each object id (blobs, commits), in order, from this repository's one
        ``cat-file --batch``."""
        proc = self._batch_process()
        assert proc.stdin is not None and proc.stdout is not None
        writer = threading.Thread(target=_feed, args=(proc.stdin, shas), daemon=True)
        writer.start()
        done = 0
        try:
            for sha in shas:
                header = proc.stdout.readline().decode()
                parts = header.split()
                if len(parts) != 3:
                    raise QLogError(f"git cat-file in {str(self.path)!r} cannot read object {sha}: {header.strip()}")
                data = _read_exactly(proc.stdout, int(parts[2]) + 1)[:-1]  # the content, then a newline
                done += 1
                yield sha, data
        finally:
            if done < len(shas):  # stopped early: the process still holds answers nobody will read
                proc.kill()
                proc.wait()
                self._batch = None
            writer.join()

    def _batch_process(self) -> subprocess.Popen:
        if self._batch is None or self._batch.poll() is not None:
            self._batch = popen(["git", "-C", str(self.path), "cat-file", "--batch"], env=git_env(),
                                stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
        return self._batch

    def history(self, revision: str = "HEAD", since: str | None = None) -> tuple[list[Commit], bool]:
        """The non-merge commits reachable from ``revision`` (newest first), with the files each changed, and
        whether renames were detected.

        git's rename detection pairs a deleted with an added file; it never touches a file modified in place, the
        only kind that is an answer. It compares blobs, so in a repository that lacks some (a partial clone, an
        incomplete mirror) ``git log -M`` stops at the first rename it cannot compare: the history is then read
        without it, the same answers with renames listed as a deletion and an addition."""
        limit = [f"--since={since}"] if since else []
        out = self._run("log", "--no-merges", "-M", *_LOG_FORMAT, *limit, revision, "--", check=False)
        if out.returncode == 0:
            return _commits(out.stdout), True
        if not _missing_object(out):
            self._fail(("log", revision), out)
        return _commits(self._run("log", "--no-merges", "--no-renames", *_LOG_FORMAT, *limit, revision, "--").stdout), False

    def activity(self, revision: str, commits: int) -> collections.Counter[str]:
        """How many of the ``commits`` newest commits of ``revision``'s first-parent history (``revision``
        included) change each path, each commit against its first parent, so that a merge counts once, as the
        change it brought (:mod:`qlog_pyserini.localize.activity`). Renames are not followed: a renamed file's
        earlier commits count under its old path."""
        out = self._run("log", "--first-parent", "--diff-merges=first-parent", "--no-renames", "--name-only", "-z",
                        "--format=%x01", f"--max-count={commits}", revision, "--")
        counts: collections.Counter[str] = collections.Counter()
        for record in out.stdout.decode("utf-8", "surrogateescape").split("\x01")[1:]:
            counts.update({p.lstrip("\n") for p in record.split("\0")} - {""})
        return counts

    def messages(self, shas: Sequence[str]) -> dict[str, str]:
        """The full message of each commit (subject and body), read in one batch."""
        found = {}
        for sha, data in self.read_objects(shas):
            _, _, message = data.partition(b"\n\n")
            found[sha] = message.decode("utf-8", "replace")
        return found

    def head(self) -> str | None:
        out = self._run("rev-parse", "--verify", "-q", "HEAD", check=False)
        return out.stdout.decode().strip() or None

    def close(self) -> None:
        if self._batch is not None:
            with reaped(self._batch):
                self._batch.stdin.close()  # type: ignore[union-attr]
                self._batch.wait(timeout=30)
            self._batch = None

    def __enter__(self) -> "GitRepository":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


_LOG_FORMAT = ("--raw", "-z", "--no-abbrev", "--format=%x01%H %ct %P")


def _commits(out: bytes) -> list[Commit]:
    commits = []
    for record in out.decode("utf-8", "surrogateescape").split("\x01")[1:]:
        head, _, raw = record.partition("\0")
        sha, time, *parents = head.split()
        commits.append(Commit(sha, parents[0] if parents else None, int(time), tuple(_raw_changes(raw))))
    return commits


def _missing_object(out: subprocess.CompletedProcess) -> bool:
    # what git prints when an object it must read is absent: "fatal: unable to read <sha>" (and, for a
    # promisor remote it may not fetch from, "could not fetch <sha> from promisor remote")
    err = out.stderr.decode(errors="replace")
    return "unable to read" in err or "from promisor remote" in err


def _tree_records(out: bytes) -> Iterator[tuple[str, str]]:
    """``(meta, path)`` of each record of ``git ls-tree -z`` (a path git gave as bytes that are not UTF-8 keeps
    them as surrogates)."""
    for record in out.split(b"\0"):
        if record:
            meta, _, path = record.partition(b"\t")
            yield meta.decode(), path.decode("utf-8", "surrogateescape")


def _size(field: str) -> int | None:
    # ls-tree -l prints "-" for a submodule and "BAD" for a blob the repository lacks
    return 0 if field == "-" else int(field) if field.isdigit() else None


def _feed(stdin: IO[bytes], shas: Sequence[str]) -> None:
    try:
        for sha in shas:
            stdin.write(f"{sha}\n".encode())
        stdin.flush()
    except (BrokenPipeError, ValueError):
        pass  # the reader stopped early (an error); it reports why


def _read_exactly(stream: IO[bytes], n: int) -> bytes:
    data = stream.read(n)
    if len(data) != n:
        raise QLogError("git cat-file ended early")
    return data


def _raw_changes(raw: str) -> Iterator[FileChange]:
    """The changes of ``git log --raw -z``: ``:mode mode sha sha STATUS\\0path\\0[path\\0]`` each."""
    tokens = raw.lstrip("\n").split("\0")
    i = 0
    while i < len(tokens):
        token = tokens[i].lstrip("\n")
        if not token.startswith(":"):
            i += 1
            continue
        status = token.split()[-1]
        kind = _RAW_KINDS.get(status[0], "other")
        if status[0] in "RC":
            old, new = tokens[i + 1], tokens[i + 2]
            i += 3
        else:
            old = new = tokens[i + 1]
            i += 2
        if kind == "added":
            old = None
        elif kind == "deleted":
            new = None
        yield FileChange(old, new, kind)
