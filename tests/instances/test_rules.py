"""The file rules: one table in code, quoted verbatim in the docs, applied in the documented order."""

from __future__ import annotations

import pytest
from conftest import ROOT  # noqa: F401  (tests/conftest.py: the project root)

from qlog_pyserini.errors import QLogError
from qlog_pyserini.instances.rules import LANGUAGE_RULES, REASONS, FileRules, content_reason, corpus_key, rules_table


def test_docs_quote_the_rules_table_verbatim():
    docs = (ROOT / "docs" / "cli.md").read_text(encoding="utf-8")
    assert rules_table() in docs


@pytest.mark.parametrize("language,path,reason", [
    ("python", "pkg/mod.py", None), ("python", "pkg/tests/helpers.py", "test"), ("python", "pkg/test_mod.py", "test"),
    ("python", "conftest.py", "test"), ("python", "venv/lib/x.py", "vendored"), ("python", "pkg/mod_pb2.py",
                                                                                  "generated-name"),
    ("java", "core/src/main/java/a/B.java", None), ("java", "core/src/test/java/a/BTest.java", "test"),
    ("java", "src/main/java/a/BIT.java", "test"), ("java", "src/main/java/a/TestUtils.java", "test"),
    ("javascript", "lib/a.js", None), ("javascript", "lib/a.spec.js", "test"), ("javascript", "dist/a.js", "vendored"),
    ("javascript", "lib/a.min.js", "generated-name"), ("javascript", "lib/__tests__/a.js", "test"),
    ("javascript", "node_modules/x/a.js", "vendored"), ("javascript", "lib/a.ts", "other-language"),
    ("typescript", "src/a.tsx", None), ("typescript", "types/index.d.ts", None),
    ("go", "pkg/a.go", None), ("go", "pkg/a_test.go", "test"), ("go", "pkg/testdata/a.go", "test"),
    ("go", "vendor/x/a.go", "vendored"), ("go", "api/a.pb.go", "generated-name"),
    ("rust", "src/lib.rs", None), ("rust", "tests/it.rs", "test"), ("rust", "target/debug/a.rs", "vendored"),
    ("c", "lib/zstd.h", None), ("c", "src/jq_test.c", "test"), ("c", "third_party/x.c", "vendored"),
    ("cpp", "src/a.cc", None), ("cpp", "src/a_unittest.cc", "test"), ("cpp", "src/a.h", None),
    ("python", "build/lib/pkg/a.py", "vendored"), ("python", "pkg/build/jar.py", None),
    ("javascript", "packages/x/dist/a.js", "vendored"), ("java", "m/src/main/java/org/x/build/B.java", None),
    ("python", ".github/a.py", "hidden-folder"), ("python", "a b.py", "whitespace-in-path"),
    ("cpp", "single_include/nlohmann/json.hpp", "amalgamation"), ("cpp", "singleheader/simdjson.h", "amalgamation"),
    ("c", "contrib/single_file_libs/zstd.c", "amalgamation"), ("c", "dist/sqlite_amalgamated.c", "vendored"),
    ("c", "lib/x_amalgamated.c", "amalgamation"), ("javascript", "src/bundle-amalgamated.js", "amalgamation"),
    ("cpp", "include/nlohmann/json.hpp", None),
    ("php", "src/Symfony/Component/Yaml/Parser.php", None), ("php", "src/Symfony/Component/Yaml/Tests/P.php", "test"),
    ("php", "tests/Unit/ParserTest.php", "test"), ("php", "vendor/acme/lib/A.php", "vendored"),
    ("ruby", "lib/rubocop/cop/base.rb", None), ("ruby", "spec/rubocop/cop/base_spec.rb", "test"),
    ("ruby", "test/test_helper.rb", "test"), ("ruby", "pkg/acme-1.0/lib/a.rb", "vendored"),
    ("kotlin", "core/src/main/kotlin/a/Cache.kt", None), ("kotlin", "core/src/commonTest/kotlin/a/C.kt", "test"),
    ("kotlin", "core/src/main/kotlin/a/CacheTest.kt", "test"), ("kotlin", "build.gradle.kts", "other-language"),
    ("csharp", "src/Acme.Caching/MemoryStore.cs", None), ("csharp", "src/Acme.Caching.Tests/Helpers.cs", "test"),
    ("csharp", "src/Acme/obj/Debug/AssemblyInfo.cs", "vendored"), ("csharp", "src/Acme/Form1.Designer.cs",
                                                                     "generated-name"),
    ("swift", "Sources/Acme/Parser.swift", None), ("swift", "Tests/AcmeTests/ParserTests.swift", "test"),
    ("swift", "Pods/Alamofire/Source/Session.swift", "vendored"),
    ("scala", "modules/core/src/main/scala/a/Codec.scala", None), ("scala", "src/test/scala/a/CodecSpec.scala", "test"),
    ("scala", "src/main/scala/it/unimi/dsi/Foo.scala", None), ("scala", "src/main/scala/org/scalatest/Suite.scala", None),
    ("scala", "target/scala-3/src_managed/a.scala", "vendored"),
    ("kotlin", "animation/src/commonMain/kotlin/AnimationSpec.kt", None),
    ("php", "src/Illuminate/Foundation/Testing/TestCase.php", None),
])
def test_path_rules(language, path, reason):
    assert FileRules((language,)).path_reason(path, "100644", 10) == reason


def test_modes_size_cap_and_order():
    rules = FileRules(("python",))
    assert rules.path_reason("a.py", "120000", 10) == "symlink"
    assert rules.path_reason("a.py", "160000", 0) == "submodule"
    assert rules.path_reason("a.py", "100644", None) == "blob-missing"
    cap = LANGUAGE_RULES["python"].max_bytes
    assert rules.path_reason("a.py", "100644", cap) is None
    assert rules.path_reason("a.py", "100644", cap + 1) == "too-large"
    assert FileRules(("python",), max_bytes=100).path_reason("a.py", "100644", 101) == "too-large"
    # the first rule that matches is the reason: a vendored test is vendored
    assert rules.path_reason("vendor/tests/a.py", "100644", 10) == "vendored"
    assert list(REASONS).index("vendored") < list(REASONS).index("test")


def test_content_rules():
    assert content_reason(b"int main() { return 0; }\n") is None
    assert content_reason(b"abc\0def") == "binary"
    assert content_reason(b"x" * 9000 + b"\0") is None  # git looks at the first 8000 bytes only
    assert content_reason(b"// Code generated by stringer. DO NOT EDIT.\npackage a\n") == "generated-marker"
    # Go's marker is its exact line; other words count only in the comment that opens a file (below)
    assert content_reason(b"package a\n// This code generated nothing. DO NOT EDIT.\n") is None


@pytest.mark.parametrize("head", [
    b"// ====\n// == DO NOT MODIFY THIS FILE BY HAND - IT IS AUTO GENERATED! ==\n// ====\n#pragma once\n",
    b"//---\n// toml++ v3\n// THIS FILE WAS ASSEMBLED FROM MULTIPLE HEADER FILES BY A SCRIPT - PLEASE DON'T EDIT IT"
    b" DIRECTLY\n#pragma once\n",
    b"/*\n * This file is automatically generated.\n * Do not edit.\n */\npackage a;\n",
    b"// <auto-generated>\n//     This code was generated by a tool.\n// </auto-generated>\nnamespace A { }\n",
    b"<?php\n/**\n * Generated by the protocol buffer compiler.  DO NOT EDIT!\n */\nnamespace A;\n",
    b"#!/usr/bin/env python\n# -*- coding: utf-8 -*-\n# Generated by gen.py. Do not edit.\nimport a\n",
    b'"""Mixin classes."""\n\n# This file was generated using gen_ops. Do not edit manually.\nimport a\n',
    b"\xef\xbb\xbf// <auto-generated />\nusing System;\n",  # Visual Studio writes a byte-order mark
    b"// Generated by gen.py. DON\xe2\x80\x99T EDIT.\nint a;\n",
])
def test_files_whose_opening_comment_says_they_are_generated(head):
    assert content_reason(head + b"int body;\n" * 50) == "generated-marker"


@pytest.mark.parametrize("head", [
    # the generator itself holds the line in a string, after its first line of code
    b'import os\nHEADER = """// DO NOT MODIFY THIS FILE BY HAND - IT IS AUTO GENERATED"""\n',
    b"#include <a.h>\n// DO NOT EDIT this file by hand\n",
    # a licence's words and an instruction about something else
    b"// Copyright Acme\n// You may not modify this file except under the licence.\n#include <a.h>\n",
    b"// Do not edit the order of these entries.\nint a;\n",
    b"// This file is generated by nobody; edit it freely.\nint a;\n",
    b"// Helpers in this file never modify their arguments.\nint a;\n",
    b"# Functions here don't modify the input directly; copy it first.\nimport a\n",
    # a generator's docstring speaks of its output; a preprocessor line ends the opening, with a space or not
    b'"""Generator for parser tables.\n\nThe output is generated from grammar.txt; do not edit it by hand.\n"""\n',
    b"/* config */\n# define FOO 1\n/* Generated by configure. Do not edit. */\n",
])
def test_files_that_do_not_say_so_are_kept(head):
    assert content_reason(head) is None


def test_header_files_go_to_the_first_language_asked():
    assert FileRules(("c", "cpp")).language_of("a.h").language == "c"
    assert FileRules(("cpp", "c")).language_of("a.h").language == "cpp"


def test_corpus_key_depends_on_tree_and_rules():
    tree = "1" * 40
    assert corpus_key(tree, FileRules(("java",))) == corpus_key(tree, FileRules(("java",)))
    assert corpus_key(tree, FileRules(("java",))) != corpus_key("2" * 40, FileRules(("java",)))
    assert corpus_key(tree, FileRules(("java",))) != corpus_key(tree, FileRules(("java", "c")))
    assert corpus_key(tree, FileRules(("java",))) != corpus_key(tree, FileRules(("java",), max_bytes=10))


def test_bad_languages():
    with pytest.raises(QLogError, match="unknown language 'cobol'"):
        FileRules(("cobol",))
    with pytest.raises(QLogError, match="twice"):
        FileRules(("c", "c"))
