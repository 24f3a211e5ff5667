"""How the rewrite talks to a server: through the user's own client, so authentication, TLS, headers, retries
and proxies are theirs, and a bounded statistics cache.

- :class:`SessionTransport`: a base URL and a ``requests.Session`` (Solr, or Elasticsearch/OpenSearch without
  their Python client). A user name and password in the URL are used and never printed.
- :class:`ClientTransport`: an ``elasticsearch.Elasticsearch`` or ``opensearchpy.OpenSearch`` object, called
  through its own search, multi-search and field-capabilities methods.

Each answers three calls with the decoded JSON: :meth:`search`, :meth:`msearch` and :meth:`get`
(Elasticsearch/OpenSearch ``_field_caps`` and Solr's handlers), and raises :class:`QLogError` with one line
otherwise.
"""

from __future__ import annotations

import json
import time
from collections import OrderedDict
from typing import Any, Callable, Mapping, Sequence

import requests

from qlog_pyserini.errors import QLogError
from qlog_pyserini.solr.client import redact_url

DEFAULT_CACHE_ENTRIES = 100_000
DEFAULT_CACHE_SECONDS = 300.0


class StatisticsCache:
    """(field, term) -> (n, N) kept for at most ``seconds`` and at most ``entries`` keys (least recently used
    dropped first). ``entries = 0`` keeps nothing: every query asks the engine.

    Statistics change only when documents do (a refresh, a merge dropping deleted documents), so a cached n
    is at most ``seconds`` behind the index; the search itself always scores with the current statistics.
    """

    def __init__(self, entries: int = DEFAULT_CACHE_ENTRIES, seconds: float = DEFAULT_CACHE_SECONDS,
                 clock: Callable[[], float] = time.monotonic) -> None:
        if entries < 0 or isinstance(entries, bool):
            raise QLogError(f"illegal cache size: {entries}, must be 0 (off) or more entries")
        if not seconds > 0:
            raise QLogError(f"illegal cache expiry: {seconds} s, must be more than 0")
        self.entries, self.seconds, self.clock = int(entries), float(seconds), clock
        self._data: OrderedDict[tuple[str, str], tuple[float, Any]] = OrderedDict()

    def get(self, key: tuple[str, str]) -> Any | None:
        item = self._data.get(key)
        if item is None:
            return None
        if self.clock() - item[0] >= self.seconds:
            del self._data[key]
            return None
        self._data.move_to_end(key)
        return item[1]

    def put(self, key: tuple[str, str], value: Any) -> None:
        if not self.entries:
            return
        self._data[key] = (self.clock(), value)
        self._data.move_to_end(key)
        while len(self._data) > self.entries:
            self._data.popitem(last=False)

    def __len__(self) -> int:
        return len(self._data)


class SessionTransport:
    """``requests`` calls on ``url`` (``http://host:9200``, ``https://host:8983/solr``) through ``session``
    (the caller's, with its auth, certificates and headers; a new one when None, closed by :meth:`close`)."""

    def __init__(self, url: str, session: requests.Session | None = None, timeout: float = 120.0) -> None:
        if not str(url).startswith(("http://", "https://")):
            raise QLogError(f"illegal URL: {redact_url(str(url))!r}, must start with http:// or https://")
        self.url = str(url).rstrip("/")
        self.shown = redact_url(self.url)  # what messages name: a password in the URL is used, never printed
        self.own_session = session is None
        self.session = requests.Session() if session is None else session
        self.timeout = timeout

    def _call(self, method: str, path: str, what: str, **kwargs: Any) -> dict:
        try:
            r = self.session.request(method, f"{self.url}/{path}", timeout=self.timeout, **kwargs)
        except requests.RequestException as e:
            raise QLogError(f"{what}: cannot reach {self.shown} ({type(e).__name__})") from None
        if r.status_code >= 400:
            text = " ".join(r.text.replace(self.url, self.shown).split())
            raise QLogError(f"{what}: {self.shown} answered HTTP {r.status_code}: {text[:300]}")
        try:
            return r.json()
        except ValueError:
            raise QLogError(f"{what}: the answer of {self.shown} is not JSON") from None

    def search(self, index: str, body: Mapping, params: Mapping[str, str], what: str) -> dict:
        return self._call("POST", f"{index}/_search", what, json=body, params=params)

    def msearch(self, index: str, searches: Sequence[tuple[Mapping, Mapping]], what: str) -> dict:
        lines = [json.dumps(x) for header, body in searches for x in (header, body)]
        return self._call("POST", f"{index}/_msearch", what, data="\n".join(lines) + "\n",
                          headers={"Content-Type": "application/x-ndjson"})

    def get(self, path: str, params: Mapping[str, str], what: str) -> dict:
        return self._call("GET", path, what, params=params)

    def close(self) -> None:
        if self.own_session:
            self.session.close()


class ClientTransport:
    """The calls made through a user's ``elasticsearch.Elasticsearch`` or ``opensearchpy.OpenSearch`` (its
    connection, credentials and TLS); the client is the caller's and is not closed here."""

    def __init__(self, client: Any) -> None:
        module = type(client).__module__.split(".")[0]
        if module not in ("elasticsearch", "opensearchpy"):
            raise QLogError(f"not an Elasticsearch or OpenSearch client: {type(client).__module__}."
                            f"{type(client).__name__} (give elasticsearch.Elasticsearch or opensearchpy.OpenSearch)")
        self.client, self.engine = client, "elasticsearch" if module == "elasticsearch" else "opensearch"
        self.shown = f"the {self.engine} client"

    def _call(self, what: str, call: Callable[[], Any]) -> dict:
        try:
            response = call()
        except Exception as e:  # the clients' own errors (transport, API, serialization) become one line
            status = getattr(e, "status_code", None) or getattr(getattr(e, "meta", None), "status", None)
            detail = " ".join(str(getattr(e, "body", None) or getattr(e, "info", None) or e).split())
            raise QLogError(f"{what}: {self.shown} failed ({type(e).__name__}"
                            f"{f', HTTP {status}' if status else ''}): {detail[:300]}") from None
        return dict(getattr(response, "body", response))

    def search(self, index: str, body: Mapping, params: Mapping[str, str], what: str) -> dict:
        if self.engine == "elasticsearch":
            return self._call(what, lambda: self.client.search(index=index, body=dict(body), **params))
        return self._call(what, lambda: self.client.search(index=index, body=dict(body), params=dict(params)))

    def msearch(self, index: str, searches: Sequence[tuple[Mapping, Mapping]], what: str) -> dict:
        flat = [dict(x) for header, body in searches for x in (header, body)]
        if self.engine == "elasticsearch":
            return self._call(what, lambda: self.client.msearch(index=index, searches=flat))
        return self._call(what, lambda: self.client.msearch(index=index, body=flat))

    def get(self, path: str, params: Mapping[str, str], what: str) -> dict:
        index, _, endpoint = path.partition("/")
        if endpoint != "_field_caps":
            raise QLogError(f"{what}: {self.shown} is not asked for {path!r}")
        if self.engine == "elasticsearch":
            return self._call(what, lambda: self.client.field_caps(index=index, fields=params["fields"]))
        return self._call(what, lambda: self.client.field_caps(index=index, params=dict(params)))

    def close(self) -> None:
        pass
