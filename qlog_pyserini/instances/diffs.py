"""The files a unified diff touches, and how: parsed from its headers, hunks skipped by their line counts.

Git's extended headers decide the kind of each change (``new file mode``, ``deleted file mode``,
``rename from``/``rename to``, ``copy from``/``copy to``); the ``---``/``+++`` lines give the paths
(``/dev/null`` for a side that does not exist), quoted C-style when git had to (``"a/caf\\303\\251.c"``).
A hunk's body is skipped by the counts in its ``@@ -a,b +c,d @@`` line, so a removed line that reads
``--- a/x`` is never taken for a header. Plain ``diff -u`` output (no ``diff --git`` line) is read too.

Only a file present on both sides under the same path, whose content changed (a hunk or a binary
change), is *modified*; an added, deleted, renamed or copied file, or a mode-only change, is not.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from qlog_pyserini.errors import QLogError

DEV_NULL = "/dev/null"
KINDS = ("modified", "added", "deleted", "renamed", "copied", "mode-only")

_HUNK = re.compile(r"^@@ -\d+(?:,(\d+))? \+\d+(?:,(\d+))? @@")
_ESCAPES = {"a": 7, "b": 8, "t": 9, "n": 10, "v": 11, "f": 12, "r": 13, '"': 34, "\\": 92}


@dataclass(frozen=True)
class FileChange:
    """One file of a diff: its path before (None if added) and after (None if deleted), and the kind of change."""

    old_path: str | None
    new_path: str | None
    kind: str

    @property
    def path(self) -> str:
        """The path the change is reported under: the old one, except for an added file."""
        return self.old_path if self.old_path is not None else self.new_path  # type: ignore[return-value]


def unquote(text: str) -> str:
    """A path as git prints it, unquoted: ``"a\\tb\\303\\251"`` -> ``a<TAB>bé``; an unquoted path as is."""
    if not (len(text) >= 2 and text[0] == '"' and text[-1] == '"'):
        return text
    out = bytearray()
    body, i = text[1:-1], 0
    while i < len(body):
        c = body[i]
        if c != "\\":
            out += c.encode("utf-8", "surrogateescape")
            i += 1
        elif body[i + 1:i + 4].isdigit() and len(body[i + 1:i + 4]) == 3:
            out.append(int(body[i + 1:i + 4], 8) & 0xFF)
            i += 4
        elif i + 1 < len(body) and body[i + 1] in _ESCAPES:
            out.append(_ESCAPES[body[i + 1]])
            i += 2
        else:
            raise QLogError(f"bad escape in quoted diff path {text!r}")
    return out.decode("utf-8", "surrogateescape")


def _side(text: str, prefix: str) -> str | None:
    """A ``---``/``+++`` path: unquoted, the ``a/``/``b/`` prefix and a trailing timestamp removed."""
    text = text.rstrip("\r\n")
    if not text.startswith('"') and "\t" in text:
        text = text.split("\t", 1)[0]  # diff -u puts a tab and a timestamp after the name
    path = unquote(text.strip() if not text.startswith('"') else text)
    if path == DEV_NULL:
        return None
    return path[len(prefix):] if path.startswith(prefix) else path


def _git_header_paths(rest: str) -> tuple[str | None, str | None]:
    """The two paths of ``diff --git a/X b/Y`` (used when no ---/+++ lines follow: pure renames, binaries)."""
    if rest.startswith('"'):
        end = _quoted_end(rest)
        old, tail = rest[:end], rest[end:].lstrip(" ")
    else:
        # Unquoted names may hold spaces; git writes the same name twice for a change in place.
        half = (len(rest) - 1) // 2
        if rest[half] == " " and rest[:half][2:] == rest[half + 1:][2:]:
            old, tail = rest[:half], rest[half + 1:]
        else:
            old, _, tail = rest.partition(" b/")
            tail = "b/" + tail
    return _side(old, "a/"), _side(tail, "b/")


def _quoted_end(text: str) -> int:
    i = 1
    while i < len(text):
        if text[i] == "\\":
            i += 2
            continue
        if text[i] == '"':
            return i + 1
        i += 1
    raise QLogError(f"unterminated quoted path in diff header {text!r}")


class _Entry:
    def __init__(self, old: str | None = None, new: str | None = None) -> None:
        self.old, self.new = old, new
        self.added = self.deleted = False
        self.rename_from: str | None = None
        self.rename_to: str | None = None
        self.copy_from: str | None = None
        self.content_changed = False

    def change(self) -> FileChange:
        if self.rename_from is not None or self.rename_to is not None:
            return FileChange(self.rename_from or self.old, self.rename_to or self.new, "renamed")
        if self.copy_from is not None:
            return FileChange(self.copy_from, self.new, "copied")
        if self.added or self.old is None:
            return FileChange(None, self.new, "added")
        if self.deleted or self.new is None:
            return FileChange(self.old, None, "deleted")
        if self.old != self.new:  # a plain diff between two names: git would have said rename
            return FileChange(self.old, self.new, "renamed")
        return FileChange(self.old, self.new, "modified" if self.content_changed else "mode-only")


def parse_diff(text: str) -> list[FileChange]:
    """Every file ``text`` (a unified diff, git's or plain) changes, in order."""
    entries: list[_Entry] = []
    current: _Entry | None = None
    lines = text.splitlines()
    i = 0
    while i < len(lines):
        line = lines[i]
        if line.startswith("diff --git "):
            old, new = _git_header_paths(line[len("diff --git "):])
            current = _Entry(old, new)
            entries.append(current)
        elif current is not None and line.startswith("new file mode"):
            current.added = True
        elif current is not None and line.startswith("deleted file mode"):
            current.deleted = True
        elif current is not None and line.startswith("rename from "):
            current.rename_from = unquote(line[len("rename from "):])
        elif current is not None and line.startswith("rename to "):
            current.rename_to = unquote(line[len("rename to "):])
        elif current is not None and line.startswith("copy from "):
            current.copy_from = unquote(line[len("copy from "):])
        elif line.startswith("--- ") and i + 1 < len(lines) and lines[i + 1].startswith("+++ "):
            old, new = _side(line[4:], "a/"), _side(lines[i + 1][4:], "b/")
            if current is None or current.content_changed:  # a plain diff -u file, or one git header per file
                current = _Entry(old, new)
                entries.append(current)
            else:
                current.old, current.new = old, new
            i += 1
        elif current is not None and line.startswith("Binary files ") or line.startswith("GIT binary patch"):
            if current is not None:
                current.content_changed = True
        elif (m := _HUNK.match(line)) and current is not None:
            current.content_changed = True
            i = _skip_hunk(lines, i + 1, int(m.group(1) or 1), int(m.group(2) or 1))
            continue
        i += 1
    return [e.change() for e in entries]


def _skip_hunk(lines: list[str], i: int, old: int, new: int) -> int:
    """The index of the first line after a hunk body holding ``old`` old and ``new`` new lines."""
    while i < len(lines) and (old > 0 or new > 0):
        line = lines[i]
        if line.startswith("\\"):  # "\ No newline at end of file"
            pass
        elif line.startswith("-"):
            old -= 1
        elif line.startswith("+"):
            new -= 1
        else:  # context (a space, or an empty line where an editor trimmed the space)
            old -= 1
            new -= 1
        i += 1
    while i < len(lines) and lines[i].startswith("\\"):
        i += 1
    return i


def modified_files(changes: list[FileChange]) -> list[str]:
    """The paths of the files a diff modifies in place (its answers), in order, each once."""
    seen: dict[str, None] = {}
    for change in changes:
        if change.kind == "modified":
            seen.setdefault(change.path, None)
    return list(seen)
