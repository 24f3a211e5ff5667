"""Leave-one-family-out for the per-query label-free q (``--q auto-query``, :mod:`qlog_pyserini.predict.query_rule`).

Each sweep folder (``python -m qlog_pyserini.sweep``) holds every query's metric at every grid point
(``per_query.csv``). The per-query rule gives each query a q on the 0.05 grid, so its score on a corpus
is read exactly from that table: query i contributes M_i(q_i). No search is needed to score a
candidate rule, only each query's term statistics (read once from the index, as the searcher parses
the query) and the corpus rule's prediction for the index.

For each family held out (a corpus with its query variants, e.g. ``jdk`` and ``jdk-unnamed``), the
rule's constants are chosen on the OTHER families: among the candidates that keep every training
corpus at least ``FIT_FLOOR`` (relative) above BM25, the one with the best mean relative gain over
BM25 on the training code corpora; among those within ``GAIN_TOLERANCE`` of it, the most cautious
(smallest total move of q away from 1 over the training queries). The held-out family is then scored
with those constants. Reported per corpus: BM25, the corpus-level oracle q and its score, today's
corpus rule (``auto``), the per-query rule held out, its recovery of the corpus-level oracle's gain
``(M(auto-query) - M(1)) / (M(q_opt) - M(1))``, its gain over ``auto``, and the per-query oracle (each
query at its best grid point: the ceiling of any per-query choice).
"""

from __future__ import annotations

import re
from dataclasses import asdict, dataclass
from functools import cached_property
from typing import Any, Mapping, Sequence

import numpy as np
import pandas as pd

from qlog_pyserini.errors import QLogError
from qlog_pyserini.eval.report import cell, markdown_table
from qlog_pyserini.lolo.fit import Sweep
from qlog_pyserini.predict.query_rule import QueryRuleSettings, corpus_move, distribution, query_q
from qlog_pyserini.predict.rule import Prediction

FIT_FLOOR = -0.0025  # a candidate must keep every training corpus within 0.25% of BM25
GAIN_TOLERANCE = 0.002  # candidates this close (absolute mean relative gain) to the best count as equal
VARIANT_SUFFIX = re.compile(r"-(un)?named$")  # a query variant (or subset) belongs to the family of its corpus


@dataclass(frozen=True)
class QueryEvidence:
    """One sweep as the per-query fit sees it: per-query scores by q, each query's term statistics."""

    name: str
    family: str
    kind: str  # "code" or "text"
    docs: int
    scores: pd.DataFrame  # rows = judged queries, columns = grid q values (floats)
    doc_freqs: Mapping[str, Sequence[int]]
    prediction: Prediction  # the corpus rule's, for this index
    oracle_q: float  # the corpus-level oracle (the sweep's)

    @cached_property
    def _grid(self) -> tuple[np.ndarray, dict[float, int]]:
        """The scores as a float array and each grid q's column in it: a fit scores thousands of candidates."""
        return (self.scores.to_numpy(dtype=float),
                {round(float(c), 10): i for i, c in enumerate(self.scores.columns)})

    def _column(self, q: float, qid: str) -> int:
        column = self._grid[1].get(round(q, 10))
        if column is None:
            raise QLogError(f"{self.name}: q = {q:g} (query {qid}) is not a point of the sweep's grid")
        return column

    @staticmethod
    def _mean(picked: np.ndarray) -> float:
        # summed in query order, one addition at a time (cumsum, not numpy's pairwise sum), so a fit's
        # near-ties compare as they always have
        return float(np.cumsum(picked)[-1]) / len(picked)

    def score(self, qs: Mapping[str, float]) -> float:
        """Mean metric with query ``qid`` at ``qs[qid]``, read from the grid."""
        columns = [self._column(qs[qid], qid) for qid in self.scores.index]
        return self._mean(self._grid[0][np.arange(len(columns)), columns])

    def at(self, q: float) -> float:
        """Mean metric with every query at ``q``."""
        return self._mean(self._grid[0][:, self._column(q, self.scores.index[0])])

    @property
    def per_query_oracle(self) -> float:
        return float(self.scores.max(axis=1).mean())


def query_family(name: str) -> str:
    """``jdk-unnamed`` -> ``jdk``, ``jdk-named`` -> ``jdk``: a query variant (or subset) joins its corpus's family."""
    return VARIANT_SUFFIX.sub("", name)


def load_query_evidence(sweep: Sweep, prediction: Prediction, doc_freqs: Mapping[str, Sequence[int]],
                        kind: str = "code") -> QueryEvidence:
    """The evidence of one sweep folder, given its index's corpus prediction and its queries' term statistics."""
    if sweep.folder is None:
        raise QLogError(f"sweep {sweep.name!r} has no folder to read per_query.csv from")
    table = pd.read_csv(sweep.folder / "per_query.csv", index_col=0)
    table.index = table.index.astype(str)
    grid = {c: float(c[1:]) for c in table.columns if re.fullmatch(r"q\d+(\.\d+)?", c)}
    if 1.0 not in grid.values():
        raise QLogError(f"{sweep.folder}/per_query.csv has no q = 1 column")
    scores = table[list(grid)].rename(columns=grid)
    missing = [qid for qid in scores.index if qid not in doc_freqs]
    if missing:
        raise QLogError(f"{sweep.name}: no term statistics for {len(missing)} judged queries (first {missing[0]!r})")
    return QueryEvidence(sweep.name, query_family(sweep.family), kind, sweep.docs or 0, scores, dict(doc_freqs),
                         prediction, sweep.oracle_value)


def collect_query_evidence(sweeps: Sequence[Sweep], text: Sequence[str] = ()) -> list[QueryEvidence]:
    """Every sweep's evidence: the corpus rule's prediction for its index and its queries' term statistics
    (one JVM pass per index). ``text`` names natural-language corpora or families (the others are code)."""
    from qlog_pyserini.formats.topics import read_topics
    from qlog_pyserini.lucene.searcher import QLogSearcher
    from qlog_pyserini.predict.per_query import query_doc_freqs
    from qlog_pyserini.predict.rule import predict_q

    out = []
    for sweep in sweeps:
        topics = read_topics(sweep.topics)
        with QLogSearcher(sweep.index) as searcher:
            doc_freqs = dict(zip(topics, query_doc_freqs(searcher, list(topics.values()))))
        kind = "text" if sweep.name in text or query_family(sweep.family) in text else "code"
        out.append(load_query_evidence(sweep, predict_q(sweep.index), doc_freqs, kind))
    return out


def rule_qs(e: QueryEvidence, rule: QueryRuleSettings) -> dict[str, float]:
    """The per-query rule's q for every judged query of ``e``."""
    move = corpus_move(e.prediction)
    return {qid: query_q(e.doc_freqs[qid], move, rule) for qid in e.scores.index}


def candidate_rules(rare_dfs: Sequence[int] = (1, 2, 3, 5, 8),
                    gains: Sequence[float] = (0.0, 1.0, 1.5, 2.0, 3.0, 4.0, 6.0),
                    q_floors: Sequence[float] = (0.4, 0.5, 0.6)) -> list[QueryRuleSettings]:
    """The search space of :func:`fit_query_rule`; gain 0 (BM25 for every query) keeps a safe candidate in it."""
    return [QueryRuleSettings(rare_df=d, gain=g, q_floor=f) for d in rare_dfs for g in gains for f in q_floors]


def _rel(e: QueryEvidence, rule: QueryRuleSettings) -> tuple[float, float]:
    """(relative change against BM25, total move of q away from 1) of ``rule`` on ``e``."""
    qs = rule_qs(e, rule)
    base = e.at(1.0)
    return (e.score(qs) - base) / base if base else 0.0, sum(1.0 - q for q in qs.values())


def fit_query_rule(training: Sequence[QueryEvidence], candidates: Sequence[QueryRuleSettings],
                   floor: float = FIT_FLOOR, tolerance: float = GAIN_TOLERANCE) -> QueryRuleSettings:
    """The most cautious near-best safe candidate on ``training`` (see the module docstring); if none is
    safe, the one with the best worst case."""
    if not training or not candidates:
        raise ValueError("fit_query_rule needs training corpora and candidates")
    scored = []
    for rule in candidates:
        outcomes = [_rel(e, rule) for e in training]
        code = [rel for e, (rel, _) in zip(training, outcomes) if e.kind == "code"]
        scored.append((rule, min(rel for rel, _ in outcomes), sum(code) / len(code) if code else 0.0,
                       sum(move for _, move in outcomes)))
    safe = [s for s in scored if s[1] >= floor]
    if not safe:
        return max(scored, key=lambda s: s[1])[0]
    best = max(s[2] for s in safe)
    near = [s for s in safe if s[2] >= best - tolerance]
    return min(near, key=lambda s: (s[3], s[0].gain, -s[0].q_floor, s[0].rare_df))[0]


@dataclass(frozen=True)
class QueryRow:
    """One corpus under a per-query rule (fitted without its family, or a fixed one)."""

    name: str
    family: str
    kind: str
    docs: int
    queries: int
    rule: QueryRuleSettings
    m_base: float
    q_opt: float
    m_opt: float
    q_auto: float
    m_auto: float
    m_query: float
    m_pq_oracle: float
    q_distribution: dict[str, int]

    @property
    def rel_change(self) -> float:
        return (self.m_query - self.m_base) / self.m_base if self.m_base else 0.0

    @property
    def auto_rel_change(self) -> float:
        return (self.m_auto - self.m_base) / self.m_base if self.m_base else 0.0

    @property
    def recovery(self) -> float | None:
        """Share of the corpus-level oracle's gain recovered; None when the oracle gains nothing."""
        gain = self.m_opt - self.m_base
        return None if gain <= 0 else (self.m_query - self.m_base) / gain


def score_rule(e: QueryEvidence, rule: QueryRuleSettings) -> QueryRow:
    """``rule`` on ``e``, beside BM25, the corpus-level oracle, today's corpus rule and the per-query oracle."""
    qs = rule_qs(e, rule)
    q_auto = e.prediction.q
    return QueryRow(e.name, e.family, e.kind, e.docs, len(e.scores.index), rule, e.at(1.0), e.oracle_q,
                    e.at(e.oracle_q), q_auto, e.at(q_auto), e.score(qs), e.per_query_oracle,
                    distribution(list(qs.values())))


def leave_one_family_out_query(corpora: Sequence[QueryEvidence],
                               candidates: Sequence[QueryRuleSettings]) -> list[QueryRow]:
    """Each corpus scored with the per-query rule fitted on the other families."""
    rows = []
    for e in corpora:
        training = [t for t in corpora if t.family != e.family]
        if not training:
            raise QLogError("leave-one-family-out needs corpora of at least two families")
        rows.append(score_rule(e, fit_query_rule(training, candidates)))
    return rows


def rule_label(rule: QueryRuleSettings) -> str:
    return f"D = {rule.rare_df}, a = {rule.gain:g}, floor = {rule.q_floor:g}"


def format_query_markdown(title: str, rows: Sequence[QueryRow], metric: str, show_rule: bool = True) -> str:
    """One table of :class:`QueryRow`, then the worst change against BM25 and the mean gains."""
    headers = (["corpus", "kind", "docs", "queries"] + (["rule"] if show_rule else [])
               + ["BM25", "q_opt", "at q_opt", "auto q", "at auto", "auto-query", "vs BM25", "vs auto", "recovery",
                  "per-query oracle", "queries per q"])
    table = [[r.name, r.kind, f"{r.docs:,}", f"{r.queries:,}"] + ([rule_label(r.rule)] if show_rule else [])
             + [f"{r.m_base:.4f}", f"{r.q_opt:g}", f"{r.m_opt:.4f}", f"{r.q_auto:g}",
                f"{r.m_auto:.4f} ({r.auto_rel_change:+.2%})", f"{r.m_query:.4f}", f"{r.rel_change:+.2%}",
                f"{r.m_query - r.m_auto:+.4f}", cell(r.recovery, ".3f"), f"{r.m_pq_oracle:.4f}",
                ", ".join(f"{q}: {n}" for q, n in r.q_distribution.items())]
             for r in rows]
    text = f"### {title}\n\n" + markdown_table(table, headers, "llrr" + "l" * show_rule + "r" * 10 + "l")
    worst = min(rows, key=lambda r: r.rel_change)
    code = [r for r in rows if r.kind == "code"]
    recs = [r.recovery for r in code if r.recovery is not None]
    summary = (f"\nWorst change against BM25: {worst.rel_change:+.2%} ({worst.name}); corpora more than 0.5% below "
               f"BM25: {', '.join(r.name for r in rows if r.rel_change < -0.005) or 'none'}. On code corpora, mean "
               f"change against BM25 {sum(r.rel_change for r in code) / max(1, len(code)):+.2%} (auto: "
               f"{sum(r.auto_rel_change for r in code) / max(1, len(code)):+.2%}), mean recovery of the corpus-level "
               f"oracle's gain {cell(sum(recs) / len(recs) if recs else None, '.3f')} over {len(recs)} corpora "
               f"with a gain. Metric {metric}.\n")
    return text + summary


def rows_record(rows: Sequence[QueryRow]) -> list[dict[str, Any]]:
    """The rows as JSON-ready dicts."""
    from dataclasses import asdict

    return [{**asdict(r), "rel_change": r.rel_change, "auto_rel_change": r.auto_rel_change, "recovery": r.recovery}
            for r in rows]


def per_query_report(sweeps: Sequence[Sweep], metric: str, text: Sequence[str]) -> tuple[str, dict]:
    """The per-query rule's report (``--q auto-query``): held out by family, the default constants on every
    corpus, and the constants fitted on all; (markdown, JSON payload). Sweeps without ``per_query.csv`` skip it."""
    missing = [s.name for s in sweeps if s.folder is None or not (s.folder / "per_query.csv").is_file()]
    if missing:
        return (f"\n# Per-query q (auto-query)\n\nNot evaluated: no per_query.csv in the sweep of "
                f"{', '.join(missing)}.\n", {})
    candidates = candidate_rules()
    # every q a candidate can pick, from the lowest floor to 1 by the rule's step: a coarse grid cannot score them
    low, step = min(c.q_floor for c in candidates), QueryRuleSettings().step
    needed = {round(low + i * step, 10) for i in range(int(round((1 - low) / step)) + 1)}
    coarse = [s.name for s in sweeps if not needed <= {round(float(q), 10) for q in s.scores}]
    if coarse:
        return (f"\n# Per-query q (auto-query)\n\nNot evaluated: the grid of the sweep of {', '.join(coarse)} "
                f"lacks some of the q values the per-query rule picks ({low:g} to 1 by {step:g}).\n", {})
    corpora = collect_query_evidence(sweeps, text=text)
    default = QueryRuleSettings()
    parts = ["", "# Per-query q (auto-query): leave-one-family-out", "",
             "Rule: q = max(floor, 1 - a * m * min(1, D / df)), m = 1 - q of the corpus rule before rounding, df the "
             "smallest document frequency among the query's terms, rounded up to a multiple of 0.05. Each query's "
             "score is read from the sweep's per_query.csv at its q. Fitting picks, among "
             f"{len(candidates)} candidates (D, a, floor), the best mean relative gain over BM25 on the training code "
             f"corpora subject to every training corpus staying above {FIT_FLOOR:.2%} against BM25 (the most "
             "cautious within 0.2 points of it). A family is a corpus with its query variants (-named, -unnamed). "
             "Recovery = (M(auto-query) - M(1)) / (M(q_opt) - M(1)) with q_opt the corpus-level oracle; vs auto = "
             "M(auto-query) - M(auto), auto being today's corpus rule.", ""]
    payload: dict = {}
    if len({e.family for e in corpora}) >= 2:
        held_out = leave_one_family_out_query(corpora, candidates)
        parts.append(format_query_markdown("Held out: the per-query rule fitted without the corpus's family",
                                           held_out, metric))
        payload["held_out"] = rows_record(held_out)
    rows = [score_rule(e, default) for e in corpora]
    parts.append(format_query_markdown(f"The default per-query rule ({rule_label(default)}) on every corpus "
                                       "(in-sample: its constants were chosen on these corpora)", rows, metric,
                                       show_rule=False))
    on_all = fit_query_rule(corpora, candidates)
    parts.append(f"Per-query rule fitted on all {len(corpora)} corpora: {rule_label(on_all)}.\n")
    payload.update({"default": {"rule": asdict(default), "rows": rows_record(rows)}, "fitted_on_all": asdict(on_all)})
    return "\n".join(parts), payload
