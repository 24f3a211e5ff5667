"""The rewrite on a server: Elasticsearch, OpenSearch and Solr, no plugin, and on Elasticsearch and OpenSearch
only what a read-only role may call (the ``read`` index privilege: ``indices:data/read/*``).

For each query the engine is asked three things, all with its stock search APIs:

- the field's query tokens as its ``search_analyzer`` makes them: a ``term`` suggester on the text
  (``_search`` with ``size: 0``; the suggester analyzes with the field's search analyzer and names every token
  in its entries, in order, repeats kept). Solr: the field analysis handler ``/COLLECTION/analysis/field``
  (its query-time chain);
- each distinct token's statistics as the engine scores with them: one ``term`` query per token with
  ``explain``, under ``search_type=dfs_query_then_fetch``, in one ``_msearch`` (the dfs phase sums docFreq and
  docCount over every shard), or ``{!term}`` with ``debug=results`` (Solr; global across shards under
  SolrCloud's ExactStatsCache); n and N are read from the explanation's "n, number of documents containing
  term" and "N, total number of documents with field", the very numbers BM25's idf is computed from. A token
  no document holds has no hit: n = 0, and it is left out of the query (it matches nothing);
- the query (:meth:`HttpRewriter.to_query`): ``bool`` of boosted ``term`` clauses with
  ``minimum_should_match: 1``, so a caller's ``filter`` beside it narrows the match and never loosens it, sent
  with ``dfs_query_then_fetch``; Solr: boosted ``{!term}`` clauses.

Statistics and search go with one ``preference`` value, so every request of a rewriter reads the same shard
copies (replicas can differ in their deleted documents, and so in n and N). Statistics are cached per
(field, term), bounded and expiring (:class:`~qlog_pyserini.rewrite.transport.StatisticsCache`).

Deleted documents: every engine's docFreq and docCount still count a deleted document until a merge drops
its segment, so the boosts (read from the same statistics) follow whatever the engine's own BM25 uses.
"""

from __future__ import annotations

import json
import secrets
from typing import Any, Iterator, Sequence

import requests

from qlog_pyserini.errors import QLogError
from qlog_pyserini.formats.trec import Hit
from qlog_pyserini.formula import check_form, check_q
from qlog_pyserini.rewrite.boosts import TermBoost, term_boosts
from qlog_pyserini.rewrite.transport import ClientTransport, SessionTransport, StatisticsCache

ENGINES = ("elasticsearch", "opensearch", "solr")
N_TEXT = "n, number of documents containing term"
DOC_COUNT_TEXT = "N, total number of documents with field"


def _walk(node: Any) -> Iterator[dict]:
    if isinstance(node, dict):
        yield node
        for child in node.get("details", ()):
            yield from _walk(child)


def explained_statistics(explanation: dict) -> tuple[int, int]:
    """(n, N) from a BM25 explanation tree (Lucene's, as every Lucene engine returns it as JSON)."""
    values = {}
    for node in _walk(explanation):
        description = str(node.get("description", ""))
        for key in (N_TEXT, DOC_COUNT_TEXT):
            if description.startswith(key):
                values[key] = int(round(float(node["value"])))
    if len(values) != 2:
        raise QLogError("the engine's explanation names no BM25 n and N: is the field scored with BM25?")
    return values[N_TEXT], values[DOC_COUNT_TEXT]


def elasticsearch_query(boosts: Sequence[TermBoost]) -> dict:
    """The query: ``bool`` of boosted ``term`` queries, at least one of which must match
    (``minimum_should_match: 1``), or ``match_none`` when no term matches anything.

    ``minimum_should_match`` keeps the query's match when a caller adds ``filter`` (or ``must``) clauses to this
    ``bool`` or wraps it in their own ``bool`` as a ``must`` clause: a ``bool`` with a ``filter`` and no explicit
    minimum makes its ``should`` clauses optional (every filtered document would match with score 0). Scores are
    the same as without it: the sum of the matching clauses. Send it with ``search_type=dfs_query_then_fetch``,
    the boosts having been computed from global statistics.
    """
    clauses = [{"term": {b.field: {"value": b.term, "boost": b.boost}}} for b in boosts if b.df > 0]
    return {"bool": {"should": clauses, "minimum_should_match": 1}} if clauses else {"match_none": {}}


def solr_query(boosts: Sequence[TermBoost]) -> dict[str, str]:
    """Solr request parameters: ``q`` of SHOULD clauses ``_query_:"{!term f=FIELD v=$tN}"^boost`` and ``tN`` the
    tokens (``-*:*`` when none match).

    Each token goes through the ``term`` parser, not ``FIELD:token``: the standard parser would analyze the
    already-analyzed token again (Porter stemming a stem can change it). Parameter dereferencing (``v=$tN``) keeps
    every character of the token out of the query syntax.
    """
    params: dict[str, str] = {}
    clauses = []
    for b in boosts:
        if b.df > 0:
            name = f"t{len(clauses)}"
            params[name] = b.term
            clauses.append(f'_query_:"{{!term f={b.field} v=${name}}}"^{b.boost:.9f}')
    params["q"] = "{!lucene q.op=OR}" + (" ".join(clauses) if clauses else "-*:*")
    return params


class HttpRewriter:
    """Rewritten queries on one Elasticsearch/OpenSearch index or Solr collection.

    Build it from the client the application already has, so authentication and TLS are its own:
    :meth:`from_client` (``elasticsearch.Elasticsearch``, ``opensearchpy.OpenSearch``) or :meth:`from_url`
    (a base URL and a ``requests.Session``; Solr, or either engine without its Python client).

        >>> r = HttpRewriter.from_client(es, "code", q=0.7)  # doctest: +SKIP
        >>> body = {"query": {"bool": {"must": [r.to_query("parse json")],  # doctest: +SKIP
        ...                            "filter": [{"term": {"lang": "ruby"}}]}}}
        >>> es.search(index="code", body=body, search_type="dfs_query_then_fetch", preference=r.preference)  # doctest: +SKIP

    Args:
        engine: ``elasticsearch``, ``opensearch`` or ``solr``.
        transport: a :class:`SessionTransport` or :class:`ClientTransport`.
        index: the index (Elasticsearch, OpenSearch) or collection (Solr).
        fields: the text fields searched; each token is searched in each field with that field's statistics.
        q, idf_form: the q-log BM25 the boosts stand in for (k1 and b are the field's own BM25 settings).
        id_field: a stored field to read each hit's docid from; None: the document's ``_id`` (Solr: ``id``).
        preference: the ``preference`` of every statistics request and search (one set of shard copies);
            None: one drawn for this rewriter.
        cache: the statistics cache; ``StatisticsCache(entries=0)`` turns it off.
    """

    def __init__(self, engine: str, transport: SessionTransport | ClientTransport, index: str, q: float,
                 idf_form: str = "lucene", fields: Sequence[str] = ("contents",), id_field: str | None = None,
                 preference: str | None = None, cache: StatisticsCache | None = None) -> None:
        if engine not in ENGINES:
            raise QLogError(f"unknown engine {engine!r}; choose one of {', '.join(ENGINES)}")
        if not fields:
            raise QLogError("no field to search")
        self.engine, self.transport, self.index = engine, transport, index
        self.q, self.idf_form = check_q(q), check_form(idf_form)
        self.fields, self.id_field = list(fields), id_field
        self.preference = preference if preference is not None else f"qlog-{secrets.token_hex(6)}"
        self.cache = cache if cache is not None else StatisticsCache()

    @classmethod
    def from_url(cls, engine: str, url: str, index: str, q: float, idf_form: str = "lucene",
                 session: requests.Session | None = None, **options: Any) -> "HttpRewriter":
        """On the server at ``url`` through ``session`` (the caller's; a new one when None). ``options``:
        ``fields``, ``id_field``, ``preference``, ``cache`` as in the class."""
        return cls(engine, SessionTransport(url, session), index, q, idf_form, **options)

    @classmethod
    def from_client(cls, client: Any, index: str, q: float, idf_form: str = "lucene", **options: Any) -> "HttpRewriter":
        """Through an ``elasticsearch.Elasticsearch`` or ``opensearchpy.OpenSearch`` client (not closed here)."""
        transport = ClientTransport(client)
        return cls(transport.engine, transport, index, q, idf_form, **options)

    def _search(self, body: dict, what: str, dfs: bool = True) -> dict:
        params = {"preference": self.preference}
        if dfs:
            params["search_type"] = "dfs_query_then_fetch"
        return self.transport.search(self.index, body, params, what)

    def check_fields(self) -> None:
        """Refuse a field the index does not have (a query on it would match nothing, an empty run): the
        field capabilities (Elasticsearch, OpenSearch ``_field_caps``, a ``read`` privilege) or the
        collection's schema (Solr ``/schema/fields``)."""
        if self.engine == "solr":
            for field in self.fields:
                try:
                    self.transport.get(f"{self.index}/schema/fields/{field}", {"wt": "json"}, "schema field")
                except QLogError as e:
                    raise QLogError(f"field {field!r} of Solr collection {self.index!r}: {e}") from None
            return
        caps = self.transport.get(f"{self.index}/_field_caps", {"fields": ",".join(self.fields)}, "field capabilities")
        absent = [f for f in self.fields if not any(c.get("searchable") for c in caps.get("fields", {}).get(f, {}).values())]
        if absent:
            raise QLogError(f"index {self.index!r} at {self.transport.shown} has no searchable field "
                            f"{', '.join(map(repr, absent))}")

    # -- the engine's analysis -----------------------------------------------------------------
    def analyze(self, text: str, field: str) -> list[str]:
        """The tokens the engine makes of ``text`` when ``field`` is searched (its search analyzer), in order."""
        return self.tokens(text, [field])[field]

    def tokens(self, text: str, fields: Sequence[str]) -> dict[str, list[str]]:
        """``{field: tokens}``: each field's search-time tokens of ``text`` (one request for all fields)."""
        if self.engine == "solr":
            return {field: self._solr_tokens(text, field) for field in fields}
        if not text.strip():
            return {field: [] for field in fields}
        # the term suggester analyzes with the field's search_analyzer and lists every token (repeats kept)
        suggest = {f"f{i}": {"text": text, "term": {"field": field, "suggest_mode": "missing", "size": 1,
                                                    "max_edits": 1}}
                   for i, field in enumerate(fields)}
        body = self._search({"size": 0, "track_total_hits": False, "query": {"match_none": {}}, "suggest": suggest},
                            "query tokens (term suggester)", dfs=False)
        found = body.get("suggest", {})
        return {field: [str(entry["text"]) for entry in found.get(f"f{i}", ())] for i, field in enumerate(fields)}

    def _solr_tokens(self, text: str, field: str) -> list[str]:
        body = self.transport.get(f"{self.index}/analysis/field", {
            "analysis.fieldname": field, "analysis.query": text, "wt": "json"}, "analysis")
        stages = body["analysis"]["field_names"][field]["query"]
        return [t["text"] for t in stages[-1]] if stages else []

    # -- the engine's statistics ---------------------------------------------------------------
    def statistics(self, terms: Sequence[tuple[str, str]]) -> tuple[dict[tuple[str, str], int], dict[str, int]]:
        """({(field, term): n}, {field: N}) as the engine scores them (see the module docstring).

        Each (field, term) the cache does not hold is asked of the engine (all of them in one request); N comes
        only from this call's own terms, so a query's boosts do not depend on the queries before it.
        """
        known = {key: self.cache.get(key) for key in dict.fromkeys(terms)}
        missing = [key for key, value in known.items() if value is None]
        explanations = self._solr_explain(missing) if self.engine == "solr" else self._dfs_explain(missing)
        for key, explanation in zip(missing, explanations):
            known[key] = (0, None) if explanation is None else explained_statistics(explanation)
            self.cache.put(key, known[key])
        df: dict[tuple[str, str], int] = {}
        doc_count: dict[str, int] = {}
        for key in terms:
            df[key], total = known[key]
            if total is not None:
                doc_count[key[0]] = total
        return df, doc_count

    def _dfs_explain(self, terms: Sequence[tuple[str, str]]) -> list[dict | None]:
        if not terms:
            return []
        header = {"search_type": "dfs_query_then_fetch", "preference": self.preference}
        searches = [(header, {"size": 1, "explain": True, "_source": False, "track_total_hits": False,
                              "query": {"term": {field: {"value": term}}}}) for field, term in terms]
        body = self.transport.msearch(self.index, searches, "term statistics (_msearch)")
        out = []
        for response in body["responses"]:
            if "error" in response:
                raise QLogError(f"term statistics: {self.engine} answered {json.dumps(response['error'])[:300]}")
            hits = response["hits"]["hits"]
            out.append(hits[0]["_explanation"] if hits else None)
        return out

    def _solr_explain(self, terms: Sequence[tuple[str, str]]) -> list[dict | None]:
        out = []
        for field, term in terms:
            body = self.transport.get(f"{self.index}/select", {
                "q": f"{{!term f={field}}}{term}", "rows": 1, "fl": "score", "debug": "results",
                "debug.explain.structured": "true", "wt": "json"}, "term statistics")
            explain = body.get("debug", {}).get("explain", {})
            out.append(next(iter(explain.values())) if explain else None)
        return out

    # -- boosts, query, search -----------------------------------------------------------------
    def boosts(self, text: str) -> list[TermBoost]:
        """The per-term boosts of ``text``: every field's tokens, the engine's statistics."""
        tokens = self.tokens(text, self.fields)
        terms = [(field, token) for field in self.fields for token in tokens[field]]
        df, doc_count = self.statistics(list(dict.fromkeys(terms)))
        return term_boosts(terms, df, doc_count, self.q, self.idf_form)

    def to_query(self, text: str) -> dict:
        """The Elasticsearch/OpenSearch query of ``text`` as JSON (:func:`elasticsearch_query`): put it in a
        ``bool``'s ``must`` beside your ``filter`` clauses, send it with ``search_type=dfs_query_then_fetch``
        and ``preference=self.preference``."""
        if self.engine == "solr":
            raise QLogError("to_query is the Elasticsearch/OpenSearch query; on Solr use solr_params")
        return elasticsearch_query(self.boosts(text))

    def solr_params(self, text: str) -> dict[str, str]:
        """Solr's request parameters of ``text`` (:func:`solr_query`)."""
        return solr_query(self.boosts(text))

    def search(self, text: str, k: int = 10) -> list[Hit]:
        """Top ``k`` hits of the rewritten ``text`` as the engine scores it (the engine's order among ties)."""
        if self.engine == "solr":
            id_field = self.id_field or "id"
            body = self.transport.get(f"{self.index}/select", {
                **self.solr_params(text), "rows": k, "fl": f"{id_field},score",
                "sort": f"score desc,{id_field} asc", "wt": "json"}, "search")
            return [Hit(str(d[id_field]), float(d["score"])) for d in body["response"]["docs"]]
        body = {"size": k, "query": self.to_query(text), "_source": False, "track_total_hits": False}
        if self.id_field:
            body["fields"] = [self.id_field]
        hits = self._search(body, "search")["hits"]["hits"]
        if self.id_field:
            return [Hit(str(h["fields"][self.id_field][0]), float(h["_score"])) for h in hits]
        return [Hit(str(h["_id"]), float(h["_score"])) for h in hits]

    def close(self) -> None:
        self.transport.close()

    def __enter__(self) -> "HttpRewriter":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
