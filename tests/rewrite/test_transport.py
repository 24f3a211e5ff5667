"""The statistics cache's bound and expiry, the read-only proxy's rule, and the transports' refusals."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest

from qlog_pyserini.errors import QLogError
from qlog_pyserini.rewrite.transport import ClientTransport, SessionTransport, StatisticsCache


class Clock:
    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


def test_cache_is_bounded_least_recently_used_first() -> None:
    cache = StatisticsCache(entries=2, seconds=60, clock=Clock())
    cache.put(("f", "a"), (1, 10))
    cache.put(("f", "b"), (2, 10))
    assert cache.get(("f", "a")) == (1, 10)  # a used: b is now the oldest
    cache.put(("f", "c"), (3, 10))
    assert len(cache) == 2 and cache.get(("f", "b")) is None and cache.get(("f", "a")) == (1, 10)


def test_cache_entries_expire_and_zero_entries_keep_nothing() -> None:
    clock = Clock()
    cache = StatisticsCache(entries=10, seconds=5, clock=clock)
    cache.put(("f", "a"), (1, 10))
    clock.now = 4.9
    assert cache.get(("f", "a")) == (1, 10)
    clock.now = 5.0
    assert cache.get(("f", "a")) is None and len(cache) == 0
    off = StatisticsCache(entries=0)
    off.put(("f", "a"), (1, 10))
    assert off.get(("f", "a")) is None and len(off) == 0
    for entries, seconds in ((-1, 5), (10, 0), (10, float("nan"))):
        with pytest.raises(QLogError):
            StatisticsCache(entries, seconds)


def test_transports_refuse_what_they_cannot_use() -> None:
    with pytest.raises(QLogError, match=r"\*\*\*@host") as e:
        SessionTransport("ftp://user:pw@host/x")
    assert "pw" not in str(e.value)
    with pytest.raises(QLogError, match="not an Elasticsearch or OpenSearch client"):
        ClientTransport(object())


def test_elasticsearch_query_requires_one_clause_to_match() -> None:
    from qlog_pyserini.rewrite.boosts import TermBoost
    from qlog_pyserini.rewrite.http import elasticsearch_query

    boosts = [TermBoost("contents", "json", 1, 3, 10, 0.5, 0.5), TermBoost("contents", "nowhere", 1, 0, 10, 0.9, 0.9)]
    assert elasticsearch_query(boosts) == {"bool": {"should": [{"term": {"contents": {"value": "json", "boost": 0.5}}}],
                                                    "minimum_should_match": 1}}
    assert elasticsearch_query(boosts[1:]) == {"match_none": {}}


def _proxy():
    path = Path(__file__).with_name("readonly_proxy.py")
    spec = importlib.util.spec_from_file_location("readonly_proxy", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_the_read_only_proxy_forwards_only_read_endpoints_of_its_indexes() -> None:
    allowed = _proxy().allowed
    mine = {"code", "other"}
    assert allowed("POST", "/code/_search?search_type=dfs_query_then_fetch&preference=x", b"{}", mine) is None
    assert allowed("GET", "/code/_field_caps?fields=contents", b"", mine) is None
    assert allowed("POST", "/code/_msearch", b'{"preference": "x"}\n{}\n{"index": "code"}\n{}\n', mine) is None
    assert allowed("POST", "/code/_msearch", b'{"index": "secret"}\n{}\n', mine)
    assert allowed("POST", "/code/_analyze", b"{}", mine)
    assert allowed("GET", "/code/_mapping", b"", mine)
    assert allowed("POST", "/secret/_search", b"{}", mine)
    assert allowed("POST", "/_msearch", b"{}\n{}\n", mine)
    assert allowed("DELETE", "/code/_search", b"", mine)
    assert allowed("PUT", "/code", b"{}", mine)
