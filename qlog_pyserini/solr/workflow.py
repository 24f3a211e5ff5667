"""What the ``qlog_pyserini.solr`` subcommands do, as library functions."""

from __future__ import annotations

import csv
import logging
import os
import time
from pathlib import Path
from typing import Sequence

import numpy as np

from qlog_pyserini.errors import QLogError
from qlog_pyserini.eval.trec_eval import trec_eval
from qlog_pyserini.formats.documents import iter_documents
from qlog_pyserini.formats.topics import read_topics
from qlog_pyserini.formats.trec import Hit, write_run
from qlog_pyserini.system.outputs import atomic_output
from qlog_pyserini.solr.client import SolrClient, batched, check_field
from qlog_pyserini.solr.configset import CONFIGSET_MARKER, FIELD, ConfigSet

log = logging.getLogger(__name__)


def ours_to_replace(client: SolrClient, collection: str, force: bool = False) -> str:
    """The configset of ``collection``, if it is ours to replace: it carries our marker, or ``force``.

    Solr replaces a configset whole, for every collection created from it; one we did not write (Solr's
    ``_default``, someone's own) is refused, naming the collections that use it.
    """
    configset = client.config_name(collection)
    if not force and not client.has_config_file(collection, CONFIGSET_MARKER):
        users = client.configset_users(configset)
        raise QLogError(f"collection {collection!r} uses configset {configset!r}, which this tool did not write "
                        f"(it has no {CONFIGSET_MARKER}); replacing it would change every collection that uses it "
                        f"({', '.join(users) or collection}). Pass --force to replace it anyway, or deploy to a new "
                        "collection")
    return configset


def deploy(client: SolrClient, collection: str, config: ConfigSet | None = None, zip_bytes: bytes | None = None,
           shards: int = 1, replicas: int = 1, force: bool = False) -> str:
    """Upload the configset (named after the collection) and create the collection, or RELOAD it if it exists
    (its configset replaced only if ours, or with ``force``: :func:`ours_to_replace`).

    Returns ``"created"`` or ``"reloaded"``.
    """
    data = zip_bytes if zip_bytes is not None else (config or ConfigSet()).zip_bytes()
    if collection in client.collections():
        client.upload_configset(ours_to_replace(client, collection, force), data)
        client.reload_collection(collection)
        return "reloaded"
    client.upload_configset(collection, data)
    client.create_collection(collection, collection, shards, replicas)
    return "created"


def index_corpus(client: SolrClient, collection: str, corpus: str | os.PathLike, batch_size: int = 1000) -> int:
    """Send every document of a corpus the ``index`` verb accepts (BEIR or Anserini JSON lines, file or folder)
    as ``{"id", "contents"}``, then commit. Returns the number of documents sent."""
    sent = 0
    for batch in batched(iter_documents(corpus), batch_size):
        client.add(collection, [{"id": docid, FIELD: text} for docid, text in batch])
        sent += len(batch)
    client.commit(collection)
    return sent


def anserini_scores(hits: Sequence[Hit]) -> list[Hit]:
    """Solr's hits (float scores, ordered score desc then id asc) with the scores Anserini writes.

    Anserini's ScoreTiesAdjusterReranker, as QLogSearcher reproduces it, in float32 arithmetic step for
    step: round to 4 decimals, then push each score within 1e-4 of the one above down by 1e-6 per tie, then
    keep each score strictly below the one above as a float (the next float down where the step vanished).
    With the same float scores in the same order, the Solr run is then the Lucene run line for line, so
    trec_eval (which compares scores in single precision and breaks its own ties by docid) sees the same
    ranking; with Solr's raw scores, a float tie at rank 10 could be reordered by trec_eval.
    """
    out: list[Hit] = []
    previous = np.float32(0)
    tied = 0
    for i, hit in enumerate(hits):
        raw = float(np.float32(hit.score))  # the float Solr computed, widened exactly as Java does
        score = np.float32(np.floor(raw * 10000.0 + 0.5) / 10000.0)  # (float) (Math.round(s * 10000d) / 10000d)
        if i == 0 or np.float32(previous - score) > np.float32(1e-4):
            tied = 0
        else:
            tied += 1
            score = np.float32(score - np.float32(1e-6) * np.float32(tied))
        if i and score >= previous:
            # as QLogSearcher.strictlyDecreasing: the next float down, so the run's order is the evaluated one
            score = np.nextafter(previous, np.float32(-np.inf), dtype=np.float32)
        previous = score
        out.append(Hit(hit.docid, float(score)))
    return out


def search_topics(client: SolrClient, collection: str, topics: dict[str, str], k: int = 1000,
                  field: str = FIELD) -> dict[str, list[Hit]]:
    """``{qid: hits}`` for every topic searched in ``field``, in topic order, scores as Anserini writes them
    (an empty query gets no hits)."""
    if not 1 <= k <= 100_000:
        raise QLogError(f"illegal hits value: {k}, must be between 1 and 100000")
    check_field(field)
    return {qid: anserini_scores(client.search(collection, text, k, field)) for qid, text in topics.items()}


def run_to_file(client: SolrClient, collection: str, topics_path: str | os.PathLike, output: str | os.PathLike,
                k: int = 1000, tag: str = "qlog-solr", field: str = FIELD) -> int:
    """Search every topic in ``field`` and write the run; returns how many queries got hits."""
    topics = read_topics(topics_path)
    results = search_topics(client, collection, topics, k, field)
    write_run(output, results, tag, qids=list(topics))
    return sum(1 for hits in results.values() if hits)


def sweep_q(client: SolrClient, collection: str, base: ConfigSet, grid: Sequence[float],
            topics_path: str | os.PathLike, qrels_path: str | os.PathLike, out_dir: str | os.PathLike,
            k: int = 1000, metrics: Sequence[str] = ("ndcg_cut.10", "recip_rank", "recall.100"),
            field: str = FIELD, force: bool = False) -> list[dict]:
    """For each q: the collection's configset rewritten with that q, a RELOAD, every topic searched into
    ``run.q<q>.txt``, trec_eval on it. Writes ``metrics.csv``; returns its rows. The index is never touched;
    the configset is replaced only if ours, or with ``force`` (:func:`ours_to_replace`)."""
    out = Path(out_dir)
    if not out.parent.is_dir():
        raise QLogError(f"folder {str(out.parent)!r} does not exist")
    out.mkdir(exist_ok=True)
    topics = read_topics(topics_path)
    configset = ours_to_replace(client, collection, force)
    rows = []
    for q in grid:
        config = base.with_q(q)
        client.upload_configset(configset, config.zip_bytes())
        client.reload_collection(collection)
        start = time.perf_counter()
        results = search_topics(client, collection, topics, k, field)
        seconds = time.perf_counter() - start
        run = out / f"run.q{config.q:g}.txt"
        write_run(run, results, f"qlog-solr-q{config.q:g}", qids=list(topics))
        scores = trec_eval(qrels_path, run, metrics=list(metrics), per_query=False).aggregate
        row = {"q": config.q, **{m: scores[m] for m in scores}, "search_seconds": round(seconds, 2), "run": run.name}
        rows.append(row)
        log.info("q=%g: %s (%.1f s)", config.q, ", ".join(f"{m} {scores[m]:.4f}" for m in scores), seconds)
    with atomic_output(out / "metrics.csv") as f:
        writer = csv.DictWriter(f, fieldnames=list(rows[0]))
        writer.writeheader()
        writer.writerows(rows)
    return rows
