"""The comment of io.qlog.search.SimpleSearcherAccess says which of Anserini's SimpleSearcher fields it reaches are
protected and which is private: checked against the class in Pyserini's fatjar (javap), so it cannot drift."""

from __future__ import annotations

import re
import subprocess

import pytest
from conftest import ROOT

from qlog_pyserini.jvm.toolchain import find_jdk, pyserini_jar

pytestmark = pytest.mark.jvm  # runs javap

SOURCE = ROOT / "java-similarity/qlog-anserini/src/main/java/io/qlog/search/SimpleSearcherAccess.java"


def _modifiers() -> dict[str, str]:
    """field name -> its access modifier in the fatjar's SimpleSearcher."""
    javap = find_jdk().home / "bin" / "javap"
    out = subprocess.run([str(javap), "-p", "-cp", str(pyserini_jar()), "io.anserini.search.SimpleSearcher"],
                         capture_output=True, text=True, timeout=120, check=True).stdout
    return {m.group(2): m.group(1) for m in re.finditer(r"^\s+(private|protected|public)\s[^(]*?(\w+);$", out, re.M)}


def test_the_comment_names_the_fields_as_anserini_declares_them():
    modifiers = _modifiers()
    text = SOURCE.read_text()
    reached = set(re.findall(r'field\("(\w+)"\)', text)) | set(re.findall(r'getDeclaredField\("(\w+)"\)', text))
    reached.discard("name")  # the helper's own parameter
    comment = " ".join(text.split("public final class")[0].split())
    protected = {f for f in reached if modifiers[f] == "protected"}
    private = {f for f in reached if modifiers[f] == "private"}
    assert protected == {"reader", "similarity", "searcher", "analyzer", "generator", "useRM3", "useRocchio"}
    assert private == {"BREAK_SCORE_TIES_BY_DOCID"}
    assert "are protected fields" in comment and "Only the tie-breaking {@code Sort} is private" in comment
    assert "are private" not in comment
