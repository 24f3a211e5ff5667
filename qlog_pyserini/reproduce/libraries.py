"""The ``libraries`` stage: q-log BM25 through bm25s and rank_bm25 (``scripts/bench_rag_libraries.py``): bm25s's
latency beside plain bm25s and the rescale's cost on the demo's JDK corpus; NDCG@10 through Lucene, bm25s and
rank_bm25 on the demo's stdlib corpus and CSN-Ruby."""

from __future__ import annotations

import sys
from typing import Sequence

from qlog_pyserini.reproduce.cache import Config, PreparedCorpus
from qlog_pyserini.reproduce.programs import run_checked, run_script
from qlog_pyserini.system.progress import info

FILES = ("bm25s-bench.md", "rag-libraries.md")


def run(cfg: Config, corpora: Sequence[PreparedCorpus]) -> None:
    csn = cfg.shared / "csn-ruby"
    if not (csn / "test.jsonl").is_file():
        info(f"[libraries] skipped: {csn} is absent")
        return None
    demo = cfg.work / "demo"
    run_checked([sys.executable, "-m", "qlog_pyserini.demo", "--work", str(demo)])
    jdk = sorted(demo.glob("jdk*-src"))
    stdlib = sorted(demo.glob("python*-stdlib"))
    if jdk:
        run_script("bench_rag_libraries.py", "speed", "--prepared", jdk[-1] / "prepared", "--output",
                 cfg.out / FILES[0])
    if stdlib:
        run_script("bench_rag_libraries.py", "ndcg", "--stdlib", stdlib[-1], "--csn-ruby", csn, "--work",
                 cfg.work / "rag-libraries", "--output", cfg.out / FILES[1])
    return None
