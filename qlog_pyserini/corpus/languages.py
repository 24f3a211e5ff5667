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


#: Grammars read only to cut files into units (:mod:`qlog_pyserini.localize.units`); the function corpora keep
#: their six :data:`LANGUAGES`.
UNIT_GRAMMAR_PACKAGES = {
    "c": "tree-sitter-c", "cpp": "tree-sitter-cpp", "rust": "tree-sitter-rust",
    "typescript": "tree-sitter-typescript", "tsx": "tree-sitter-typescript",
    "kotlin": "tree-sitter-kotlin", "csharp": "tree-sitter-c-sharp", "swift": "tree-sitter-swift",
    "scala": "tree-sitter-scala",
}


#: The language whose grammar cuts a file into units, by extension: the function corpora's and
#: :data:`UNIT_GRAMMAR_PACKAGES`'. ``.h`` is read as C++, whose grammar parses C as well.
UNIT_EXTENSIONS = {
    **EXTENSIONS,
    ".jsx": "javascript",
    ".c": "c",
    ".h": "cpp", ".cc": "cpp", ".cpp": "cpp", ".cxx": "cpp", ".c++": "cpp", ".hh": "cpp", ".hpp": "cpp",
    ".hxx": "cpp", ".h++": "cpp", ".ipp": "cpp", ".inl": "cpp",
    ".rs": "rust",
    ".ts": "typescript", ".mts": "typescript", ".cts": "typescript",
    ".tsx": "tsx",
    ".kt": "kotlin", ".cs": "csharp", ".swift": "swift", ".scala": "scala",
}


_JS_FUNCTIONS = """
        (function_declaration) @fn (generator_function_declaration) @fn (method_definition) @fn
        (variable_declarator value: [(function_expression) (arrow_function) (generator_function)]) @fn
        (assignment_expression right: [(function_expression) (arrow_function) (generator_function)]) @fn
        (pair value: [(function_expression) (arrow_function) (generator_function)]) @fn"""
# TypeScript's grammar names JavaScript's class field public_field_definition
_TS_FUNCTIONS = _JS_FUNCTIONS + """
        (public_field_definition value: [(function_expression) (arrow_function) (generator_function)]) @fn"""

_FN_QUERIES = {
    "python": "(function_definition) @fn",
    "go": "(function_declaration) @fn (method_declaration) @fn (comment) @comment",
    "java": """(method_declaration) @fn (constructor_declaration) @fn
               (compact_constructor_declaration) @fn (block_comment) @comment""",
    "ruby": "(method) @fn (singleton_method) @fn (comment) @comment",
    "php": "(function_definition) @fn (method_declaration) @fn (comment) @comment",
    "javascript": _JS_FUNCTIONS + """
        (field_definition value: [(function_expression) (arrow_function) (generator_function)]) @fn
        (comment) @comment""",
    # units only (UNIT_GRAMMAR_PACKAGES): a function with a body; C++'s in a class body or a namespace too
    "c": "(function_definition) @fn",
    "cpp": "(function_definition) @fn",
    "rust": "(function_item) @fn",
    "typescript": _TS_FUNCTIONS,
    "tsx": _TS_FUNCTIONS,
    "kotlin": "(function_declaration) @fn (secondary_constructor) @fn",
    "csharp": """(method_declaration) @fn (constructor_declaration) @fn (destructor_declaration) @fn
                 (operator_declaration) @fn (conversion_operator_declaration) @fn""",
    "swift": "(function_declaration) @fn (init_declaration) @fn (deinit_declaration) @fn",
    "scala": "(function_definition) @fn",
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

        package = {**GRAMMAR_PACKAGES, **UNIT_GRAMMAR_PACKAGES}[language]
        module = importlib.import_module(package.replace("-", "_"))
        # tree-sitter-php and tree-sitter-typescript ship two grammars each; language_php accepts HTML around
        # <?php ... ?>, and TSX is TypeScript with JSX.
        named = {"php": "language_php", "typescript": "language_typescript", "tsx": "language_tsx"}
        lang = ts.Language(getattr(module, named.get(language, "language"))())
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
