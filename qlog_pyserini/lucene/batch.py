"""Search topics against a Lucene index with q-log BM25 and write a TREC run.

    python -m qlog_pyserini.search --index DIR --topics FILE --output run.txt --q 0.05

``--q 1`` (the default) is Pyserini's BM25 exactly: same docids, ranks and scores as
``LuceneSearcher`` with ``set_bm25(0.9, 0.4)``. ``--q auto`` predicts q from the index's hapax
density with no labels (:mod:`qlog_pyserini.predict`) and logs h_tok and the chosen q.
"""

from __future__ import annotations

import itertools
import os
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from typing import BinaryIO, Callable, Iterator, Mapping, Sequence, TypeVar

from qlog_pyserini.errors import QLogError
from qlog_pyserini.formats.topics import Topics
from qlog_pyserini.formats.trec import OUTPUT_FORMATS, Hit, check_id, run_lines
from qlog_pyserini.lucene.fields import FieldResults, search_fields_columns
from qlog_pyserini.lucene.results import BatchResults
from qlog_pyserini.lucene.searcher import QLogSearcher
from qlog_pyserini.system.outputs import atomic_output
from qlog_pyserini.system.progress import progress_bar

BATCH = 64  # queries per Java batch call: large enough to keep threads busy, small enough for a live progress bar

T = TypeVar("T")
_END = object()


def prefetched(items: Iterator[T]) -> Iterator[T]:
    """``items`` in order, the next one computed in a background thread while the caller handles this one.

    A run is searched and written in turns, batch by batch: with the next batch searched while this
    one is written, the JVM's writing overlaps its searching (a Java call releases the GIL), and
    memory holds two batches instead of one. An exception raised making an item is raised here, in
    the caller's thread, in its place.
    """
    with ThreadPoolExecutor(1, thread_name_prefix="qlog-prefetch") as pool:
        pending = pool.submit(next, items, _END)
        while True:
            item = pending.result()
            if item is _END:
                return
            pending = pool.submit(next, items, _END)
            yield item


def search_batches(searcher: QLogSearcher, topics: Topics, hits: int = 1000, threads: int = 1,
                   progress: bool = True, batch_size: int = BATCH, fields: Mapping[str, float] | None = None,
                   desc: str = "searching", q_of: Callable[[list[str]], Sequence[float]] | None = None,
                   ) -> Iterator[BatchResults | FieldResults]:
    """Every topic through ``searcher``, ``batch_size`` queries at a time, one batch's results at a time.

    Each batch is a :class:`~qlog_pyserini.lucene.results.BatchResults` (columns from Java), or with
    ``fields`` (:mod:`qlog_pyserini.lucene.fields`, Anserini's own multi-field call) a
    :class:`~qlog_pyserini.lucene.fields.FieldResults` (columns too, a mapping ``qid -> hits``).
    ``q_of`` gives each batch's queries a q of their own (``q_of(queries)``, one value per query:
    q-log BM25 at that q, in one pass; see :meth:`QLogSearcher.batch_search`).
    """
    if q_of is not None and fields:
        raise QLogError("a q per query does not combine with fields")
    for chunk, queries in _topic_batches(topics, batch_size, desc, progress):
        if fields:
            yield search_fields_columns(searcher, queries, chunk, fields, k=hits, threads=threads)
        else:
            qs = None if q_of is None else list(q_of(queries))
            yield searcher.batch_search(queries, chunk, k=hits, threads=threads, q=qs)


def _topic_batches(topics: Topics, batch_size: int, desc: str, progress: bool) -> Iterator[tuple[list[str], list[str]]]:
    """``(qids, queries)`` of ``batch_size`` topics at a time, in topic order, under a progress bar over the topics
    (each batch counted once the caller asks for the next)."""
    if batch_size < 1:
        raise QLogError(f"batch size must be at least 1, got {batch_size}")
    entries = iter(topics.items())  # a TopicStream reads its file again here, a batch at a time
    with progress_bar(total=len(topics), desc=desc, unit="q", quiet=not progress) as bar:
        while True:
            pairs = list(itertools.islice(entries, batch_size))
            if not pairs:
                break
            yield [qid for qid, _ in pairs], [text for _, text in pairs]
            bar.update(len(pairs))


def search_grid_batches(searcher: QLogSearcher, topics: Topics, models: Sequence[object], hits: int = 1000,
                        threads: int = 1, progress: bool = False, batch_size: int = BATCH,
                        desc: str = "searching", writable: bool = True) -> Iterator[list[BatchResults]]:
    """Every topic under every model, ``batch_size`` queries at a time: for each batch, one
    :class:`~qlog_pyserini.lucene.results.BatchResults` per model (:meth:`QLogSearcher.search_grid`,
    ``writable`` as there)."""
    for chunk, queries in _topic_batches(topics, batch_size, desc, progress):
        yield searcher.search_grid(queries, chunk, models, k=hits, threads=threads, writable=writable)


def search_topics(searcher: QLogSearcher, topics: Topics, hits: int = 1000, threads: int = 1,
                  progress: bool = True, batch_size: int = BATCH,
                  fields: Mapping[str, float] | None = None) -> dict[str, list[Hit]]:
    """Run every topic through ``searcher``; ``{qid: hits}`` in topic order, all in memory.

    ``batch_size`` queries go to Java at a time (the run does not depend on it). ``fields`` searches
    those fields with their weights (:mod:`qlog_pyserini.lucene.fields`) instead of ``contents``.
    To write a run, :func:`write_topics_run` streams it instead, holding one batch at a time.
    """
    results: dict[str, list[Hit]] = {}
    for batch in search_batches(searcher, topics, hits, threads, progress, batch_size, fields):
        results.update(batch)
    return results


@dataclass(frozen=True)
class RunWritten:
    """What :func:`write_topics_run` wrote: run lines, and how many queries got none."""

    lines: int
    unanswered: int


def write_topics_run(searcher: QLogSearcher, topics: Topics, output: str | os.PathLike, tag: str,
                     hits: int = 1000, threads: int = 1, progress: bool = True, batch_size: int = BATCH,
                     fields: Mapping[str, float] | None = None, output_format: str = "trec",
                     remove_duplicates: bool = False, remove_query: bool = False,
                     q_of: Callable[[list[str]], Sequence[float]] | None = None) -> RunWritten:
    """Search every topic and write the run atomically, batch by batch (the next batch searched while
    this one is written): memory holds two batches, however long the run. Java formats and writes each batch's lines (no Python work per hit); the file is
    byte for byte what :func:`qlog_pyserini.formats.trec.write_run` writes for the same hits, after
    Pyserini's ``--remove-duplicates`` / ``--remove-query`` when asked. ``q_of`` as in :func:`search_batches`.
    """
    check_id(tag, "run tag")
    if output_format not in OUTPUT_FORMATS:
        raise QLogError(f"unknown output format {output_format!r}; choose one of {', '.join(OUTPUT_FORMATS)}")
    with atomic_output(output, "wb") as f:
        return write_topics_lines(f, searcher, topics, tag, hits=hits, threads=threads, progress=progress,
                                  batch_size=batch_size, fields=fields, output_format=output_format,
                                  remove_duplicates=remove_duplicates, remove_query=remove_query, q_of=q_of)


def write_topics_lines(f: BinaryIO, searcher: QLogSearcher, topics: Topics, tag: str, hits: int = 1000,
                       threads: int = 1, progress: bool = True, batch_size: int = BATCH,
                       fields: Mapping[str, float] | None = None, output_format: str = "trec",
                       remove_duplicates: bool = False, remove_query: bool = False,
                       q_of: Callable[[list[str]], Sequence[float]] | None = None) -> RunWritten:
    """:func:`write_topics_run`'s search and lines, written to the open binary file ``f`` (a run made of
    several searchers' parts, one after the other, as an instance set's run is)."""
    lines = unanswered = 0
    for batch in prefetched(search_batches(searcher, topics, hits, threads, progress, batch_size, fields,
                                           q_of=q_of)):
        if isinstance(batch, BatchResults):
            batch = batch.dropped(remove_duplicates, remove_query)
            lines += batch.write_run(f, tag, output_format)
            unanswered += int((batch.counts() == 0).sum())
        elif not (remove_duplicates or remove_query):  # fields: columns, formatted without a Hit per line
            f.write(batch.run_text(tag, output_format).encode("utf-8"))
            lines += int(batch.counts().sum())
            unanswered += int((batch.counts() == 0).sum())
        else:
            batch = drop_hits(batch, remove_duplicates, remove_query)
            f.write("".join(run_lines(batch, tag, output_format=output_format)).encode("utf-8"))
            lines += sum(len(h) for h in batch.values())
            unanswered += sum(1 for h in batch.values() if not h)
    return RunWritten(lines, unanswered)


def drop_hits(results: Mapping[str, Sequence[Hit]], remove_duplicates: bool = False,
              remove_query: bool = False) -> dict[str, list[Hit]]:
    """Pyserini's ``--remove-duplicates`` (keep a docid's first hit) and ``--remove-query`` (drop the
    hit whose docid is the query's id, for collections whose queries are documents, e.g. ArguAna)."""
    out: dict[str, list[Hit]] = {}
    for qid, hits in results.items():
        seen: set[str] = set()
        kept = []
        for hit in hits:
            if remove_duplicates and hit.docid in seen:
                continue
            if remove_query and hit.docid == qid:
                continue
            seen.add(hit.docid)
            kept.append(hit)
        out[qid] = kept
    return out


def default_run_tag(similarity: str, q: float = 1.0, idf_form: str = "lucene", gamma: float = 1.0,
                    mu: float = 1000.0) -> str:
    """A whitespace-free tag naming the model and its parameter, e.g. ``qlog-bm25-q0.3-lucene``."""
    return {"qlog": f"qlog-bm25-q{q:g}-{idf_form}", "idf-gamma": f"bm25-idf-gamma{gamma:g}",
            "qld": f"qld-mu{mu:g}"}.get(similarity, similarity)
