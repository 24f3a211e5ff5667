"""docs/rag-libraries.md's examples, run as written and in order, in one namespace (the page's own documents)."""

from __future__ import annotations

import re

import pytest
from conftest import ROOT


def examples() -> list[str]:
    text = (ROOT / "docs" / "rag-libraries.md").read_text(encoding="utf-8")
    return re.findall(r"```python\n(.*?)```", text, flags=re.S)


def test_the_page_has_an_example_per_route():
    joined = "\n".join(examples())
    for name in ("integrations.bm25s", "integrations.rank_bm25", "integrations.llamaindex", "integrations.langchain",
                 "integrations.labelfree"):
        assert name in joined, name


def test_examples_run_as_written(tmp_path, monkeypatch):
    for module in ("bm25s", "rank_bm25", "llama_index.retrievers.bm25", "langchain_community"):
        pytest.importorskip(module)
    monkeypatch.chdir(tmp_path)  # the save example writes code-index/ here
    namespace: dict = {}
    for block in examples():
        exec(compile(block, "docs/rag-libraries.md", "exec"), namespace)
    # what the examples computed: each route ranks the websocket function first for "websocket upgrade"
    texts = namespace["texts"]
    assert namespace["docs"][0][0] == 1
    assert namespace["model"].qlog.q == 1.0  # the last example: the label-free q of three documents is BM25
    assert namespace["nodes"][0].node.text == texts[1]
    assert namespace["documents"][0].page_content == texts[1]
    assert (tmp_path / "code-index" / "qlog.index.json").is_file()
