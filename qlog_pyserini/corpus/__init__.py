"""CodeSearchNet-style benchmarks from any source tree: documented functions become queries.

Every function or method that carries a doc comment yields one :class:`Function`: its *query*
is the first paragraph of the doc comment, its *document* the function's code without that
comment. Files are parsed with tree-sitter grammars (never with regular expressions), once each.

What counts as a doc comment, per language
    Go          consecutive ``//`` lines directly above the declaration (``//go:`` style
                directives dropped)
    Java, PHP,  the ``/** ... */`` block directly above the declaration (annotations and
    JavaScript  attributes sit between the comment and the name and are part of the code);
                ``@tags`` end the description, ``{@link X}`` becomes ``X``, HTML tags go
                (Java 23's ``///`` Markdown comments are not read)
    Ruby        consecutive ``#`` lines directly above ``def`` (``@tags`` end the description)
    Python      the docstring (first statement of the body, a plain string literal)

"Directly above" means no blank line in between; a ``//`` or ``#`` line must also begin its own
line (a trailing ``end # comment`` on the line above is a remark, not documentation).

Decisions, so the benchmark has no query text leaking into documents and no junk documents
    * query = first paragraph (up to a blank line, a ``@tag`` line or a Javadoc ``<p>``),
      whitespace collapsed; skipped when it has fewer than 3 words.
    * document = the declaration (decorators, annotations, ``export`` included) with its doc
      comment removed, and with the doc comments of functions nested in it removed too: a
      nested function's code stays in its parent's document, as in CodeSearchNet, but its
      query text must not, or the parent would outrank the nested function on that query.
    * declarations without an implementation are skipped: Java/PHP abstract and interface
      methods, Go functions implemented in assembly, and Python functions whose body is only
      the docstring (Python's abstract or protocol stubs). Their document would be a bare
      signature. Empty bodies (``void f() {}``, ``def f; end``, ``pass``) are kept.
    * anonymous functions (Go func literals, JS callbacks, PHP closures) have no name to
      build an id from and are skipped; JS functions bound by ``const f = ...``,
      ``obj.f = function``, object pairs and class fields are named by their binding.
    * functions whose syntax tree contains a parse error are skipped (their extent is unreliable).
    * the document is dedented by the indentation of its first line.
    * queries are sampled only among functions whose query text (case and spacing aside) no other
      function shares: a shared doc comment has several right answers but one judged relevant.
      Such functions stay in the corpus as documents; the manifest counts them.

Ids are ``<label>/<relative/path>:<Qualified.Name>``, e.g. ``go1.19/net/http/server.go:Server.Serve``
(enclosing classes, modules and functions joined by ``.``; a Go method is ``Receiver.Name``).
A repeated id (overloads) gets ``#2``, ``#3``... in source order. Whitespace in a path is
written as ``%20`` and friends so that ids stay valid TREC identifiers.

Skipped files: tests (``*_test.go``, ``test_*.py``, ``*_test.py``, ``conftest.py``,
``*Test.java``, ``*Tests.java``, ``*Test.php``, ``*_spec.rb``, ``*_test.rb``, ``*.test.js``,
``*.spec.js``, anything under ``test/``, ``tests/``, ``testdata/``, ``spec/``, ``__tests__/``,
``*_test/``, ``*_tests/``), vendored code (``vendor/``, ``_vendor/``, ``node_modules/``,
``third_party/``, and installed packages under ``site-packages/``, ``dist-packages/``), hidden
folders, minified ``*.min.js``, and generated files (``Code generated ... DO NOT EDIT`` or
``@generated`` in the first 4 KiB).
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
