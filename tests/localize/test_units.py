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
    units = file_units("src/x.c", text)
    assert all(u.kind == "window" for u in units)
    assert [(u.start, u.end) for u in units] == [(1, 50), (26, 75), (51, 100), (76, 125), (101, 130)]
    assert all(u.end - u.start + 1 <= WINDOW for u in units) and units[1].start - units[0].start == STRIDE
    assert [(u.start, u.end) for u in file_units("x.c", "one line")] == [(1, 1)]


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
