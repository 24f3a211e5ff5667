"""Query cost of the boosted-query rewrite on Tantivy against Tantivy's own BM25 (opt-in: QLOG_BENCH=1).

A benchmark, not a check: it prints measured figures and asserts none of them. Run it with

    QLOG_BENCH=1 QLOG_BENCH_ROUNDS=15 QLOG_BENCH_OUT=results/tantivy-rewrite-bench.md \\
        .venv/bin/python -m pytest tests/rewrite/test_rewrite_tantivy_bench.py -q -p no:cacheprovider -s
"""

from __future__ import annotations

import os
import platform
import statistics
import time
from collections import Counter
from pathlib import Path

import pytest

from qlog_pyserini.prepare.datasets import prepare_csn

Q = 0.7


@pytest.mark.skipif(os.environ.get("QLOG_BENCH") != "1", reason="query-cost benchmark runs only with QLOG_BENCH=1")
def test_tantivy_rewrite_query_cost(shared_data, tmp_path) -> None:
    """Queries per second of three sides over the same CSN-Ruby queries, one Tantivy index in memory, top 10,
    ``count=False`` (no hit count, so Tantivy may prune with block-max WAND): BM25, a ``boolean_query`` of SHOULD
    ``term_query`` clauses (one per distinct token, boosted by its count when repeated, as the rewrite does);
    the rewrite (q = 0.7) built beforehand, the same clauses with the boost count * w_t; and the rewrite built per
    query, the library call a user makes (``TantivyRewriter.boosts``: analysis and ``doc_freq`` per token, then
    the search). Each query goes to the three sides back to back, the order rotating from query to query; a side's
    time is the sum of its search calls over several passes per round, and, steadier on a shared machine, the sum
    of each query's fastest pass. Ratios are throughput ratios (BM25's time over the side's)."""
    tantivy = pytest.importorskip("tantivy", reason="the tantivy package is not installed (extra: rewrite)")
    from qlog_pyserini.formats.documents import iter_documents
    from qlog_pyserini.formats.topics import read_topics
    from qlog_pyserini.rewrite.tantivy_index import TantivyRewriter, tantivy_query

    folder = shared_data / "csn-ruby"
    if not (folder / "test.jsonl").is_file():
        pytest.skip("csn-ruby is absent")
    prepared = prepare_csn([folder / "test.jsonl", folder / "valid.jsonl"], tmp_path / "data")
    builder = tantivy.SchemaBuilder()
    builder.add_text_field("id", stored=True, tokenizer_name="raw")
    builder.add_text_field("body", stored=False)
    index = tantivy.Index(builder.build())
    writer = index.writer(heap_size=100_000_000, num_threads=1)
    n_docs = 0
    for docid, text in iter_documents(prepared.out / "corpus"):
        writer.add_document(tantivy.Document(id=docid, body=text))
        n_docs += 1
    writer.commit()
    writer.wait_merging_threads()
    index.reload()
    searcher = index.searcher()

    rewriter = TantivyRewriter(index, "body", Q)
    texts, bm25, rewritten = [], [], []
    for text in read_topics(prepared.out / "topics.tsv").values():
        boosts = [b for b in rewriter.boosts(text, searcher) if b.df > 0]
        if not boosts:
            continue
        counts = Counter(rewriter.analyzer.analyze(text))
        texts.append(text)
        # BM25's query: the same clauses, each boosted only by its token's count (a bag of words' weight)
        bm25.append(tantivy.Query.boolean_query([
            (tantivy.Occur.Should, tantivy.Query.term_query(index.schema, "body", b.term) if counts[b.term] == 1
             else tantivy.Query.boost_query(tantivy.Query.term_query(index.schema, "body", b.term),
                                            float(counts[b.term])))
            for b in boosts]))
        rewritten.append(tantivy_query(index.schema, boosts))

    def per_query(i: int) -> None:
        s = index.searcher()
        s.search(rewriter.query(rewriter.boosts(texts[i], s)), 10, count=False)

    sides = [lambda i: searcher.search(bm25[i], 10, count=False),
             lambda i: searcher.search(rewritten[i], 10, count=False),
             per_query]
    for i in range(min(300, len(texts))):  # warm-up, untimed
        for side in sides:
            side(i)
    rounds = int(os.environ.get("QLOG_BENCH_ROUNDS", "5"))
    passes = int(os.environ.get("QLOG_BENCH_PASSES", "3"))  # a Tantivy search takes ~0.1 ms: several per round
    rows, ratios, steady = [], [[], []], [[], []]
    for r in range(rounds):
        nanos = [[[0] * passes for _ in texts] for _ in sides]  # [side][query][pass]
        for p in range(passes):
            for i in range(len(texts)):
                for k in range(3):
                    s = (i + r + p + k) % 3
                    t0 = time.perf_counter_ns()
                    sides[s](i)
                    nanos[s][i][p] = time.perf_counter_ns() - t0
        total = [sum(map(sum, side)) for side in nanos]
        # the fastest of a query's passes: a time slice lost to another process lengthens one call, not this
        fastest = [sum(map(min, side)) for side in nanos]
        for j in (0, 1):
            ratios[j].append(total[0] / total[j + 1])
            steady[j].append(fastest[0] / fastest[j + 1])
        qps = [len(texts) * passes / (t / 1e9) for t in total]
        rows.append(f"| {r + 1} | {qps[0]:.0f} | {qps[1]:.0f} | {qps[2]:.0f} | {ratios[0][-1]:.3f} | {ratios[1][-1]:.3f} "
                    f"| {steady[0][-1]:.3f} | {steady[1][-1]:.3f} |")

    def spread(x: list[float]) -> str:
        return f"**{statistics.median(x):.3f}** ({min(x):.3f} to {max(x):.3f})"

    md = "\n".join([
        "| round | BM25 queries/s | rewrite prebuilt queries/s | rewrite built per query queries/s "
        "| prebuilt / BM25 | per query / BM25 | prebuilt / BM25, fastest pass | per query / BM25, fastest pass |",
        "|---:|---:|---:|---:|---:|---:|---:|---:|", *rows, "",
        f"CSN-Ruby: {n_docs} documents in one in-memory Tantivy index ({tantivy.__version__}, Python "
        f"{platform.python_version()}), {len(texts)} queries, {passes} passes per side and round, top 10, q = {Q}. "
        f"Median throughput ratio over {rounds} rounds (all calls): rewrite (prebuilt) / BM25 {spread(ratios[0])}; "
        f"rewrite (built per query) / BM25 {spread(ratios[1])}. From each query's fastest pass: prebuilt / BM25 "
        f"{spread(steady[0])}; built per query / BM25 {spread(steady[1])}.", ""])
    out = os.environ.get("QLOG_BENCH_OUT")
    if out:
        Path(out).write_text(md, encoding="utf-8")
    print(md)
