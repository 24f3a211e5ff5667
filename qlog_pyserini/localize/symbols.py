"""The names a source file defines (its functions, methods, classes and types): the symbol table the issue-text
evidence's ``defines`` match reads (:mod:`qlog_pyserini.localize.evidence`).

A definition is found where a line starts one (:data:`DEFINITION_STARTS`: one regular expression a language,
``def``/``class`` in Python, ``func``/``type ... struct`` in Go, ``fn``/``struct``/``impl`` in Rust, their
keywords in PHP, Ruby, Kotlin, Swift and Scala, a declaration line ending in ``(`` in C-like languages and C#): language-free enough for every language an instance set
holds, cheap enough for every file of every corpus, and wrong only at the edges: a definition spread over lines
is missed where its name starts a line (C's GNU style, the return type on the line above), and a docstring's
example line (``class C:``) defines its name.
A qualified name keeps its last part (``Foo::bar`` defines ``bar``), generics are dropped (``Map<K, V>``
defines ``Map``), and a capture that is not one identifier (``Display for Foo``) defines nothing.

    >>> sorted(defined_names("class Card:\\n    def _parse(self):\\n        pass\\n", "python"))
    ['Card', '_parse']
"""

from __future__ import annotations

import hashlib
import os
import re
from typing import Callable, Iterable, Mapping

from qlog_pyserini.formats.documents import iter_documents
from qlog_pyserini.formats.instances import file_text

# a declaration: a type (or modifiers) before the name, an open parenthesis, and no ';' left on the line
_C_LIKE = (r"^[ \t]*(?!(?:return|else|new|throw|case|goto|delete|if|while|for|switch|catch|do)\b)"
           r"[A-Za-z_][\w:<>,*&\[\] \t]*[ \t*&]"
           r"(?!(?:if|for|while|switch|return|else|catch|new|sizeof)\b)(?P<name>[A-Za-z_~][\w:~]*)[ \t]*\([^;]*$")
_TYPES = r"^[ \t]*(?:[\w@]+[ \t]+)*(?:class|struct|interface|enum|record|union|namespace)[ \t]+(?P<name>[A-Za-z_]\w*)"
_JS = (r"^[ \t]*(?:export[ \t]+)?(?:default[ \t]+)?(?:async[ \t]+)?(?:function\*?|class|interface|type|enum)[ \t]+"
       r"(?P<name>[A-Za-z_$][\w$]*)|"
       r"^[ \t]*(?:export[ \t]+)?(?:const|let|var)[ \t]+(?P<name2>[A-Za-z_$][\w$]*)[ \t]*=[ \t]*(?:async[ \t]*)?"
       r"(?:function|\([^)]*\)[ \t]*=>|[A-Za-z_$][\w$]*[ \t]*=>)|"
       r"^[ \t]+(?:(?:public|private|protected|static|async|readonly|get|set)[ \t]+)*(?!(?:if|for|while|switch|return|catch)\b)"
       r"(?P<name3>[A-Za-z_$][\w$]*)[ \t]*\([^)]*\)[ \t]*(?::[^={]*)?\{[ \t]*$")

# C#'s members as C's declarations, besides expression-bodied ones (`int Area(int w) => w * w;`), and never a call
# that awaits or yields (`await LoadAsync(`)
_CSHARP_MEMBER = (_C_LIKE.replace("(?P<name>", "(?P<name2>").replace("|do)\\b)", "|do|await|yield)\\b)")
                  .replace("[ \\t]*\\([^;]*$", "[ \\t]*\\((?:[^;]*$|[^;]*\\)[ \\t]*=>)"))

#: The line a definition starts on, per language (the name is the group ``name``, ``name2`` or ``name3``).
DEFINITION_STARTS: dict[str, re.Pattern[str]] = {
    "python": re.compile(r"^[ \t]*(?:async[ \t]+)?(?:def|class)[ \t]+(?P<name>[A-Za-z_]\w*)", re.M),
    "java": re.compile(f"{_TYPES}|{_C_LIKE.replace('(?P<name>', '(?P<name2>')}", re.M),
    "javascript": re.compile(_JS, re.M),
    "typescript": re.compile(_JS, re.M),
    "go": re.compile(r"^func[ \t]+(?:\([^)]*\)[ \t]*)?(?P<name>[A-Za-z_]\w*)|"
                     r"^type[ \t]+(?P<name2>[A-Za-z_]\w*)[ \t]+(?:struct|interface)", re.M),
    "rust": re.compile(r"^[ \t]*(?:pub(?:\([^)]*\))?[ \t]+)?(?:(?:async|unsafe|const|extern)[ \t]+)*"
                       r"(?:fn|struct|enum|trait|mod|union)[ \t]+(?P<name>[A-Za-z_]\w*)|"
                       r"^[ \t]*impl\b(?:<[^>]*>)?[ \t]+(?P<name2>[A-Za-z_][\w:<>, ]*?)[ \t]*(?:\{|where|$)", re.M),
    "c": re.compile(f"{_TYPES}|{_C_LIKE.replace('(?P<name>', '(?P<name2>')}", re.M),
    "cpp": re.compile(f"{_TYPES}|{_C_LIKE.replace('(?P<name>', '(?P<name2>')}", re.M),
    "csharp": re.compile(f"{_TYPES}|{_CSHARP_MEMBER}", re.M),
    "php": re.compile(r"^[ \t]*(?:(?:abstract|final|public|private|protected|static|readonly)[ \t]+)*"
                      r"(?:function[ \t]+&?[ \t]*(?P<name>[A-Za-z_]\w*)|(?:class|interface|trait|enum)[ \t]+"
                      r"(?P<name2>[A-Za-z_]\w*))", re.M),
    "ruby": re.compile(r"^[ \t]*(?:def[ \t]+(?:self\.)?(?P<name>[A-Za-z_]\w*)|(?:class|module)[ \t]+"
                       r"(?P<name2>[A-Z]\w*(?:::[A-Z]\w*)*))", re.M),
    "kotlin": re.compile(r"^[ \t]*(?:(?:public|private|protected|internal|open|abstract|override|final|inline|suspend"
                         r"|operator|infix|data|sealed|enum|annotation|inner|value|companion|tailrec|external|expect"
                         r"|actual)[ \t]+)*(?:fun[ \t]+(?:<(?:[^<>]|<[^<>]*>)*>[ \t]*)?(?:[\w<>?, ]+\.)?(?P<name>[A-Za-z_]\w*)[ \t]*\("
                         r"|(?:class|interface|object|typealias)[ \t]+(?P<name2>[A-Za-z_]\w*))", re.M),
    "swift": re.compile(r"^[ \t]*(?:(?:public|private|fileprivate|internal|open|static|class|final|override|mutating"
                        r"|nonmutating|@\w+(?:\([^)]*\))?)[ \t]+)*(?:func[ \t]+(?P<name>[A-Za-z_]\w*)"
                        r"|(?:class|struct|enum|protocol|extension|actor|typealias)[ \t]+(?P<name2>[A-Za-z_]\w*))", re.M),
    "scala": re.compile(r"^[ \t]*(?:(?:private|protected|final|sealed|abstract|implicit|lazy|override|case|inline"
                        r"|transparent|open|@\w+)(?:\[[^\]]*\])?[ \t]+)*(?:def[ \t]+(?P<name>[A-Za-z_]\w*)"
                        r"|(?:class|trait|object|enum|type)[ \t]+(?P<name2>[A-Za-z_]\w*))", re.M),
}
_IDENTIFIER = re.compile(r"[A-Za-z_$][\w$]*")


def defined_names(text: str, language: str) -> frozenset[str]:
    """The names ``text`` (a file of ``language``) defines; none for a language without a pattern."""
    pattern = DEFINITION_STARTS.get(language)
    if pattern is None:
        return frozenset()
    names = set()
    for match in pattern.finditer(text):
        for value in match.groupdict().values():
            if value:
                name = value.split("<", 1)[0].rsplit("::", 1)[-1].strip()
                if _IDENTIFIER.fullmatch(name):
                    names.add(name)
    return frozenset(names)


class SymbolCache:
    """:func:`defined_names` remembered by language and text: the states of one repository share most of their
    files, so each distinct file is read once however many corpora hold it. Past ``max_texts`` distinct texts
    the cache starts again, so a long sweep's memory stays bounded."""

    def __init__(self, max_texts: int = 200_000) -> None:
        self.max_texts = max_texts
        self._names: dict[tuple[str, bytes], frozenset[str]] = {}
        self._last: tuple[tuple, dict[str, frozenset[str]]] | None = None  # the corpus file read last

    def __len__(self) -> int:
        return len(self._names)

    def names(self, text: str, language: str) -> frozenset[str]:
        key = (language, hashlib.sha1(text.encode("utf-8", "surrogatepass")).digest())
        if key not in self._names:
            if len(self._names) >= self.max_texts:
                self._names.clear()
            self._names[key] = defined_names(text, language)
        return self._names[key]

    def corpus(self, documents: Iterable[tuple[str, str]], language: str) -> dict[str, frozenset[str]]:
        """``{path: names}`` of a corpus's documents ``(path, text)``, every file of ``language``."""
        return {path: self.names(text, language) for path, text in documents}

    def corpus_file(self, jsonl: str | os.PathLike, language: str) -> dict[str, frozenset[str]]:
        """``{path: names}`` of a corpus file (Anserini's JsonCollection of an instance set); the file read last
        is kept while it is unchanged, as a sweep localizes one corpus under several configurations in a row."""
        stat = os.stat(jsonl)
        seen = (str(jsonl), stat.st_size, stat.st_mtime_ns, language)
        if self._last is None or self._last[0] != seen:
            documents = ((path, file_text(contents)) for path, contents in iter_documents(jsonl))
            self._last = (seen, self.corpus(documents, language))
        return self._last[1]


class SymbolTable:
    """The names each file of a changing index defines, kept by the file's version: :meth:`update` re-reads only
    the files added or changed since the last call (an index updated in place, as ``locate``'s)."""

    def __init__(self) -> None:
        self._files: dict[str, tuple[str, frozenset[str]]] = {}
        self.changed = False  # whether the last update read any file (then the table is worth saving)

    def to_json(self) -> dict[str, list]:
        """``{path: [version, [names]]}``, what :meth:`load` reads back."""
        return {path: [version, sorted(names)] for path, (version, names) in self._files.items()}

    def load(self, data: object) -> bool:
        """Take the files of a saved :meth:`to_json` (a file is re-read by :meth:`update` only if its version
        differs); False, and the table left as it was, when ``data`` is not one."""
        if not isinstance(data, dict):
            return False
        files = {}
        for path, entry in data.items():
            if not (isinstance(entry, list) and len(entry) == 2 and isinstance(entry[0], str)
                    and isinstance(entry[1], list) and all(isinstance(n, str) for n in entry[1])):
                return False
            files[path] = (entry[0], frozenset(entry[1]))
        self._files = files
        return True

    def update(self, versions: Mapping[str, str], text_of: Callable[[str], str],
               language_of: Callable[[str], str | None]) -> dict[str, frozenset[str]]:
        """``{path: names}`` for the files ``versions`` (``{path: version}``, e.g. a content digest); the text of
        a file new or changed since the last call is read with ``text_of`` and its language from ``language_of``
        (None: no language, no names)."""
        kept = {}
        self.changed = set(versions) != set(self._files)
        for path, version in versions.items():
            known = self._files.get(path)
            if known is None or known[0] != version:
                language = language_of(path)
                known = (version, defined_names(text_of(path), language) if language else frozenset())
                self.changed = True
            kept[path] = known
        self._files = kept
        return {path: names for path, (_, names) in kept.items()}
