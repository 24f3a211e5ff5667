"""Which optional install (a ``pip install 'qlog-pyserini[EXTRA]'``) brings which imported package.

The core install is numpy and tqdm: what every library module imports. The rest comes in extras, so a user
of one part (the bm25s integration, ``locate``) installs only what that part imports. A command that meets a
package it lacks fails with one line naming the extra (:func:`missing_extra`, used by ``run_cli``).
"""

from __future__ import annotations

from qlog_pyserini.errors import QLogError

#: The extra that installs each top-level module an optional part imports.
EXTRA_OF_MODULE: dict[str, str] = {
    "jnius": "lucene", "jnius_config": "lucene", "pandas": "lucene", "scipy": "lucene", "requests": "lucene",
    "matplotlib": "lucene", "tree_sitter": "lucene", "tree_sitter_go": "lucene", "tree_sitter_java": "lucene",
    "tree_sitter_javascript": "lucene", "tree_sitter_php": "lucene", "tree_sitter_python": "lucene",
    "tree_sitter_ruby": "lucene", "tree_sitter_c": "lucene", "tree_sitter_cpp": "lucene",
    "tree_sitter_rust": "lucene", "tree_sitter_typescript": "lucene", "tree_sitter_kotlin": "lucene",
    "tree_sitter_c_sharp": "lucene", "tree_sitter_swift": "lucene", "tree_sitter_scala": "lucene", "mcp": "agent",
    "bm25s": "bm25s", "rank_bm25": "rank_bm25",
    "llama_index": "llamaindex", "langchain_community": "langchain", "langchain_core": "langchain",
    "pyterrier": "pyterrier", "ir_datasets": "irds",
}


def extra_of(module: str | None) -> str | None:
    """The extra that installs ``module`` (a dotted name; its top level decides), None if it is not ours to name."""
    return EXTRA_OF_MODULE.get((module or "").split(".")[0])


def missing_extra(module: str, extra: str | None = None) -> QLogError:
    """The one error for an optional package that is not installed, naming the extra that brings it."""
    extra = extra or extra_of(module) or "lucene"
    return QLogError(f"this needs the {module.split('.')[0]!r} package: pip install 'qlog-pyserini[{extra}]' "
                     f"(pip install -e '.[{extra}]' in a checkout)")
