"""Extraction: which files are read, and the documented functions tree-sitter finds in each
(:class:`Function`, :func:`extract_source`, :func:`extract_functions`)."""

from __future__ import annotations

import bisect
import hashlib
import os
import re
import tarfile
import zipfile
from collections import Counter
from dataclasses import dataclass
from typing import Any, Callable, Iterable, Iterator, Sequence

from qlog_pyserini.corpus.doc_comments import (
    MIN_QUERY_WORDS,
    block_doc_query,
    docstring_query,
    line_doc_query,
    walk_type,
)
from qlog_pyserini.corpus.languages import (
    EXTENSIONS,
    FUNCTION_TYPES,
    JS_SCOPE_VALUES,
    LANGUAGES,
    SCOPES,
    grammar,
)
from qlog_pyserini.errors import QLogError
from qlog_pyserini.formats.trec import check_id
from qlog_pyserini.system.processes import process_pool

# Bump when a change alters which functions are extracted or their code (cached counts depend on it).
EXTRACTOR_VERSION = 1


GENERATED_HEAD_BYTES = 4096


# site-packages: a tree that holds an installed environment holds other people's code
_VENDOR_DIRS = frozenset({"vendor", "_vendor", "node_modules", "third_party", "site-packages", "dist-packages"})


_TEST_DIRS = frozenset({"test", "tests", "testdata", "spec", "__tests__"})


_TEST_DIR_SUFFIXES = ("_test", "_tests")  # idlelib/idle_test and the like


_TEST_FILE = re.compile(
    r"(_test\.go|^test_.*\.py|_test\.py|^conftest\.py|Tests?\.java|Test\.php"
    r"|_spec\.rb|_test\.rb|\.(test|spec)\.[mc]?js)$"
)


_GENERATED = re.compile(rb"Code generated .* DO NOT EDIT|@generated\b")


@dataclass(frozen=True)
class Function:
    """One documented function: ``query`` is its doc summary, ``code`` its document text."""

    id: str
    language: str
    path: str  # relative to the source root, ``/``-separated
    name: str  # qualified name, e.g. ``Server.Serve``
    query: str
    code: str
    line: int  # 1-based line where the declaration starts




@dataclass
class _Found:
    name: str
    anchor_start: int
    anchor_end: int
    doc: list[tuple[int, int]]  # byte ranges of the doc comment (may lie before the anchor)
    query: str
    usable: bool  # has a body and parsed cleanly
    line: int


def _text(node: Any) -> str:
    return node.text.decode("utf-8", "replace")


def _field_text(node: Any, field: str) -> str | None:
    """Text of a child field, or None when absent (it can be, in trees with parse errors)."""
    child = node.child_by_field_name(field) if node is not None else None
    return _text(child) if child is not None else None


def _js_anchor(node: Any) -> Any:
    """The statement a JS doc comment sits above: ``const f = ...;``, ``a.b = ...;``, ``export ...``."""
    anchor = node
    parent = node.parent
    if node.type == "variable_declarator" and parent is not None \
            and parent.type in ("lexical_declaration", "variable_declaration") and parent.named_child_count == 1:
        anchor = parent
    elif node.type == "assignment_expression" and parent is not None and parent.type == "expression_statement":
        anchor = parent
    if anchor.parent is not None and anchor.parent.type == "export_statement":
        anchor = anchor.parent
    return anchor


def _anchor(node: Any, language: str) -> Any:
    parent = node.parent
    if language == "python" and parent is not None and parent.type == "decorated_definition":
        return parent
    if language == "ruby" and parent is not None and parent.type == "argument_list" \
            and parent.named_child_count == 1 and parent.parent is not None and parent.parent.type == "call":
        return parent.parent  # `private def foo`
    if language == "javascript":
        return _js_anchor(node)
    return node


def _own_name(node: Any, language: str) -> str | None:
    """The node's own name if it is a (named) function or scope in ``language``, else None."""
    t = node.type
    if language == "go":
        name = _field_text(node, "name")
        if t == "method_declaration" and name:
            recv = node.child_by_field_name("receiver")
            types = list(walk_type(recv, "type_identifier")) if recv is not None else []
            if types:  # (s *Server[T]) -> Server
                name = f"{_text(types[0])}.{name}"
        return name
    if language == "java" and t in ("constructor_declaration", "compact_constructor_declaration"):
        return _field_text(node.parent.parent if node.parent is not None else None, "name") or "<init>"
    if language == "ruby":
        if t in ("class", "module"):
            name = _field_text(node, "name")
            return name.replace("::", ".") if name else None
        if t == "singleton_method":
            obj, name = node.child_by_field_name("object"), _field_text(node, "name")
            return name if obj is None or obj.type == "self" or not name else f"{_text(obj)}.{name}"
    if language == "javascript":
        if t == "variable_declarator":
            value, name = node.child_by_field_name("value"), node.child_by_field_name("name")
            if value is None or value.type not in JS_SCOPE_VALUES or name is None or name.type != "identifier":
                return None
            return _text(name)
        if t == "assignment_expression":
            value = node.child_by_field_name("right")
            return _field_text(node, "left") if value is not None and value.type in JS_SCOPE_VALUES else None
        if t in ("pair", "field_definition"):
            value = node.child_by_field_name("value")
            if value is None or value.type not in JS_SCOPE_VALUES:
                return None
            key = _field_text(node, "key" if t == "pair" else "property")
            return key.strip("'\"`") if key is not None else None
    return _field_text(node, "name")


def _qualified_name(node: Any, language: str) -> str | None:
    own = _own_name(node, language)
    if not own:
        return None
    parts = [own]
    scopes, functions = SCOPES[language], FUNCTION_TYPES[language]
    p = node.parent
    while p is not None:
        if p.type in scopes or p.type in functions:
            name = _own_name(p, language)
            if name:
                parts.append(name)
        p = p.parent
    return "".join(".".join(reversed(parts)).split())  # JS `a . b = function` -> `a.b`


def _has_body(node: Any, language: str) -> bool:
    if language in ("go", "java", "php"):
        return node.child_by_field_name("body") is not None
    return True


def _python_docstring(node: Any) -> tuple[Any | None, bool]:
    """(docstring expression_statement or None, whether any other statement remains)."""
    body = node.child_by_field_name("body")
    if body is None:
        return None, False
    statements = [c for c in body.named_children if c.type != "comment"]
    if not statements:
        return None, False
    first = statements[0]
    if first.type == "expression_statement" and first.named_child_count == 1:
        value = first.named_children[0]
        strings = [value] if value.type == "string" else value.named_children if value.type == "concatenated_string" else []
        if strings and all(_is_plain_string(s) for s in strings):
            return first, len(statements) > 1
    return None, True


def _is_plain_string(node: Any) -> bool:
    if node.type != "string" or any(c.type == "interpolation" for c in node.named_children):
        return False
    start = node.child(0)
    prefix = _text(start).rstrip("'\"").lower() if start is not None else ""
    return "b" not in prefix and "f" not in prefix


def _starts_line(data: bytes, pos: int) -> bool:
    line_start = data.rfind(b"\n", 0, pos) + 1
    return not data[line_start:pos].strip()


def _adjacent(data: bytes, end: int, start: int, max_newlines: int) -> bool:
    gap = data[end:start]
    return not gap.strip() and gap.count(b"\n") <= max_newlines


def _find_doc_comment(data: bytes, anchor_start: int, comments: list[Any], ends: list[int],
                      language: str) -> list[Any]:
    """The doc comment nodes directly above ``anchor_start`` (consecutive lines for Go/Ruby)."""
    i = bisect.bisect_right(ends, anchor_start) - 1
    if i < 0:
        return []
    c = comments[i]
    line_comments = language in ("go", "ruby")
    # `end # done` on the line above is a trailing remark, not documentation; a `/**` is
    # documentation wherever it starts (`class I { /** Doc. */ void m() {} }`).
    if not _adjacent(data, c.end_byte, anchor_start, 1) or line_comments and not _starts_line(data, c.start_byte):
        return []
    block = [c]
    if line_comments:
        while i > 0:
            prev = comments[i - 1]
            if not _adjacent(data, prev.end_byte, block[0].start_byte, 1) or not _starts_line(data, prev.start_byte):
                break
            block.insert(0, prev)
            i -= 1
    return block


def _is_doc_comment_node(node: Any, language: str) -> bool:
    head = node.text[:3]
    if language == "go":
        return head.startswith(b"//")
    if language == "ruby":
        return head.startswith(b"#")
    return head == b"/**" and node.text != b"/**/"


def _scan(data: bytes, language: str) -> list[_Found]:
    """All named functions of one file, documented or not, with their doc comment ranges."""
    from tree_sitter import QueryCursor

    parser, query = grammar(language)
    tree = parser.parse(data)
    caps = QueryCursor(query).captures(tree.root_node)
    fns = sorted({(n.start_byte, n.end_byte, n.type): n for n in caps.get("fn", [])}.items())
    comments = sorted((c for c in caps.get("comment", []) if _is_doc_comment_node(c, language)),
                      key=lambda c: c.start_byte)
    ends = [c.end_byte for c in comments]
    found = []
    for _, node in fns:
        name = _qualified_name(node, language)
        if not name:
            continue
        anchor = _anchor(node, language)
        usable = not node.has_error
        if language == "python":
            doc_node, rest = _python_docstring(node)
            if doc_node is None:
                continue
            doc = [(doc_node.start_byte, doc_node.end_byte)]
            query = docstring_query(doc_node.named_children[0])
            usable = usable and rest
        else:
            block = _find_doc_comment(data, anchor.start_byte, comments, ends, language)
            if not block:
                continue
            doc = [(c.start_byte, c.end_byte) for c in block]
            texts = [_text(c) for c in block]
            query = block_doc_query(texts[0]) if language in ("java", "php", "javascript") \
                else line_doc_query(texts, language)
            usable = usable and _has_body(node, language)
        found.append(_Found(name, anchor.start_byte, anchor.end_byte, doc, query, usable,
                            anchor.start_point[0] + 1))
    return found


def _cut(data: bytes, start: int, end: int, removals: list[tuple[int, int]]) -> str:
    """``data[start:end]`` minus ``removals`` (whole lines when alone on them), dedented."""
    spans = []
    for a, b in removals:
        if a < start or b > end:
            continue
        line_start = data.rfind(b"\n", 0, a) + 1
        line_end = data.find(b"\n", b)
        line_end = len(data) if line_end < 0 else line_end
        after = data[b:line_end]
        if after.lstrip().startswith(b";"):  # Python `"doc"; rest`
            b += len(after) - len(after.lstrip()) + 1
            after = data[b:line_end]
        if line_start >= start and not data[line_start:a].strip() and not after.strip():
            a, b = line_start, min(line_end + 1, end)
            while b < end:  # and the blank lines a docstring is usually followed by
                nxt = data.find(b"\n", b)
                if nxt < 0 or data[b:nxt].strip():
                    break
                b = nxt + 1
        else:
            b += len(after) - len(after.lstrip(b" \t"))
        spans.append((a, b))
    pieces, pos = [], start
    for a, b in sorted(spans):
        if a > pos:
            pieces.append(data[pos:a])
        pos = max(pos, b)
    pieces.append(data[pos:end])
    code = b"".join(pieces).decode("utf-8", "replace")
    indent = data[data.rfind(b"\n", 0, start) + 1:start]
    if indent and not indent.strip():
        prefix = indent.decode("utf-8", "replace")
        lines = code.split("\n")
        code = "\n".join([lines[0]] + [ln[len(prefix):] if ln.startswith(prefix) else ln for ln in lines[1:]])
    return code.rstrip()


def extract_source(data: bytes, language: str) -> list[tuple[str, str, str, int]]:
    """Documented functions of one file's bytes: ``(qualified name, query, code, line)`` in source order."""
    if language not in LANGUAGES:
        raise QLogError(f"unknown language {language!r}, expected one of {', '.join(LANGUAGES)}")
    found = _scan(data, language)
    all_docs = sorted(r for f in found for r in f.doc)
    out = []
    for f in found:
        if not f.usable or len(f.query.split()) < MIN_QUERY_WORDS:
            continue
        lo = bisect.bisect_left(all_docs, (f.anchor_start, -1))
        hi = bisect.bisect_right(all_docs, (f.anchor_end, f.anchor_end))
        code = _cut(data, f.anchor_start, f.anchor_end, all_docs[lo:hi])
        out.append((f.name, f.query, code, f.line))
    return out


def _skip_reason(rel: str) -> str | None:
    """Why a file is left out by its path alone (``None``: keep it)."""
    parts = rel.split("/")
    for d in parts[:-1]:
        if d in _VENDOR_DIRS:
            return "vendored"
        if d in _TEST_DIRS or d.endswith(_TEST_DIR_SUFFIXES):
            return "test"
        if d.startswith("."):
            return "hidden"
    name = parts[-1]
    if _TEST_FILE.search(name):
        return "test"
    if name.endswith(".min.js"):
        return "minified"
    return None


def _language_of(rel: str) -> str | None:
    return EXTENSIONS.get(os.path.splitext(rel)[1])


# Archives a source may be, by how their names end: zip files (a Maven -sources.jar and a wheel are zips)
# and tar files, compressed or not.
ZIP_SUFFIXES = (".zip", ".jar", ".whl")
TAR_SUFFIXES = (".tar.gz", ".tgz", ".tar.bz2", ".tar.xz", ".tar")
ARCHIVE_SUFFIXES = ZIP_SUFFIXES + TAR_SUFFIXES


def _archive_kind(path: str) -> str | None:
    name = path.lower()
    if name.endswith(ZIP_SUFFIXES):
        return "zip"
    if name.endswith(TAR_SUFFIXES):
        return "tar"
    return None


class Source:
    """A folder, an archive (zip, jar, wheel, tar) or a single file; lists and reads files by ``/``-separated path."""

    def __init__(self, path: str | os.PathLike):
        self.path = str(path)
        archive = _archive_kind(self.path) if os.path.isfile(self.path) else None
        if os.path.isdir(self.path):
            self.kind = "folder"
        elif archive is not None:
            self.kind = archive
            try:
                (zipfile.ZipFile if archive == "zip" else tarfile.open)(self.path).close()
            except (zipfile.BadZipFile, tarfile.TarError, OSError, EOFError) as e:
                raise QLogError(f"source {self.path!r} is not a readable {archive} archive: {e}") from None
        elif os.path.isfile(self.path):
            if _language_of(self.path) is None:
                raise QLogError(f"source {self.path!r} is not a folder, an archive ({', '.join(ARCHIVE_SUFFIXES)}) "
                                f"or a source file ({', '.join(sorted(EXTENSIONS))})")
            self.kind = "file"
        else:
            raise QLogError(f"source {self.path!r} not found")
        self._zip: zipfile.ZipFile | None = None
        self._tar: dict[str, bytes] | None = None
        self.pruned: Counter = Counter()  # folders left unwalked, by reason (folder sources only)

    def names(self) -> list[str]:
        if self.kind == "file":
            return [os.path.basename(self.path)]
        if self.kind == "zip":
            with zipfile.ZipFile(self.path) as z:
                return sorted(n for n in z.namelist() if not n.endswith("/"))
        if self.kind == "tar":
            with tarfile.open(self.path) as t:
                return sorted(m.name for m in t.getmembers() if m.isfile())
        names = []
        for root, dirs, files in os.walk(self.path):
            rel_root = os.path.relpath(root, self.path).replace(os.sep, "/")
            rel_root = "" if rel_root == "." else rel_root + "/"
            # pruning here keeps node_modules and .git from being walked at all; they are counted as folders
            kept = []
            for d in dirs:
                reason = _skip_reason(d + "/x")
                if reason is None:
                    kept.append(d)
                else:
                    self.pruned[f"folders_skipped_{reason}"] += 1
            dirs[:] = kept
            names.extend(rel_root + f for f in files)
        return sorted(names)

    def read(self, rel: str) -> bytes:
        if self.kind == "file":
            with open(self.path, "rb") as f:
                return f.read()
        if self.kind == "zip":
            if self._zip is None:
                self._zip = zipfile.ZipFile(self.path)
            return self._zip.read(rel)
        if self.kind == "tar":
            if self._tar is None:
                self._tar = self._read_tar()
            return self._tar[rel]
        with open(os.path.join(self.path, *rel.split("/")), "rb") as f:
            return f.read()

    def _read_tar(self) -> dict[str, bytes]:
        # One pass in the archive's order: a compressed tar read in sorted-name order would be
        # decompressed again from the start at every backward seek. Only source files are kept.
        contents: dict[str, bytes] = {}
        with tarfile.open(self.path) as t:
            for member in t:
                if member.isfile() and _language_of(member.name) is not None:
                    f = t.extractfile(member)
                    if f is not None:
                        contents[member.name] = f.read()
        return contents

    def close(self) -> None:
        if self._zip is not None:
            self._zip.close()
            self._zip = None
        self._tar = None


def plan_files(source: Source, languages: Sequence[str], stats: Counter) -> list[tuple[str, str]]:
    """(relative path, language) of the files to parse, in sorted order; counts what is skipped."""
    todo = []
    names = source.names()
    stats.update(source.pruned)
    for rel in names:
        lang = _language_of(rel)
        if lang is None or lang not in languages:
            continue
        reason = _skip_reason(rel) if source.kind != "file" else None
        if reason:
            stats[f"files_skipped_{reason}"] += 1
            continue
        todo.append((rel, lang))
    return todo


def _read_and_extract(source: Source, rel: str, lang: str) -> tuple[str, list[tuple[str, str, str, int]]]:
    """Read and parse one file: ``(status, functions)``, status ``parsed``, ``generated`` or ``unreadable``."""
    try:
        data = source.read(rel)
    except (OSError, KeyError, zipfile.BadZipFile, tarfile.TarError, EOFError):
        return "unreadable", []
    if _GENERATED.search(data[:GENERATED_HEAD_BYTES]):
        return "generated", []
    return "parsed", extract_source(data, lang)


_WORKER_SOURCES: dict[str, Source] = {}  # per worker process: each source opened once


def _worker(task: tuple[str, str, str]) -> tuple[str, list[tuple[str, str, str, int]]]:
    src_path, rel, lang = task
    if src_path not in _WORKER_SOURCES:
        _WORKER_SOURCES[src_path] = Source(src_path)
    return _read_and_extract(_WORKER_SOURCES[src_path], rel, lang)


def _id_path(rel: str) -> str:
    """Relative path as it appears in ids: whitespace percent-escaped, nothing else touched."""
    return "".join(f"%{ord(c):02X}" if c.isspace() else c for c in rel)


def check_languages(languages: Iterable[str] | None) -> tuple[str, ...]:
    if languages is None:
        return LANGUAGES
    langs = tuple(dict.fromkeys(languages))
    for lang in langs:
        if lang not in LANGUAGES:
            raise QLogError(f"unknown language {lang!r}, expected one of {', '.join(LANGUAGES)}")
    if not langs:
        raise QLogError("no language selected")
    return langs


def default_label(path: str | os.PathLike) -> str:
    """The label a source gets when none is given: its base name without an archive suffix (``.zip``, ``.tar.gz`` ...)."""
    name = os.path.basename(os.path.abspath(str(path)))
    suffix = next((s for s in ARCHIVE_SUFFIXES if name.lower().endswith(s)), "")
    return name[:len(name) - len(suffix)] if suffix and len(name) > len(suffix) else name


def iter_source(source: Source, label: str, todo: Sequence[tuple[str, str]], workers: int,
                 stats: Counter, on_file: Callable[[], Any] | None = None) -> Iterator[Function]:
    """Functions of the planned files ``todo`` of one source, in order, with unique ids."""
    pool = None
    if workers > 1 and len(todo) >= 4 * workers:
        # spawn: no inherited state, same behaviour on every platform. map() yields in task
        # order, so ids and output files are identical to a one-worker run.
        pool = process_pool(workers)  # its workers die with us, a kill -9 included
        chunk = max(1, min(64, len(todo) // (8 * workers)))
        results: Iterable = pool.map(_worker, [(source.path, rel, lang) for rel, lang in todo], chunksize=chunk)
    else:
        results = (_read_and_extract(source, rel, lang) for rel, lang in todo)
    seen: Counter = Counter()
    try:
        for (rel, lang), (status, found) in zip(todo, results):
            stats["files_parsed" if status == "parsed" else f"files_skipped_{status}"] += 1
            if on_file is not None:
                on_file()
            for name, query, code, line in found:
                base = f"{label}/{_id_path(rel)}:{name}"
                seen[base] += 1
                fid = base if seen[base] == 1 else f"{base}#{seen[base]}"
                check_id(fid, "function id", f" (from {rel})")
                stats["functions"] += 1
                yield Function(fid, lang, rel, name, query, code, line)
    finally:
        if pool is not None:
            pool.shutdown(cancel_futures=True)
        source.close()


def extract_functions(path_or_zip: str | os.PathLike, language: str | None = None, label: str | None = None,
                      *, workers: int = 1, stats: Counter | None = None) -> Iterator[Function]:
    """Documented functions of a folder, an archive (a ``.zip`` such as the JDK's ``lib/src.zip``, a Maven
    ``-sources.jar``, a ``.whl``, a ``.tar.gz``/``.tgz`` sdist) or one file.

    ``language`` restricts extraction to one language (default: every language, inferred from
    file extensions). ``label`` starts every id (default: the source's base name). Bad input
    raises :class:`QLogError` at the call, before iteration. Files are
    visited in sorted path order and functions in source order, so the output is deterministic
    for any ``workers``. Skipped files and extracted functions are counted into ``stats``.
    """
    source = Source(path_or_zip)
    label = default_label(path_or_zip) if label is None else label
    check_id(label, "source label")
    langs = check_languages(None if language is None else [language])
    stats = Counter() if stats is None else stats
    return iter_source(source, label, plan_files(source, langs, stats), workers, stats)


def normalised_hash(code: str) -> bytes:
    return hashlib.blake2b(" ".join(code.split()).encode("utf-8"), digest_size=16).digest()
