"""Reading an issue report: paths, modules, stack frames and identifiers, in several languages, and the query rule."""

from __future__ import annotations

import pytest

from qlog_pyserini.errors import QLogError
from qlog_pyserini.localize.issue_text import clause_count, is_identifier_shaped, parse_issue, query_terms, reduce_query

PYTHON_ISSUE = '''Writing a FITS table with a masked column raises TypeError
I use `astropy.io.fits` to write a table:

```python
from astropy.table import Table
t = Table(masked=True)
t.write("out.fits")
```

```
Traceback (most recent call last):
  File "/home/ana/venv/lib/python3.11/site-packages/astropy/table/table.py", line 3201, in write
    self._write(filename)
  File "/home/ana/src/astropy/astropy/io/fits/connect.py", line 412, in write_table_fits
    hdu = table_to_hdu(table)
  File "/home/ana/src/astropy/astropy/io/fits/convenience.py", line 577, in table_to_hdu
    raise TypeError("masked")
TypeError: masked
```
The check in `table_to_hdu` looks wrong.
'''

JAVA_ISSUE = '''JSONReader.of fails on nested arrays
Parsing with `com.alibaba.fastjson2.JSONReader` throws:

```
Exception in thread "main" com.alibaba.fastjson2.JSONException: offset 12, char ]
	at com.alibaba.fastjson2.JSONReaderUTF8.readArray(JSONReaderUTF8.java:2310)
	at com.alibaba.fastjson2.reader.ObjectReaderImplList.readObject(ObjectReaderImplList.java:455)
	at java.base/java.lang.Thread.run(Thread.java:833)
Caused by: java.lang.ArrayIndexOutOfBoundsException: 3
	at com.alibaba.fastjson2.util.TypeUtils.cast(TypeUtils.java:99)
	... 4 more
```
'''

JS_ISSUE = '''axios throws on redirect with a relative Location
Stack:
    TypeError: Invalid URL
        at new URL (node:internal/url:775:36)
        at RedirectableRequest._processResponse (/app/node_modules/follow-redirects/index.js:410:22)
        at dispatchHttpRequest (/app/node_modules/axios/lib/adapters/http.js:231:19)
        at async main (file:///app/src/client.mjs:8:3)
'''

GO_ISSUE = '''panic in server on empty header
panic: runtime error: index out of range [0] with length 0

goroutine 17 [running]:
github.com/acme/gate/proxy.(*Handler).ServeHTTP(0xc0001a2000, {0x9a2b40, 0xc000222000})
	/home/ci/go/src/github.com/acme/gate/proxy/handler.go:88 +0x3a5
net/http.serverHandler.ServeHTTP({0xc000194000}, {0x9a2b40, 0xc000222000}, 0xc0001f8000)
	/usr/local/go/src/net/http/server.go:2938 +0x8e
'''

RUST_ISSUE = '''Parser panics on a lone `--`
thread 'main' panicked at clap_builder/src/parser/parser.rs:1321:17:
index out of bounds
stack backtrace:
   0: rust_begin_unwind
             at /rustc/90c541806f23a127002de5b4038be731ba1458ca/library/std/src/panicking.rs:645:5
   1: clap_builder::parser::parser::Parser::get_matches_with
             at ./clap_builder/src/parser/parser.rs:1321:17
   2: clap_builder::builder::command::Command::try_get_matches_from_mut
             at ./clap_builder/src/builder/command.rs:3908:29
'''

C_ISSUE = '''heap overflow in ZSTD_decompressStream with a truncated frame
=================================================================
==4242==ERROR: AddressSanitizer: heap-buffer-overflow on address 0x602000000011
    #0 0x4c2d1e in ZSTD_copy4 /src/zstd/lib/decompress/zstd_decompress_block.c:803:5
    #1 0x4c2f10 in ZSTD_decompressStream /src/zstd/lib/decompress/zstd_decompress.c:1912:17
    #2 0x7f1a2b in __libc_start_main (/lib/x86_64-linux-gnu/libc.so.6+0x29d90)

and under gdb:
#0  ZSTD_copy4 (dst=0x0, src=0x1) at lib/decompress/zstd_decompress_block.c:803
#1  0x000055555556 in FIO_decompressFrame (ress=...) at programs/fileio.c:2210

Building with clang also warns:
programs/util.c:120:9: warning: unused variable 'n'
'''


def _texts(mentions, kind=None, source=None):
    return [m.text for m in mentions.all() if (kind is None or m.kind == kind) and (source is None or m.source == source)]


def test_python_traceback_counts_depth_from_the_raising_frame():
    m = parse_issue(PYTHON_ISSUE)
    frames = [(f.text, f.line, f.depth) for f in m.frames]
    assert frames == [("home/ana/src/astropy/astropy/io/fits/convenience.py", 577, 0),
                      ("home/ana/src/astropy/astropy/io/fits/connect.py", 412, 1),
                      ("home/ana/venv/lib/python3.11/site-packages/astropy/table/table.py", 3201, 2)]
    assert {f.trace for f in m.frames} == {0}
    assert "astropy.io.fits" in _texts(m, "module", "backtick")
    assert "astropy.table" in _texts(m, "module", "code")
    assert {"table_to_hdu", "write_table_fits"} <= set(_texts(m, "identifier", "frame"))
    assert "table_to_hdu" in _texts(m, "identifier", "backtick")


def test_java_trace_gives_package_paths_and_each_cause_its_own_trace():
    m = parse_issue(JAVA_ISSUE)
    frames = [(f.text, f.trace, f.depth) for f in m.frames]
    assert frames == [("com/alibaba/fastjson2/JSONReaderUTF8.java", 0, 0),
                      ("com/alibaba/fastjson2/reader/ObjectReaderImplList.java", 0, 1),
                      ("java/lang/Thread.java", 0, 2),
                      ("com/alibaba/fastjson2/util/TypeUtils.java", 1, 0)]
    assert "com.alibaba.fastjson2.JSONReader" in _texts(m, "module", "backtick")
    assert "JSONReader.of" in _texts(m, "module", "text")
    assert "JSONReader" in _texts(m, "identifier", "text")


def test_javascript_trace_skips_runtime_frames_and_reads_file_urls():
    m = parse_issue(JS_ISSUE)
    assert [f.text for f in m.frames] == ["app/node_modules/follow-redirects/index.js",
                                         "app/node_modules/axios/lib/adapters/http.js", "app/src/client.mjs"]
    assert [f.depth for f in m.frames] == [0, 1, 2]
    assert {"_processResponse", "dispatchHttpRequest"} <= set(_texts(m, "identifier", "frame"))
    assert not [t for t in _texts(m) if "internal" in t]


def test_go_trace_reads_file_lines_and_the_function_above_them():
    m = parse_issue(GO_ISSUE)
    assert [(f.text, f.line) for f in m.frames] == [
        ("home/ci/go/src/github.com/acme/gate/proxy/handler.go", 88), ("usr/local/go/src/net/http/server.go", 2938)]
    assert "ServeHTTP" in _texts(m, "identifier", "frame")


def test_rust_panic_and_backtrace_are_one_trace_starting_at_the_panic():
    m = parse_issue(RUST_ISSUE)
    frames = [(f.text, f.depth) for f in m.frames]
    assert frames[0] == ("clap_builder/src/parser/parser.rs", 0)
    assert ("clap_builder/src/builder/command.rs", 2) in frames or ("clap_builder/src/builder/command.rs", 3) in frames
    assert {f.trace for f in m.frames} == {m.frames[0].trace}
    assert {"get_matches_with", "try_get_matches_from_mut"} <= set(_texts(m, "identifier", "frame"))


def test_c_sanitizer_gdb_and_compiler_lines_are_frames():
    m = parse_issue(C_ISSUE)
    texts = [f.text for f in m.frames]
    assert texts.index("src/zstd/lib/decompress/zstd_decompress_block.c") < texts.index(
        "src/zstd/lib/decompress/zstd_decompress.c")
    assert {"lib/decompress/zstd_decompress_block.c", "programs/fileio.c", "programs/util.c"} <= set(texts)
    assert not [t for t in texts if "libc" in t]
    assert {"ZSTD_copy4", "ZSTD_decompressStream", "FIO_decompressFrame"} <= set(_texts(m, "identifier", "frame"))
    # each syntax its own trace, numbered in text order
    traces = {f.text: f.trace for f in m.frames}
    assert traces["src/zstd/lib/decompress/zstd_decompress.c"] < traces["programs/fileio.c"] < traces["programs/util.c"]


@pytest.mark.parametrize("written, path, line", [
    ("see ./src/core/reader.py for it", "src/core/reader.py", None),
    ("the diff touches a/lib/utils.js and b/lib/utils.js", "lib/utils.js", None),
    ("fails at src/parser/expr.ts:42:7 when", "src/parser/expr.ts", 42),
    ("in C:\\Users\\dev\\proj\\src\\Main.java line 3", "Users/dev/proj/src/Main.java", None),
    ("open /home/u/work/repo/include/zstd.h:10", "home/u/work/repo/include/zstd.h", 10),
    ("https://github.com/org/repo/blob/4f2a9c1/src/x.py#L10 is the line", "src/x.py", 10),
    ("https://raw.githubusercontent.com/org/repo/main/docs/conf.py", "docs/conf.py", None),
    ("https://gitlab.com/org/repo/-/blob/main/pkg/run.go", "pkg/run.go", None),
])
def test_paths_are_normalised(written, path, line):
    m = parse_issue(written)
    found = {(p.text, p.line) for p in m.paths}
    assert (path, line) in found
    assert not [p for p in m.paths if p.text != path and not path.endswith(p.text)]


def test_a_url_that_is_no_repository_file_names_nothing():
    m = parse_issue("Docs at https://example.com/docs/api/index.html and https://github.com/org/repo/issues/12 "
                    "say so; see www.example.org/a/b.php too.")
    assert not m.paths and not m.basenames and not m.modules


def test_bare_file_names_need_a_source_extension():
    m = parse_issue("Edit utils.js and JSONReader.java, not e.g. version 1.5.4 or v2.0 or foo.bar.")
    assert sorted(_texts(m, "basename")) == ["JSONReader.java", "utils.js"]


def test_empty_and_plain_texts_name_nothing():
    assert not parse_issue("")
    plain = parse_issue("The program crashes when I open a large file. Expected it to work. Thanks!")
    assert not plain.paths and not plain.basenames and not plain.modules and not plain.identifiers


def test_identifier_shapes():
    assert all(map(is_identifier_shaped, ["parseObject", "JSONReader", "snake_case", "MAX_SIZE", "getURL"]))
    assert not any(map(is_identifier_shaped, ["Debian", "README", "hello", "_x", "null", "it"]))


def test_code_words_count_when_shaped_or_called_and_a_lone_backtick_name_always():
    m = parse_issue("Title\n```js\nconst value = compute(input);\nlet readerState = makeReader();\n```\n"
                    "Using `zstd` and `--rm`, calling helper() in prose.")
    ids = set(_texts(m, "identifier"))
    assert {"compute", "readerState", "makeReader", "zstd", "helper"} <= ids
    assert not {"value", "input", "const", "rm", "Using", "calling"} & ids


def test_qualified_names_of_every_separator():
    m = parse_issue("`ZSTD_CCtx->params` and `std::vector::push_back` and `a.b.C`")
    assert set(_texts(m, "module")) == {"std::vector::push_back", "a.b.C"}
    assert [q.parts for q in m.modules] == [("std", "vector", "push_back"), ("a", "b", "C")]
    assert {"ZSTD_CCtx", "push_back"} <= set(_texts(m, "identifier"))


def test_names_end_where_prose_in_another_script_begins():
    m = parse_issue("JSONType注解无效: com.acme.writer.WriterProcessor$Inner.getFieldInfo方法 出错")
    assert {"JSONType", "getFieldInfo"} <= set(_texts(m, "identifier"))
    assert _texts(m, "module") == ["com.acme.writer.WriterProcessor$Inner.getFieldInfo"]
    assert m.modules[0].parts == ("com", "acme", "writer", "WriterProcessor", "getFieldInfo")


def test_short_queries_are_unchanged():
    assert reduce_query(JAVA_ISSUE) == JAVA_ISSUE
    assert reduce_query("") == ""


def _long_issue() -> str:
    log = "\n".join(f"2024-05-0{i % 9 + 1}T10:1{i % 10}:00Z worker{i} request id {i * 7919:06d} at 0x7ffe{i:04x} "
                    f"status{i % 13} token{i}" for i in range(400))
    trace = "\n".join(f"    at helper{i} (/srv/app/node_modules/lib{i}/index.js:{i}:1)" for i in range(200))
    return (f"Reader drops rows after parseChunkHeader fails\nCalling `parseChunkHeader` in src/reader/chunk.ts "
            f"returns null.\n```\n{log}\n```\n{trace}\nThe last word is tailword.\n")


def test_long_queries_fit_the_limit_by_the_rule():
    text = _long_issue()
    assert clause_count(text) > 1024
    reduced = reduce_query(text, 300)
    assert clause_count(reduced) <= 300
    first = reduced.split("\n")[0]
    assert first == "Reader drops rows after parseChunkHeader fails"
    assert "src/reader/chunk.ts" in reduced and "node_modules" not in reduced and "0x7ffe" not in reduced
    assert "2024" not in reduced
    # every occurrence of a kept word stays: parseChunkHeader is in the title and in the body
    assert reduced.count("parseChunkHeader") == 2
    # body words are kept in order of first appearance until the limit: early ones in, late ones out
    assert "worker0" in reduced and "tailword" not in reduced


def test_a_bad_clause_limit_is_refused():
    with pytest.raises(QLogError, match="max_clauses"):
        reduce_query("x", 0)


def test_query_terms_cover_the_pieces_of_a_name():
    assert {"jsonreaderutf8", "json", "reader", "utf", "utf8", "8"} <= query_terms("JSONReaderUTF8")
    assert {"1,000", "1", "000"} <= query_terms("1,000")
    assert {"解", "析"} <= query_terms("解析")


ISSUES = [PYTHON_ISSUE, JAVA_ISSUE, JS_ISSUE, GO_ISSUE, RUST_ISSUE, C_ISSUE,
          "解析 JSON 失败: `JSONReader.of(\"[1,000]\")` returns null; it's O'Brien's parse_json_value()"]


@pytest.mark.jvm
@pytest.mark.parametrize("analyzer", ["default", "identifier"])
def test_clause_count_bounds_what_lucene_analyzers_make(analyzer):
    from qlog_pyserini.analysis.analyzers import analyze
    for text in [*ISSUES, _long_issue()]:
        assert len(set(analyze(text, analyzer))) <= clause_count(text)
    reduced = reduce_query(_long_issue(), 300)
    assert len(set(analyze(reduced, analyzer))) <= 300


RUBY_ISSUE = """Crash when the config has no `logger`

```
/app/lib/acme/config/loader.rb:41:in `fetch_logger': undefined method `level' for nil (NoMethodError)
\tfrom /app/lib/acme/config/loader.rb:12:in `block in load'
\tfrom /usr/local/bundle/gems/zeitwerk-2.6.0/lib/zeitwerk/kernel.rb:38:in `require'
\tfrom /app/lib/acme/cli.rb:7:in 'Acme::CLI#run'
```
"""

PHP_ISSUE = """Uncaught error in the router

```
PHP Fatal error:  Uncaught TypeError: count(): Argument #1 must be of type array in /var/www/src/Routing/Router.php:118
Stack trace:
#0 /var/www/src/Http/Kernel.php(64): App\\\\Routing\\\\Router->dispatch(Object(App\\\\Http\\\\Request))
#1 /var/www/vendor/symfony/http-kernel/HttpKernel.php(44): App\\\\Http\\\\Kernel->handle()
#2 {main}
  thrown in /var/www/src/Routing/Router.php on line 118
```
"""

DOTNET_ISSUE = """NullReferenceException when the cache is empty

```
Unhandled exception. System.NullReferenceException: Object reference not set to an instance of an object.
   at Acme.Caching.MemoryStore.Evict(String key) in C:\\\\build\\\\src\\\\Acme.Caching\\\\MemoryStore.cs:line 88
   at Acme.App.Program.Main(String[] args) in /home/ci/src/Acme.App/Program.cs:line 12
```
"""

SWIFT_ISSUE = "Trap on empty input\n\nFatal error: Index out of range: file Sources/Acme/Parser.swift, line 57\n"


def test_ruby_backtrace_starts_at_the_failing_line_and_names_each_method():
    m = parse_issue(RUBY_ISSUE)
    # a file is one mention, at the frame nearest the failure
    assert [(f.text, f.line, f.depth) for f in m.frames] == [
        ("app/lib/acme/config/loader.rb", 41, 0),
        ("usr/local/bundle/gems/zeitwerk-2.6.0/lib/zeitwerk/kernel.rb", 38, 2), ("app/lib/acme/cli.rb", 7, 3)]
    assert {f.trace for f in m.frames} == {0}
    assert {"fetch_logger", "load", "run"} <= set(_texts(m, "identifier", "frame"))


def test_php_error_and_stack_trace_are_one_trace_from_the_error():
    m = parse_issue(PHP_ISSUE)
    frames = [(f.text, f.line, f.depth) for f in m.frames]
    assert frames[:3] == [("var/www/src/Routing/Router.php", 118, 0), ("var/www/src/Http/Kernel.php", 64, 1),
                          ("var/www/vendor/symfony/http-kernel/HttpKernel.php", 44, 2)]
    assert {f.trace for f in m.frames} == {0}
    assert {"dispatch", "handle"} <= set(_texts(m, "identifier", "frame"))


def test_dotnet_frames_read_windows_and_posix_paths():
    m = parse_issue(DOTNET_ISSUE)
    assert [(f.text, f.line, f.depth) for f in m.frames] == [
        ("build/src/Acme.Caching/MemoryStore.cs", 88, 0), ("home/ci/src/Acme.App/Program.cs", 12, 1)]
    assert {"Evict", "Main"} <= set(_texts(m, "identifier", "frame"))


def test_swift_trap_names_its_file():
    m = parse_issue(SWIFT_ISSUE)
    assert [(f.text, f.line) for f in m.frames] == [("Sources/Acme/Parser.swift", 57)]


def test_library_frames_of_gems_and_composer_packages_leave_the_reduced_query():
    text = RUBY_ISSUE + PHP_ISSUE
    lines = reduce_query(text, clause_count(text) - 1).split("\n")
    assert not [line for line in lines if "/gems/" in line or "/vendor/" in line]
    assert any("loader.rb" in line for line in lines) and any("Kernel.php" in line for line in lines)


def test_frames_of_ruby_top_levels_new_swift_traps_and_windows_php_paths():
    m = parse_issue("Crash\n```\nfrom /app/spec/foo_spec.rb:3:in `block (2 levels) in <top (required)>'\n"
                    "/app/lib/a.rb:9:in `<main>'\n```\n\nSources/App/Foo.swift:12: Fatal error: Index out of range\n\n"
                    "PHP Warning: Undefined index in C:\\xampp\\htdocs\\app\\Form.php:5\n")
    assert [(f.text, f.line) for f in m.frames] == [("app/spec/foo_spec.rb", 3), ("app/lib/a.rb", 9),
                                                    ("Sources/App/Foo.swift", 12), ("xampp/htdocs/app/Form.php", 5)]
    # a pseudo-method such as <main> or <top (required)> names no function
    assert not {"main", "top", "required"} & set(_texts(m, "identifier", "frame"))
