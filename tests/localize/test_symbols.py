"""The names a file defines, as the issue-text evidence's ``defines`` match reads them: checked against Python's own
parser on the standard library, on one declaration of each other language, and kept by version as an index
changes."""

from __future__ import annotations

import ast
import json
import sysconfig
import zipfile
from pathlib import Path

import pytest

from qlog_pyserini.localize.symbols import SymbolCache, SymbolTable, defined_names


def _stdlib_modules() -> list[Path]:
    return sorted(Path(sysconfig.get_paths()["stdlib"]).glob("*.py"))


def test_every_definition_pythons_parser_finds_is_found_in_the_standard_library() -> None:
    checked = names = extra = 0
    for module in _stdlib_modules():
        text = module.read_text(encoding="utf-8", errors="replace")
        try:
            tree = ast.parse(text)
        except SyntaxError:
            continue
        reference = {n.name for n in ast.walk(tree)
                     if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef))}
        found = defined_names(text, "python")
        assert reference <= found, (module.name, sorted(reference - found)[:5])
        checked, names, extra = checked + 1, names + len(reference), extra + len(found - reference)
    assert checked > 100
    # what the pattern finds beyond the parser are 'class'/'def' lines inside docstrings and comments: few
    assert extra / names < 0.02


@pytest.mark.parametrize("language, text, names", [
    ("go", "package x\n\nfunc (s *Server) ServeHTTP(w W, r *R) {\n}\n\ntype Router struct {\n}\nfunc New() *Router {\n",
     {"ServeHTTP", "Router", "New"}),
    ("rust", "pub(crate) struct Parser<'a> {\n}\nimpl<'a> Parser<'a> {\n    pub fn parse_args(&self) {}\n}\n"
             "impl Display for Parser<'_> {\n}\nenum Kind { A }\n", {"Parser", "parse_args", "Kind"}),
    ("java", "public final class JSONReader {\n    public static JSONReader of(String s) {\n"
             "        return new JSONReader(s);\n    }\n}\n", {"JSONReader", "of"}),
    ("c", "static int parse_value(const char *s,\n                       size_t n)\n{\n    return helper(s);\n}\n"
          "struct jv_parser {\n};\n", {"parse_value", "jv_parser"}),
    ("cpp", "namespace fmt {\ntemplate <typename T> auto format_to(T out) -> T {\n  return out;\n}\n"
            "class basic_memory_buffer {\n  ~basic_memory_buffer() {\n", {"fmt", "format_to", "basic_memory_buffer"}),
    ("javascript", "export default async function fetchData(url) {\n}\nconst mergeConfig = (a, b) => {\n};\n"
                   "class Axios {\n  request(config) {\n  }\n}\n", {"fetchData", "mergeConfig", "Axios", "request"}),
    ("php", "<?php\nnamespace App;\nfinal class Router\n{\n    public static function &dispatch(Request $r): void\n"
            "    {\n    }\n}\ntrait Loggable {}\nfunction helper() {}\n", {"Router", "dispatch", "Loggable", "helper"}),
    ("ruby", "module Acme\n  class Config::Loader < Base\n    def self.fetch_logger(x)\n    end\n"
             "    def valid?\n    end\n  end\nend\n", {"Acme", "Loader", "fetch_logger", "valid"}),
    ("kotlin", "data class Point(val x: Int)\ninternal suspend fun <T> List<T>.firstOrNone(): T? = null\n"
               "fun <T : Comparable<T>> maxOf(a: T, b: T): T = a\n"
               "object Registry {\n    override fun toString(): String = \"r\"\n}\n",
     {"Point", "firstOrNone", "maxOf", "Registry", "toString"}),
    ("csharp", "namespace Acme.Caching\n{\n    public sealed class MemoryStore\n    {\n"
               "        public async Task<string> EvictAsync(string key)\n        {\n            await LoadAsync(\n"
               "                key);\n            yield return Create(\n        }\n        public int Area(int w) => w * w;\n",
     {"Acme", "MemoryStore", "EvictAsync", "Area"}),
    ("swift", "public struct Parser {\n    @discardableResult\n    public mutating func parse(_ s: String) -> Int {\n"
              "    }\n}\nextension Parser: Codable {}\nclass func make() {}\n", {"Parser", "parse", "make"}),
    ("scala", "sealed trait Shape\ncase class Circle(r: Double) extends Shape\nobject Codec {\n"
              "  private[acme] def encode(s: String): String = s\n}\n", {"Shape", "Circle", "Codec", "encode"}),
])
def test_the_definitions_of_each_language(language: str, text: str, names: set[str]) -> None:
    assert defined_names(text, language) == names


def test_a_definition_whose_name_starts_its_line_is_missed_in_c() -> None:
    # the documented edge: GNU style puts the return type on a line of its own
    assert defined_names("static int\nparse_value(const char *s)\n{\n", "c") == frozenset()


def test_a_language_without_a_pattern_defines_nothing() -> None:
    assert defined_names("def f():\n    pass\n", "kotlin") == frozenset()


def test_a_cache_reads_each_distinct_text_once_per_language_and_bounds_itself() -> None:
    cache = SymbolCache(max_texts=2)
    documents = [("a/x.py", "def f():\n    pass\n"), ("b/x.py", "def f():\n    pass\n"), ("c.py", "class C:\n")]
    assert cache.corpus(documents, "python") == {"a/x.py": {"f"}, "b/x.py": {"f"}, "c.py": {"C"}}
    assert len(cache) == 2
    assert cache.names("def g():\n", "python") == {"g"} and len(cache) == 1  # full: it started again


def test_a_corpus_file_is_read_again_only_when_it_changed(tmp_path: Path) -> None:
    corpus = tmp_path / "corpus.jsonl"
    corpus.write_text(json.dumps({"id": "a.py", "contents": "a.py\ndef alpha():\n"}) + "\n")
    cache = SymbolCache()
    first = cache.corpus_file(corpus, "python")
    assert first == {"a.py": {"alpha"}} and cache.corpus_file(corpus, "python") is first
    corpus.write_text(json.dumps({"id": "a.py", "contents": "a.py\ndef alpha_beta():\n"}) + "\n")
    assert cache.corpus_file(corpus, "python") == {"a.py": {"alpha_beta"}}


def test_a_table_rereads_only_the_files_added_or_changed() -> None:
    texts = {"a.py": "def alpha():\n", "b.py": "def beta():\n", "c.go": "func Gamma() {\n", "d.txt": "def no():\n"}
    read: list[str] = []

    def text_of(path: str) -> str:
        read.append(path)
        return texts[path]

    def language_of(path: str) -> str | None:
        return {".py": "python", ".go": "go"}.get(Path(path).suffix)

    table = SymbolTable()
    assert table.update({"a.py": "1", "b.py": "1", "c.go": "1", "d.txt": "1"}, text_of, language_of) == \
        {"a.py": {"alpha"}, "b.py": {"beta"}, "c.go": {"Gamma"}, "d.txt": frozenset()}
    assert sorted(read) == ["a.py", "b.py", "c.go"]  # a file of no language is never read
    read.clear()
    texts["b.py"] = "def beta2():\n"
    assert table.update({"a.py": "1", "b.py": "2"}, text_of, language_of) == {"a.py": {"alpha"}, "b.py": {"beta2"}}
    assert read == ["b.py"]


def test_every_language_an_instance_set_holds_has_a_definition_pattern() -> None:
    from qlog_pyserini.instances.rules import LANGUAGE_RULES
    from qlog_pyserini.localize.symbols import DEFINITION_STARTS

    assert set(LANGUAGE_RULES) <= set(DEFINITION_STARTS)


def _jdk_sources() -> zipfile.ZipFile:
    from qlog_pyserini.errors import QLogError
    from qlog_pyserini.jvm.toolchain import find_jdk

    try:
        src = find_jdk().home / "lib" / "src.zip"
    except QLogError as e:
        pytest.skip(f"no JDK: {e}")
    if not src.is_file():
        pytest.skip(f"{src} is absent")
    return zipfile.ZipFile(src)


@pytest.mark.jvm  # finding the JDK runs its java
def test_java_names_are_declarations_tree_sitter_finds_in_the_jdk() -> None:
    import tree_sitter as ts
    import tree_sitter_java

    parser = ts.Parser(ts.Language(tree_sitter_java.language()))
    declarations = {"method_declaration", "constructor_declaration", "class_declaration", "interface_declaration",
                    "enum_declaration", "record_declaration", "annotation_type_declaration"}
    with _jdk_sources() as jdk:
        files = sorted(n for n in jdk.namelist() if n.startswith("java.base/java/util/") and n.endswith(".java"))
        assert len(files) > 100
        found = declared = with_body = bodied_found = 0
        for name in files[::4]:
            text = jdk.read(name).decode("utf-8", "replace")
            names, bodied, stack = set(), set(), [parser.parse(text.encode()).root_node]
            while stack:
                node = stack.pop()
                stack.extend(node.children)
                if node.type in declarations and (n := node.child_by_field_name("name")) is not None:
                    names.add(n.text.decode())
                    if node.child_by_field_name("body") is not None:
                        bodied.add(n.text.decode())
            ours = defined_names(text, "java")
            assert ours <= names, (name, sorted(ours - names)[:5])  # every name is a declaration's
            found, declared = found + len(ours), declared + len(names)
            with_body, bodied_found = with_body + len(bodied), bodied_found + len(bodied & ours)
    # what the line pattern misses: bodiless declarations (interfaces, abstract methods: nothing to fix there) and
    # signatures whose type holds '?' or '.' or that start with a type parameter
    assert bodied_found / with_body > 0.9
    assert found / declared > 0.8


def test_a_table_saved_and_loaded_keeps_its_files_and_refuses_what_is_not_one() -> None:
    table = SymbolTable()
    table.update({"a.py": "1", "b.go": "1"}, {"a.py": "class A:\n", "b.go": "func B() {\n"}.get,
                 lambda p: "python" if p.endswith(".py") else "go")
    assert table.changed
    saved = table.to_json()
    assert saved == {"a.py": ["1", ["A"]], "b.go": ["1", ["B"]]}
    again = SymbolTable()
    assert again.load(saved)

    def unread(path: str) -> str:
        raise AssertionError(f"{path} was read again")

    assert again.update({"a.py": "1", "b.go": "1"}, unread, lambda p: "python") == {"a.py": {"A"}, "b.go": {"B"}}
    assert not again.changed
    for bad in (None, [], {"a.py": "1"}, {"a.py": ["1", "A"]}, {"a.py": ["1", [1]]}):
        assert not again.load(bad)
    assert again.to_json() == saved
