"""Which source file each line of an assembled file came from: the mentions of a dropped amalgamation go to its parts.

A library that ships one file assembled from its sources (``single_include/nlohmann/json.hpp``, doctest's
``doctest.h``, simdjson's ``singleheader/``) is dropped from the corpus: a fix edits the sources and regenerates the
assembly. But its users report against the file they use: "json.hpp:18734: error", "a warning in doctest.h". Such a
mention names a line of a source file, through the file it was copied into.

:func:`assemble` reads which files an assembly was made of, by content alone: a line is *distinctive* when, stripped
of its indentation, it holds at least :data:`MIN_CHARS` characters and a letter, and it is a line of exactly one
file of the corpus. Each distinctive line of the assembly is labelled with that file; a file that labels fewer than
:data:`MIN_LINES` lines is no part (a shared idiom, not a copy). The assembly is read as runs: a run starts at a
labelled line of a part other than the previous run's and holds every line down to the next run, so the unlabelled
lines between two copies (braces, blank lines, a banner) belong to the copy above them. A file is an assembly only
when at least :data:`MIN_SHARE` of its distinctive-shaped lines are labelled: a generated file that merely shares
some lines with the sources (a parser table, a protobuf class) has no parts, and a mention of it sends nothing.

Every rule and constant here was fixed before any figure measured with it (results/selection-ledger.md).
"""

from __future__ import annotations

import bisect
from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass

MIN_CHARS = 12  # shorter lines ("return x;", "}", "#endif") recur across files and carry no origin
MIN_LINES = 5  # a file that shares fewer distinctive lines with the assembly is not one of its parts
MIN_SHARE = 0.5  # an assembly holds copies: at least half its distinctive-shaped lines are found in the parts
#: what a prepared set's ``corpora/<key>.assembled.json`` holds: a set prepared under another is prepared again
ASSEMBLY_VERSION = 1


def _key(line: str) -> str | None:
    text = line.strip()
    if len(text) < MIN_CHARS or not any(c.isalpha() for c in text):
        return None
    return text


@dataclass(frozen=True)
class Assembly:
    """An assembled file's runs: run i starts at line ``starts[i]`` (1-based) and was copied from ``parts[i]``."""

    starts: tuple[int, ...]
    parts: tuple[str, ...]
    lines: int  # the assembly's length: a line past it names nothing

    def members(self) -> tuple[str, ...]:
        """The files the assembly was made of, in order of first appearance."""
        return tuple(dict.fromkeys(self.parts))

    def part_at(self, line: int | None) -> str | None:
        """The file line ``line`` of the assembly was copied from (a line before the first run: the first run's;
        None without a line or past the assembly's end)."""
        if line is None or line < 1 or line > self.lines:
            return None
        return self.parts[max(0, bisect.bisect_right(self.starts, line) - 1)]

    def to_json(self) -> dict[str, object]:
        return {"starts": list(self.starts), "parts": list(self.parts), "lines": self.lines}

    @classmethod
    def from_json(cls, data: Mapping[str, object]) -> "Assembly":
        return cls(tuple(data["starts"]), tuple(data["parts"]), int(data["lines"]))  # type: ignore[arg-type]


def line_owners(documents: Iterable[tuple[str, str]], among: Iterable[str] | None = None) -> dict[str, str | None]:
    """``{distinctive line: the one file holding it}`` over ``documents`` ``(path, text)``; a line several files
    hold maps to None. With ``among`` (texts of the assemblies to read), only their lines are looked up: the rest of
    a corpus's lines can label nothing, and a large corpus is read several times faster."""
    wanted = None if among is None else {k for text in among for k in map(_key, text.splitlines()) if k is not None}
    owners: dict[str, str | None] = {}
    for path, text in documents:
        keys = {line.strip() for line in text.splitlines()}
        for key in (keys & wanted) if wanted is not None else {k for k in map(_key, keys) if k is not None}:
            owners[key] = path if key not in owners else None
    return owners


def assemble(text: str, owners: Mapping[str, str | None]) -> Assembly | None:
    """The runs of ``text`` copied from the files of ``owners`` (:func:`line_owners` of the corpus), or None when
    ``text`` is not an assembly of them (see the module docstring)."""
    lines = text.splitlines()
    labels: list[tuple[int, str]] = []
    shaped = 0
    for number, line in enumerate(lines, start=1):
        key = _key(line)
        if key is None:
            continue
        shaped += 1
        owner = owners.get(key)
        if owner is not None:
            labels.append((number, owner))
    counts: dict[str, int] = {}
    for _, owner in labels:
        counts[owner] = counts.get(owner, 0) + 1
    kept = [(n, o) for n, o in labels if counts[o] >= MIN_LINES]
    if not shaped or len(kept) < MIN_SHARE * shaped:
        return None
    starts: list[int] = []
    parts: list[str] = []
    for number, owner in kept:
        if not parts or parts[-1] != owner:
            starts.append(number if starts else 1)
            parts.append(owner)
    return Assembly(tuple(starts), tuple(parts), len(lines))


class LazyAssemblies(Mapping[str, "Assembly | None"]):
    """``{path: Assembly or None}`` over files left out as generated, each read (``read(path)`` -> bytes or None)
    and assembled only when a mention first lands on it; the corpus's ``documents()`` ``(path, text)`` are read
    once, at the first. For an index that must not read every generated file up front (``locate``)."""

    def __init__(self, paths: Iterable[str], read: Callable[[str], bytes | None],
                 documents: Callable[[], Iterable[tuple[str, str]]], max_bytes: int) -> None:
        self._paths = tuple(dict.fromkeys(paths))
        self._known = frozenset(self._paths)
        self._read, self._documents, self._max_bytes = read, documents, max_bytes
        self._owners: dict[str, str | None] | None = None
        self._found: dict[str, Assembly | None] = {}

    def __getitem__(self, path: str) -> Assembly | None:
        if path not in self._known:
            raise KeyError(path)
        if path not in self._found:
            data = self._read(path)
            if data is None or len(data) > self._max_bytes:
                self._found[path] = None
            else:
                if self._owners is None:
                    self._owners = line_owners(self._documents())
                self._found[path] = assemble(data.decode("utf-8", "replace"), self._owners)
        return self._found[path]

    def __iter__(self) -> Iterator[str]:
        return iter(self._paths)

    def __len__(self) -> int:
        return len(self._paths)
