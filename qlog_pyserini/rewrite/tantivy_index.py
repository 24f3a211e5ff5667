"""The rewrite on Tantivy through its official Python package (``pip install tantivy``; embedded, no server).

Tantivy's BM25 is k1 = 1.2, b = 0.75 (fixed), idf = ln(1 + (N - n + 0.5) / (n + 0.5)) with N every document
of the index, deleted ones included until a merge drops them (``total_num_docs`` in Rust, which the Python
package does not expose: ``Searcher.num_docs`` counts live documents only), and n ``Searcher.doc_freq`` (deleted
ones included too). N is read where the BM25 reads it, from a term query's explanation ("N, total number of
docs"). A ``boost_query`` multiplies a term query's score, so a ``boolean_query`` of boosted ``term_query``
clauses scores q-log BM25 with Tantivy's k1 and b.

    >>> import tantivy
    >>> from qlog_pyserini.rewrite.tantivy_index import TantivyRewriter
    >>> r = TantivyRewriter(index, "body", q=0.7)  # doctest: +SKIP
    >>> [(score, address) for score, address in r.search("parse json body", k=10)]  # doctest: +SKIP

Query terms come from a ``tantivy.TextAnalyzer`` that must be the field's tokenizer; by default the
equivalent of Tantivy's ``default`` one (simple tokenizer, tokens over 40 bytes removed, lower case).
"""

from __future__ import annotations

import json
from typing import Any

from qlog_pyserini.errors import QLogError
from qlog_pyserini.formats.trec import Hit
from qlog_pyserini.formula import check_form, check_q
from qlog_pyserini.rewrite.boosts import TermBoost, term_boosts

#: Tantivy's BM25 parameters (tantivy::query::bm25: K1 = 1.2, B = 0.75); not configurable there
TANTIVY_K1 = 1.2
TANTIVY_B = 0.75


def _tantivy() -> Any:
    try:
        import tantivy
    except ImportError:
        raise QLogError("the Tantivy route needs the tantivy package: pip install 'qlog-pyserini[rewrite]'") from None
    return tantivy


def default_analyzer() -> Any:
    """A ``tantivy.TextAnalyzer`` equal to Tantivy's ``default`` tokenizer: simple, remove_long(40), lowercase."""
    t = _tantivy()
    return (t.TextAnalyzerBuilder(t.Tokenizer.simple()).filter(t.Filter.remove_long(40))
            .filter(t.Filter.lowercase()).build())


def tantivy_query(schema: Any, boosts: list[TermBoost]) -> Any:
    """``boolean_query`` of SHOULD ``boost_query(term_query(field, term), boost)``; ``empty_query`` for no terms."""
    t = _tantivy()
    if not boosts:
        return t.Query.empty_query()
    return t.Query.boolean_query([
        (t.Occur.Should, t.Query.boost_query(t.Query.term_query(schema, b.field, b.term), float(b.boost)))
        for b in boosts])


def open_index(path: str) -> Any:
    """The Tantivy index in folder ``path``; :class:`QLogError` when there is none."""
    t = _tantivy()
    if not t.Index.exists(str(path)):
        raise QLogError(f"{str(path)!r} holds no Tantivy index")
    return t.Index.open(str(path))


N_TEXT = "N, total number of docs"  # the node of Tantivy's BM25 explanation that holds its N


def explained_doc_count(explanation: Any) -> int:
    """N as Tantivy's BM25 computed it, from a term query's explanation (``Explanation.to_json()`` parsed)."""
    stack = [explanation]
    while stack:
        node = stack.pop()
        if str(node.get("description", "")).startswith(N_TEXT):
            return int(round(float(node["value"])))
        stack.extend(node.get("details", ()))
    raise QLogError("Tantivy's explanation names no BM25 N: is the field indexed with positions or frequencies?")


def total_doc_count(index: Any, searcher: Any, field: str, term: str) -> int:
    """N of Tantivy's BM25 (every document, deleted ones included), from the explanation of ``term``'s best
    match in ``field``; ``term`` must occur in some document."""
    query = _tantivy().Query.term_query(index.schema, field, term)
    hits = searcher.search(query, 1).hits
    if not hits:
        raise QLogError(f"no document holds {term!r} in {field!r}: Tantivy's N cannot be read from it")
    return explained_doc_count(json.loads(query.explain(searcher, hits[0][1]).to_json()))


class TantivyRewriter:
    """Rewritten queries on one Tantivy index and text field (several fields: call :meth:`boosts` per field).

    A field the schema does not define, or one that is not text, is refused here, not searched empty.
    """

    def __init__(self, index: Any, field: str, q: float, idf_form: str = "lucene", analyzer: Any = None) -> None:
        self.index, self.field = index, field
        self.q, self.idf_form = check_q(q), check_form(idf_form)
        self.analyzer = analyzer if analyzer is not None else default_analyzer()
        try:
            _tantivy().Query.term_query(index.schema, field, "")
        except ValueError as e:
            raise QLogError(f"Tantivy field {field!r}: {e}") from None

    def boosts(self, text: str, searcher: Any | None = None) -> list[TermBoost]:
        """The per-term boosts of ``text`` under ``searcher``'s statistics (a fresh one by default)."""
        searcher = searcher or self.index.searcher()
        if int(searcher.num_docs) < 1:
            raise QLogError("the Tantivy index has no documents")
        terms = [(self.field, token) for token in self.analyzer.analyze(text)]
        df = {key: int(searcher.doc_freq(*key)) for key in dict.fromkeys(terms)}
        present = next((term for (_, term), n in df.items() if n > 0), None)
        # with no term present every clause matches nothing and N is not needed (term_boosts gives weight 0)
        doc_count = {} if present is None else {self.field: total_doc_count(self.index, searcher, self.field, present)}
        return term_boosts(terms, df, doc_count, self.q, self.idf_form)

    def query(self, boosts: list[TermBoost]) -> Any:
        """The Tantivy query of ``boosts`` (absent terms left out: they match nothing)."""
        return tantivy_query(self.index.schema, [b for b in boosts if b.df > 0])

    def search(self, text: str, k: int = 10) -> list[tuple[float, Any]]:
        """Top ``k`` ``(score, DocAddress)`` pairs of the rewritten ``text`` under Tantivy's BM25."""
        searcher = self.index.searcher()
        return list(searcher.search(self.query(self.boosts(text, searcher)), k).hits)

    def hits(self, text: str, k: int, id_field: str = "id") -> list[Hit]:
        """Top ``k`` hits as :class:`Hit` (docid from the stored ``id_field``)."""
        searcher = self.index.searcher()
        found = searcher.search(self.query(self.boosts(text, searcher)), k).hits
        return [Hit(str(searcher.doc(address)[id_field][0]), float(score)) for score, address in found]
