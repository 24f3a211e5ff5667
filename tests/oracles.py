"""What tests compare the product with, kept out of the library: Anserini's own BM25 searcher, whole corpora in
memory, and a wait for processes to end."""

from __future__ import annotations

import os
import time
from typing import Any, Iterable, Sequence

from qlog_pyserini.formats.documents import iter_documents
from qlog_pyserini.formats.trec import Hit
from qlog_pyserini.formula import DEFAULT_B, DEFAULT_K1
from qlog_pyserini.jvm.bridge import jclass
from qlog_pyserini.search.searcher import check_index_dir
from qlog_pyserini.system.processes import pid_alive


def anserini_bm25_searcher(index_dir: str | os.PathLike, k1: float = DEFAULT_K1, b: float = DEFAULT_B) -> Any:
    """Anserini's own ``SimpleSearcher`` with ``set_bm25(k1, b)``: the reference q = 1 must equal."""
    s = jclass("io.anserini.search.SimpleSearcher")(str(check_index_dir(index_dir)))
    s.set_bm25(float(k1), float(b))
    return s


def hits_from_anserini(scored_docs: Sequence[Any]) -> list[Hit]:
    """Python hits from an array of Anserini ``ScoredDoc``."""
    return [Hit(d.docid, float(d.score)) for d in scored_docs]


def results_from_anserini(results: Any) -> dict[str, list[Hit]]:
    """Python ``{qid: hits}`` from Anserini's ``Map<String, ScoredDoc[]>``."""
    return {qid: hits_from_anserini(results.get(qid)) for qid in results.keySet().toArray()}


def load_texts(path: str | os.PathLike) -> dict[str, str]:
    """The whole corpus in memory as ``{docid: contents}`` (validated as ``iter_documents``)."""
    return dict(iter_documents(path))


def wait_gone(pids: Iterable[int], timeout: float = 10.0) -> list[int]:
    """The ``pids`` still alive after up to ``timeout`` seconds (a zombie counts as gone: it runs nothing)."""
    deadline = time.monotonic() + timeout
    left = list(pids)
    while left and time.monotonic() < deadline:
        left = [p for p in left if pid_alive(p) and not is_zombie(p)]
        if left:
            time.sleep(0.05)
    return left


def is_zombie(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat", encoding="ascii", errors="replace") as f:
            return f.read().rsplit(")", 1)[1].split()[0] == "Z"
    except OSError:
        return False
