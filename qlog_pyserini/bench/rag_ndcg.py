"""Same corpora, same queries, three engines: NDCG@10 of BM25 and q-log BM25 through Lucene, bm25s and rank_bm25.

A program's library, not a test (``scripts/bench_rag_libraries.py ndcg`` writes ``results/rag-libraries.md``).
Per corpus (a prepared folder: ``corpus/`` JsonCollection, ``topics.tsv``, ``qrels.txt``; and its Lucene index):

- Lucene: :class:`qlog_pyserini.QLogSearcher` on the index (Anserini's default English analyzer: Lucene's
  StandardTokenizer, lower case, English stopwords, Porter stemming; ``camelCase`` stays one token);
- bm25s: ``bm25s.BM25(method="lucene", k1=0.9, b=0.4)`` on bm25s's tokenizer (``(?u)\\b\\w\\w+\\b``: runs of two or
  more word characters, so ``snake_case`` stays one token and one-letter names vanish; lower case, English
  stopwords, no stemming), rescaled by :func:`qlog_pyserini.integrations.bm25s.rescale`;
- rank_bm25: :class:`qlog_pyserini.integrations.rank_bm25.QLogBM25Okapi` (k1 0.9, b 0.4) on the same bm25s tokens,
  with BM25Okapi's epsilon floor and with ``floor="zero"``.

Each route is scored at q = 1 (its own BM25), at a fixed q and at its own label-free q (the Lucene index's
statistics for Lucene, :mod:`qlog_pyserini.integrations.labelfree` on the library's index for the others), top 100
per query, evaluated in process (trec_eval's ``ndcg_cut.10`` with ``-c``).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable

import numpy as np

from qlog_pyserini.eval.report import markdown_table
from qlog_pyserini.formats.trec import Hit
from qlog_pyserini.formula import DEFAULT_B, DEFAULT_K1

#: how the routes' tokens differ (written into the results file beside the figures)
TOKENIZERS = ("Lucene's index uses Anserini's default English analyzer (StandardTokenizer: splits at punctuation, "
              "keeps `camelCase` and `snake_case` whole; lower case; English stopwords; Porter stemming). bm25s and "
              "rank_bm25 here share bm25s's tokenizer (runs of two or more word characters, so one-letter names are "
              "dropped; lower case; English stopwords; no stemming). rank_bm25's BM25Okapi also has its own IDF (the "
              "RSJ odds, with the epsilon floor or 0 for terms in more than half the documents) and its tf part "
              "carries the constant factor k1 + 1, which does not change a ranking.")
FIXED_Q = 0.7
DEPTH = 100
METRIC = "ndcg_cut.10"


@dataclass(frozen=True)
class Corpus:
    prepared: Path  # corpus/, topics.tsv, qrels.txt
    index: Path  # the Lucene index of corpus/


def demo_corpus(folder: Path) -> Corpus:
    """A corpus of ``python -m qlog_pyserini.demo --work``: its ``prepared/`` and ``index/``."""
    return Corpus(folder / "prepared", folder / "index")


def csn_ruby_corpus(data: Path, work: Path) -> Corpus:
    """CodeSearchNet Ruby (test + valid, the test docstrings as queries), prepared and indexed once under ``work``."""
    from qlog_pyserini.lucene.indexer import build_index
    from qlog_pyserini.prepare.datasets import prepare_csn

    prepared, index = work / "csn-ruby" / "data", work / "csn-ruby" / "index"
    if not (prepared / "qrels.txt").is_file():
        prepared.parent.mkdir(parents=True, exist_ok=True)
        prepare_csn([data / "test.jsonl", data / "valid.jsonl"], prepared, overwrite=True)
    if not index.is_dir():
        build_index(prepared / "corpus", index, threads=1, progress=False)
    return Corpus(prepared, index)


def _top(scores: np.ndarray, ids: list[str]) -> list[Hit]:
    order = np.lexsort((np.arange(scores.size), -scores))[:DEPTH]
    return [Hit(ids[i], float(scores[i])) for i in order.tolist()]


def _ndcg(run: dict[str, list[Hit]], qrels: Path) -> float:
    from qlog_pyserini.eval.quick import evaluate

    return float(evaluate(run, qrels, metrics=[METRIC]).aggregate[METRIC])


def _route_row(name: str, tokenizer: str, search: Callable[[float], dict[str, list[Hit]]], auto_q: float,
               qrels: Path) -> dict[str, Any]:
    row = {"route": name, "tokenizer": tokenizer, "auto_q": auto_q}
    for key, q in (("bm25", 1.0), ("fixed", FIXED_Q), ("auto", auto_q)):
        row[key] = row["bm25"] if key == "auto" and q == 1.0 else _ndcg(search(q), qrels)
    return row


def lucene_rows(corpus: Corpus, topics: dict[str, str]) -> list[dict[str, Any]]:
    from qlog_pyserini.lucene.searcher import QLogSearcher
    from qlog_pyserini.predict.rule import predict_q

    searcher = QLogSearcher(corpus.index, k1=DEFAULT_K1, b=DEFAULT_B, q=1.0)
    qids, texts = list(topics), list(topics.values())

    def search(q: float) -> dict[str, list[Hit]]:
        searcher.set_q(q)
        return dict(searcher.batch_search(texts, qids, k=DEPTH, threads=1))

    return [_route_row("Lucene (QLogSearcher)", "Anserini default analyzer", search, predict_q(corpus.index).q,
                       corpus.prepared / "qrels.txt")]


def library_rows(corpus: Corpus, topics: dict[str, str]) -> list[dict[str, Any]]:
    import bm25s

    from qlog_pyserini.bench.rag_speed import build_bm25s, query_tokens, read_collection
    from qlog_pyserini.integrations.bm25s import rescale
    from qlog_pyserini.integrations.labelfree import predict_bm25s, predict_rank_bm25
    from qlog_pyserini.integrations.rank_bm25 import QLogBM25Okapi

    ids, texts = read_collection(corpus.prepared / "corpus")
    qids, queries = list(topics), query_tokens(list(topics.values()))
    qrels = corpus.prepared / "qrels.txt"
    model = build_bm25s(texts)
    tokens = "bm25s.tokenize (English stopwords, no stemming)"

    def bm25s_search(q: float) -> dict[str, list[Hit]]:
        rescale(model, q)
        docs, scores = model.retrieve(queries, k=DEPTH, show_progress=False, n_threads=1)
        return {qid: [Hit(ids[d], float(s)) for d, s in zip(row, srow)] for qid, row, srow in zip(qids, docs, scores)}

    rows = [_route_row("bm25s (method lucene)", tokens, bm25s_search, predict_bm25s(model).q, qrels)]
    okapi = QLogBM25Okapi(bm25s.tokenize(texts, stopwords="en", return_ids=False, show_progress=False),
                          k1=DEFAULT_K1, b=DEFAULT_B)
    auto = predict_rank_bm25(okapi).q
    for floor in ("epsilon", "zero"):
        def okapi_search(q: float, floor: str = floor) -> dict[str, list[Hit]]:
            okapi.floor = floor
            okapi.set_q(q)
            return {qid: _top(okapi.get_scores(words), ids) for qid, words in zip(qids, queries)}
        rows.append(_route_row(f"rank_bm25 BM25Okapi, floor={floor}", "the same bm25s tokens", okapi_search, auto,
                               qrels))
    return rows


def run(corpora: dict[str, Corpus], say: Callable[[str], None] = print) -> list[dict[str, Any]]:
    """One row per corpus and route (see the module docstring)."""
    from qlog_pyserini.formats.topics import read_topics

    rows = []
    for name, corpus in corpora.items():
        topics = read_topics(corpus.prepared / "topics.tsv")
        say(f"[{name}] Lucene")
        found = lucene_rows(corpus, topics)
        say(f"[{name}] bm25s and rank_bm25")
        found += library_rows(corpus, topics)
        rows += [{"corpus": name, "queries": len(topics), **row} for row in found]
    return rows


def _versus(value: float, base: float) -> str:
    return f"{value:.4f} ({(value / base - 1) * 100:+.1f}%)" if base else f"{value:.4f}"


def format_markdown(rows: list[dict[str, Any]], command: str) -> str:
    """results/rag-libraries.md from :func:`run`'s rows."""
    from qlog_pyserini.system.provenance import git_commit

    lines = ["# NDCG@10 of BM25 and q-log BM25 through Lucene, bm25s and rank_bm25", "",
             "Written by `scripts/bench_rag_libraries.py ndcg` (`qlog_pyserini.bench.rag_ndcg`; "
             f"method and tokenizers in that module's docstring); qlog-pyserini git {git_commit()}.", "",
             f"Command: `{command}`", "",
             f"k1 0.9, b 0.4 on every route; top {DEPTH} per query; Δ against the same route's BM25. The label-free q "
             "is each route's own, from its own index statistics.", "",
             "The tokenizers differ, and so do the BM25 baselines: " + TOKENIZERS, "",
             markdown_table([[f"{r['corpus']} ({r['queries']:,} queries)", r["route"], r["tokenizer"], f"{r['bm25']:.4f}",
                              _versus(r["fixed"], r["bm25"]), f"{r['auto_q']:g}", _versus(r["auto"], r["bm25"])]
                             for r in rows],
                            ["corpus", "route", "tokens", "BM25", f"q-log q={FIXED_Q:g}", "label-free q",
                             "q-log at it"])]
    return "\n".join(lines)
