"""How strongly an issue's mentions point at each file of a repository: a fixed, a-priori scale, no labels.

:func:`file_evidence` matches the mentions :func:`~qlog_pyserini.localize.issue_text.parse_issue` read to a
repository's file list (and, when given, a symbol table ``{path: names the file defines}``, as
:mod:`qlog_pyserini.localize.symbols` reads one) and returns
``{path: evidence}``. A file's evidence is the sum, over the distinct things the issue names, of the weight each
sends it; a mention that fits several files splits its weight equally among them (so an ambiguous mention is
never worth more than a precise one). The weights were fixed before any result was seen:

========== ====== =====================================================================================
match      weight why
========== ====== =====================================================================================
frame      1.0    a stack frame whose path is a repository file: the failure ran through that file. The
                  i-th such frame of a trace, counted from where the failure surfaced, sends 1.0 / (1 + i):
                  the fix sits near the surfacing frame more often than in the callers below it.
path       1.0    the reporter wrote the file's path (prose, code, a repository URL).
module     0.8    a dotted or ``::`` name maps to the file by the language's import convention (dots to
                  slashes, the source root found by suffix): one step that can miss (re-exports, packages).
basename   0.6    the file's name without its directory: right file name, directory unknown.
stem       0.4    an identifier equal to the file's stem (one top-level class per file in Java, C#,
                  TypeScript): the identifier may name a method or variable as well.
defines    0.3    an identifier the file defines (symbol table): the issue may only use it, and many
                  files may define a common name.
========== ====== =====================================================================================

Matching rules. A path matches the files that end with its longest suffix of components that any file ends
with (``home/u/proj/src/x.py`` -> ``src/x.py``). A match on the file name alone, for a path that had
directories, is basename evidence (the directories the reporter saw are not the repository's); for a frame it
is none (a library's ``index.js`` is not the project's). A module matches, longest prefix first and at least
two names long, the files whose path without extension ends with those names, or whose directory does when
the file is a package's own (``__init__.py``, ``index.js``/``.ts``, ``mod.rs``); when that prefix lands on a package's
own file and names are left after it, the next name is a member the package exports, and the module matches the files
under the package's folder that define it or are named after it, where there are any (``astropy.io.fits.Card`` ->
``astropy/io/fits/card.py``, ``sklearn.linear_model.LogisticRegression`` -> the file defining it, not the
``__init__.py`` that re-exports it). A file name that matches no file and holds dots is read as a dotted module
(``django.db.models.sql`` -> ``django/db/models/sql/__init__.py``: its last name only looks like an extension). A path
that matches no file at all
is read as a module by its suffix (``dist/plugin/foo.js`` -> ``src/plugin/foo/index.js``: a built or installed copy
names its source). Identifiers match stems, a package's own file also its directory's name (``foo`` ->
``plugin/foo/index.js``), case-blind and with ``_``/``-`` ignored (``JsonReader`` = ``json_reader.py`` =
``json-reader.ts``), each
such key once; a frame's function name is matched to the files defining it only (its file is the frame's path).

Files left out of the corpus as generated may be given (``{path: Assembly or None}``, from
:mod:`qlog_pyserini.localize.assembly`): paths and file names are matched against them as well, since a mention of
one names it and not a kept file of the same name. A share that lands on one goes to the file its line was copied
from, or in equal parts to the files it was assembled from when the mention has no line, and nowhere when it was
assembled from none.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

from qlog_pyserini.errors import QLogError
from qlog_pyserini.localize.assembly import Assembly
from qlog_pyserini.localize.issue_text import IssueMentions, Mention


@dataclass(frozen=True)
class Weight:
    value: float
    reason: str


WEIGHTS = {
    "frame": Weight(1.0, "the failure ran through the file (first repository frame of a trace; i-th: 1/(1+i))"),
    "path": Weight(1.0, "the reporter wrote the file's path"),
    "module": Weight(0.8, "a module name maps to the file by the import convention; the mapping can miss"),
    "basename": Weight(0.6, "the file's name, its directory unknown"),
    "stem": Weight(0.4, "an identifier equal to the file's stem; it may name a method or variable too"),
    "defines": Weight(0.3, "the file defines an identifier the issue names; the issue may only use it"),
}
PACKAGE_FILES = frozenset({"__init__", "index", "mod"})


def stem_key(name: str) -> str:
    """A name compared case-blind with ``_`` and ``-`` ignored: ``JSON_Reader``, ``json-reader`` -> ``jsonreader``."""
    return name.lower().replace("_", "").replace("-", "")


def _stem(file_name: str) -> str:
    return file_name.rsplit(".", 1)[0] if "." in file_name.strip(".") else file_name


class FileIndex:
    """A repository's file list indexed for suffix, module and stem look-ups (build once, match many issues)."""

    def __init__(self, paths: Iterable[str], symbols: Mapping[str, Iterable[str]] | None = None,
                 assembled: Mapping[str, Assembly | None] | None = None) -> None:
        self.paths = tuple(dict.fromkeys(paths))
        # files left out of the corpus as generated: a mention of one names it, not a kept file of the same name,
        # and sends its weight to the files it was assembled from (None: to none)
        self.assembled: Mapping[str, Assembly | None] = assembled or {}
        self.by_suffix: dict[tuple[str, ...], list[str]] = defaultdict(list)
        for path in self.assembled:
            parts = tuple(path.split("/"))
            for k in range(1, len(parts) + 1):
                self.by_suffix[parts[-k:]].append(path)
        self.by_module: dict[tuple[str, ...], list[str]] = defaultdict(list)
        self.by_stem: dict[str, list[str]] = defaultdict(list)
        for path in self.paths:
            parts = tuple(path.split("/"))
            for k in range(1, len(parts) + 1):
                self.by_suffix[parts[-k:]].append(path)
            stem = _stem(parts[-1])
            self.by_stem[stem_key(stem)].append(path)
            if stem in PACKAGE_FILES and len(parts) > 1:
                self.by_stem[stem_key(parts[-2])].append(path)
            names = (*parts[:-1], stem)
            for module in (names, parts[:-1]) if stem in PACKAGE_FILES else (names,):
                for k in range(2, len(module) + 1):
                    self.by_module[module[-k:]].append(path)
        self.definers: dict[str, list[str]] = defaultdict(list)
        for path, defined in (symbols or {}).items():
            for name in set(defined):
                self.definers[name].append(path)

    def path_matches(self, parts: Sequence[str]) -> tuple[list[str], int]:
        """The files ending with the longest suffix of ``parts`` any file ends with, and that suffix's length."""
        for k in range(len(parts), 0, -1):
            found = self.by_suffix.get(tuple(parts[-k:]))
            if found:
                return found, k
        return [], 0

    def module_suffix_matches(self, parts: Sequence[str]) -> list[str]:
        """The files whose module names end with the longest suffix (two names or more) of ``parts``."""
        for k in range(len(parts), 1, -1):
            found = self.by_module.get(tuple(parts[-k:]))
            if found:
                return found
        return []

    def module_matches(self, parts: Sequence[str]) -> list[str]:
        """The files the longest prefix (two names or more) of a qualified name maps to; a prefix that is a package
        with names left after it maps to the package's files holding the next name (:meth:`package_members`), when
        there are any."""
        for m in range(len(parts), 1, -1):
            found = self.by_module.get(tuple(parts[:m]))
            if found:
                return (self.package_members(found, parts[m]) if m < len(parts) else []) or found
        return []

    def package_members(self, files: Sequence[str], name: str) -> list[str]:
        """The files under the folders of the package files among ``files`` that define ``name`` (the symbol table)
        or whose stem is ``name`` (case-blind, ``_``/``-`` ignored), in the index's order."""
        folders = tuple(f.rsplit("/", 1)[0] + "/" for f in files
                        if "/" in f and _stem(f.rsplit("/", 1)[1]) in PACKAGE_FILES)
        if not folders:
            return []
        holders = set(self.definers.get(name, ())) | set(self.by_stem.get(stem_key(name), ()))
        return [p for p in self.paths if p in holders and p.startswith(folders)]


def _split(scores: dict[str, float], files: Sequence[str], weight: float, index: FileIndex | None = None,
           line: int | None = None) -> None:
    files = list(dict.fromkeys(files))
    for path in files:
        share = weight / len(files)
        if index is None or path not in index.assembled:
            scores[path] += share
            continue
        assembly = index.assembled[path]
        if assembly is None:
            continue  # a generated file made of no corpus file: the mention names nothing here
        part = assembly.part_at(line)
        members = (part,) if part is not None else assembly.members()
        for member in members:
            scores[member] += share / len(members)


def _frame_evidence(scores: dict[str, float], frames: Sequence[Mention], index: FileIndex) -> None:
    in_repo: dict[int | None, int] = defaultdict(int)
    for mention in frames:
        files, k = index.path_matches(mention.parts)
        if not files or (k < 2 and len(mention.parts) >= 2):
            continue
        i = in_repo[mention.trace]
        in_repo[mention.trace] += 1
        _split(scores, files, WEIGHTS["frame"].value / (1 + i), index, mention.line)


def _named_file_evidence(scores: dict[str, float], mention: Mention, index: FileIndex) -> None:
    files, k = index.path_matches(mention.parts)
    if files:
        kind = "path" if mention.kind == "path" and k >= 2 else "basename"
        _split(scores, files, WEIGHTS[kind].value, index, mention.line)
        return
    # A built or installed file (dist/plugin/foo.js) names its source by the module convention (plugin/foo/index.js).
    *dirs, name = mention.parts
    files = index.module_suffix_matches((*dirs, _stem(name)))
    if not files and mention.kind == "basename" and name.count(".") >= 1:
        # a dotted module whose last name reads like an extension (django.db.models.sql, sphinx.builders.html)
        files = index.module_matches(name.split("."))
    if files:
        _split(scores, files, WEIGHTS["module"].value)


def _identifier_evidence(scores: dict[str, float], mention: Mention, index: FileIndex, seen: set) -> None:
    # A frame's function name is matched to its definers only: its file is the frame's own path, and a
    # function named like some file's stem (``run``, ``main``) says nothing about that file.
    key = stem_key(mention.text)
    stems = index.by_stem.get(key) if mention.source != "frame" else None
    if stems and ("stem", key) not in seen:
        seen.add(("stem", key))
        _split(scores, stems, WEIGHTS["stem"].value)
    definers = index.definers.get(mention.text)
    if definers and ("defines", mention.text) not in seen:
        seen.add(("defines", mention.text))
        _split(scores, definers, WEIGHTS["defines"].value)


def file_evidence(mentions: IssueMentions, paths: Iterable[str] | FileIndex,
                  symbols: Mapping[str, Iterable[str]] | None = None) -> dict[str, float]:
    """``{path: evidence}`` for the files ``mentions`` point at (files with none are left out); see the table above.

    ``paths`` is the repository's file list (``/``-separated, repository-relative) or a :class:`FileIndex`
    built from it (then ``symbols`` is taken from the index and must not be given again).
    """
    if isinstance(paths, FileIndex):
        if symbols is not None:
            raise QLogError("file_evidence: symbols belong to the FileIndex; pass them when building it")
        index = paths
    else:
        index = FileIndex(paths, symbols)
    scores: dict[str, float] = defaultdict(float)
    _frame_evidence(scores, mentions.frames, index)
    # a file a trace already named is not named again by the same path elsewhere (a summary line, a log)
    seen: set[tuple[str, str]] = {(m.kind, m.text) for m in mentions.frames}
    for mention in mentions.all():
        if mention.source == "frame" and mention.kind != "identifier":
            continue
        if mention.kind == "identifier":
            _identifier_evidence(scores, mention, index, seen)
            continue
        if (mention.kind, mention.text) in seen:
            continue
        seen.add((mention.kind, mention.text))
        if mention.kind in ("path", "basename"):
            _named_file_evidence(scores, mention, index)
        else:
            files = index.module_matches(mention.parts)
            if files:
                _split(scores, files, WEIGHTS["module"].value)
    return {path: score for path, score in scores.items() if score > 0}


def ranked(evidence: Mapping[str, float]) -> list[tuple[str, float]]:
    """``evidence`` as (path, score), strongest first, ties by path (a fixed order for runs and tests)."""
    return sorted(evidence.items(), key=lambda item: (-item[1], item[0]))
