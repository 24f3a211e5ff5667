"""Nested, seeded subsamples of a prepared benchmark: the same corpus at several sizes.

    >>> from qlog_pyserini.corpus.subsample import subsample
    >>> subsample("work/corpora/cosqa/prepared", "work/corpora/cosqa-2k/prepared", 2000)  # doctest: +SKIP

A prepared benchmark is a folder with ``corpus/`` (a JSON collection), ``topics.tsv``, ``qrels.txt``
and ``manifest.json`` (what ``prepare`` writes). Its subsample of ``size`` documents keeps a prefix of
a seeded order of the judged queries, with their relevant documents, and fills the rest with a prefix
of a seeded order of the other documents. Both orders depend on the seed only, so with one seed a
smaller subsample is contained in every larger one (nested), and every subsample of one source is one
*family*, recorded in its manifest, so that leave-one-family-out holds it out with its source.

Queries are taken in order while their relevant documents stay within ``relevant_share`` of the size
(so a subsample is not made only of answers) and at most ``max_queries`` of them.
"""

from __future__ import annotations

import os
import random
from pathlib import Path

from qlog_pyserini.errors import QLogError
from qlog_pyserini.formats.documents import iter_documents, write_json_collection
from qlog_pyserini.formats.topics import read_topics, write_topics_tsv
from qlog_pyserini.formats.trec import read_qrels, write_qrels
from qlog_pyserini.system.outputs import check_output_dir, staged_output, write_json
from qlog_pyserini.system.project import relative_to_project

DEFAULT_SEED = 7
DEFAULT_RELEVANT_SHARE = 0.2


def subsample_name(base: str, size: int) -> str:
    """``cosqa`` at 2,000 documents is ``cosqa-2k``; at 500, ``cosqa-500``."""
    return f"{base}-{size // 1000}k" if size >= 1000 and size % 1000 == 0 else f"{base}-{size}"


def choose(qrels: dict[str, dict[str, int]], qids: list[str], docids: list[str], size: int, max_queries: int,
           relevant_share: float = DEFAULT_RELEVANT_SHARE, seed: int = DEFAULT_SEED) -> tuple[list[str], set[str]]:
    """The queries (in their seeded order) and documents a subsample of ``size`` keeps; pure, for testing."""
    judged = sorted(q for q in qids if any(g > 0 for g in qrels.get(q, {}).values()))
    random.Random(seed).shuffle(judged)
    relevant_all = {d for q in judged for d, g in qrels[q].items() if g > 0}
    others = sorted(d for d in docids if d not in relevant_all)
    random.Random(seed + 1).shuffle(others)
    kept_queries: list[str] = []
    kept_relevant: set[str] = set()
    for q in judged:
        relevant = {d for d, g in qrels[q].items() if g > 0}
        if len(kept_relevant | relevant) > relevant_share * size or len(kept_queries) >= max_queries:
            break
        kept_queries.append(q)
        kept_relevant |= relevant
    return kept_queries, kept_relevant | set(others[:max(0, size - len(kept_relevant))])


def subsample(source: str | os.PathLike, out: str | os.PathLike, size: int, *, max_queries: int = 500,
              relevant_share: float = DEFAULT_RELEVANT_SHARE, seed: int = DEFAULT_SEED, family: str | None = None,
              overwrite: bool = False) -> dict:
    """Write the subsample of ``size`` documents of the prepared benchmark ``source`` to ``out``; returns its manifest.

    ``family`` (default: the name of ``source``'s folder above ``prepared/``, else of ``source``) is
    recorded in the manifest. ``out`` appears only when complete.
    """
    source, out = Path(source), Path(out)
    for name in ("corpus", "topics.tsv", "qrels.txt"):
        if not (source / name).exists():
            raise QLogError(f"{str(source)!r} is not a prepared benchmark (no {name})")
    if size < 1 or max_queries < 1 or not 0 < relevant_share <= 1:
        raise QLogError(f"size and max_queries must be at least 1 and relevant_share in (0, 1], got {size}, "
                        f"{max_queries}, {relevant_share}")
    check_output_dir(out, "prepare", inputs=[source], overwrite=overwrite)
    topics, qrels = read_topics(source / "topics.tsv"), read_qrels(source / "qrels.txt")
    docids = [d for d, _ in iter_documents(source / "corpus")]
    if size >= len(docids):
        raise QLogError(f"{str(source)!r} has {len(docids):,} documents: no subsample of {size:,}")
    queries, keep = choose(qrels, list(topics), docids, size, max_queries, relevant_share, seed)
    if not queries:
        raise QLogError(f"no query of {str(source)!r} fits a subsample of {size:,} documents")
    family = family or (source.parent.name if source.name == "prepared" else source.name)
    manifest = {"subset_of": relative_to_project(source), "family": family, "documents": len(keep), "queries": len(queries),
                "seed": seed, "relevant_share": relevant_share}
    with staged_output(out, "prepare", "subsample", overwrite=overwrite) as staging:
        write_json_collection(((d, t) for d, t in iter_documents(source / "corpus") if d in keep), staging / "corpus")
        write_topics_tsv(staging / "topics.tsv", {q: topics[q] for q in queries})
        write_qrels(staging / "qrels.txt", {q: {d: g for d, g in qrels[q].items() if d in keep} for q in queries})
        write_json(staging / "manifest.json", manifest)
    return manifest
