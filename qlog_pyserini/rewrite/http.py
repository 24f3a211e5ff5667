"""The rewrite on a server over HTTP (``requests``): Elasticsearch, OpenSearch and Solr, no plugin needed.

For each query the engine is asked three things, all with its stock APIs:

- its own analysis of the text: ``POST /INDEX/_analyze {"field", "text"}`` (Elasticsearch, OpenSearch),
  the field analysis request handler ``/COLLECTION/analysis/field`` (Solr): the tokens it indexed;
- each distinct token's statistics as the engine scores with them: one ``term`` query per token with
  ``explain``, under ``search_type=dfs_query_then_fetch`` (Elasticsearch, OpenSearch: the dfs phase sums
  docFreq and docCount over every shard), or ``{!term}`` with ``debug=results`` (Solr; global across shards
  under SolrCloud's ExactStatsCache, shard-local under the default LocalStatsCache); n and N are read
  from the explanation's "n, number of documents containing term" and "N, total number of documents with
  field", the very numbers BM25's idf is computed from. A token no document holds has no hit: n = 0, and
  it is left out of the query (it matches nothing);
- the query: ``bool``/``should`` of ``{"term": {FIELD: {"value", "boost"}}}`` sent with
  ``dfs_query_then_fetch`` (Elasticsearch, OpenSearch), or boosted ``{!term}`` clauses (Solr).

Deleted documents: every engine's docFreq and docCount still count a deleted document until a merge drops
its segment, so the boosts (read from the same statistics) follow whatever the engine's own BM25 uses.
"""

from __future__ import annotations

import json
from typing import Any, Iterator, Sequence

import requests

from qlog_pyserini.errors import QLogError
from qlog_pyserini.formats.trec import Hit
from qlog_pyserini.formula import check_form, check_q
from qlog_pyserini.rewrite.boosts import TermBoost, term_boosts
from qlog_pyserini.solr.client import redact_url

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


def elasticsearch_query(boosts: Sequence[TermBoost], size: int = 10) -> dict:
    """The search body: ``bool``/``should`` of boosted ``term`` queries (``match_none`` when no term matches).

    Send it with ``search_type=dfs_query_then_fetch``: the boosts were computed from global statistics and
    the query must be scored with them too.
    """
    clauses = [{"term": {b.field: {"value": b.term, "boost": b.boost}}} for b in boosts if b.df > 0]
    query = {"bool": {"should": clauses}} if clauses else {"match_none": {}}
    return {"size": size, "query": query}


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

    Args:
        engine: ``elasticsearch``, ``opensearch`` or ``solr``.
        url: the server (``http://127.0.0.1:9200``; Solr: ``http://127.0.0.1:8983/solr``).
        index: the index (Elasticsearch, OpenSearch) or collection (Solr).
        fields: the text fields searched; each token is searched in each field with that field's statistics.
        q, idf_form: the q-log BM25 the boosts stand in for (k1 and b are the field's own BM25 settings).
    """

    def __init__(self, engine: str, url: str, index: str, q: float, idf_form: str = "lucene",
                 fields: Sequence[str] = ("contents",), id_field: str = "id", timeout: float = 120.0) -> None:
        if engine not in ENGINES:
            raise QLogError(f"unknown engine {engine!r}; choose one of {', '.join(ENGINES)}")
        if not str(url).startswith(("http://", "https://")):
            raise QLogError(f"illegal URL: {redact_url(str(url))!r}, must start with http:// or https://")
        if not fields:
            raise QLogError("no field to search")
        self.engine, self.url, self.index = engine, str(url).rstrip("/"), index
        self.shown = redact_url(self.url)  # what messages name: a password in the URL is used, never printed
        self.q, self.idf_form = check_q(q), check_form(idf_form)
        self.fields, self.id_field, self.timeout = list(fields), id_field, timeout
        self.session = requests.Session()
        self._known: dict[tuple[str, str], tuple[int, int | None]] = {}  # (field, term) -> (n, N or None)

    def _post(self, path: str, what: str, **kwargs: Any) -> dict:
        try:
            r = self.session.request("POST" if "json" in kwargs or "data" in kwargs else "GET",
                                     f"{self.url}/{path}", timeout=self.timeout, **kwargs)
        except requests.RequestException as e:
            raise QLogError(f"{what}: cannot reach {self.engine} at {self.shown} ({type(e).__name__})") from None
        if r.status_code >= 400:
            text = " ".join(r.text.replace(self.url, self.shown).split())
            raise QLogError(f"{what}: {self.engine} at {self.shown} answered HTTP {r.status_code}: {text[:300]}")
        return r.json()

    def check_fields(self) -> None:
        """Refuse a field the index does not have (a query on it would match nothing, an empty run): the
        field capabilities (Elasticsearch, OpenSearch ``_field_caps``, a ``read`` privilege) or the
        collection's schema (Solr ``/schema/fields``)."""
        if self.engine == "solr":
            for field in self.fields:
                try:
                    self._post(f"{self.index}/schema/fields/{field}", "schema field", params={"wt": "json"})
                except QLogError as e:
                    raise QLogError(f"field {field!r} of Solr collection {self.index!r}: {e}") from None
            return
        caps = self._post(f"{self.index}/_field_caps", "field capabilities", params={"fields": ",".join(self.fields)})
        absent = [f for f in self.fields if not any(c.get("searchable") for c in caps.get("fields", {}).get(f, {}).values())]
        if absent:
            raise QLogError(f"index {self.index!r} at {self.shown} has no searchable field "
                            f"{', '.join(map(repr, absent))}")

    # -- the engine's analysis -----------------------------------------------------------------
    def analyze(self, text: str, field: str) -> list[str]:
        """The tokens the engine makes of ``text`` in ``field``, in order."""
        if self.engine == "solr":
            body = self._post(f"{self.index}/analysis/field", "analysis",
                              params={"analysis.fieldname": field, "analysis.query": text, "wt": "json"})
            stages = body["analysis"]["field_names"][field]["query"]
            return [t["text"] for t in stages[-1]] if stages else []
        body = self._post(f"{self.index}/_analyze", "_analyze", json={"field": field, "text": text})
        return [t["token"] for t in body.get("tokens", ())]

    # -- the engine's statistics ---------------------------------------------------------------
    def statistics(self, terms: Sequence[tuple[str, str]]) -> tuple[dict[tuple[str, str], int], dict[str, int]]:
        """({(field, term): n}, {field: N}) as the engine scores them (see the module docstring).

        Each (field, term) is asked of the engine once per rewriter, its answer kept for the next queries
        (a topic set repeats its terms: CodeSearchNet Ruby's 1,261 queries ask about 10 a query), so a
        rewriter stands for one state of the index: make a new one after the index changes. N comes, as
        before, only from this call's own terms, so a query's boosts do not depend on the queries before it.
        """
        missing = [key for key in dict.fromkeys(terms) if key not in self._known]
        explanations = self._solr_explain(missing) if self.engine == "solr" else self._dfs_explain(missing)
        for key, explanation in zip(missing, explanations):
            self._known[key] = (0, None) if explanation is None else explained_statistics(explanation)
        df: dict[tuple[str, str], int] = {}
        doc_count: dict[str, int] = {}
        for key in terms:
            df[key], total = self._known[key]
            if total is not None:
                doc_count[key[0]] = total
        return df, doc_count

    def _dfs_explain(self, terms: Sequence[tuple[str, str]]) -> list[dict | None]:
        if not terms:
            return []
        lines = []
        for field, term in terms:
            lines.append(json.dumps({"index": self.index, "search_type": "dfs_query_then_fetch"}))
            lines.append(json.dumps({"size": 1, "explain": True, "_source": False,
                                     "query": {"term": {field: {"value": term}}}}))
        body = self._post("_msearch", "_msearch (term statistics)", data="\n".join(lines) + "\n",
                          headers={"Content-Type": "application/x-ndjson"})
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
            body = self._post(f"{self.index}/select", "term statistics", params={
                "q": f"{{!term f={field}}}{term}", "rows": 1, "fl": "id,score", "debug": "results",
                "debug.explain.structured": "true", "wt": "json"})
            explain = body.get("debug", {}).get("explain", {})
            out.append(next(iter(explain.values())) if explain else None)
        return out

    # -- boosts, query, search -----------------------------------------------------------------
    def boosts(self, text: str) -> list[TermBoost]:
        """The per-term boosts of ``text``: every field's tokens, the engine's statistics."""
        terms = [(field, token) for field in self.fields for token in self.analyze(text, field)]
        distinct = list(dict.fromkeys(terms))
        df, doc_count = self.statistics(distinct)
        return term_boosts(terms, df, doc_count, self.q, self.idf_form)

    def query(self, text: str, size: int = 10) -> dict:
        """The engine's query for ``text``: a search body (Elasticsearch, OpenSearch) or Solr request parameters."""
        boosts = self.boosts(text)
        return solr_query(boosts) if self.engine == "solr" else elasticsearch_query(boosts, size)

    def search(self, text: str, k: int = 10) -> list[Hit]:
        """Top ``k`` hits of the rewritten ``text`` as the engine scores it (ties by the id field)."""
        if self.engine == "solr":
            body = self._post(f"{self.index}/select", "search", params={
                **self.query(text), "rows": k, "fl": f"{self.id_field},score",
                "sort": f"score desc,{self.id_field} asc", "wt": "json"})
            docs = body["response"]["docs"]
            return [Hit(str(d[self.id_field]), float(d["score"])) for d in docs]
        body = self.query(text, k)
        body.update({"sort": [{"_score": "desc"}, {self.id_field: "asc"}], "track_scores": True,
                     "_source": False, "fields": [self.id_field]})
        result = self._post(f"{self.index}/_search", "search", json=body,
                            params={"search_type": "dfs_query_then_fetch"})
        return [Hit(str(h["fields"][self.id_field][0]), float(h["_score"])) for h in result["hits"]["hits"]]

    def close(self) -> None:
        self.session.close()

    def __enter__(self) -> "HttpRewriter":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
