"""Per-language grammar tables: file extensions, tree-sitter grammars and the queries that find
functions and comments, the node types that are functions and the scopes that qualify names."""

from __future__ import annotations

import importlib
import importlib.metadata
from typing import Any

LANGUAGES = ("go", "java", "javascript", "php", "python", "ruby")


EXTENSIONS = {
    ".go": "go",
    ".java": "java",
    ".js": "javascript", ".mjs": "javascript", ".cjs": "javascript",
    ".php": "php",
    ".py": "python",
    ".rb": "ruby",
}


#: PyPI distributions whose versions go into the manifest (they decide what gets parsed).
GRAMMAR_PACKAGES = {
    "go": "tree-sitter-go", "java": "tree-sitter-java", "javascript": "tree-sitter-javascript",
    "php": "tree-sitter-php", "python": "tree-sitter-python", "ruby": "tree-sitter-ruby",
}


_FN_QUERIES = {
    "python": "(function_definition) @fn",
    "go": "(function_declaration) @fn (method_declaration) @fn (comment) @comment",
    "java": """(method_declaration) @fn (constructor_declaration) @fn
               (compact_constructor_declaration) @fn (block_comment) @comment""",
    "ruby": "(method) @fn (singleton_method) @fn (comment) @comment",
    "php": "(function_definition) @fn (method_declaration) @fn (comment) @comment",
    "javascript": """
        (function_declaration) @fn (generator_function_declaration) @fn (method_definition) @fn
        (variable_declarator value: [(function_expression) (arrow_function) (generator_function)]) @fn
        (assignment_expression right: [(function_expression) (arrow_function) (generator_function)]) @fn
        (pair value: [(function_expression) (arrow_function) (generator_function)]) @fn
        (field_definition value: [(function_expression) (arrow_function) (generator_function)]) @fn
        (comment) @comment""",
}


# Ancestors that add their name to a qualified name, besides enclosing functions.
SCOPES = {
    "python": {"class_definition"},
    "go": set(),
    "java": {"class_declaration", "interface_declaration", "enum_declaration", "record_declaration",
             "annotation_type_declaration"},
    "ruby": {"class", "module"},
    "php": {"class_declaration", "interface_declaration", "trait_declaration", "enum_declaration"},
    "javascript": {"class_declaration", "class"},
}


_JS_FUNCTION_VALUES = {"function_expression", "arrow_function", "generator_function"}


JS_SCOPE_VALUES = _JS_FUNCTION_VALUES | {"object", "class"}


_GRAMMARS: dict[str, tuple[Any, Any]] = {}  # language -> (Parser, Query), built once per process


def grammar(language: str) -> tuple[Any, Any]:
    if language not in _GRAMMARS:
        import tree_sitter as ts

        module = importlib.import_module(GRAMMAR_PACKAGES[language].replace("-", "_"))
        # tree-sitter-php ships two grammars; language_php accepts HTML around <?php ... ?>.
        lang = ts.Language(module.language_php() if language == "php" else module.language())
        _GRAMMARS[language] = (ts.Parser(lang), ts.Query(lang, _FN_QUERIES[language]))
    return _GRAMMARS[language]


FUNCTION_TYPES = {
    "python": {"function_definition"},
    "go": {"function_declaration", "method_declaration"},
    "java": {"method_declaration", "constructor_declaration", "compact_constructor_declaration"},
    "ruby": {"method", "singleton_method"},
    "php": {"function_definition", "method_declaration"},
    "javascript": {"function_declaration", "generator_function_declaration", "method_definition",
                   "variable_declarator", "assignment_expression", "pair", "field_definition"},
}
