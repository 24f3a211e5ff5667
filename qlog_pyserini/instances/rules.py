"""Which files of a repository are documents: one table of rules per language, applied in one order.

Every rule an instance set is built with lives in :data:`LANGUAGE_RULES` (per language) and
:data:`RULE_ORDER` (the order a file is checked in; the first rule that matches is the reason it is
dropped, and the report counts files by that reason). :func:`rules_table` renders the same table for
the docs, so the docs cannot drift from the code.

Path rules match folder names (any folder of the path, case-sensitive) and file names (``fnmatch``
patterns, case-sensitive) and need no content; content rules (binary, generated marker) read the blob.
A file kept is a document whose docid is its repository path and whose contents are the path, a
newline and the text (SWE-bench's BM25 documents).
"""

from __future__ import annotations

import fnmatch
import hashlib
import json
import re
from dataclasses import asdict, dataclass
from typing import Sequence

from qlog_pyserini.errors import QLogError

KIB = 1024

# Folders that hold code a repository carries but does not write: installed packages, vendored
# libraries and build outputs. Every language drops these; a language adds its own below.
VENDORED_DIRS = ("node_modules", "bower_components", "jspm_packages", "vendor", "third_party", "third-party",
                 "thirdparty", "dist")
# Build-output folders only where build tools put them, at the repository's top: deeper down the name is
# as often a package of the project's own (a Python package called build, a Java package ...build).
TOP_BUILD_DIRS = ("build",)

# Test folders shared by most languages' conventions.
TEST_DIRS = ("test", "tests", "testing")


@dataclass(frozen=True)
class LanguageRules:
    """What makes a file a source document of one language."""

    language: str
    extensions: tuple[str, ...]
    test_dirs: tuple[str, ...]        # a file under any folder of these names is a test
    test_files: tuple[str, ...]       # a file whose name matches one of these patterns is a test
    vendored_dirs: tuple[str, ...]    # a file under any folder of these names is vendored or generated
    top_dirs: tuple[str, ...]         # a file under a top-level folder of these names is a build output
    generated_files: tuple[str, ...]  # a file whose name matches one of these patterns is generated/minified
    max_bytes: int                    # larger blobs are dropped (generated tables, amalgamations, bundles)


_JS_TESTS = ("*.test.*", "*.spec.*", "test.*", "spec.*")  # Jest's default testMatch
_JS_VENDORED = (*VENDORED_DIRS, "coverage", ".next", ".nuxt")
_JS_GENERATED = ("*.min.js", "*-min.js", "*.bundle.js", "*.min.mjs", "*.min.cjs")
_C_TESTS = ("test_*", "*_test.*", "*_tests.*", "*_unittest.*")
_C_DIRS = (*TEST_DIRS, "unittests")

LANGUAGE_RULES: dict[str, LanguageRules] = {r.language: r for r in (
    LanguageRules("python", (".py",), (*TEST_DIRS,), ("test_*.py", "*_test.py", "tests.py", "conftest.py"),
                  (*VENDORED_DIRS, "site-packages", "__pycache__", "venv"), TOP_BUILD_DIRS,
                  ("*_pb2.py", "*_pb2_grpc.py"), 1024 * KIB),
    # Maven Surefire's and Failsafe's default includes name the test classes.
    LanguageRules("java", (".java",), (*TEST_DIRS,), ("Test*.java", "*Test.java", "*Tests.java", "*TestCase.java",
                                                     "*IT.java"),
                  VENDORED_DIRS, TOP_BUILD_DIRS, (), 1024 * KIB),
    LanguageRules("javascript", (".js", ".mjs", ".cjs", ".jsx"), (*TEST_DIRS, "__tests__", "__mocks__", "spec"),
                  _JS_TESTS, _JS_VENDORED, TOP_BUILD_DIRS, _JS_GENERATED, 512 * KIB),
    LanguageRules("typescript", (".ts", ".tsx", ".mts", ".cts"), (*TEST_DIRS, "__tests__", "__mocks__", "spec"),
                  _JS_TESTS, _JS_VENDORED, TOP_BUILD_DIRS, (), 512 * KIB),
    LanguageRules("go", (".go",), ("testdata",), ("*_test.go",), VENDORED_DIRS, TOP_BUILD_DIRS,
                  ("*.pb.go", "*.pb.gw.go", "zz_generated*.go"), 1024 * KIB),
    LanguageRules("rust", (".rs",), ("tests", "benches"), ("tests.rs", "*_test.rs", "*_tests.rs"),
                  VENDORED_DIRS, ("target", *TOP_BUILD_DIRS), (), 1024 * KIB),
    LanguageRules("c", (".c", ".h"), _C_DIRS, _C_TESTS, VENDORED_DIRS, TOP_BUILD_DIRS, ("*.pb-c.c", "*.pb-c.h"),
                  1024 * KIB),
    LanguageRules("cpp", (".cc", ".cpp", ".cxx", ".c++", ".hh", ".hpp", ".hxx", ".h++", ".h", ".ipp", ".inl"),
                  _C_DIRS, _C_TESTS, VENDORED_DIRS, TOP_BUILD_DIRS, ("*.pb.cc", "*.pb.h"), 1024 * KIB),
)}
LANGUAGES = tuple(LANGUAGE_RULES)

# Git's own test for binary content (buffer_is_binary): a NUL byte among the first 8000 bytes.
BINARY_PROBE = 8000
# Go's convention for generated files (https://go.dev/s/generatedcode), which other generators
# follow in their languages' comment syntax; looked for in a file's first bytes.
GENERATED_MARKER = re.compile(rb"^(?://|#) Code generated .* DO NOT EDIT\.$", re.M)
GENERATED_PROBE = 4096

# The reasons a file is not a document, in the order they are checked: the first that matches is reported.
RULE_ORDER: tuple[tuple[str, str], ...] = (
    ("symlink", "a symbolic link (mode 120000), not a file"),
    ("submodule", "a submodule (mode 160000): another repository's commit"),
    ("other-language", "no extension of the languages asked for"),
    ("hidden-folder", "under a folder whose name starts with '.' (.github, .yarn, ...)"),
    ("vendored", "under a vendored folder of the language, or a build-output folder at the top level"),
    ("test", "under a test folder or named as a test of the language"),
    ("generated-name", "named as a generated or minified file of the language"),
    ("blob-missing", "the repository lacks the file's content (a partial clone or mirror)"),
    ("too-large", "larger than the language's size cap"),
    ("whitespace-in-path", "the path holds whitespace, which a TREC docid cannot"),
    ("binary", "a NUL byte among the first 8000 bytes (git's binary test)"),
    ("generated-marker", "a 'Code generated ... DO NOT EDIT.' line in the first 4 KiB"),
)
REASONS = tuple(name for name, _ in RULE_ORDER)


@dataclass(frozen=True)
class FileRules:
    """The rules of the languages asked for, with a size cap that may override theirs."""

    languages: tuple[str, ...]
    max_bytes: int | None = None  # None: each language's own cap

    def __post_init__(self) -> None:
        check_languages(self.languages)
        if self.max_bytes is not None and self.max_bytes < 1:
            raise QLogError(f"--max-file-bytes must be at least 1, got {self.max_bytes}")

    def language_of(self, path: str) -> LanguageRules | None:
        """The first language asked for whose extensions ``path`` ends with (``.h`` is C's when both are asked)."""
        name = path.rsplit("/", 1)[-1]
        for language in self.languages:
            rules = LANGUAGE_RULES[language]
            if name.endswith(rules.extensions) and name not in rules.extensions:
                return rules
        return None

    def path_reason(self, path: str, mode: str, size: int | None) -> str | None:
        """Why the blob at ``path`` (git ``mode``, ``size`` bytes, None if the repository lacks it) is not a
        document, from its path alone; None if kept so far."""
        if mode == "120000":
            return "symlink"
        if mode == "160000":
            return "submodule"
        rules = self.language_of(path)
        if rules is None:
            return "other-language"
        *folders, name = path.split("/")
        if any(f.startswith(".") for f in folders):
            return "hidden-folder"
        if any(f in rules.vendored_dirs for f in folders) or (folders and folders[0] in rules.top_dirs):
            return "vendored"
        if any(f in rules.test_dirs for f in folders) or _matches(name, rules.test_files):
            return "test"
        if _matches(name, rules.generated_files):
            return "generated-name"
        if size is None:
            return "blob-missing"
        if size > (self.max_bytes if self.max_bytes is not None else rules.max_bytes):
            return "too-large"
        if any(c.isspace() for c in path):
            return "whitespace-in-path"
        return None

    def fingerprint(self) -> str:
        """A hash of every rule these files are selected by: part of a corpus's key."""
        spec = {"languages": [asdict(LANGUAGE_RULES[lang]) for lang in self.languages],
                "max_bytes": self.max_bytes, "order": REASONS, "binary_probe": BINARY_PROBE,
                "generated_marker": GENERATED_MARKER.pattern.decode(), "generated_probe": GENERATED_PROBE}
        return hashlib.sha256(json.dumps(spec, sort_keys=True).encode()).hexdigest()

    def describe(self) -> dict:
        """The rules as JSON, for the report."""
        return {"languages": {lang: asdict(LANGUAGE_RULES[lang]) for lang in self.languages},
                "max_bytes_override": self.max_bytes, "order": dict(RULE_ORDER)}


def content_reason(data: bytes) -> str | None:
    """Why a blob's content keeps it out of the corpus (binary, generated marker); None if it is a document."""
    if b"\0" in data[:BINARY_PROBE]:
        return "binary"
    if GENERATED_MARKER.search(data[:GENERATED_PROBE]):
        return "generated-marker"
    return None


def check_languages(languages: Sequence[str]) -> tuple[str, ...]:
    """``languages`` if every one is known and none repeated, else :class:`QLogError` naming the choices."""
    if not languages:
        raise QLogError(f"give at least one --language ({', '.join(LANGUAGES)})")
    unknown = [lang for lang in languages if lang not in LANGUAGE_RULES]
    if unknown:
        raise QLogError(f"unknown language {unknown[0]!r}; choose from {', '.join(LANGUAGES)}")
    if len(set(languages)) != len(languages):
        raise QLogError(f"--language names a language twice: {' '.join(languages)}")
    return tuple(languages)


def _matches(name: str, patterns: Sequence[str]) -> bool:
    return any(fnmatch.fnmatchcase(name, p) for p in patterns)


def corpus_key(tree: str, rules: FileRules) -> str:
    """The key of the corpus a base tree gives under ``rules``: equal trees and rules share one corpus and index."""
    return hashlib.sha256(f"{tree}\n{rules.fingerprint()}".encode()).hexdigest()[:20]


def rules_table() -> str:
    """The per-language table as Markdown (the docs quote it verbatim; a test checks they do)."""
    def cell(values: Sequence[str]) -> str:
        return ", ".join(f"`{v}`" for v in values) or "-"

    lines = ["| language | extensions | test folders | test file names | vendored folders (anywhere) | "
             "build folders (top level) | generated names | size cap |", "|---|---|---|---|---|---|---|---:|"]
    for r in LANGUAGE_RULES.values():
        lines.append(f"| {r.language} | {cell(r.extensions)} | {cell(r.test_dirs)} | {cell(r.test_files)} | "
                     f"{cell(r.vendored_dirs)} | {cell(r.top_dirs)} | {cell(r.generated_files)} | "
                     f"{r.max_bytes // KIB} KiB |")
    lines += ["", "| reason a file is dropped (checked in this order) | meaning |", "|---|---|"]
    lines += [f"| `{name}` | {meaning} |" for name, meaning in RULE_ORDER]
    return "\n".join(lines)
