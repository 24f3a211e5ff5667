"""What an issue report names: file paths, modules, stack frames and code identifiers, read without labels.

An issue is markdown: a title line, then a body of prose, fenced code blocks and inline backticks. Each
construct says something different about the files a fix edits, so each mention keeps the construct it came
from (its *source*), and :mod:`.evidence` weighs it by that:

- ``frame``: a stack-trace or diagnostic line (Python, Java/Kotlin/Scala, JavaScript/TypeScript, Go, Rust, Ruby,
  PHP, .NET, Swift, C/C++ gdb, sanitizers, valgrind and compiler diagnostics). Frames of one trace are numbered by ``depth``: 0 is the frame
  where the failure surfaced (the top of every other trace, the last frame of a Python traceback).
- ``url``: a repository file address (``https://github.com/org/repo/blob/<ref>/src/x.py#L10`` names ``src/x.py``);
  any other URL names nothing and is dropped before paths are read.
- ``code``: inside a fenced code block; ``backtick``: inside inline backticks; ``text``: prose.

Mention kinds: ``path`` (a file path with at least one directory), ``basename`` (a file name with a known source
extension and no directory), ``module`` (a dotted or ``::``-qualified name: ``astropy.io.fits``,
``com.alibaba.fastjson2.JSONReader``), ``identifier`` (a camelCase, snake_case or PascalCase name, a called name
``foo(``, or a name alone in backticks). The reading is language-free: one pass of patterns over the text.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from qlog_pyserini.errors import QLogError

KINDS = ("path", "basename", "module", "identifier")
SOURCES = ("frame", "url", "code", "backtick", "text")

# File extensions (in this case) a bare name must carry to be read as a file name ("utils.js", not "e.g." or "v1.2").
SOURCE_EXTENSIONS = frozenset("""
py pyi pyx pxd java kt kts scala groovy clj js jsx mjs cjs ts tsx mts cts vue svelte go rs c h cc cpp cxx hpp hh
hxx ipp inl cu cs fs vb rb php swift m mm dart lua pl pm r jl ex exs erl hs ml sh bash zsh ps1 sql proto thrift
graphql gradle json json5 yaml yml toml xml ini cfg conf properties md rst txt html htm css scss sass less cmake mk
""".split())

# Words of programming languages and shells that name no project file, whatever block they sit in.
KEYWORDS = frozenset("""
abstract and as assert async await bool boolean break byte case catch char class const continue def default del
delete do double elif else enum except export extends false final finally float for from func function global go
goto if impl implements import in instanceof int interface is lambda let long loop match mod mut new nil none not
null object or package anonymous pass println print printf private protected pub public raise return self short static str
string struct super switch this throw throws true try type typeof undefined unsafe use var void while with yield
console log require module exports sizeof include define ifdef ifndef endif typedef unsigned signed extern
""".split())

_FENCE = re.compile(r"^[ \t]*(`{3,}|~{3,})[^\n]*\n(.*?)(?:^[ \t]*\1[ \t]*$|\Z)", re.M | re.S)
_BACKTICK = re.compile(r"(`+)([^`\n]+?)\1")
_REPO_URL = re.compile(
    r"https?://(?:raw\.githubusercontent\.com/[\w.-]+/[\w.-]+/[^/\s]+"
    r"|[\w.-]+/[\w.-]+/[\w.-]+/(?:-/)?(?:blob|raw|edit|src)/[^/\s]+)"
    r"/(?P<path>[^\s#?)\]>\"'`]+)(?:#L(?P<line>\d+))?")
_LOCAL_URL = re.compile(r"\b(?:file|webpack(?:-internal)?)://+(?:\([^)]*\)/)?\.?/?")
_URL = re.compile(r"\b[a-zA-Z][a-zA-Z0-9+.-]{0,31}://[^\s)\]>\"'`]+|\bwww\.[^\s)\]>\"'`]+")
_LINE_SUFFIX = r"(?::(?P<line>\d+))?(?::\d+)?"
_PATH = re.compile(
    r"(?<![\w./\\:@-])(?P<path>(?:[A-Za-z]:)?(?:\.{1,2}[\\/]|[\\/])?(?:[\w@+~-][\w.@+~-]*[\\/])+"
    r"[\w@+~-][\w.@+~-]*\.[A-Za-z][\w+]{0,9})" + _LINE_SUFFIX)
_BASENAME = re.compile(r"(?<![\w./\\:@-])(?P<path>[\w@+-][\w.@+-]*\.(?P<ext>[A-Za-z][\w+]{0,9}))(?![\w/\\-])"
                       + _LINE_SUFFIX)
# Names are ASCII in nearly every language's code; prose in scripts without spaces (Chinese, Japanese) runs
# straight into them ("getFieldInfo方法"), so a name ends at the first non-ASCII character.
_ID = r"[A-Za-z_$][A-Za-z0-9_$]*"
_QUALIFIED = re.compile(r"(?<![A-Za-z0-9_./\\:$-])" + _ID + r"(?:(?:\.|::|->)" + _ID + ")+")
_WORD = re.compile(r"(?<![A-Za-z0-9_$])" + _ID)
_CALL = re.compile(r"(?<![A-Za-z0-9_$.])(" + _ID + r")\(")
_NAME = re.compile(_ID)

# One pattern per frame syntax; each names the groups path, line and (where the syntax has one) func.
_FRAMES = (
    ("python", re.compile(r"^\s*File \"(?P<path>[^\"<][^\"]*)\", line (?P<line>\d+)(?:, in (?P<func>\S+))?")),
    ("java", re.compile(r"^\s*at (?:[\w.$-]+/)*(?P<qual>[\w$.]+)\.(?P<func>[\w$<>]+)"
                        r"\((?P<file>[\w$.-]+\.\w+):(?P<line>\d+)\)")),
    ("at", re.compile(r"^\s*at (?:(?P<func>[^\s(][^(]*?) \()?(?P<path>[^\s()]+?):(?P<line>\d+)(?::\d+)?\)?\s*$")),
    ("gdb", re.compile(r"^\s*#\d+\s+(?:0x[0-9a-fA-F]+ in )?(?P<func>[^\s(]+) \(.*\) at (?P<path>\S+?):(?P<line>\d+)")),
    ("sanitizer", re.compile(r"^\s*#\d+ 0x[0-9a-fA-F]+ in (?P<func>[^\s(]+)(?:\(.*?\))? (?P<path>[^\s()]+?)"
                             r":(?P<line>\d+)(?::\d+)?\s*$")),
    ("valgrind", re.compile(r"^==\d+==\s+(?:at|by) 0x[0-9A-Fa-f]+: (?P<func>\S+) \((?P<path>[^():\s]+)"
                            r":(?P<line>\d+)\)")),
    ("go", re.compile(r"^\s*(?P<path>\S+\.go):(?P<line>\d+)(?:\s+\+0x[0-9a-f]+)?\s*$")),
    ("rust-panic", re.compile(r"panicked at (?:.*?[\s'\"])?(?P<path>[\w./\\-]+\.rs):(?P<line>\d+)(?::\d+)?")),
    ("diagnostic", re.compile(r"^\s*(?P<path>[^\s:]+\.\w+):(?P<line>\d+):(?:\d+:)?\s*(?:fatal )?"
                              r"(?:error|warning|note|runtime error)\b")),
    # Ruby's backtrace (the failure's own line, then "from" lines; RSpec prefixes "# "): path:line:in `method'
    ("ruby", re.compile(r"^\s*(?:from\s+|#\s+)?(?P<path>[^\s:'\"`]+\.(?:rb|rake|erb)):(?P<line>\d+):in\s+[`']"
                        r"(?:(?:block|rescue|ensure)(?: \(\d+ levels\))? in )?(?:<[^'`]*>|(?P<func>[^'`]+))'")),
    # PHP's "Stack trace:" frames (#0 path(line): Class->method()), and its errors' "in path:line" or
    # "in path on line N", which name the frame where the failure surfaced
    ("php", re.compile(r"^\s*#\d+ (?P<path>[^\s()]+\.php)\((?P<line>\d+)\): (?P<func>[\w\\]+(?:(?:->|::)\w+)?)")),
    ("php-error", re.compile(r"\bin (?P<path>(?:[A-Za-z]:)?[^\s:()]+\.php)(?::| on line )(?P<line>\d+)")),
    # .NET's "at Namespace.Type.Method(args) in path:line N" (the path a Windows one as often as not)
    ("dotnet", re.compile(r"^\s*at (?P<func>[^\s(]+)\([^)]*\) in (?P<path>(?:[A-Za-z]:)?[^:]+?\.(?:cs|fs|vb))"
                          r":line (?P<line>\d+)")),
    # Swift's runtime traps: "Path/Name.swift:N: Fatal error: ..." and, before Swift 5.9, "...: file Path, line N"
    ("swift", re.compile(r"^\s*(?P<path>[^\s:]+\.swift):(?P<line>\d+): Fatal error\b")),
    ("swift-file", re.compile(r"\bfile (?P<path>[^\s,]+\.swift), line (?P<line>\d+)")),
)
# Lines that keep a trace going without naming a file (Rust's numbered frames, Java's "... 12 more",
# Go's function lines) and lines that start a new trace (a chained exception, another goroutine).
_TRACE_FILLER = re.compile(r"^\s*(?:\d+:\s+\S|\.\.\. \d+ (?:more|common frames omitted)|[\w./*()$-]+\(.*\)\s*$"
                           r"|at .*\((?:Native Method|Unknown Source|node:[^)]*|<anonymous>|native)\)"
                           r"|at (?:node:|<anonymous>|native)|#\d+ 0x[0-9a-fA-F]+ in \S+ \(|==\d+==\s+(?:at|by) )")
_TRACE_START = re.compile(r"^\s*(?:Traceback \(most recent call last\)|Caused by:|During handling of the above"
                          r"|The above exception was|goroutine \d+ \[|Exception in thread"
                          r"|==\d+==\s*ERROR|\S+: runtime error:)")
# Syntaxes whose frames may follow one another in one trace; any other change of syntax starts a new trace.
_STYLE_FAMILY = {"rust-panic": "at", "php-error": "php", "swift-file": "swift"}
_GO_FUNC = re.compile(r"^\s*(?P<func>[\w./*()$-]+)\([^()]*\)\s*$")
_RUST_FUNC = re.compile(r"^\s*\d+:\s+(?:0x[0-9a-f]+ - )?(?P<func>\S+)")
_MAX_TRACE_GAP = 3  # non-frame lines allowed inside one trace (Python's source line, Go's function line)


@dataclass(frozen=True)
class Mention:
    """One thing the issue names: ``kind`` (KINDS), its ``text``, the construct it came from (``source``).

    ``text`` is normalised: paths use ``/``, without a drive letter, leading ``./``, ``../`` or ``/``, or a
    ``:line`` suffix (kept in ``line``). ``trace`` and ``depth`` are set for frames only: which trace of the
    issue (in text order) and how far from the frame where the failure surfaced (0).
    """

    kind: str
    text: str
    source: str
    line: int | None = None
    trace: int | None = None
    depth: int = 0

    @property
    def parts(self) -> tuple[str, ...]:
        """The components: a path's directories and file name, a qualified name's names."""
        if self.kind in ("path", "basename"):
            return tuple(self.text.split("/"))
        # Java's binary name of a nested class, Outer$Inner, lives in Outer's file
        return tuple(p if p.startswith("$") else p.split("$")[0] for p in re.split(r"\.|::|->", self.text) if p)


@dataclass(frozen=True)
class IssueMentions:
    """Everything one issue names, by kind, each in order of first appearance and once per (text, source)."""

    paths: tuple[Mention, ...]
    basenames: tuple[Mention, ...]
    modules: tuple[Mention, ...]
    identifiers: tuple[Mention, ...]

    def all(self) -> tuple[Mention, ...]:
        return self.paths + self.basenames + self.modules + self.identifiers

    @property
    def frames(self) -> tuple[Mention, ...]:
        """The file mentions that come from stack frames, in trace order then depth."""
        found = [m for m in self.paths + self.basenames if m.source == "frame"]
        return tuple(sorted(found, key=lambda m: (m.trace, m.depth)))

    def __bool__(self) -> bool:
        return bool(self.all())


def normalize_path(text: str) -> str:
    """``text`` as a ``/``-separated path with no drive, leading ``./``/``../``/``/``, git's diff prefix
    (``a/``, ``b/`` before a relative path) or empty components."""
    text = text.replace("\\", "/")
    text = re.sub(r"^[A-Za-z]:/", "", text)
    text = re.sub(r"^[ab]/(?=[^/]+/)", "", text)
    parts = [p for p in text.split("/") if p not in ("", ".", "..")]
    return "/".join(parts)


def _file_mention(path: str, source: str, line: str | None, trace: int | None = None, depth: int = 0) -> Mention | None:
    text = normalize_path(path)
    if not text:
        return None
    kind = "path" if "/" in text else "basename"
    return Mention(kind, text, source, int(line) if line else None, trace, depth)


def is_identifier_shaped(word: str) -> bool:
    """camelCase, PascalCase with an inner capital, snake_case, or SCREAMING_SNAKE: a name no prose word has."""
    core = word.strip("_$")
    if len(core) < 3 or core.lower() in KEYWORDS:
        return False
    if "_" in core or "$" in core:
        return any(c.isalpha() for c in core)
    return bool(re.search(r"[a-z][A-Z]|[A-Z]{2}[a-z]", core))


def _identifier(word: str, source: str, shaped_only: bool) -> Mention | None:
    if len(word) < 3 or word.lower() in KEYWORDS:
        return None
    if shaped_only and not is_identifier_shaped(word):
        return None
    return Mention("identifier", word, source)


class _Reader:
    """Collects mentions in order, once per (kind, text, source)."""

    def __init__(self) -> None:
        self.found: dict[tuple[str, str, str], Mention] = {}
        self.traces = 0

    def add(self, mention: Mention | None) -> None:
        if mention is not None:
            self.found.setdefault((mention.kind, mention.text, mention.source), mention)

    def frames(self, text: str) -> str:
        """Reads the frames of ``text``; returns the text with the traces' lines blanked (read once, as frames)."""
        lines = text.split("\n")
        original = list(lines)
        trace: list[tuple[str, re.Match, str | None]] = []
        gap = 0
        for i, line in enumerate(lines):
            hit = _frame(line)
            if hit is None:
                if _TRACE_START.search(line):
                    self._flush(trace)
                    trace, gap = [], 0
                elif trace and _TRACE_FILLER.search(line):
                    lines[i] = ""
                elif trace:
                    gap += 1
                    if gap > _MAX_TRACE_GAP:
                        self._flush(trace)
                        trace, gap = [], 0
                continue
            style, match = hit
            if trace and _STYLE_FAMILY.get(style, style) != _STYLE_FAMILY.get(trace[-1][0], trace[-1][0]):
                self._flush(trace)
                trace = []
            trace.append((style, match, _function_above(style, original[i - 1] if i else "")))
            gap = 0
            lines[i] = ""
        self._flush(trace)
        return "\n".join(lines)

    def _flush(self, trace: list[tuple[str, re.Match, str | None]]) -> None:
        if not trace:
            return
        # A Python traceback lists the most recent call last; every other syntax lists it first.
        ordered = trace[::-1] if trace[0][0] == "python" else trace
        index = self.traces
        self.traces += 1
        for depth, (style, match, above) in enumerate(ordered):
            path, func = _frame_location(style, match)
            self.add(_file_mention(path, "frame", match.group("line"), index, depth))
            names = _NAME.findall(re.sub(r"\[as \w+\]", "", func or above or ""))
            if names:
                self.add(_identifier(names[-1], "frame", shaped_only=False))

    def urls(self, text: str) -> str:
        """Reads repository file addresses; returns the text with every URL removed (a URL is not a repo path)."""
        for match in _REPO_URL.finditer(text):
            self.add(_file_mention(match.group("path"), "url", match.group("line")))
        text = _LOCAL_URL.sub("/", text)
        return _URL.sub(" ", text)

    def names(self, text: str, source: str) -> None:
        """Paths, file names, qualified names and identifiers of ``text`` (frames and URLs already taken out)."""
        for match in _PATH.finditer(text):
            self.add(_file_mention(match.group("path"), source, match.group("line")))
        text = _PATH.sub(" ", text)
        for match in _BASENAME.finditer(text):
            if match.group("ext") in SOURCE_EXTENSIONS:
                self.add(_file_mention(match.group("path"), source, match.group("line")))
        text = _BASENAME.sub(lambda m: " " if m.group("ext") in SOURCE_EXTENSIONS else m.group(0), text)
        for match in _QUALIFIED.finditer(text):
            self._qualified(match.group(0), source)
        # Outside a lone backtick name, a plain word is English or a keyword as often as a name: only shaped
        # words and called names count.
        for match in _WORD.finditer(text):
            self.add(_identifier(match.group(0), source, shaped_only=True))
        for match in _CALL.finditer(text):
            self.add(_identifier(match.group(1), source, shaped_only=False))

    def _qualified(self, name: str, source: str) -> None:
        parts = [p for p in re.split(r"\.|::|->", name) if p]
        if "->" not in name and parts[0].lower() not in KEYWORDS:
            self.add(Mention("module", name, source))
            # A capitalised head (JSON.parseObject, Mockito.spy) is a type by the convention of Java, C#, JS/TS
            # and Python classes: named whatever its shape.
            if parts[0][0].isupper():
                self.add(_identifier(parts[0], source, shaped_only=False))
        for part in parts[1:]:
            self.add(_identifier(part, source, shaped_only=True))

    def backtick(self, content: str) -> None:
        """A name alone in backticks is an identifier whatever its shape; longer content is read as code."""
        content = content.strip()
        if _NAME.fullmatch(content):
            self.add(_identifier(content, "backtick", shaped_only=False))
            return
        self.names(self.urls(content), "backtick")


def _frame(line: str) -> tuple[str, re.Match] | None:
    for style, pattern in _FRAMES:
        match = pattern.search(line)
        if match is None:
            continue
        path = match.group("file") if style == "java" else match.group("path")
        if style == "at" and ("." not in path.rsplit("/", 1)[-1] or path.startswith(("node:", "<", "native"))):
            continue
        return style, match
    return None


def _frame_location(style: str, match: re.Match) -> tuple[str, str | None]:
    """The path and function a frame names; Java's path is its class's package plus the file name."""
    if style == "java":
        package = match.group("qual").split(".")[:-1]
        return "/".join([*package, match.group("file")]), match.group("func")
    return _LOCAL_URL.sub("/", match.group("path")), match.groupdict().get("func")


def _function_above(style: str, line: str) -> str | None:
    """The function a Go or Rust frame names on the line above its file line."""
    pattern = {"go": _GO_FUNC, "at": _RUST_FUNC}.get(style)
    match = pattern.match(line) if pattern else None
    return match.group("func") if match else None


def split_markdown(text: str) -> list[tuple[str, str]]:
    """``text`` as (source, text) pieces: ``code`` for fenced blocks, ``backtick`` for inline code, else ``text``."""
    pieces: list[tuple[str, str]] = []
    at = 0
    for fence in _FENCE.finditer(text):
        pieces += _inline(text[at:fence.start()])
        pieces.append(("code", fence.group(2)))
        at = fence.end()
    return pieces + _inline(text[at:])


def _inline(text: str) -> list[tuple[str, str]]:
    pieces: list[tuple[str, str]] = []
    at = 0
    for tick in _BACKTICK.finditer(text):
        pieces.append(("text", text[at:tick.start()]))
        pieces.append(("backtick", tick.group(2)))
        at = tick.end()
    pieces.append(("text", text[at:]))
    return [(source, piece) for source, piece in pieces if piece.strip()]


def parse_issue(text: str) -> IssueMentions:
    """The mentions of an issue report (markdown: a title line, then the body); empty text names nothing."""
    reader = _Reader()
    # Frames are read over the whole text first: a trace pasted without a fence is as good as a fenced one.
    rest = reader.frames(text.replace("\r\n", "\n").replace("\r", "\n"))
    for source, piece in split_markdown(rest):
        if source == "backtick":
            reader.backtick(piece)
        else:
            reader.names(reader.urls(piece), source)
    found = list(reader.found.values())
    return IssueMentions(*(tuple(m for m in found if m.kind == kind) for kind in KINDS))


# Lucene's default limit on a BooleanQuery's clauses (IndexSearcher.getMaxClauseCount); a bag-of-words query
# has one clause per distinct analysed term.
MAX_CLAUSES = 1024

# A stack-frame line of code the project does not own: the standard library, installed packages, runtimes.
_LIBRARY_FRAME = re.compile(
    r"site-packages|dist-packages|node_modules|/usr/(?:local/)?lib/|/lib/python\d|\.cargo/registry|/rustc/"
    r"|/go/pkg/mod/|/usr/local/go/src/|<frozen |node:internal|lib(?:c|stdc\+\+|pthread)\.so"
    r"|/gems/|/lib/ruby/\d|[\\/]vendor[\\/]\S{0,512}?\.php\b"
    r"|^\s*at (?:[\w.-]+/)?(?:java|javax|jdk|sun|com\.sun|kotlin|kotlinx|scala|org\.junit|junit|org\.gradle"
    r"|org\.apache\.maven|org\.springframework)\.")
# Log noise: timestamps, dates, clock times, hex addresses, hashes and UUIDs, process ids, long numbers.
_NOISE = re.compile(
    r"\b\d{4}-\d{2}-\d{2}(?:[T ]\d{2}:\d{2}(?::\d{2})?(?:[.,]\d+)?(?:Z|[+-]\d{2}:?\d{2})?)?\b"
    r"|\b\d{1,2}:\d{2}:\d{2}(?:[.,]\d+)?\b|\b0x[0-9a-fA-F]+\b|==\d+=="
    r"|\b[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}\b"
    r"|\b(?=[0-9a-f]*\d)(?=[0-9a-f]*[a-f])[0-9a-f]{7,64}\b|\b\d{5,}\b")
_QUERY_WORD = re.compile(r"\w+(?:[.,:'’/\\-]\w+)*")
# Scripts the standard tokenizer cuts into one token per character (Han, Hiragana, Katakana).
_ONE_CHAR_TOKENS = re.compile(r"[\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff]")
# Case and digit parts of a name, with and without their trailing digits ("UTF8" -> "utf", "8", "utf8").
_CASE_PARTS = (re.compile(r"[A-Z]+(?![a-z])|[A-Z]?[a-z]+|\d+"), re.compile(r"[A-Z]+(?![a-z])\d*|[A-Z]?[a-z]+\d*|\d+"))


def query_terms(word: str) -> set[str]:
    """An upper bound on the terms an analyser makes of ``word``: the whole word, its pieces between
    punctuation and underscores, their case and digit parts, and each Han or kana character, lower-cased
    (the generic analyser keeps ``a.b``, ``a_b`` or ``1,000`` whole and cuts Chinese into characters; an
    identifier-aware one splits names and keeps the whole as well)."""
    terms = {word.lower(), *_ONE_CHAR_TOKENS.findall(word)}
    for piece in re.split(r"[.,:'’/\\-]", word):
        terms.add(piece.lower())
        for run in piece.split("_"):
            terms.add(run.lower())
            for pattern in _CASE_PARTS:
                terms.update(part.lower() for part in pattern.findall(run))
    terms.discard("")
    return terms


def clause_count(text: str) -> int:
    """The number of distinct terms :func:`query_terms` finds in ``text``: at least the clauses of its query."""
    terms: set[str] = set()
    for word in _QUERY_WORD.findall(text):
        terms |= query_terms(word)
    return len(terms)


def reduce_query(text: str, max_clauses: int = MAX_CLAUSES) -> str:
    """``text`` if its query fits ``max_clauses`` clauses, else the text reduced by a stated rule, never cut.

    The rule: (1) drop the stack-frame lines of code the project does not own (installed packages, the
    standard library, runtimes) and log noise (timestamps, hex addresses, hashes, UUIDs, long numbers), and
    replace repository file URLs by their paths and other URLs by nothing; (2) if the query is still too long,
    keep words by priority until the next would pass the limit: the title's words (the first non-blank line),
    then the body's code-like words (identifier-shaped names, paths, qualified names), then the body's other
    words, each group in order of first appearance. Every occurrence of a kept word is kept in place, so the
    terms' query frequencies are those of the original text; lines left empty are dropped.
    """
    if max_clauses < 1:
        raise QLogError(f"max_clauses must be at least 1, got {max_clauses}")
    if clause_count(text) <= max_clauses:
        return text
    lines = [_clean(line) for line in text.replace("\r\n", "\n").split("\n") if not _LIBRARY_FRAME.search(line)]
    cleaned = "\n".join(line for line in lines if line.strip())
    if clause_count(cleaned) <= max_clauses:
        return cleaned
    rows = [_QUERY_WORD.findall(line) for line in cleaned.split("\n")]
    title, body = rows[0], [w for row in rows[1:] for w in row]
    code_like = [w for w in body if _code_like(w)]
    kept: set[str] = set()
    terms: set[str] = set()
    for word in [*title, *code_like, *body]:
        if word in kept:
            continue
        grown = terms | query_terms(word)
        if len(grown) <= max_clauses:
            kept.add(word)
            terms = grown
    out = (" ".join(w for w in row if w in kept) for row in rows)
    return "\n".join(line for line in out if line)


def _clean(line: str) -> str:
    line = _REPO_URL.sub(lambda m: " " + m.group("path") + " ", line)
    line = _URL.sub(" ", line)
    return _NOISE.sub(" ", line)


def _code_like(word: str) -> bool:
    return is_identifier_shaped(word) or bool(re.search(r"\w[./\\:]\w", word))
