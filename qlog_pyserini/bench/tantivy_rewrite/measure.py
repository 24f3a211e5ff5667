"""Query cost of the boosted-query rewrite on Tantivy against Tantivy's own BM25, one in-memory index.

Three sides answer the same queries, top k, ``count=False`` (no hit count, so Tantivy may prune with
block-max WAND):

- BM25: a ``boolean_query`` of SHOULD ``term_query`` clauses, one per distinct token, boosted by its count
  when repeated (a bag of words' weight), as Tantivy's own parser builds it for distinct tokens;
- the rewrite built beforehand: the same clauses with the boost count * w_t (:mod:`qlog_pyserini.rewrite`);
- the rewrite built per query: the library call a user makes (``TantivyRewriter.boosts``: analysis and
  ``doc_freq`` per token, then the search).

Each query goes to the three sides back to back, the order rotating from query to query, so a slow
moment of a shared machine falls on every side alike. A side's time is the sum of its search calls over
several passes per round and, steadier on a shared machine, the sum of each query's fastest pass.
Ratios are throughput ratios (BM25's time over the side's).
"""

from __future__ import annotations

import platform
import statistics
import time
from collections import Counter
from dataclasses import dataclass, field
from typing import Any, Iterable

from qlog_pyserini.errors import QLogError
from qlog_pyserini.eval.report import markdown_table
from qlog_pyserini.formula import check_q
from qlog_pyserini.rewrite.tantivy_index import TantivyRewriter, tantivy_query

SIDES = ("BM25", "rewrite prebuilt", "rewrite built per query")


@dataclass(frozen=True)
class BenchSettings:
    q: float = 0.7
    rounds: int = 5
    passes: int = 3  # a Tantivy search takes ~0.1 ms: several passes per round
    k: int = 10
    warmup: int = 300  # queries sent to every side, untimed, before the first round

    def check(self) -> BenchSettings:
        check_q(self.q)
        for name in ("rounds", "passes", "k"):
            if getattr(self, name) < 1:
                raise QLogError(f"illegal {name} value: {getattr(self, name)}, must be at least 1")
        if self.warmup < 0:
            raise QLogError(f"illegal warmup value: {self.warmup}, must be at least 0")
        return self


def memory_index(documents: Iterable[tuple[str, str]]) -> tuple[Any, int]:
    """A Tantivy index in memory of ``(docid, text)`` pairs (stored ``id``, ``body`` with the default tokenizer),
    and its number of documents."""
    import tantivy

    builder = tantivy.SchemaBuilder()
    builder.add_text_field("id", stored=True, tokenizer_name="raw")
    builder.add_text_field("body", stored=False)
    index = tantivy.Index(builder.build())
    writer = index.writer(heap_size=100_000_000, num_threads=1)
    n_docs = 0
    for docid, text in documents:
        writer.add_document(tantivy.Document(id=docid, body=text))
        n_docs += 1
    writer.commit()
    writer.wait_merging_threads()
    index.reload()
    return index, n_docs


@dataclass
class Sides:
    """The queries of the three sides over ``texts`` (those with at least one token in the index)."""

    index: Any
    rewriter: TantivyRewriter
    k: int
    texts: list[str] = field(default_factory=list)
    bm25: list[Any] = field(default_factory=list)
    rewritten: list[Any] = field(default_factory=list)

    def __post_init__(self) -> None:
        self.searcher = self.index.searcher()

    def search(self, side: int, i: int) -> Any:
        """Query ``i`` of side ``side`` (an index of :data:`SIDES`): Tantivy's ``SearchResult``."""
        if side == 0:
            return self.searcher.search(self.bm25[i], self.k, count=False)
        if side == 1:
            return self.searcher.search(self.rewritten[i], self.k, count=False)
        s = self.index.searcher()
        return s.search(self.rewriter.query(self.rewriter.boosts(self.texts[i], s)), self.k, count=False)


def build_sides(index: Any, texts: Iterable[str], settings: BenchSettings) -> Sides:
    """The BM25 and the prebuilt rewritten query of each text; texts none of whose tokens is indexed are left out."""
    import tantivy

    sides = Sides(index, TantivyRewriter(index, "body", settings.q), settings.k)
    for text in texts:
        boosts = [b for b in sides.rewriter.boosts(text, sides.searcher) if b.df > 0]
        if not boosts:
            continue
        counts = Counter(sides.rewriter.analyzer.analyze(text))
        sides.texts.append(text)
        sides.bm25.append(tantivy.Query.boolean_query([
            (tantivy.Occur.Should, tantivy.Query.term_query(index.schema, "body", b.term) if counts[b.term] == 1
             else tantivy.Query.boost_query(tantivy.Query.term_query(index.schema, "body", b.term),
                                            float(counts[b.term])))
            for b in boosts]))
        sides.rewritten.append(tantivy_query(index.schema, boosts))
    if not sides.texts:
        raise QLogError("no query has a token in the index: nothing to time")
    return sides


@dataclass(frozen=True)
class Round:
    """One round: each side's queries per second over all calls, and the throughput ratios of the two rewrite
    sides to BM25 over all calls (``ratios``) and over each query's fastest pass (``steady``)."""

    qps: tuple[float, float, float]
    ratios: tuple[float, float]
    steady: tuple[float, float]


def measure(sides: Sides, settings: BenchSettings) -> list[Round]:
    """Time the three sides, :attr:`BenchSettings.rounds` rounds of :attr:`BenchSettings.passes` passes each."""
    n, passes = len(sides.texts), settings.passes
    for i in range(min(settings.warmup, n)):
        for side in range(3):
            sides.search(side, i)
    rounds = []
    for r in range(settings.rounds):
        nanos = [[[0] * passes for _ in range(n)] for _ in range(3)]  # [side][query][pass]
        for p in range(passes):
            for i in range(n):
                for k in range(3):
                    s = (i + r + p + k) % 3
                    t0 = time.perf_counter_ns()
                    sides.search(s, i)
                    nanos[s][i][p] = time.perf_counter_ns() - t0
        total = [sum(map(sum, side)) for side in nanos]
        # the fastest of a query's passes: a time slice lost to another process lengthens one call, not this
        fastest = [sum(map(min, side)) for side in nanos]
        rounds.append(Round(qps=tuple(n * passes / (t / 1e9) for t in total),  # type: ignore[arg-type]
                            ratios=(total[0] / total[1], total[0] / total[2]),
                            steady=(fastest[0] / fastest[1], fastest[0] / fastest[2])))
    return rounds


def _spread(x: list[float]) -> str:
    return f"**{statistics.median(x):.3f}** ({min(x):.3f} to {max(x):.3f})"


def report(rounds: list[Round], n_docs: int, n_queries: int, settings: BenchSettings, corpus: str) -> str:
    """The markdown table of ``rounds`` and a paragraph naming the setting and the median ratios."""
    import tantivy

    rows = [[r + 1, f"{x.qps[0]:.0f}", f"{x.qps[1]:.0f}", f"{x.qps[2]:.0f}", f"{x.ratios[0]:.3f}", f"{x.ratios[1]:.3f}",
             f"{x.steady[0]:.3f}", f"{x.steady[1]:.3f}"] for r, x in enumerate(rounds)]
    ratios = [[x.ratios[j] for x in rounds] for j in (0, 1)]
    steady = [[x.steady[j] for x in rounds] for j in (0, 1)]
    return "\n".join([
        markdown_table(rows, ["round", "BM25 queries/s", "rewrite prebuilt queries/s",
                              "rewrite built per query queries/s", "prebuilt / BM25", "per query / BM25",
                              "prebuilt / BM25, fastest pass", "per query / BM25, fastest pass"], "r" * 8),
        f"{corpus}: {n_docs} documents in one in-memory Tantivy index ({tantivy.__version__}, Python "
        f"{platform.python_version()}), {n_queries} queries, {settings.passes} passes per side and round, "
        f"top {settings.k}, q = {settings.q:g}. Median throughput ratio over {len(rounds)} rounds (all calls): "
        f"rewrite (prebuilt) / BM25 {_spread(ratios[0])}; rewrite (built per query) / BM25 {_spread(ratios[1])}. "
        f"From each query's fastest pass: prebuilt / BM25 {_spread(steady[0])}; built per query / BM25 "
        f"{_spread(steady[1])}.", ""])
