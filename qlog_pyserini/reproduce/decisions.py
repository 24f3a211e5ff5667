"""The ``decisions`` stage: the pooled comparisons the ledger's registered decisions were made on
(``results/decisions.md``).

A decision registered in results/selection-ledger.md compares two configurations of the instance sweeps
(:data:`~qlog_pyserini.reproduce.localization.CONFIGURATIONS`) over named groups of issue sets, pooled, and states
its rule before it is measured: which pools must rise in MRR under both analyzers, which must not fall. This stage
gathers each group's per-instance tables from the sweeps the ``issues`` and ``held-out`` stages make (the same
cached steps, so it sweeps nothing they would not), prints both configurations' Hit@1 and MRR per pool and
analyzer with the paired randomization p, each set's MRR, and what the registered rule says, so the ledger cites a
generated file.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Mapping, Sequence

import pandas as pd

from qlog_pyserini.eval.report import cell, markdown_table
from qlog_pyserini.eval.significance import compare_scores
from qlog_pyserini.reproduce import held_out, issues
from qlog_pyserini.reproduce.cache import Config, PreparedCorpus
from qlog_pyserini.reproduce.localization import CONFIGURATIONS, joined, per_query
from qlog_pyserini.reproduce.report import footer, mode
from qlog_pyserini.sweep.instances import LOCALIZED
from qlog_pyserini.system.outputs import atomic_output
from qlog_pyserini.system.progress import info

FILES = ("decisions.md", "decisions.json")
MEASURES = (("success.1", "Hit@1"), ("recip_rank", "MRR"))
RULE_MEASURE = "recip_rank"
#: the groups a pool names: the issues stage's shared Multi-SWE-bench sets and its histories, then each held-out
#: round by the stem of its files
SHARED, HISTORIES = "shared", "histories"
GROUPS = (SHARED, HISTORIES, *(r.stem for r in held_out.ROUNDS))


@dataclass(frozen=True)
class Pool:
    """Groups of sets pooled as one sample; ``must`` is what the rule asks of its MRR: ``"rise"`` (the candidate
    above the baseline under every analyzer), ``"hold"`` (not below it under any) or ``""`` (reported only)."""

    label: str
    groups: tuple[str, ...]
    must: str = ""


@dataclass(frozen=True)
class Decision:
    """One registered decision: the configuration it would change (``baseline``), the one it would adopt
    (``candidate``), both names of :data:`CONFIGURATIONS`, the commit that registered it and its pools."""

    title: str
    registered: str
    baseline: str
    candidate: str
    pools: tuple[Pool, ...]


#: every decision whose configurations the sweeps still measure, in the order they were registered
DECISIONS = (
    Decision("The recent-history ranking (`--history`) in `auto`", "07dd67d", "auto", "auto+history",
             (Pool("every development issue stage", (SHARED, HISTORIES, "held-out", "held-out-2", "held-out-3"),
                   "rise"),
              Pool("the shared Multi-SWE-bench sets", (SHARED,), "hold"),
              Pool("the fourth held-out round (measured after the decision; not part of it)", ("held-out-4",)))),
)


def run(cfg: Config, corpora: Sequence[PreparedCorpus]) -> None:
    frames = {analyzer: _group_frames(cfg, analyzer) for analyzer in issues.ANALYZERS}
    if not any(frames["default"].values()):
        info(f"decisions: no issue set or history under {cfg.shared / 'issues'} or {cfg.repos}; skipped")
        return None
    parts, records = [], []
    for decision in DECISIONS:
        text, record = decision_section(decision, frames, cfg.resamples)
        parts.append(text)
        records.append(record)
    intro = (f"# Registered decisions, remade ({mode(cfg)})\n\n"
             "Each decision of results/selection-ledger.md whose two configurations the instance sweeps still "
             "measure: both configurations on the same instances, pooled over the groups the decision named before "
             "it was measured (each group's sets as the `issues` and `held-out` stages make them), with the two-sided "
             "paired randomization p of candidate against baseline, and what the registered rule says of the "
             "pooled MRR. A pool lists only the sets whose repositories this run had.\n\n")
    with atomic_output(cfg.out / FILES[0]) as f:
        f.write(intro + "\n".join(parts) + footer(cfg))
    with atomic_output(cfg.out / FILES[1]) as f:
        json.dump(records, f, indent=1)
    return None


def _group_frames(cfg: Config, analyzer: str) -> dict[str, dict[str, pd.DataFrame]]:
    """``{group: {set name: per-instance table}}`` of :data:`GROUPS` under ``analyzer``; a group whose repositories
    are absent is empty."""
    folder = cfg.work / issues.analyzer_folder("issue-sweeps", analyzer)
    stage = issues.sweep_sets(cfg, analyzer)
    names = {SHARED: [s["name"] for s in stage if not s["name"].startswith(issues.HISTORY_PREFIX)],
             HISTORIES: [s["name"] for s in stage if s["name"].startswith(issues.HISTORY_PREFIX)]}
    for held in held_out.ROUNDS:
        names[held.stem] = [s["name"] for s in held_out.sweep_round(cfg, held, analyzer)]
    return {group: {name: per_query(folder / name) for name in names[group]} for group in GROUPS}


def _pooled(frames: Mapping[str, Mapping[str, pd.DataFrame]], groups: Sequence[str]) -> pd.DataFrame:
    """Every instance of the sets of ``groups``."""
    return joined({name: frame for group in groups for name, frame in frames[group].items()})


def decision_section(decision: Decision, frames: Mapping[str, Mapping[str, Mapping[str, pd.DataFrame]]],
                     resamples: int) -> tuple[str, dict]:
    """The markdown and JSON of one decision over ``{analyzer: {group: {set: per-instance table}}}``."""
    base, cand = (f"{LOCALIZED}{c}" for c in (decision.baseline, decision.candidate))
    for c in (decision.baseline, decision.candidate):
        if c not in CONFIGURATIONS:
            raise ValueError(f"decision {decision.title!r}: {c!r} is not a swept configuration")
    rows, records = [], []
    verdict = True
    for pool in decision.pools:
        for analyzer, groups in frames.items():
            joined = _pooled(groups, pool.groups)
            if joined.empty:
                continue
            record = {"pool": pool.label, "analyzer": analyzer, "instances": len(joined), "must": pool.must}
            row = [pool.label, analyzer, len(joined)]
            for measure, _ in MEASURES:
                a, b = joined[f"{base}:{measure}"], joined[f"{cand}:{measure}"]
                p = compare_scores(a, b, resamples=resamples).p
                record[measure] = {"baseline": float(a.mean()), "candidate": float(b.mean()), "p": p}
                row += [f"{cell(float(a.mean()))} -> {cell(float(b.mean()))}", cell(p, ".4g")]
            change = record[RULE_MEASURE]["candidate"] - record[RULE_MEASURE]["baseline"]
            record["rule_met"] = {"rise": change > 0, "hold": change >= 0}.get(pool.must)
            verdict = verdict and record["rule_met"] is not False
            rows.append(row + [{"rise": "rises", "hold": "does not fall"}.get(pool.must, "reported only")
                               + ("" if record["rule_met"] is None else (": yes" if record["rule_met"] else ": no"))])
            records.append(record)
    headers = ["pooled over", "analyzer", "n", *(h for _, label in MEASURES
                                                  for h in (f"{label}: {decision.baseline} -> {decision.candidate}",
                                                            "p")), "the rule asks that MRR"]
    ruled = [r for r in records if r["rule_met"] is not None]
    outcome = ("adopted" if verdict else "not adopted") if ruled else "not decided (no pool of its rule here)"
    text = (f"## {decision.title}\n\nRegistered at commit {decision.registered}: adopt `{decision.candidate}` in "
            f"place of `{decision.baseline}` if MRR rises under every analyzer on each pool marked \"rises\" and "
            f"falls under none on each pool marked \"does not fall\". **By that rule: {outcome}.**\n\n"
            + markdown_table(rows, headers) + "\n" + _set_table(decision, frames, base, cand))
    return text, {"decision": decision.title, "registered": decision.registered, "baseline": decision.baseline,
                  "candidate": decision.candidate, "outcome": outcome, "pools": records}


def _set_table(decision: Decision, frames: Mapping[str, Mapping[str, Mapping[str, pd.DataFrame]]],
               base: str, cand: str) -> str:
    """Each set's MRR under both configurations, so a reader sees where the candidate gains and where it loses."""
    groups = list(dict.fromkeys(g for pool in decision.pools for g in pool.groups))
    rows = [[group, name, analyzer, len(frame), cell(float(frame[f"{base}:{RULE_MEASURE}"].mean())),
             cell(float(frame[f"{cand}:{RULE_MEASURE}"].mean()))]
            for analyzer, by_group in frames.items() for group in groups for name, frame in by_group[group].items()]
    return ("\nEach set's MRR:\n\n"
            + markdown_table(rows, ["group", "set", "analyzer", "n", decision.baseline, decision.candidate]))
