"""A file's units (functions, the lines between them, windows) and the path field's words."""

from __future__ import annotations

from qlog_pyserini.localize.paths import path_text, path_words
from qlog_pyserini.localize.units import STRIDE, WINDOW, file_units, unit_documents, unit_path

JAVA = """package a;

import java.util.List;

public class Parser {
    private int depth;

    public Parser() {
        depth = 0;
    }

    int parse(String s) {
        Runnable r = new Runnable() {
            public void run() { depth++; }
        };
        return s.length();
    }
}
"""


def test_java_functions_and_the_lines_between_them():
    units = file_units("src/a/Parser.java", JAVA)
    functions = [(u.start, u.end) for u in units if u.kind == "function"]
    # the constructor and parse; run() is inside parse and stays in its unit
    assert functions == [(8, 10), (12, 17)]
    rest = [(u.start, u.end) for u in units if u.kind == "rest"]
    assert rest == [(1, 7), (11, 11), (18, 18)]
    covered = sorted(line for u in units for line in range(u.start, u.end + 1))
    assert covered == list(range(1, JAVA.count("\n") + 1))  # the text ends with a newline: no empty last line


def test_windows_without_a_grammar_cover_every_line_and_overlap_by_half():
    text = "\n".join(f"int x{i};" for i in range(1, 131))
    units = file_units("src/x.zig", text)  # no grammar is installed for Zig
    assert all(u.kind == "window" for u in units)
    assert [(u.start, u.end) for u in units] == [(1, 50), (26, 75), (51, 100), (76, 125), (101, 130)]
    assert all(u.end - u.start + 1 <= WINDOW for u in units) and units[1].start - units[0].start == STRIDE
    assert [(u.start, u.end) for u in file_units("x.zig", "one line")] == [(1, 1)]


C_SOURCE = """#include <stdio.h>

struct point { int x; int y; };
int add(int a, int b);

static int
add(int a,
    int b)
{
    return a + b;
}

int main(void) { return add(1, 2); }
"""

CPP_HEADER = """#pragma once
namespace fmt {
template <typename T>
class buffer {
 public:
  void push_back(const T& value) {
    grow(size_ + 1);
  }
  void grow(size_t n);
};

template <typename T>
void buffer<T>::grow(size_t n) {
  capacity_ = n;
}
}  // namespace fmt
"""

RUST_SOURCE = """use std::fmt;

pub struct Walker { depth: usize }

impl Walker {
    pub fn new() -> Self {
        fn helper() -> usize { 0 }
        Walker { depth: helper() }
    }

    fn step(&mut self) {
        self.depth += 1;
    }
}

trait Visit {
    fn visit(&self);
    fn done(&self) -> bool { true }
}
"""

TS_SOURCE = """export interface Options { depth: number }

export class Resolver {
  private cache = new Map<string, string>();
  resolve(name: string): string {
    return this.cache.get(name) ?? name;
  }
  clear = (): void => {
    this.cache.clear();
  };
}

export function create<T>(opts: Options): Resolver {
  return new Resolver();
}
"""

TSX_SOURCE = """import React from "react";

export const Badge = ({ label }: { label: string }) => {
  return <span className="badge">{label}</span>;
};
"""


def _functions(path: str, text: str) -> list[tuple[int, int]]:
    return [(u.start, u.end) for u in file_units(path, text) if u.kind == "function"]


def test_c_cpp_rust_and_typescript_units_are_their_functions():
    # a prototype, a struct and an interface have no body: they stay in the lines between functions
    assert _functions("lib/add.c", C_SOURCE) == [(6, 11), (13, 13)]
    # C++: a method defined in its class body and one defined out of it (the template line stays outside); a
    # .h header is read as C++
    assert _functions("include/fmt/core.h", CPP_HEADER) == [(6, 8), (13, 15)]
    assert _functions("include/fmt/core.hpp", CPP_HEADER) == _functions("include/fmt/core.h", CPP_HEADER)
    # Rust: methods of an impl block, the helper nested in new() staying in its unit, a trait's default method
    assert _functions("src/walk.rs", RUST_SOURCE) == [(6, 9), (11, 13), (18, 18)]
    assert _functions("src/resolve.ts", TS_SOURCE) == [(5, 7), (8, 10), (13, 15)]
    assert _functions("src/Badge.tsx", TSX_SOURCE) == [(3, 5)]
    for path, text in (("lib/add.c", C_SOURCE), ("src/walk.rs", RUST_SOURCE), ("src/resolve.ts", TS_SOURCE)):
        units = file_units(path, text)
        covered = sorted(line for u in units for line in range(u.start, u.end + 1))
        assert covered == list(range(1, text.count("\n") + 1))  # every line in exactly one unit


def test_long_stretches_outside_functions_are_cut_into_windows():
    text = "\n".join(f"X{i} = {i}" for i in range(120)) + "\ndef f():\n    return 1\n"
    units = file_units("m.py", text)
    assert [(u.start, u.end, u.kind) for u in units] == [
        (1, 50, "rest"), (51, 100, "rest"), (101, 120, "rest"), (121, 122, "function")]


def test_unit_documents_carry_the_path_and_skip_blank_units():
    docs = dict(unit_documents("src/a/Parser.java", JAVA))
    assert "src/a/Parser.java#12-17" in docs
    assert docs["src/a/Parser.java#8-10"] == "src/a/Parser.java\n" + "\n".join(JAVA.split("\n")[7:10])
    blank = "src/a/B.java#3-3"
    assert blank not in dict(unit_documents("src/a/B.java", "class B {\n  void f() {}\n\n  void g() {}\n}\n"))
    assert unit_path("src/a/Parser.java#12-17") == "src/a/Parser.java" and unit_path("plain.c") == "plain.c"


def test_path_words_split_separators_and_case():
    assert path_words("lib/HTTPServer2/parse_json-value.ts") == [
        "lib", "HTTPServer2", "HTTP", "Server", "2", "parse", "json", "value", "ts"]
    assert path_text("a/FooBar.java") == "a/FooBar.java a FooBar Foo Bar java"


def test_every_source_extension_prepare_indexes_is_cut_by_its_languages_grammar():
    # the grammar table is written beside prepare's rules, not derived from them: this keeps the two in step
    from qlog_pyserini.corpus.languages import UNIT_EXTENSIONS
    from qlog_pyserini.instances.rules import LANGUAGE_RULES

    shared = {".h": "cpp", ".tsx": "tsx"}  # .h is C's and C++'s (C++'s grammar parses C); TSX has its own
    for language, rules in LANGUAGE_RULES.items():
        for extension in rules.extensions:
            assert UNIT_EXTENSIONS[extension] == shared.get(extension, language), extension


KOTLIN_SOURCE = """package acme

class Cache(val size: Int) {
    constructor() : this(16)

    fun get(key: String): String? {
        fun norm(k: String) = k.lowercase()
        return map[norm(key)]
    }
}

fun main() = println(Cache().size)
"""

CSHARP_SOURCE = """namespace Acme.Caching
{
    public class MemoryStore
    {
        public MemoryStore() { }
        ~MemoryStore() { }

        public string Evict(string key)
        {
            return key;
        }

        public int Count { get { return 0; } }
        public static MemoryStore operator +(MemoryStore a, MemoryStore b) => a;
    }
}
"""

SWIFT_SOURCE = """import Foundation

final class Parser {
    init() {}
    deinit {}

    func parse(_ s: String) -> Int {
        return s.count
    }
}

func helper() -> Int { 1 }
"""

SCALA_SOURCE = """package acme

object Codec {
  def encode(s: String): String = {
    s.reverse
  }
  def decode(s: String): String
}

class Box { def open = 1 }
"""


def test_kotlin_csharp_swift_and_scala_units_are_their_functions():
    # Kotlin: a secondary constructor, a method with a local function (staying in its unit), a top-level function
    assert _functions("src/main/kotlin/acme/Cache.kt", KOTLIN_SOURCE) == [(4, 4), (6, 9), (12, 12)]
    # C#: constructor, destructor, method and operator; a property stays in the lines between them
    assert _functions("src/Acme.Caching/MemoryStore.cs", CSHARP_SOURCE) == [(5, 5), (6, 6), (8, 11), (14, 14)]
    # Swift: init, deinit, a method and a top-level function
    assert _functions("Sources/Acme/Parser.swift", SWIFT_SOURCE) == [(4, 4), (5, 5), (7, 9), (12, 12)]
    # Scala: a definition with a body; an abstract declaration has none
    assert _functions("src/main/scala/acme/Codec.scala", SCALA_SOURCE) == [(4, 6), (10, 10)]
    for path, text in (("a/Cache.kt", KOTLIN_SOURCE), ("a/MemoryStore.cs", CSHARP_SOURCE),
                       ("a/Parser.swift", SWIFT_SOURCE), ("a/Codec.scala", SCALA_SOURCE)):
        units = file_units(path, text)
        covered = sorted(line for u in units for line in range(u.start, u.end + 1))
        assert covered == list(range(1, text.count("\n") + 1))
