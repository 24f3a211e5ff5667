"""Leave-one-family-out, the measuring side: M(q) at a q off a sweep's grid, by searching its index (the JVM)."""

from __future__ import annotations

import tempfile
from pathlib import Path
from typing import Any

from qlog_pyserini.lolo.fit import Sweep

SCORE_TOLERANCE = 5e-5  # trec_eval prints 4 decimals: two honest measurements of one run differ by less


class SearchEvaluator:
    """M(q) by searching a sweep's index at q and scoring the run with trec_eval, as the sweep did.

    One searcher stays open per index; values are cached. Before the first off-grid search on a
    corpus, the sweep's oracle point is re-measured the same way: if it differs from the sweep's
    score by more than trec_eval's rounding, the two measurements are not comparable (different
    topics, qrels or settings) and a warning is kept in :attr:`warnings`.
    """

    def __init__(self, threads: int = 1) -> None:
        self.threads = threads
        self.warnings: list[str] = []
        self._searchers: dict[Path, Any] = {}
        self._cache: dict[tuple[str, float], float] = {}
        self._checked: set[str] = set()

    def __call__(self, sweep: Sweep, q: float) -> float:
        if sweep.name not in self._checked:
            self._checked.add(sweep.name)
            again = self.measure(sweep, sweep.oracle_value)
            if abs(again - sweep.oracle_score) > SCORE_TOLERANCE:
                self.warnings.append(
                    f"{sweep.name}: re-measuring q = {sweep.oracle_value:g} gives {sweep.metric} {again:.4f}, the "
                    f"sweep says {sweep.oracle_score:.4f}; M(q_pred) may not be comparable with the sweep's scores")
        return self.measure(sweep, q)

    def measure(self, sweep: Sweep, q: float) -> float:
        """M(q) on ``sweep``'s corpus by an actual search at q."""
        key = (sweep.name, round(q, 12))
        if key in self._cache:
            return self._cache[key]
        from qlog_pyserini.eval.trec_eval import trec_eval
        from qlog_pyserini.formats.topics import read_topics
        from qlog_pyserini.lucene.batch import write_topics_run
        from qlog_pyserini.lucene.searcher import QLogSearcher

        searcher = self._searchers.get(sweep.index)
        if searcher is None:
            searcher = self._searchers[sweep.index] = QLogSearcher(sweep.index)
        searcher.set_qlog(k1=sweep.k1, b=sweep.b, q=q, idf_form=sweep.idf_form)
        topics = read_topics(sweep.topics)
        with tempfile.TemporaryDirectory(prefix="qlog-lolo-") as tmp:
            run = Path(tmp) / "run.txt"
            write_topics_run(searcher, topics, run, "lolo", hits=sweep.hits, threads=self.threads, progress=False)
            value = trec_eval(sweep.qrels, run, metrics=[sweep.metric], per_query=False).aggregate[sweep.metric]
        self._cache[key] = value
        return value

    def close(self) -> None:
        for s in self._searchers.values():
            s.close()
        self._searchers.clear()
