"""What the ``qlog_pyserini.solr`` subcommands do, as library functions."""

from __future__ import annotations

import contextlib
import csv
import os
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from typing import Callable, Iterator, Sequence

import numpy as np

from qlog_pyserini.errors import QLogError
from qlog_pyserini.eval.trec_eval import trec_eval
from qlog_pyserini.formats.documents import iter_documents
from qlog_pyserini.formats.topics import read_topics
from qlog_pyserini.formats.trec import Hit, check_id, format_run_columns
from qlog_pyserini.lucene.searcher import check_threads
from qlog_pyserini.solr.client import SolrClient, batched, check_field
from qlog_pyserini.solr.configset import CONFIGSET_MARKER, FIELD, ConfigSet
from qlog_pyserini.system.outputs import OutputKind, atomic_output, check_output_dir, staged_output
from qlog_pyserini.system.progress import info


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
    """Solr's hits (float scores, ordered score desc then id asc) with the scores Anserini writes
    (:func:`anserini_score_steps` on one query)."""
    steps = anserini_score_steps(np.array([h.score for h in hits], dtype=np.float32), np.array([0, len(hits)]))
    return [Hit(h.docid, score) for h, score in zip(hits, steps.tolist())]


_F4 = np.float32(1e-4)
_F6 = np.float32(1e-6)


def anserini_score_steps(scores: np.ndarray, offsets: np.ndarray) -> np.ndarray:
    """Solr's float32 scores of many queries (query ``i``'s at ``offsets[i]:offsets[i + 1]``, each ordered
    score desc then id asc) with the scores Anserini writes, as float32.

    Anserini's ScoreTiesAdjusterReranker, as io.qlog.search.AnseriniTies reproduces it (``anserini``, then
    ``strictlyDecreasing``), in float32 arithmetic step for step: round to 4 decimals, then push each score
    within 1e-4 of the adjusted one above down by 1e-6 per tie, then keep each score strictly below the
    one above as a float (the next float down where the step vanished). With the same float scores in the
    same order, the Solr run is then the Lucene run line for line, so trec_eval (which compares scores in
    single precision and breaks its own ties by docid) sees the same ranking; with Solr's raw scores, a
    float tie at rank 10 could be reordered by trec_eval.

    The tie steps run over the whole batch as arrays: which scores start a tie group depends on the
    adjusted score above, so the groups are guessed from the rounded scores, the steps applied, and the
    guess checked against the steps' own outcome until the two agree (a guess that agrees is the
    sequential result, position by position); the rare lost step is then repaired in order.
    """
    raw = np.asarray(scores, dtype=np.float32).astype(np.float64)  # widened exactly, as Java does
    rounded = (np.floor(raw * 10000.0 + 0.5) / 10000.0).astype(np.float32)  # (float) (Math.round(s * 10000d) / 10000d)
    n = len(rounded)
    first = np.zeros(n, dtype=bool)
    starts = np.asarray(offsets[:-1], dtype=np.int64)
    first[starts[starts < n]] = True
    at = np.arange(n)
    above = rounded  # the first guess: no score was stepped
    groups = None
    for _ in range(n + 1):  # each round settles at least the first position still guessed wrong
        new = first.copy()
        new[1:] |= (above[:-1] - rounded[1:]) > _F4
        if groups is not None and np.array_equal(new, groups):
            break
        groups = new
        tied = at - np.maximum.accumulate(np.where(groups, at, 0))
        above = np.where(tied > 0, rounded - _F6 * tied.astype(np.float32), rounded).astype(np.float32)
    out = above.copy()
    lost = np.flatnonzero(out[1:] >= out[:-1]) + 1
    for i in lost[~first[lost]].tolist():
        while i < n and not first[i] and out[i] >= out[i - 1]:  # as AnseriniTies.strictlyDecreasing
            out[i] = np.nextafter(out[i - 1], np.float32(-np.inf), dtype=np.float32)
            i += 1
    return out


BATCH = 64  # queries per written chunk: a run of any length holds one chunk's hits in memory
#: Solr requests in flight at once: one query's answer (1,000 ids and scores as JSON) is read and parsed while
#: Solr searches the next. On a 2-node test cluster sharing a 2-core machine with the client, two took the 1,261
#: CSN-Ruby queries from 18 s to 16 s (the same run); a cluster on machines of its own gains more.
DEFAULT_THREADS = 2
#: the folder ``sweep_q`` writes (its runs and metrics.csv): replaced only when this tool wrote it
SWEEP_OUTPUT = OutputKind("solr-sweep")


@dataclass(frozen=True)
class SolrBatch:
    """The hits of a few queries as columns: query ``i``'s are ``docids[offsets[i]:offsets[i + 1]]``, with
    ``scores`` (float32) as Anserini writes them (:func:`anserini_score_steps`)."""

    qids: list[str]
    offsets: np.ndarray
    docids: list[str]
    scores: np.ndarray
    seconds: float  # spent waiting for Solr's answers


def _check_search(k: int, field: str) -> None:
    if not 1 <= k <= 100_000:
        raise QLogError(f"illegal hits value: {k}, must be between 1 and 100000")
    check_field(field)


@contextlib.contextmanager
def _searching(client: SolrClient, threads: int) -> Iterator[Callable[[list[str], str, int, str],
                                                                      list[tuple[list[str], np.ndarray]]]]:
    """A function searching a list of texts, ``threads`` requests at a time, answers in the texts' order.

    Each worker thread has a client (and HTTP session) of its own: a ``requests`` session is not
    documented as safe to share between threads. The clients are closed on exit.
    """
    if threads == 1:
        yield lambda collection, texts, k, field: [client.search_columns(collection, t, k, field) for t in texts]
        return
    local, opened, lock = threading.local(), [], threading.Lock()

    def one(collection: str, text: str, k: int, field: str) -> tuple[list[str], np.ndarray]:
        own = getattr(local, "client", None)
        if own is None:
            own = local.client = SolrClient(client.url, client.timeout)
            with lock:
                opened.append(own)
        return own.search_columns(collection, text, k, field)

    with ThreadPoolExecutor(threads, thread_name_prefix="qlog-solr") as pool:
        try:
            yield lambda collection, texts, k, field: list(pool.map(lambda t: one(collection, t, k, field), texts))
        finally:
            pool.shutdown(wait=True, cancel_futures=True)
            for own in opened:
                own.close()


def search_batches(client: SolrClient, collection: str, topics: dict[str, str], k: int = 1000,
                   field: str = FIELD, batch_size: int = BATCH, threads: int = DEFAULT_THREADS) -> Iterator[SolrBatch]:
    """Every topic searched in ``field``, ``batch_size`` topics at a time, in topic order (an empty query
    gets no hits), ``threads`` requests in flight at once (the hits do not depend on it)."""
    _check_search(k, field)
    check_threads(threads)
    qids = list(topics)
    with _searching(client, threads) as search:
        for at in range(0, len(qids), batch_size):
            chunk = qids[at:at + batch_size]
            started = time.perf_counter()
            answers = search(collection, [topics[qid] for qid in chunk], k, field)
            seconds = time.perf_counter() - started
            offsets = np.cumsum([0] + [len(ids) for ids, _ in answers])
            docids = [d for ids, _ in answers for d in ids]
            raw = np.concatenate([scores for _, scores in answers]) if answers else np.zeros(0)
            yield SolrBatch(chunk, offsets, docids, anserini_score_steps(raw.astype(np.float32), offsets), seconds)


def search_topics(client: SolrClient, collection: str, topics: dict[str, str], k: int = 1000,
                  field: str = FIELD, threads: int = DEFAULT_THREADS) -> dict[str, list[Hit]]:
    """``{qid: hits}`` for every topic searched in ``field``, in topic order, scores as Anserini writes them
    (an empty query gets no hits). To write a run, :func:`write_topics_run` streams it instead."""
    out: dict[str, list[Hit]] = {}
    for b in search_batches(client, collection, topics, k, field, threads=threads):
        scores = b.scores.astype(np.float64).tolist()
        for i, qid in enumerate(b.qids):
            lo, hi = int(b.offsets[i]), int(b.offsets[i + 1])
            out[qid] = [Hit(d, s) for d, s in zip(b.docids[lo:hi], scores[lo:hi])]
    return out


def write_topics_run(client: SolrClient, collection: str, topics: dict[str, str], output: str | os.PathLike,
                     tag: str, k: int = 1000, field: str = FIELD, threads: int = DEFAULT_THREADS) -> tuple[int, float]:
    """Search every topic in ``field`` and write the TREC run atomically, a chunk of queries at a time (the
    lines :func:`qlog_pyserini.formats.trec.write_run` writes for :func:`search_topics`' hits, formatted as
    columns). Returns (queries that got hits, seconds spent waiting for Solr)."""
    _check_search(k, field)
    check_threads(threads)
    check_id(tag, "run tag")
    answered, seconds = 0, 0.0
    with atomic_output(output) as f:
        for b in search_batches(client, collection, topics, k, field, threads=threads):
            f.write(format_run_columns(b.qids, b.offsets, b.docids, b.scores, tag))
            answered += int((np.diff(b.offsets) > 0).sum())
            seconds += b.seconds
    return answered, seconds


def run_to_file(client: SolrClient, collection: str, topics_path: str | os.PathLike, output: str | os.PathLike,
                k: int = 1000, tag: str = "qlog-solr", field: str = FIELD, threads: int = DEFAULT_THREADS) -> int:
    """Search every topic in ``field`` (``threads`` requests at a time) and write the run; returns how many
    queries got hits."""
    return write_topics_run(client, collection, read_topics(topics_path), output, tag, k, field, threads)[0]


def sweep_q(client: SolrClient, collection: str, base: ConfigSet, grid: Sequence[float],
            topics_path: str | os.PathLike, qrels_path: str | os.PathLike, out_dir: str | os.PathLike,
            k: int = 1000, metrics: Sequence[str] = ("ndcg_cut.10", "recip_rank", "recall.100"),
            field: str = FIELD, force: bool = False, threads: int = DEFAULT_THREADS,
            overwrite: bool = False) -> list[dict]:
    """For each q: the collection's configset rewritten with that q, a RELOAD, every topic searched into
    ``run.q<q>.txt``, trec_eval on it. Writes ``metrics.csv``; returns its rows. The index is never touched;
    the configset is replaced only if ours, or with ``force`` (:func:`ours_to_replace`). ``out_dir`` is
    published whole at the end; a non-empty one is replaced only with ``overwrite`` and only if this tool
    wrote it (checked before any request)."""
    check_threads(threads)
    out = check_output_dir(out_dir, SWEEP_OUTPUT, inputs=[topics_path, qrels_path], overwrite=overwrite)
    topics = read_topics(topics_path)
    configset = ours_to_replace(client, collection, force)
    rows = []
    with staged_output(out, SWEEP_OUTPUT, "sweep", overwrite=overwrite) as stage:
        for q in grid:
            config = base.with_q(q)
            client.upload_configset(configset, config.zip_bytes())
            client.reload_collection(collection)
            run = stage / f"run.q{config.q:g}.txt"
            _, seconds = write_topics_run(client, collection, topics, run, f"qlog-solr-q{config.q:g}", k, field,
                                          threads)
            scores = trec_eval(qrels_path, run, metrics=list(metrics), per_query=False).aggregate
            rows.append({"q": config.q, **{m: scores[m] for m in scores}, "search_seconds": round(seconds, 2),
                         "run": run.name})
            info(f"q={config.q:g}: {', '.join(f'{m} {scores[m]:.4f}' for m in scores)} ({seconds:.1f} s)")
        with atomic_output(stage / "metrics.csv") as f:
            writer = csv.DictWriter(f, fieldnames=list(rows[0]))
            writer.writeheader()
            writer.writerows(rows)
    return rows
