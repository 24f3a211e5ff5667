"""The embedded demo: real code search benchmarks built on the fly from code every install has.

    python -m qlog_pyserini.demo [--queries 500] [--work DIR]

Sources, found at run time: the running Python's standard library and, where the JDK ships
it, the JDK's ``lib/src.zip``. Every documented function is a document (its code without the
doc comment); a seeded sample of them are queries (the doc comment's first paragraph), each
with its own function as the one relevant document, as CodeSearchNet/CoIR frame code search.
Each corpus is indexed with Anserini's default English analyzer (the frozen generic
tokenizer), searched with BM25 and with q-log BM25 at a few q, and scored with trec_eval.
No network and no ``../shared`` data are needed.
"""

from __future__ import annotations

import sys
import sysconfig
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Sequence

from qlog_pyserini.corpus import build_benchmark
from qlog_pyserini.prepare.datasets import prepare_beir
from qlog_pyserini.eval.trec_eval import trec_eval
from qlog_pyserini.formats.topics import read_topics
from qlog_pyserini.formats.trec import write_run
from qlog_pyserini.index.indexer import build_index
from qlog_pyserini.jvm.toolchain import find_jdk
from qlog_pyserini.system.progress import info
from qlog_pyserini.search.batch import search_topics
from qlog_pyserini.search.searcher import QLogSearcher

DEMO_QS = (1.0, 0.7, 0.5, 0.3, 0.1)


@dataclass(frozen=True)
class DemoCorpus:
    name: str
    source: Path
    language: str


def demo_sources() -> list[DemoCorpus]:
    """The standard library of this Python, and the JDK's src.zip when the JDK has one."""
    sources = [DemoCorpus(f"python{sys.version_info.major}.{sys.version_info.minor}-stdlib",
                          Path(sysconfig.get_paths()["stdlib"]), "python")]
    src_zip = find_jdk().home / "lib" / "src.zip"
    if src_zip.is_file():
        sources.append(DemoCorpus(f"jdk{find_jdk().version}-src", src_zip, "java"))
    return sources


def run_demo(work: Path, n_queries: int = 500, qs: Sequence[float] = DEMO_QS, threads: int = 2,
             seed: int = 42) -> list[dict]:
    """Build, index, search and evaluate each demo corpus; one result row per corpus."""
    rows = []
    for corpus in demo_sources():
        t0 = time.perf_counter()
        folder = work / corpus.name
        folder.mkdir(parents=True, exist_ok=True)  # our own work folder: the steps below refuse to invent parents
        info(f"[{corpus.name}] extracting documented functions from {corpus.source}")
        build_benchmark([(corpus.source, corpus.name)], folder / "beir", languages=[corpus.language],
                        n_queries=n_queries, seed=seed, overwrite=True, progress=True)
        prepared = prepare_beir(folder / "beir", folder / "prepared", overwrite=True)
        build_index(prepared.out / "corpus", folder / "index", threads=threads, overwrite=True)
        topics = read_topics(prepared.out / "topics.tsv")
        searcher = QLogSearcher(folder / "index")
        scores = {}
        for q in qs:
            searcher.set_q(q)
            run = folder / f"run.q{q:g}.txt"
            write_run(run, search_topics(searcher, topics, hits=100, threads=threads, progress=False), tag=f"q{q:g}")
            scores[q] = trec_eval(prepared.out / "qrels.txt", run, metrics=["ndcg_cut.10"],
                                  per_query=False).aggregate["ndcg_cut.10"]
        rows.append({"corpus": corpus.name, "docs": searcher.num_docs, "queries": len(topics), "scores": scores,
                     "seconds": time.perf_counter() - t0})
        searcher.close()
    return rows


def format_table(rows: list[dict], qs: Sequence[float]) -> str:
    """Markdown: NDCG@10 of BM25 (q = 1) and q-log BM25 at each q, side by side, best marked."""
    cols = [q for q in qs if q != 1.0]
    head = "| corpus | docs | queries | BM25 (q=1) | " + " | ".join(f"q={q:g}" for q in cols) + " | best vs BM25 |\n"
    head += "|---|---:|---:|---:|" + "---:|" * len(cols) + "---|\n"
    lines = []
    for r in rows:
        s = r["scores"]
        best = max(s, key=lambda q: (s[q], -abs(q - 1)))
        gain = s[best] - s[1.0]
        rel = f"{gain / s[1.0]:+.1%}" if s[1.0] else "n/a"
        cells = " | ".join(f"**{s[q]:.4f}**" if q == best else f"{s[q]:.4f}" for q in cols)
        lines.append(f"| {r['corpus']} | {r['docs']:,} | {r['queries']:,} | {s[1.0]:.4f} | {cells} "
                     f"| q={best:g}: {gain:+.4f} ({rel}) |\n")
    return head + "".join(lines)
