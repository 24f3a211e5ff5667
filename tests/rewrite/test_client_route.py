"""The read-only route through a user's own client, on a live Elasticsearch or OpenSearch cluster behind the
read-only proxy (tests/rewrite/readonly_proxy.py).

The Java engine tests (TestElasticsearchCsnRuby, TestOpenSearchCsnRuby) start the cluster, index CSN-Ruby and
run this file with QLOG_ENGINE (elasticsearch | opensearch), QLOG_ENGINE_URL (the proxy), QLOG_ENGINE_UPSTREAM
(the cluster, for its version), QLOG_ENGINE_INDEX (the CSN-Ruby index under the engine's BM25), QLOG_ANALYZER_INDEX (an index whose field ``f`` has the ``anserini``
analyzer and the ``whitespace`` search analyzer, field ``g`` the ``anserini`` analyzer for both) and QLOG_TOPICS;
without them it skips.
"""

from __future__ import annotations

import itertools
import os

import pytest
import requests

from qlog_pyserini.formats.topics import read_topics

ENGINE = os.environ.get("QLOG_ENGINE")
pytestmark = pytest.mark.skipif(not ENGINE, reason="needs a live cluster (run by the Java engine tests)")


@pytest.fixture(scope="module")
def client():
    if ENGINE == "elasticsearch":
        elasticsearch = pytest.importorskip("elasticsearch")
        # from the cluster's own address (the proxy forwards read endpoints only); GET / is not served by a
        # test node of Elasticsearch 8 (its rest-root module is not loaded), the nodes API is
        upstream = os.environ["QLOG_ENGINE_UPSTREAM"].rstrip("/")
        nodes = requests.get(upstream + "/_nodes/_local", timeout=60).json()["nodes"]
        server = next(iter(nodes.values()))["version"]
        if server.split(".")[0] != str(elasticsearch.VERSION[0]):
            # the official client asks for its own major's API (compatible-with); another major answers 400
            pytest.skip(f"the installed elasticsearch client {elasticsearch.__versionstr__} talks to Elasticsearch "
                        f"{elasticsearch.VERSION[0]}.x only; this cluster is {server}")
        c = elasticsearch.Elasticsearch(os.environ["QLOG_ENGINE_URL"], request_timeout=120)
    else:
        opensearchpy = pytest.importorskip("opensearchpy")
        c = opensearchpy.OpenSearch(os.environ["QLOG_ENGINE_URL"], timeout=120)
    yield c
    c.close()


@pytest.fixture(scope="module")
def topics() -> list[tuple[str, str]]:
    return list(itertools.islice(read_topics(os.environ["QLOG_TOPICS"]).items(), 60))


def test_tokens_follow_the_fields_search_analyzer(client) -> None:
    from qlog_pyserini.rewrite.http import HttpRewriter

    r = HttpRewriter.from_client(client, os.environ["QLOG_ANALYZER_INDEX"], q=0.7)
    # f: indexed with Anserini's analyzer (lower case, stop words, Porter), searched with whitespace
    assert r.analyze("Parsing the JSON bodies", "f") == ["Parsing", "the", "JSON", "bodies"]
    assert r.analyze("Parsing the JSON bodies", "g") == ["pars", "json", "bodi"]
    assert r.analyze("json json", "g") == ["json", "json"]


def test_to_query_composes_with_filters_without_loosening_the_match(client, topics) -> None:
    from qlog_pyserini.rewrite.http import HttpRewriter

    index = os.environ["QLOG_ENGINE_INDEX"]
    r = HttpRewriter.from_client(client, index, q=0.7)
    others = [h.docid for h in r.search("file directory path", 30)]
    checked = 0
    for _, text in topics:
        top = r.search(text, 10)
        if not top:
            continue
        ids = [h.docid for h in top[:5]] + others
        body = {"size": 50, "_source": False,
                "query": {"bool": {"must": [r.to_query(text)], "filter": [{"terms": {"_id": ids}}]}}}
        params = {"search_type": "dfs_query_then_fetch", "preference": r.preference}
        response = client.search(index=index, body=body, **params) if ENGINE == "elasticsearch" else \
            client.search(index=index, body=body, params=params)
        got = {h["_id"]: h["_score"] for h in dict(getattr(response, "body", response))["hits"]["hits"]}
        # every hit matches the query (a clause scores > 0 under the lucene odds); the filtered top 5 are there
        # with their unfiltered scores
        assert all(score > 0 for score in got.values()), (text, got)
        for h in top[:5]:
            assert got.get(h.docid) == pytest.approx(h.score, rel=1e-6), (text, h, got.get(h.docid))
        # the same query with the caller's filter added inside the rewrite's own bool keeps the match too
        inner = r.to_query(text)
        if "bool" in inner:
            inner["bool"]["filter"] = [{"terms": {"_id": ids}}]
            body["query"] = inner
            response = client.search(index=index, body=body, **params) if ENGINE == "elasticsearch" else \
                client.search(index=index, body=body, params=params)
            hits = dict(getattr(response, "body", response))["hits"]["hits"]
            assert {h["_id"] for h in hits} == set(got) and all(h["_score"] > 0 for h in hits)
        checked += 1
    assert checked > 40


def test_client_and_url_routes_agree_and_the_cache_can_be_off(client, topics) -> None:
    from qlog_pyserini.rewrite.http import HttpRewriter
    from qlog_pyserini.rewrite.transport import StatisticsCache

    index = os.environ["QLOG_ENGINE_INDEX"]
    by_client = HttpRewriter.from_client(client, index, q=0.3, idf_form="rsj")
    # one preference for both: with 1 replica, two preferences may read different copies of a shard, whose
    # segments (so the order of tied hits) differ; the routes must agree on the same copies
    with HttpRewriter.from_url(ENGINE, os.environ["QLOG_ENGINE_URL"], index, q=0.3, idf_form="rsj",
                               preference=by_client.preference, cache=StatisticsCache(entries=0)) as by_url:
        for _, text in topics[:30]:
            assert by_client.boosts(text) == by_url.boosts(text)
            assert [h.docid for h in by_client.search(text, 10)] == [h.docid for h in by_url.search(text, 10)]
        assert len(by_url.cache) == 0 and len(by_client.cache) > 0
