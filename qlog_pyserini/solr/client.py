"""The Solr HTTP calls this package makes, with ``requests``: configset UPLOAD, collection CREATE /
RELOAD / CLUSTERSTATUS, JSON updates, and ``/select`` searches returning :class:`~qlog_pyserini.formats.trec.Hit`.

Every failure (no Solr at the URL, an HTTP error, Solr's own error message, an answer that is JSON but not
Solr's) is one :class:`QLogError` line. A password in the URL (``http://user:secret@host/solr``) is used
for the requests and never shown: every message names the URL with its user info redacted.
"""

from __future__ import annotations

import math
import re
from typing import Any, Iterable, Mapping, Sequence
from urllib.parse import urlsplit, urlunsplit

import numpy as np
import requests

from qlog_pyserini.errors import QLogError
from qlog_pyserini.formats.trec import Hit
from qlog_pyserini.solr.configset import FIELD

# Characters Lucene's classic query parser treats as syntax; the same set as SolrJ's
# ClientUtils.escapeQueryChars, whitespace included, so the whole text reaches the analyzer as one unit.
_SPECIAL = re.compile(r'([\\+\-!():^\[\]"{}~*?|&;/]|\s)')


def escape_query(text: str) -> str:
    """``text`` with every query-syntax character and whitespace backslash-escaped.

    Solr's standard parser then hands the whole text to the field's analyzer and makes one SHOULD clause
    per analyzed term (repeated terms become one boosted clause in Lucene's BooleanQuery rewrite): the
    bag-of-words query Anserini builds.
    """
    return _SPECIAL.sub(r"\\\1", text)


def redact_url(url: str) -> str:
    """``url`` with any user name and password replaced by ``***`` (for messages and logs)."""
    try:
        parts = urlsplit(url)
    except ValueError:
        return "<unparsable URL>"
    if "@" not in parts.netloc:
        return url
    return urlunsplit(parts._replace(netloc="***@" + parts.netloc.rsplit("@", 1)[1]))


def _field(body: Any, what: str, shown: str, *keys: str) -> Any:
    # Solr's JSON, walked key by key; anything else ([] or 42 from a proxy, another service) is one clear line.
    value = body
    for key in keys:
        if not isinstance(value, dict) or key not in value:
            raise QLogError(f"{what}: the answer of {shown} is not a Solr response (no {'.'.join(keys)}); "
                            "is --solr the URL of a Solr node, e.g. http://127.0.0.1:8983/solr?")
        value = value[key]
    return value


def _hit(doc: Any, what: str, shown: str) -> Hit:
    docid, score = (doc.get("id"), doc.get("score")) if isinstance(doc, dict) else (None, None)
    if (not isinstance(docid, (str, int)) or isinstance(docid, bool) or isinstance(score, bool)
            or not isinstance(score, (int, float)) or not math.isfinite(score)):
        raise QLogError(f"{what}: the answer of {shown} is not a Solr response (a document without a string id "
                        f"and a finite score: {str(doc)[:80]})")
    return Hit(str(docid), float(score))


class SolrClient:
    """A Solr node's base URL (``http://host:port/solr``) and one HTTP session."""

    def __init__(self, url: str, timeout: float = 120.0) -> None:
        if not re.match(r"^https?://", url or ""):
            raise QLogError(f"illegal Solr URL: {url!r}, must start with http:// or https:// (e.g. http://127.0.0.1:8983/solr)")
        self.url = url.rstrip("/")
        self.shown = redact_url(self.url)
        self.timeout = timeout
        self.session = requests.Session()

    def close(self) -> None:
        self.session.close()

    def __enter__(self) -> "SolrClient":
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    # -- plumbing ---------------------------------------------------------------------------------
    def _call(self, method: str, path: str, what: str, **kwargs: Any) -> dict:
        kwargs.setdefault("timeout", self.timeout)
        params = dict(kwargs.pop("params", {}) or {})
        params.setdefault("wt", "json")
        try:
            response = self.session.request(method, f"{self.url}/{path.lstrip('/')}", params=params, **kwargs)
        except requests.RequestException as e:
            raise QLogError(f"{what}: cannot reach Solr at {self.shown} ({type(e).__name__})") from None
        try:
            body = response.json()
            is_json = True
        except ValueError:
            body, is_json = None, False
        if response.status_code >= 400 or not is_json:
            message = ""
            if isinstance(body, dict):
                error = body.get("error") or {}
                message = error.get("msg") or str(error.get("metadata") or "") or str(body.get("exception") or "")
            message = (message or response.text[:200]).replace(self.url, self.shown)
            if response.status_code < 400:
                raise QLogError(f"{what}: the answer of {self.shown} is not a Solr response (not JSON: "
                                f"{' '.join(str(message).split())[:80]})")
            raise QLogError(f"{what}: Solr answered HTTP {response.status_code}: {' '.join(str(message).split())}")
        if not isinstance(body, dict):
            raise QLogError(f"{what}: the answer of {self.shown} is not a Solr response (JSON {type(body).__name__}, "
                            "not an object); is --solr the URL of a Solr node, e.g. http://127.0.0.1:8983/solr?")
        return body

    # -- configsets and collections ----------------------------------------------------------------
    def upload_configset(self, name: str, zip_bytes: bytes) -> None:
        """Upload (or replace) configset ``name`` from a zip of its files."""
        self._call("POST", "admin/configs", f"uploading configset {name!r}",
                   params={"action": "UPLOAD", "name": name, "overwrite": "true", "cleanup": "true"},
                   data=zip_bytes, headers={"Content-Type": "application/octet-stream"})

    def collections(self) -> list[str]:
        what = "listing collections"
        names = _field(self._call("GET", "admin/collections", what, params={"action": "LIST"}), what, self.shown,
                       "collections")
        if not isinstance(names, list) or not all(isinstance(n, str) for n in names):
            raise QLogError(f"{what}: the answer of {self.shown} is not a Solr response (collections: {str(names)[:80]})")
        return names

    def config_name(self, collection: str) -> str:
        """The configset a collection was created from."""
        what = f"status of collection {collection!r}"
        status = self._call("GET", "admin/collections", what, params={"action": "CLUSTERSTATUS", "collection": collection})
        known = _field(status, what, self.shown, "cluster", "collections")
        if not isinstance(known, dict) or collection not in known:
            raise QLogError(f"collection {collection!r} not found in Solr at {self.shown}")
        name = known[collection].get("configName") if isinstance(known[collection], dict) else None
        if not isinstance(name, str):
            raise QLogError(f"{what}: the answer of {self.shown} is not a Solr response (no configName)")
        return name

    def configset_users(self, configset: str) -> list[str]:
        """The collections created from ``configset``, sorted."""
        what = "listing the cluster's collections"
        known = _field(self._call("GET", "admin/collections", what, params={"action": "CLUSTERSTATUS"}), what,
                       self.shown, "cluster", "collections")
        if not isinstance(known, dict):
            raise QLogError(f"{what}: the answer of {self.shown} is not a Solr response (collections)")
        return sorted(name for name, state in known.items()
                      if isinstance(state, dict) and state.get("configName") == configset)

    def has_config_file(self, collection: str, name: str) -> bool:
        """Whether the configset of ``collection`` holds the file ``name`` (Solr's ShowFileRequestHandler)."""
        try:
            response = self.session.get(f"{self.url}/{collection}/admin/file", params={"file": name},
                                        timeout=self.timeout)
        except requests.RequestException as e:
            raise QLogError(f"reading the configset of {collection!r}: cannot reach Solr at {self.shown} "
                            f"({type(e).__name__})") from None
        if response.status_code == 404:
            return False
        if response.status_code >= 400:
            raise QLogError(f"reading the configset of {collection!r}: Solr answered HTTP {response.status_code}")
        return True

    def create_collection(self, name: str, configset: str, shards: int = 1, replicas: int = 1) -> None:
        self._call("POST", "admin/collections", f"creating collection {name!r}",
                   params={"action": "CREATE", "name": name, "collection.configName": configset,
                           "numShards": shards, "replicationFactor": replicas})

    def reload_collection(self, name: str) -> None:
        """RELOAD: every replica re-reads the configset (a new schema, a new similarity); the index stays."""
        self._call("POST", "admin/collections", f"reloading collection {name!r}",
                   params={"action": "RELOAD", "name": name})

    # -- documents ---------------------------------------------------------------------------------
    def add(self, collection: str, docs: Sequence[Mapping[str, str]]) -> None:
        self._call("POST", f"{collection}/update", f"indexing into {collection!r}", json=list(docs))

    def commit(self, collection: str) -> None:
        self._call("POST", f"{collection}/update", f"committing {collection!r}", params={"commit": "true"}, json=[])

    def count(self, collection: str) -> int:
        what = f"counting {collection!r}"
        found = _field(self._call("GET", f"{collection}/select", what, params={"q": "*:*", "rows": 0}), what,
                       self.shown, "response", "numFound")
        if not isinstance(found, int) or isinstance(found, bool):
            raise QLogError(f"{what}: the answer of {self.shown} is not a Solr response (numFound {found!r})")
        return found

    # -- search ------------------------------------------------------------------------------------
    def search(self, collection: str, text: str, k: int = 1000, field: str = FIELD) -> list[Hit]:
        """Top ``k`` for free text in ``field``, scores from Solr, ties by id (Anserini's order: score desc, docid asc)."""
        ids, scores = self.search_columns(collection, text, k, field)
        return [Hit(d, s) for d, s in zip(ids, scores.tolist())]

    def search_columns(self, collection: str, text: str, k: int = 1000,
                       field: str = FIELD) -> tuple[list[str], np.ndarray]:
        """:meth:`search` as columns: the docids, and the scores as Solr's JSON gives them (float64)."""
        if not text.strip():
            return [], np.zeros(0)
        what = f"searching {collection!r}"
        # distrib.singlePass: a sharded collection answers id and score from the shards' first phase instead of
        # asking them again for the ids of the merged top k (the ranking is the same; one round trip less)
        body = self._call("POST", f"{collection}/select", what, data={
            "q": escape_query(text), "defType": "lucene", "df": check_field(field), "q.op": "OR",
            "rows": k, "fl": "id,score", "sort": "score desc,id asc", "distrib.singlePass": "true"})
        docs = _field(body, what, self.shown, "response", "docs")
        if not isinstance(docs, list):
            raise QLogError(f"{what}: the answer of {self.shown} is not a Solr response (docs is not a list)")
        try:
            ids = [d["id"] for d in docs]
            values = [d["score"] for d in docs]
            if not all(type(v) in (int, float) for v in values) or not all(type(d) in (str, int) for d in ids):
                raise TypeError
            scores = np.array(values, dtype=np.float64)
            if not np.isfinite(scores).all():
                raise ValueError
        except (KeyError, TypeError, ValueError):  # the first bad document, named as one line
            for d in docs:
                _hit(d, what, self.shown)
            raise
        return [str(d) for d in ids], scores


def check_field(field: str) -> str:
    """``field`` if it is a plain Solr field name (letters, digits, ``_``, ``.``, ``-``), else QLogError."""
    if not re.fullmatch(r"[A-Za-z_][A-Za-z0-9_.\-]*", field or ""):
        raise QLogError(f"illegal field name: {field!r}, expected a Solr field such as {FIELD!r}")
    return field


def batched(items: Iterable, size: int) -> Iterable[list]:
    batch: list = []
    for item in items:
        batch.append(item)
        if len(batch) == size:
            yield batch
            batch = []
    if batch:
        yield batch
