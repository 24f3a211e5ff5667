"""CodeSearchNet-style benchmarks from any source tree: documented functions become queries.

Every function or method that carries a doc comment yields one :class:`Function`: its *query*
is the first paragraph of the doc comment, its *document* the function's code without that
comment (nor the doc comments of functions nested in it). Files are parsed with tree-sitter
grammars (never with regular expressions), once each; tests, vendored, generated and minified
files are skipped. Ids are ``<label>/<relative/path>:<Qualified.Name>``, e.g.
``go1.19/net/http/server.go:Server.Serve``.

What counts as a doc comment in each language, which functions and files are skipped and why:
docs/own-code.md ("What the builder extracts").
"""

from qlog_pyserini.corpus.build import build_benchmark
from qlog_pyserini.corpus.extract import (
    EXTRACTOR_VERSION,
    Function,
    default_label,
    extract_functions,
    extract_source,
    normalised_hash,
)
from qlog_pyserini.corpus.languages import EXTENSIONS, GRAMMAR_PACKAGES, LANGUAGES

__all__ = ["EXTENSIONS", "EXTRACTOR_VERSION", "GRAMMAR_PACKAGES", "LANGUAGES", "Function", "build_benchmark", "default_label",
           "extract_functions", "extract_source", "normalised_hash"]
