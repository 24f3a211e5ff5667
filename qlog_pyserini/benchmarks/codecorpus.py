"""CodeSearchNet-style benchmarks from any source tree: documented functions become queries.

Every function or method that carries a doc comment yields one :class:`Function`: its *query*
is the first paragraph of the doc comment, its *document* the function's code without that
comment. Files are parsed with tree-sitter grammars (never with regular expressions), once each.

What counts as a doc comment, per language
    Go          consecutive ``//`` lines directly above the declaration (``//go:`` style
                directives dropped)
    Java, PHP,  the ``/** ... */`` block directly above the declaration (annotations and
    JavaScript  attributes sit between the comment and the name and are part of the code);
                ``@tags`` end the description, ``{@link X}`` becomes ``X``, HTML tags go
                (Java 23's ``///`` Markdown comments are not read)
    Ruby        consecutive ``#`` lines directly above ``def`` (``@tags`` end the description)
    Python      the docstring (first statement of the body, a plain string literal)

"Directly above" means no blank line in between; a ``//`` or ``#`` line must also begin its own
line (a trailing ``end # comment`` on the line above is a remark, not documentation).

Decisions, so the benchmark has no query text leaking into documents and no junk documents
    * query = first paragraph (up to a blank line, a ``@tag`` line or a Javadoc ``<p>``),
      whitespace collapsed; skipped when it has fewer than 3 words.
    * document = the declaration (decorators, annotations, ``export`` included) with its doc
      comment removed, and with the doc comments of functions nested in it removed too: a
      nested function's code stays in its parent's document, as in CodeSearchNet, but its
      query text must not, or the parent would outrank the nested function on that query.
    * declarations without an implementation are skipped: Java/PHP abstract and interface
      methods, Go functions implemented in assembly, and Python functions whose body is only
      the docstring (Python's abstract or protocol stubs). Their document would be a bare
      signature. Empty bodies (``void f() {}``, ``def f; end``, ``pass``) are kept.
    * anonymous functions (Go func literals, JS callbacks, PHP closures) have no name to
      build an id from and are skipped; JS functions bound by ``const f = ...``,
      ``obj.f = function``, object pairs and class fields are named by their binding.
    * functions whose syntax tree contains a parse error are skipped (their extent is unreliable).
    * the document is dedented by the indentation of its first line.
    * queries are sampled only among functions whose query text (case and spacing aside) no other
      function shares: a shared doc comment has several right answers but one judged relevant.
      Such functions stay in the corpus as documents; the manifest counts them.

Ids are ``<label>/<relative/path>:<Qualified.Name>``, e.g. ``go1.19/net/http/server.go:Server.Serve``
(enclosing classes, modules and functions joined by ``.``; a Go method is ``Receiver.Name``).
A repeated id (overloads) gets ``#2``, ``#3``... in source order. Whitespace in a path is
written as ``%20`` and friends so that ids stay valid TREC identifiers.

Skipped files: tests (``*_test.go``, ``test_*.py``, ``*_test.py``, ``conftest.py``,
``*Test.java``, ``*Tests.java``, ``*Test.php``, ``*_spec.rb``, ``*_test.rb``, ``*.test.js``,
``*.spec.js``, anything under ``test/``, ``tests/``, ``testdata/``, ``spec/``, ``__tests__/``,
``*_test/``, ``*_tests/``), vendored code (``vendor/``, ``_vendor/``, ``node_modules/``,
``third_party/``, and installed packages under ``site-packages/``, ``dist-packages/``), hidden
folders, minified ``*.min.js``, and generated files (``Code generated ... DO NOT EDIT`` or
``@generated`` in the first 4 KiB).
"""

from __future__ import annotations

import ast
import bisect
import concurrent.futures
import hashlib
import html
import importlib
import importlib.metadata
import json
import multiprocessing
import os
import random
import re
import shutil
import sys
import tempfile
import warnings
import zipfile
from collections import Counter
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable, Iterable, Iterator, Sequence

from qlog_pyserini.errors import QLogError
from qlog_pyserini.formats.trec import check_id

LANGUAGES = ("go", "java", "javascript", "php", "python", "ruby")

EXTENSIONS = {
    ".go": "go",
    ".java": "java",
    ".js": "javascript", ".mjs": "javascript", ".cjs": "javascript",
    ".php": "php",
    ".py": "python",
    ".rb": "ruby",
}

#: PyPI distributions whose versions go into the manifest (they decide what gets parsed).
GRAMMAR_PACKAGES = {
    "go": "tree-sitter-go", "java": "tree-sitter-java", "javascript": "tree-sitter-javascript",
    "php": "tree-sitter-php", "python": "tree-sitter-python", "ruby": "tree-sitter-ruby",
}

MIN_QUERY_WORDS = 3
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


# --------------------------------------------------------------------------------------
# Grammars: which nodes are functions, which are comments, how names and doc comments look.

_FN_QUERIES = {
    "python": "(function_definition) @fn",
    "go": "(function_declaration) @fn (method_declaration) @fn (comment) @comment",
    "java": """(method_declaration) @fn (constructor_declaration) @fn
               (compact_constructor_declaration) @fn (block_comment) @comment""",
    "ruby": "(method) @fn (singleton_method) @fn (comment) @comment",
    "php": "(function_definition) @fn (method_declaration) @fn (comment) @comment",
    "javascript": """
        (function_declaration) @fn (generator_function_declaration) @fn (method_definition) @fn
        (variable_declarator value: [(function_expression) (arrow_function) (generator_function)]) @fn
        (assignment_expression right: [(function_expression) (arrow_function) (generator_function)]) @fn
        (pair value: [(function_expression) (arrow_function) (generator_function)]) @fn
        (field_definition value: [(function_expression) (arrow_function) (generator_function)]) @fn
        (comment) @comment""",
}

# Ancestors that add their name to a qualified name, besides enclosing functions.
_SCOPES = {
    "python": {"class_definition"},
    "go": set(),
    "java": {"class_declaration", "interface_declaration", "enum_declaration", "record_declaration",
             "annotation_type_declaration"},
    "ruby": {"class", "module"},
    "php": {"class_declaration", "interface_declaration", "trait_declaration", "enum_declaration"},
    "javascript": {"class_declaration", "class"},
}

_JS_FUNCTION_VALUES = {"function_expression", "arrow_function", "generator_function"}
_JS_SCOPE_VALUES = _JS_FUNCTION_VALUES | {"object", "class"}

_GRAMMARS: dict[str, tuple[Any, Any]] = {}  # language -> (Parser, Query), built once per process


def _grammar(language: str) -> tuple[Any, Any]:
    if language not in _GRAMMARS:
        import tree_sitter as ts

        module = importlib.import_module(GRAMMAR_PACKAGES[language].replace("-", "_"))
        # tree-sitter-php ships two grammars; language_php accepts HTML around <?php ... ?>.
        lang = ts.Language(module.language_php() if language == "php" else module.language())
        _GRAMMARS[language] = (ts.Parser(lang), ts.Query(lang, _FN_QUERIES[language]))
    return _GRAMMARS[language]


# --------------------------------------------------------------------------------------
# Doc comment text -> query.

_GO_DIRECTIVE = re.compile(r"^//(go:|line |extern |export |nolint\b|[a-z0-9]+:[a-z0-9])")
_RUBY_DIRECTIVE = re.compile(r"^#\s*(rubocop:|frozen_string_literal:|encoding:|typed:|-\*-)")
_INLINE_TAG = re.compile(r"\{@(\w+)\s*([^{}]*)\}")
# Only real HTML tags: `<positional_bindings>` or `List<String>` in a doc comment is content.
_HTML_TAG = re.compile(
    r"</?(?:a|abbr|b|big|blockquote|br|caption|cite|code|dd|del|dfn|div|dl|dt|em|font|h[1-6]|hr|i|img"
    r"|ins|kbd|li|ol|p|pre|q|s|samp|small|span|strike|strong|sub|sup|table|tbody|td|th|thead|tr|tt"
    r"|u|ul|var)\b[^<>]*>", re.IGNORECASE)
_PARAGRAPH_END = re.compile(r"^(@\w|<p\b)", re.IGNORECASE)


def _first_paragraph(lines: Iterable[str]) -> str:
    """Lines of a doc comment without markers -> its first paragraph, whitespace collapsed."""
    kept: list[str] = []
    for line in lines:
        line = line.strip()
        if not line:
            if kept:
                break
            continue
        if kept and _PARAGRAPH_END.match(line) or line.startswith("@"):
            break  # a block tag, or a Javadoc <p> after some text, ends the description
        kept.append(line)
    return " ".join(" ".join(kept).split())


def _inline_tag(m: re.Match) -> str:
    tag, body = m.group(1), m.group(2).strip()
    if tag in ("link", "linkplain") and " " in body:  # {@link Foo#bar label} -> label
        return body.split(None, 1)[1]
    if tag == "return":  # Javadoc renders {@return x} as "Returns x."
        return f"Returns {body}"
    return "" if tag == "inheritDoc" else body


def _block_doc_query(text: str) -> str:
    """``/** ... */`` (Javadoc, PHPDoc, JSDoc) -> first paragraph, tags and HTML removed."""
    body = text[3:-2] if text.endswith("*/") else text[3:]
    lines = [re.sub(r"^\s*\*+ ?", "", line) for line in body.split("\n")]
    para = _first_paragraph(lines)
    while True:  # innermost first: {@return the {@link Currency}}
        para, n = _INLINE_TAG.subn(_inline_tag, para)
        if not n:
            break
    para = html.unescape(_HTML_TAG.sub("", para))
    return " ".join(para.split())


def _line_doc_query(texts: Sequence[str], language: str) -> str:
    lines = []
    for t in texts:
        if language == "go":
            if _GO_DIRECTIVE.match(t):
                continue
            lines.append(t[2:])
        else:
            if _RUBY_DIRECTIVE.match(t):
                continue
            lines.append(t.lstrip("#"))
    return _first_paragraph(lines)


def _docstring_query(node: Any) -> str:
    raw = node.text.decode("utf-8", "replace")
    try:
        with warnings.catch_warnings():  # old code's invalid escapes ("\p") would warn once per docstring
            warnings.simplefilter("ignore", SyntaxWarning)
            value = ast.literal_eval(raw)
    except (ValueError, SyntaxError, MemoryError, RecursionError):
        value = None
    if not isinstance(value, str):  # Python 2 prefixes and the like: use the raw contents
        value = "".join(c.text.decode("utf-8", "replace") for c in _walk_type(node, "string_content"))
    # an escaped lone surrogate ("\\ud800") would make the UTF-8 output unwritable
    value = value.encode("utf-8", "replace").decode("utf-8")
    return _first_paragraph(value.split("\n"))


def _walk_type(node: Any, type_: str) -> Iterator[Any]:
    for c in node.named_children:
        if c.type == type_:
            yield c
        else:
            yield from _walk_type(c, type_)


# --------------------------------------------------------------------------------------
# Per-file extraction.

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
            types = list(_walk_type(recv, "type_identifier")) if recv is not None else []
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
            if value is None or value.type not in _JS_SCOPE_VALUES or name is None or name.type != "identifier":
                return None
            return _text(name)
        if t == "assignment_expression":
            value = node.child_by_field_name("right")
            return _field_text(node, "left") if value is not None and value.type in _JS_SCOPE_VALUES else None
        if t in ("pair", "field_definition"):
            value = node.child_by_field_name("value")
            if value is None or value.type not in _JS_SCOPE_VALUES:
                return None
            key = _field_text(node, "key" if t == "pair" else "property")
            return key.strip("'\"`") if key is not None else None
    return _field_text(node, "name")


_FUNCTION_TYPES = {
    "python": {"function_definition"},
    "go": {"function_declaration", "method_declaration"},
    "java": {"method_declaration", "constructor_declaration", "compact_constructor_declaration"},
    "ruby": {"method", "singleton_method"},
    "php": {"function_definition", "method_declaration"},
    "javascript": {"function_declaration", "generator_function_declaration", "method_definition",
                   "variable_declarator", "assignment_expression", "pair", "field_definition"},
}


def _qualified_name(node: Any, language: str) -> str | None:
    own = _own_name(node, language)
    if not own:
        return None
    parts = [own]
    scopes, functions = _SCOPES[language], _FUNCTION_TYPES[language]
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

    parser, query = _grammar(language)
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
            query = _docstring_query(doc_node.named_children[0])
            usable = usable and rest
        else:
            block = _find_doc_comment(data, anchor.start_byte, comments, ends, language)
            if not block:
                continue
            doc = [(c.start_byte, c.end_byte) for c in block]
            texts = [_text(c) for c in block]
            query = _block_doc_query(texts[0]) if language in ("java", "php", "javascript") \
                else _line_doc_query(texts, language)
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


# --------------------------------------------------------------------------------------
# Sources: folders, zips and single files, walked in sorted order.

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


class _Source:
    """A folder, a ``.zip`` or a single file; lists and reads files by ``/``-separated relative path."""

    def __init__(self, path: str | os.PathLike):
        self.path = str(path)
        if os.path.isdir(self.path):
            self.kind = "folder"
        elif os.path.isfile(self.path) and self.path.lower().endswith(".zip"):
            self.kind = "zip"
            try:
                with zipfile.ZipFile(self.path):
                    pass
            except (zipfile.BadZipFile, OSError) as e:
                raise QLogError(f"source {self.path!r} is not a readable zip: {e}") from None
        elif os.path.isfile(self.path):
            if _language_of(self.path) is None:
                raise QLogError(f"source {self.path!r} is not a folder, a .zip or a source file "
                                f"({', '.join(sorted(EXTENSIONS))})")
            self.kind = "file"
        else:
            raise QLogError(f"source {self.path!r} not found")
        self._zip: zipfile.ZipFile | None = None

    def names(self) -> list[str]:
        if self.kind == "file":
            return [os.path.basename(self.path)]
        if self.kind == "zip":
            with zipfile.ZipFile(self.path) as z:
                return sorted(n for n in z.namelist() if not n.endswith("/"))
        names = []
        for root, dirs, files in os.walk(self.path):
            rel_root = os.path.relpath(root, self.path).replace(os.sep, "/")
            rel_root = "" if rel_root == "." else rel_root + "/"
            # pruning here keeps node_modules and .git from being walked at all
            dirs[:] = [d for d in dirs if _skip_reason(d + "/x") is None]
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
        with open(os.path.join(self.path, *rel.split("/")), "rb") as f:
            return f.read()

    def close(self) -> None:
        if self._zip is not None:
            self._zip.close()
            self._zip = None


def _plan(source: _Source, languages: Sequence[str], stats: Counter) -> list[tuple[str, str]]:
    """(relative path, language) of the files to parse, in sorted order; counts what is skipped."""
    todo = []
    for rel in source.names():
        lang = _language_of(rel)
        if lang is None or lang not in languages:
            continue
        reason = _skip_reason(rel) if source.kind != "file" else None
        if reason:
            stats[f"files_skipped_{reason}"] += 1
            continue
        todo.append((rel, lang))
    return todo


def _read_and_extract(source: _Source, rel: str, lang: str) -> tuple[str, list[tuple[str, str, str, int]]]:
    """Read and parse one file: ``(status, functions)``, status ``parsed``, ``generated`` or ``unreadable``."""
    try:
        data = source.read(rel)
    except (OSError, KeyError, zipfile.BadZipFile):
        return "unreadable", []
    if _GENERATED.search(data[:GENERATED_HEAD_BYTES]):
        return "generated", []
    return "parsed", extract_source(data, lang)


_WORKER_SOURCES: dict[str, _Source] = {}  # per worker process: each source opened once


def _worker(task: tuple[str, str, str]) -> tuple[str, list[tuple[str, str, str, int]]]:
    src_path, rel, lang = task
    if src_path not in _WORKER_SOURCES:
        _WORKER_SOURCES[src_path] = _Source(src_path)
    return _read_and_extract(_WORKER_SOURCES[src_path], rel, lang)


def _id_path(rel: str) -> str:
    """Relative path as it appears in ids: whitespace percent-escaped, nothing else touched."""
    return "".join(f"%{ord(c):02X}" if c.isspace() else c for c in rel)


def _check_languages(languages: Iterable[str] | None) -> tuple[str, ...]:
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
    """The label a source gets when none is given: its base name without ``.zip``."""
    name = os.path.basename(os.path.abspath(str(path)))
    return name[:-4] if name.lower().endswith(".zip") else name


def _iter_source(source: _Source, label: str, todo: Sequence[tuple[str, str]], workers: int,
                 stats: Counter, on_file: Callable[[], Any] | None = None) -> Iterator[Function]:
    """Functions of the planned files ``todo`` of one source, in order, with unique ids."""
    pool = None
    if workers > 1 and len(todo) >= 4 * workers:
        # spawn: no inherited state, same behaviour on every platform. map() yields in task
        # order, so ids and output files are identical to a one-worker run.
        pool = concurrent.futures.ProcessPoolExecutor(workers, mp_context=multiprocessing.get_context("spawn"))
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
    """Documented functions of a folder, a ``.zip`` (e.g. the JDK's ``lib/src.zip``) or one file.

    ``language`` restricts extraction to one language (default: every language, inferred from
    file extensions). ``label`` starts every id (default: the source's base name). Bad input
    raises :class:`QLogError` at the call, before iteration. Files are
    visited in sorted path order and functions in source order, so the output is deterministic
    for any ``workers``. Skipped files and extracted functions are counted into ``stats``.
    """
    source = _Source(path_or_zip)
    label = default_label(path_or_zip) if label is None else label
    check_id(label, "source label")
    langs = _check_languages(None if language is None else [language])
    stats = Counter() if stats is None else stats
    return _iter_source(source, label, _plan(source, langs, stats), workers, stats)


# --------------------------------------------------------------------------------------
# Benchmark folder.

def _normalised_hash(code: str) -> bytes:
    return hashlib.blake2b(" ".join(code.split()).encode("utf-8"), digest_size=16).digest()


def _versions(languages: Sequence[str]) -> dict[str, str]:
    out = {}
    for dist in ["tree-sitter"] + [GRAMMAR_PACKAGES[lang] for lang in languages]:
        try:
            out[dist] = importlib.metadata.version(dist)
        except importlib.metadata.PackageNotFoundError:
            out[dist] = "unknown"
    return out


def _is_nonempty_dir(path: Path) -> bool:
    return path.is_dir() and any(path.iterdir())


def _jsonl(path: Path, rows: Iterable[dict]) -> None:
    with open(path, "w", encoding="utf-8", newline="\n") as f:
        for row in rows:
            f.write(json.dumps(row, ensure_ascii=False) + "\n")


def _query_key(text: str) -> str:
    return " ".join(text.lower().split())


def build_benchmark(sources: Sequence[tuple[str | os.PathLike, str | None]], out_dir: str | os.PathLike,
                    languages: Sequence[str] | None = None, n_queries: int | None = None,
                    query_fraction: float | None = None, seed: int = 42, max_docs: int | None = None,
                    *, workers: int = 1, overwrite: bool = False, progress: bool = False) -> dict:
    """Build a BEIR/CoIR benchmark folder from source trees and return its manifest.

    Every documented function of ``sources`` (``(path, label)`` pairs; a ``None`` label becomes
    the base name) is a document; duplicates (same code up to whitespace) keep the smallest id.
    ``max_docs`` keeps a seeded random subset of documents. Queries are a seeded sample of the
    documents -- ``n_queries`` of them, or ``query_fraction`` of them, or all when neither is
    given -- each with its own function as the one relevant document (``qid = "q:" + doc id``).

    Writes ``corpus.jsonl`` (``_id``, ``title`` = "", ``text`` = code), ``queries.jsonl``
    (``_id``, ``text``), ``qrels/test.tsv`` and ``manifest.json`` into a temporary folder beside
    ``out_dir`` that is renamed into place only when complete. A non-empty ``out_dir`` is
    refused unless ``overwrite``. Same inputs, same bytes: nothing depends on time, hash order or
    ``workers``.
    """
    if n_queries is not None and query_fraction is not None:
        raise QLogError("give the number of queries or the query fraction, not both")
    if n_queries is not None and n_queries < 1:
        raise QLogError(f"illegal number of queries: {n_queries}, must be at least 1")
    if query_fraction is not None and not 0.0 < query_fraction <= 1.0:
        raise QLogError(f"illegal query fraction: {query_fraction}, must be in (0, 1]")
    if max_docs is not None and max_docs < 1:
        raise QLogError(f"illegal max docs: {max_docs}, must be at least 1")
    if workers < 1:
        raise QLogError(f"illegal number of workers: {workers}, must be at least 1")
    if not sources:
        raise QLogError("no source given")
    langs = _check_languages(languages)
    out = Path(out_dir)
    if _is_nonempty_dir(out) and not overwrite:
        raise QLogError(f"output folder {str(out)!r} is not empty (use overwrite to replace it)")
    if out.exists() and not out.is_dir():
        raise QLogError(f"output {str(out)!r} exists and is not a folder")

    opened, labels = [], set()
    for path, label in sources:
        src = _Source(path)  # fails fast on a missing source, before any work
        label = default_label(path) if label is None else label
        check_id(label, "source label")
        if label in labels:
            raise QLogError(f"source label {label!r} is used twice; give each source its own label")
        labels.add(label)
        opened.append((src, label))

    stats: Counter = Counter()
    plans = []
    for src, label in opened:
        src_stats: Counter = Counter()
        plans.append((src, label, _plan(src, langs, src_stats), src_stats))
    bar = None
    if progress:
        from tqdm import tqdm
        bar = tqdm(total=sum(len(todo) for _, _, todo, _ in plans), unit="file", file=sys.stderr, desc="parsing")
    per_source = []
    functions: list[Function] = []
    try:
        for src, label, todo, src_stats in plans:
            functions.extend(_iter_source(src, label, todo, workers, src_stats,
                                          on_file=bar.update if bar is not None else None))
            per_source.append({"label": label, "path": str(src.path), "kind": src.kind,
                               **{k: src_stats[k] for k in sorted(src_stats)}})
            stats.update(src_stats)
    finally:
        if bar is not None:
            bar.close()

    # duplicates: first by sorted id wins; everything below works on sorted ids
    functions.sort(key=lambda f: f.id)
    seen_code: set[bytes] = set()
    docs: list[Function] = []
    for f in functions:
        h = _normalised_hash(f.code)
        if h not in seen_code:
            seen_code.add(h)
            docs.append(f)
    duplicates = len(functions) - len(docs)
    del functions, seen_code
    if not docs:
        raise QLogError("no documented functions found in the sources")

    rng = random.Random(seed)
    if max_docs is not None and max_docs < len(docs):
        keep = sorted(rng.sample(range(len(docs)), max_docs))
        docs = [docs[i] for i in keep]
    # A query whose text is shared by several functions (generated code, overloads, locale tables)
    # has several equally right answers but only one judged relevant: never ask it (as CodeSearchNet
    # removes near-duplicates). Those functions stay in the corpus as documents.
    text_count = Counter(_query_key(d.query) for d in docs)
    candidates = [i for i, d in enumerate(docs) if text_count[_query_key(d.query)] == 1]
    ambiguous = len(docs) - len(candidates)
    if not candidates:
        raise QLogError("every documented function shares its doc comment with another; no query is unambiguous")
    if n_queries is not None:
        if n_queries > len(candidates):
            raise QLogError(f"{n_queries} queries asked for, but only {len(candidates)} of the {len(docs)} documents "
                            f"have a doc comment no other function shares")
        k = n_queries
    elif query_fraction is not None:
        k = max(1, round(query_fraction * len(candidates)))
    else:
        k = len(candidates)
    query_docs = [docs[i] for i in sorted(rng.sample(candidates, k))]

    manifest = {
        "format": "BEIR/CoIR: corpus.jsonl, queries.jsonl, qrels/test.tsv",
        "sources": per_source,
        "languages": list(langs),
        "seed": seed,
        "n_queries": n_queries,
        "query_fraction": query_fraction,
        "max_docs": max_docs,
        "min_query_words": MIN_QUERY_WORDS,
        "counts": {
            **{k: stats[k] for k in sorted(stats)},
            "duplicates_dropped": duplicates,
            "shared_query_text_not_sampled": ambiguous,
            "documents": len(docs),
            "queries": len(query_docs),
            "documents_per_language": dict(sorted(Counter(d.language for d in docs).items())),
            "queries_per_language": dict(sorted(Counter(d.language for d in query_docs).items())),
        },
        "versions": _versions(langs),
    }

    out.parent.mkdir(parents=True, exist_ok=True)
    tmp = Path(tempfile.mkdtemp(prefix=f".{out.name}.", suffix=".tmp", dir=out.parent))
    try:
        _jsonl(tmp / "corpus.jsonl", ({"_id": d.id, "title": "", "text": d.code} for d in docs))
        _jsonl(tmp / "queries.jsonl", ({"_id": "q:" + d.id, "text": d.query} for d in query_docs))
        (tmp / "qrels").mkdir()
        with open(tmp / "qrels" / "test.tsv", "w", encoding="utf-8", newline="\n") as f:
            f.write("query-id\tcorpus-id\tscore\n")
            f.writelines(f"q:{d.id}\t{d.id}\t1\n" for d in query_docs)
        with open(tmp / "manifest.json", "w", encoding="utf-8", newline="\n") as f:
            json.dump(manifest, f, indent=2, ensure_ascii=False)
            f.write("\n")
        os.chmod(tmp, 0o755)  # mkdtemp makes it private; the result is an ordinary folder
        if out.exists():
            if _is_nonempty_dir(out) and not overwrite:
                raise QLogError(f"output folder {str(out)!r} appeared while building; not replacing it")
            old = Path(tempfile.mkdtemp(prefix=f".{out.name}.", suffix=".old", dir=out.parent))
            os.replace(out, old / "x")
            os.replace(tmp, out)
            shutil.rmtree(old, ignore_errors=True)
        else:
            os.replace(tmp, out)
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        raise
    return manifest
