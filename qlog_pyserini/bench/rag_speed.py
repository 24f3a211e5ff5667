"""bm25s q-log against plain bm25s, side by side in one process, and the rescale's cost at 62K and 1M documents.

A program's library, not a test (``scripts/bench_rag_libraries.py speed`` runs it and writes
``results/bm25s-bench.md``):

1. The corpus (an Anserini JsonCollection folder, the demo's JDK ``src.zip`` benchmark) is tokenized and indexed
   by bm25s once (Lucene's BM25 method, k1 0.9, b 0.4, English stopwords; numba backend when installed), untimed
   except as a reference figure.
2. Query latency: rounds of two passes over every query, plain bm25s (``rescale(model, 1)``, which puts back
   bm25s's own array) and q-log (``rescale(model, q)``), the order reversed every other round after one warm-up
   of each; the timed call is ``model.retrieve`` alone, one thread. The ratio is the median of the per-round
   q-log / plain ratios.
3. The rescale's cost: ``rescale(model, q)`` from the plain scores, timed, at 62K documents and on a 1M-document
   matrix made by stacking the 62K one 16 times (synthetic: the same vocabulary with 16 times the documents and
   entries; the pass's cost follows the number of entries and columns, not the texts).
"""

from __future__ import annotations

import statistics
import time
from pathlib import Path
from typing import Any, Callable, Sequence

import numpy as np

from qlog_pyserini.eval.report import markdown_table
from qlog_pyserini.formula import DEFAULT_B, DEFAULT_K1
from qlog_pyserini.integrations.bm25s import QLogState, rescale
from qlog_pyserini.system.provenance import git_commit, machine

STACKED_COPIES = 16


def read_collection(folder: str | Path) -> tuple[list[str], list[str]]:
    """Ids and texts of a corpus file or folder (:func:`qlog_pyserini.formats.documents.iter_documents`), in order."""
    from qlog_pyserini.formats.documents import iter_documents

    pairs = list(iter_documents(folder))
    return [docid for docid, _ in pairs], [text for _, text in pairs]


def build_bm25s(texts: Sequence[str], k1: float = DEFAULT_K1, b: float = DEFAULT_B) -> Any:
    """A bm25s index of ``texts``: Lucene's method, bm25s's tokenizer with English stopwords, numba if present."""
    import bm25s

    backend = "numba" if _has_numba() else "numpy"
    model = bm25s.BM25(k1=k1, b=b, method="lucene", backend=backend)
    model.index(bm25s.tokenize(list(texts), stopwords="en", show_progress=False), show_progress=False)
    return model


def _has_numba() -> bool:
    try:
        import numba  # noqa: F401
    except ImportError:
        return False
    return True


def query_tokens(queries: Sequence[str]) -> list[list[str]]:
    import bm25s

    return bm25s.tokenize(list(queries), stopwords="en", return_ids=False, show_progress=False)


def interleaved(sides: dict[str, Callable[[], None]], before: dict[str, Callable[[], None]],
                repeats: int) -> dict[str, list[float]]:
    """Seconds of each side's timed call over ``repeats`` rounds (order reversed every other round), after one
    untimed warm-up of each; ``before[name]`` runs untimed before each call of that side."""
    names = list(sides)
    for name in names:
        before[name]()
        sides[name]()
    seconds: dict[str, list[float]] = {name: [] for name in names}
    for r in range(repeats):
        for name in (names if r % 2 == 0 else names[::-1]):
            before[name]()
            started = time.perf_counter()
            sides[name]()
            seconds[name].append(time.perf_counter() - started)
    return seconds


def latency(model: Any, queries: list[list[str]], q: float, ks: Sequence[int], repeats: int) -> list[dict[str, Any]]:
    """Per k: plain and q-log pass seconds and the median per-round ratio."""
    rows = []
    backend = "numba" if model.backend == "numba" else "auto"
    for k in ks:
        def search(k=k):
            model.retrieve(queries, k=k, show_progress=False, n_threads=1, backend_selection=backend)
        seconds = interleaved({"bm25s": search, "q-log": search},
                              {"bm25s": lambda: rescale(model, 1.0), "q-log": lambda: rescale(model, q)}, repeats)
        ratios = np.array(seconds["q-log"]) / np.array(seconds["bm25s"])
        rows.append({"k": k, "bm25s_s": seconds["bm25s"], "qlog_s": seconds["q-log"],
                     "ratio": float(np.median(ratios)), "ratio_range": [float(ratios.min()), float(ratios.max())]})
    return rows


def rescale_cost(model: Any, qs: Sequence[float], repeats: int) -> dict[str, Any]:
    """Median seconds of ``rescale(model, q)`` from the plain scores, for each q, and the matrix's size."""
    seconds = []
    for _ in range(repeats):
        for q in qs:
            rescale(model, 1.0)
            started = time.perf_counter()
            rescale(model, q)
            seconds.append(time.perf_counter() - started)
    rescale(model, 1.0)
    return {"documents": int(model.scores["num_docs"]), "columns": int(len(model.scores["indptr"]) - 1),
            "entries": int(model.scores["data"].size), "data_bytes": int(model.scores["data"].nbytes),
            "median_s": statistics.median(seconds), "min_s": min(seconds), "max_s": max(seconds), "passes": len(seconds)}


def stacked(model: Any, copies: int = STACKED_COPIES) -> Any:
    """A bm25s model whose score matrix is ``model``'s stacked ``copies`` times (documents renumbered per copy)."""
    import bm25s

    scores = model.scores
    indptr, indices, data = (np.asarray(scores[key]) for key in ("indptr", "indices", "data"))
    n = int(scores["num_docs"])
    counts = np.diff(indptr)
    columns = np.repeat(np.arange(counts.size), counts)
    order = np.argsort(np.tile(columns, copies), kind="stable")  # column-major, copies in order within a column
    big = bm25s.BM25(k1=model.k1, b=model.b, method=model.method, backend="numpy")
    big.scores = {"data": np.tile(data, copies)[order],
                  "indices": np.concatenate([indices + c * n for c in range(copies)]).astype(np.int64)[order],
                  "indptr": indptr * copies, "num_docs": n * copies}
    big.nonoccurrence_array = None
    # Its columns are the small model's, so its IDF is not the one BM25 would give a corpus of n * copies documents:
    # the scores are declared plain here (what rescale starts from), not judged from the matrix.
    big.qlog = QLogState(1.0, None, big.scores["data"], None)
    return big


def run(prepared: str | Path, q: float = 0.5, ks: Sequence[int] = (10, 1000), repeats: int = 5,
        rescale_repeats: int = 3, say: Callable[[str], None] = print) -> dict[str, Any]:
    """Everything of the module docstring on the prepared folder ``prepared`` (``corpus/``, ``topics.tsv``)."""
    import bm25s

    from qlog_pyserini.formats.topics import read_topics

    before = machine()
    _, texts = read_collection(Path(prepared) / "corpus")
    queries = list(read_topics(Path(prepared) / "topics.tsv").values())
    say(f"bm25s: indexing {len(texts):,} documents")
    started = time.perf_counter()
    model = build_bm25s(texts)
    index_s = time.perf_counter() - started
    tokens = query_tokens(queries)
    say(f"latency: {len(tokens)} queries, k = {', '.join(map(str, ks))}, {repeats} rounds")
    rows = latency(model, tokens, q, ks, repeats)
    say("rescale cost at the corpus's size")
    small = rescale_cost(model, (0.7, 0.5, 0.3), rescale_repeats)
    say(f"rescale cost on the matrix stacked {STACKED_COPIES} times")
    big = stacked(model)
    large = rescale_cost(big, (0.7, 0.5, 0.3), rescale_repeats)
    return {"prepared": str(prepared), "documents": len(texts), "queries": len(tokens), "q": q,
            "bm25s": bm25s.__version__, "backend": model.backend, "index_s": index_s, "latency": rows,
            "rescale": [small, large], "stacked_copies": STACKED_COPIES, "machine": before,
            "load_average_after": machine()["load_average"], "git_commit": git_commit()}


def format_markdown(result: dict[str, Any], command: str) -> str:
    """results/bm25s-bench.md from :func:`run`'s result."""
    m = result["machine"]
    lines = ["# q-log BM25 in bm25s: query latency next to plain bm25s, and the rescale's cost", "",
             "Written by `scripts/bench_rag_libraries.py speed` (`qlog_pyserini.bench.rag_speed`); "
             "method in that module's docstring.", "",
             "## Setup", "",
             f"- machine: {m['cpu']}, {m['cores']} logical cores; load average {m['load_average']} before, "
             f"{result['load_average_after']} after; Python {m['python']}",
             f"- bm25s {result['bm25s']}, backend {result['backend']}, one thread; qlog-pyserini git "
             f"{result['git_commit']}",
             f"- corpus: `{result['prepared']}`, {result['documents']:,} documents (the demo's JDK src.zip "
             f"benchmark), {result['queries']:,} queries; bm25s indexing took {result['index_s']:.1f} s",
             f"- q-log: q = {result['q']:g}, Lucene's odds (the method's own IDF); BM25 (k1 0.9, b 0.4)", "",
             f"Command: `{command}`", "",
             "## Query latency, side by side", "",
             markdown_table([[row["k"], f"{statistics.median(row['bm25s_s']):.3f}",
                              f"{statistics.median(row['qlog_s']):.3f}", f"{row['ratio']:.3f}",
                              f"{row['ratio_range'][0]:.3f}-{row['ratio_range'][1]:.3f}"] for row in result["latency"]],
                            ["k", "plain bm25s, s per pass (median)", "q-log bm25s, s per pass (median)",
                             "q-log / plain (median of rounds)", "range over rounds"]).rstrip()]
    rescale = []
    for i, row in enumerate(result["rescale"]):
        what = f"{row['documents']:,}" + (f" (synthetic: the matrix above stacked {result['stacked_copies']} times)"
                                          if i else "")
        rescale.append([what, f"{row['columns']:,}", f"{row['entries']:,}", f"{row['data_bytes'] / 2 ** 20:.1f} MiB",
                        f"{row['median_s']:.3f}", f"{row['min_s']:.3f}-{row['max_s']:.3f}", row["passes"]])
    lines += ["", "## The rescale's cost (one pass over the score matrix)", "",
              markdown_table(rescale, ["documents", "columns (terms)", "entries", "data array", "rescale, s (median)",
                                       "min-max, s", "passes"]).rstrip()]
    lines += ["", "While q != 1 the model keeps bm25s's own scores beside the rescaled ones: one more data array "
              "(the column above) in memory.", ""]
    return "\n".join(lines)
