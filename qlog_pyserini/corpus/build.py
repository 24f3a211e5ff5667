"""Building a benchmark folder (corpus, queries, qrels, manifest) from the functions of source trees."""

from __future__ import annotations

import importlib
import importlib.metadata
import json
import os
import random
from collections import Counter
from pathlib import Path
from typing import Iterable, Sequence

from qlog_pyserini.corpus.doc_comments import MIN_QUERY_WORDS, leading_name_removed
from qlog_pyserini.corpus.extract import (
    Function,
    Source,
    check_languages,
    default_label,
    iter_source,
    normalised_hash,
    plan_files,
)
from qlog_pyserini.corpus.languages import GRAMMAR_PACKAGES
from qlog_pyserini.errors import QLogError
from qlog_pyserini.formats.topics import write_topics_tsv
from qlog_pyserini.formats.trec import check_id, write_qrels
from qlog_pyserini.system.outputs import check_output_dir, staged_output, write_json

QUERIES_FILE = "queries.jsonl"
# The same queries (same ids, same qrels) with the leading function name removed where a query starts with it.
UNNAMED_QUERIES_FILE = "queries-without-name.jsonl"


def unnamed_query(function: Function) -> str:
    """``function``'s query without its leading function name (:func:`leading_name_removed`), or as written."""
    removed = leading_name_removed(function.query, function.name)
    return function.query if removed is None else removed


def _versions(languages: Sequence[str]) -> dict[str, str]:
    out = {}
    for dist in ["tree-sitter"] + [GRAMMAR_PACKAGES[lang] for lang in languages]:
        try:
            out[dist] = importlib.metadata.version(dist)
        except importlib.metadata.PackageNotFoundError:
            out[dist] = "unknown"
    return out


def _jsonl(path: Path, rows: Iterable[dict]) -> None:
    with open(path, "w", encoding="utf-8", newline="\n") as f:
        for row in rows:
            f.write(json.dumps(row, ensure_ascii=False) + "\n")


def _query_key(text: str) -> str:
    return " ".join(text.lower().split())


def build_benchmark(sources: Sequence[tuple[str | os.PathLike, str | None]], out_dir: str | os.PathLike,
                    languages: Sequence[str] | None = None, n_queries: int | None = None,
                    query_fraction: float | None = None, seed: int = 42, max_docs: int | None = None,
                    *, workers: int = 1, overwrite: bool = False, progress: bool = False) -> dict:
    """Build a BEIR/CoIR benchmark folder from source trees and return its manifest.

    Every documented function of ``sources`` (``(path, label)`` pairs; a ``None`` label becomes
    the base name) is a document; duplicates (same code up to whitespace) keep the smallest id.
    ``max_docs`` keeps a seeded random subset of documents. Queries are a seeded sample of the
    documents -- ``n_queries`` of them, or ``query_fraction`` of them, or all when neither is
    given -- each with its own function as the one relevant document (``qid = "q:" + doc id``).

    Writes ``corpus.jsonl`` (``_id``, ``title`` = "", ``text`` = code), ``queries.jsonl``
    (``_id``, ``text``), ``queries-without-name.jsonl`` (the same queries, each without its leading
    function name where it starts with one: a query-variant pair over the same qrels),
    ``qrels/test.tsv`` and ``manifest.json`` into a temporary folder beside
    ``out_dir`` that is renamed into place only when complete. A non-empty ``out_dir`` is
    refused unless ``overwrite``. Same inputs, same bytes: nothing depends on time, hash order or
    ``workers``.
    """
    _check_settings(n_queries, query_fraction, max_docs, workers)
    if not sources:
        raise QLogError("no source given")
    langs = check_languages(languages)
    # Never '.', a parent of a source, or a folder this tool did not write; the parent must exist.
    out = check_output_dir(out_dir, "corpus", inputs=[path for path, _ in sources], overwrite=overwrite)

    opened = _open_sources(sources)
    functions, per_source, stats = _extract_all(opened, langs, workers, progress)
    docs = _unique_code(functions)
    duplicates = len(functions) - len(docs)
    del functions
    if not docs:
        raise QLogError("no documented functions found in the sources")
    rng = random.Random(seed)
    if max_docs is not None and max_docs < len(docs):
        keep = sorted(rng.sample(range(len(docs)), max_docs))
        docs = [docs[i] for i in keep]
    query_docs, ambiguous = _sample_queries(docs, n_queries, query_fraction, rng)

    manifest = {
        "format": "BEIR/CoIR: corpus.jsonl, queries.jsonl, qrels/test.tsv",
        "sources": per_source,
        "languages": list(langs),
        "seed": seed,
        "n_queries": n_queries,
        "query_fraction": query_fraction,
        "max_docs": max_docs,
        "min_query_words": MIN_QUERY_WORDS,
        "counts": {
            **{k: stats[k] for k in sorted(stats)},
            "duplicates_dropped": duplicates,
            "shared_query_text_not_sampled": ambiguous,
            "documents": len(docs),
            "queries": len(query_docs),
            "queries_starting_with_name": sum(unnamed_query(d) != d.query for d in query_docs),
            "documents_per_language": dict(sorted(Counter(d.language for d in docs).items())),
            "queries_per_language": dict(sorted(Counter(d.language for d in query_docs).items())),
        },
        "versions": _versions(langs),
    }
    _write_benchmark(out, docs, query_docs, manifest, overwrite)
    return manifest


def _check_settings(n_queries: int | None, query_fraction: float | None, max_docs: int | None, workers: int) -> None:
    if n_queries is not None and query_fraction is not None:
        raise QLogError("give the number of queries or the query fraction, not both")
    if n_queries is not None and n_queries < 1:
        raise QLogError(f"illegal number of queries: {n_queries}, must be at least 1")
    if query_fraction is not None and not 0.0 < query_fraction <= 1.0:
        raise QLogError(f"illegal query fraction: {query_fraction}, must be in (0, 1]")
    if max_docs is not None and max_docs < 1:
        raise QLogError(f"illegal max docs: {max_docs}, must be at least 1")
    if workers < 1:
        raise QLogError(f"illegal number of workers: {workers}, must be at least 1")


def _open_sources(sources: Sequence[tuple[str | os.PathLike, str | None]]) -> list[tuple[Source, str]]:
    """Each source opened (fails fast on a missing one, before any work) with its unique label."""
    opened, labels = [], set()
    for path, label in sources:
        src = Source(path)
        label = default_label(path) if label is None else label
        check_id(label, "source label")
        if label in labels:
            raise QLogError(f"source label {label!r} is used twice; give each source its own label")
        labels.add(label)
        opened.append((src, label))
    return opened


def _extract_all(opened: list[tuple[Source, str]], langs: Sequence[str], workers: int,
                 progress: bool) -> tuple[list[Function], list[dict], Counter]:
    """Every documented function of every source, with per-source and total file/function counts."""
    stats: Counter = Counter()
    plans = []
    for src, label in opened:
        src_stats: Counter = Counter()
        plans.append((src, label, plan_files(src, langs, src_stats), src_stats))
    bar = None
    if progress:
        from qlog_pyserini.system.progress import progress_bar
        bar = progress_bar(total=sum(len(todo) for _, _, todo, _ in plans), unit="file", desc="parsing")
    per_source = []
    functions: list[Function] = []
    try:
        for src, label, todo, src_stats in plans:
            functions.extend(iter_source(src, label, todo, workers, src_stats,
                                          on_file=bar.update if bar is not None else None))
            per_source.append({"label": label, "path": str(src.path), "kind": src.kind,
                               **{k: src_stats[k] for k in sorted(src_stats)}})
            stats.update(src_stats)
    finally:
        if bar is not None:
            bar.close()
    return functions, per_source, stats


def _unique_code(functions: list[Function]) -> list[Function]:
    """Functions sorted by id, keeping the first of each code text (up to whitespace)."""
    functions.sort(key=lambda f: f.id)
    seen_code: set[bytes] = set()
    docs: list[Function] = []
    for f in functions:
        h = normalised_hash(f.code)
        if h not in seen_code:
            seen_code.add(h)
            docs.append(f)
    return docs


def _sample_queries(docs: list[Function], n_queries: int | None, query_fraction: float | None,
                    rng: random.Random) -> tuple[list[Function], int]:
    """The seeded query sample, and how many documents were not eligible for sharing their query text."""
    # A query whose text is shared by several functions (generated code, overloads, locale tables)
    # has several equally right answers but only one judged relevant: never ask it (as CodeSearchNet
    # removes near-duplicates). Those functions stay in the corpus as documents.
    text_count = Counter(_query_key(d.query) for d in docs)
    candidates = [i for i, d in enumerate(docs) if text_count[_query_key(d.query)] == 1]
    ambiguous = len(docs) - len(candidates)
    if not candidates:
        raise QLogError("every documented function shares its doc comment with another; no query is unambiguous")
    if n_queries is not None:
        if n_queries > len(candidates):
            raise QLogError(f"{n_queries} queries asked for, but only {len(candidates)} of the {len(docs)} documents "
                            f"have a doc comment no other function shares")
        k = n_queries
    elif query_fraction is not None:
        k = max(1, round(query_fraction * len(candidates)))
    else:
        k = len(candidates)
    return [docs[i] for i in sorted(rng.sample(candidates, k))], ambiguous


def _write_benchmark(out: Path, docs: list[Function], query_docs: list[Function], manifest: dict,
                     overwrite: bool) -> None:
    """Write the folder beside ``out`` and rename it into place only when complete."""
    with staged_output(out, "corpus", overwrite=overwrite) as tmp:
        _jsonl(tmp / "corpus.jsonl", ({"_id": d.id, "title": "", "text": d.code} for d in docs))
        _jsonl(tmp / QUERIES_FILE, ({"_id": "q:" + d.id, "text": d.query} for d in query_docs))
        _jsonl(tmp / UNNAMED_QUERIES_FILE, ({"_id": "q:" + d.id, "text": unnamed_query(d)} for d in query_docs))
        (tmp / "qrels").mkdir()
        with open(tmp / "qrels" / "test.tsv", "w", encoding="utf-8", newline="\n") as f:
            f.write("query-id\tcorpus-id\tscore\n")
            f.writelines(f"q:{d.id}\t{d.id}\t1\n" for d in query_docs)
        # The same topics and judgments in TREC's layout too, which eval, sweep and compare read as they are.
        write_topics_tsv(tmp / "topics.tsv", {"q:" + d.id: d.query for d in query_docs})
        write_qrels(tmp / "qrels.txt", {"q:" + d.id: {d.id: 1} for d in query_docs})
        write_json(tmp / "manifest.json", manifest)
