"""The embedded demo: real code search benchmarks built on the fly from code every install has.

    python -m qlog_pyserini.demo [--queries 500] [--work DIR]

Sources, found at run time: the running Python's standard library and, where the JDK ships
it, the JDK's ``lib/src.zip``. Every documented function is a document (its code without the
doc comment); a seeded sample of them are queries (the doc comment's first paragraph), each
with its own function as the one relevant document, as CodeSearchNet/CoIR frame code search.
Each corpus is indexed with Anserini's default English analyzer (the frozen generic
tokenizer), searched with BM25 and with q-log BM25 at a few q, and scored with trec_eval. Beside
the curve the table shows the label-free q (``--q auto``), the 5-fold cross-validated q and the oracle.
No network and no ``../shared`` data are needed.
"""

from __future__ import annotations

import sys
import sysconfig
import time
from pathlib import Path
from typing import NamedTuple, Sequence

import pandas as pd

from qlog_pyserini.corpus import build_benchmark
from qlog_pyserini.eval.report import markdown_table
from qlog_pyserini.eval.trec_eval import trec_eval
from qlog_pyserini.formats.topics import read_topics
from qlog_pyserini.jvm.toolchain import find_jdk
from qlog_pyserini.lucene.batch import write_topics_run
from qlog_pyserini.lucene.indexer import build_index
from qlog_pyserini.lucene.searcher import QLogSearcher
from qlog_pyserini.predict.rule import predict_q
from qlog_pyserini.prepare.datasets import prepare_beir
from qlog_pyserini.sweep.crossval import cross_validate
from qlog_pyserini.system.outputs import OutputKind
from qlog_pyserini.system.progress import info

DEMO_QS = (1.0, 0.7, 0.5, 0.3, 0.1)
#: ``demo --work``: a work folder later demos reuse (each corpus and index in it carries its own marker)
DEMO_WORK = OutputKind("demo", work=True)


class DemoCorpus(NamedTuple):
    """A corpus the demo builds from sources on this machine: its name, the folder or zip read, the language."""

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
        auto = predict_q(folder / "index")  # the label-free q (--q auto), from the index alone
        scores, per_query = {}, {}
        for q in sorted(set(qs) | {auto.q}, reverse=True):
            searcher.set_q(q)
            run = folder / f"run.q{q:g}.txt"
            write_topics_run(searcher, topics, run, f"q{q:g}", hits=100, threads=threads, progress=False)
            result = trec_eval(prepared.out / "qrels.txt", run, metrics=["ndcg_cut.10"])
            scores[q], per_query[q] = result.aggregate["ndcg_cut.10"], result.per_query["ndcg_cut.10"]
        # The honest choice beside the oracle: q picked on the other folds' queries, each scored held out.
        cv = cross_validate(pd.DataFrame({q: per_query[q] for q in qs}), reference=1.0, seed=seed)
        rows.append({"corpus": corpus.name, "docs": searcher.num_docs, "queries": len(topics), "scores": scores,
                     "auto_q": auto.q, "cv_score": cv.score, "cv_qs": sorted(set(cv.chosen)),
                     "seconds": time.perf_counter() - t0})
        searcher.close()
    return rows


def format_table(rows: list[dict], qs: Sequence[float]) -> str:
    """Markdown: NDCG@10 of BM25 (q = 1) and q-log BM25 at each q, then the label-free q, the
    cross-validated q and the oracle (the best q, chosen on the queries it is scored on), each against BM25."""
    cols = [q for q in qs if q != 1.0]
    lines = []
    for r in rows:
        s = r["scores"]
        best = max((q for q in qs), key=lambda q: (s[q], -abs(q - 1)))
        cv_qs = "/".join(f"{q:g}" for q in r["cv_qs"])
        lines.append([r["corpus"], f"{r['docs']:,}", f"{r['queries']:,}", f"{s[1.0]:.4f}",
                      *(f"**{s[q]:.4f}**" if q == best else f"{s[q]:.4f}" for q in cols),
                      f"q={r['auto_q']:g}: {_versus(s[r['auto_q']], s[1.0])}",
                      f"q={cv_qs}: {_versus(r['cv_score'], s[1.0])}", f"q={best:g}: {_versus(s[best], s[1.0])}"])
    return markdown_table(lines, ["corpus", "docs", "queries", "BM25 (q=1)", *(f"q={q:g}" for q in cols),
                                  "label-free q (auto)", "5-fold cross-validated q", "oracle q (best on the curve)"],
                          "lrrr" + "r" * len(cols) + "lll")


def _versus(score: float, bm25: float) -> str:
    rel = f"{(score - bm25) / bm25:+.1%}" if bm25 else "n/a"
    return f"{score:.4f} ({rel})"
