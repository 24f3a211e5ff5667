"""The label-free issue -> files configuration (``search --instances --auto``) against the stronger of tuned BM25
(CV) and the engine default, on every issue set and history, under both analyzers: ``results/localization.md``.

Each set's instance sweep (:mod:`qlog_pyserini.sweep.instances`) measures the grid's systems and the
configurations of :data:`CONFIGURATIONS` on the same instances; this module reads their ``per_query.csv``. The
baseline of a set is whichever of tuned BM25 (CV) and the engine default (k1 1.2, b 0.75) has the higher MRR on
that set: chosen after seeing both, so the comparison leans toward the baseline. Each set's p is the paired
randomization test of ``auto`` against it; Holm's adjustment runs over the sets of one analyzer; the pooled row
joins every instance of every set (each against its own set's baseline).
"""

from __future__ import annotations

from pathlib import Path
from typing import Mapping

import pandas as pd

from qlog_pyserini.eval.report import cell, markdown_table
from qlog_pyserini.eval.significance import compare_scores, holm
from qlog_pyserini.sweep.instances import LOCALIZED, measure_name

#: the configurations every set is swept with: each adds one lever to BM25; ``fuse+path+evidence+va`` is ``auto``
#: at q = 1, so ``auto`` against it is what q-log adds beside units, paths, evidence and b, and ``...+auto-files``
#: is ``auto`` with the files rule's q instead of the corpus rule's; ``auto+history`` is ``auto`` with the recent
#: history's ranking fused in (``--history``)
CONFIGURATIONS = ("file+path", "fuse", "fuse+path", "file+evidence", "fuse+path+evidence", "fuse+path+evidence+va",
                  "fuse+path+evidence+va+auto-files", "auto", "auto+history")
BASELINES = ("engine", "bm25_cv")
MEASURES = ("success.1", "success.3", "success.5", "every.1", "every.3", "every.5", "recip_rank", "ndcg_cut.10",
            "recall_tokens.8192", "recall_tokens.13000", "recall_tokens.27000", "recall_tokens.50000")
CHOOSER = "recip_rank"
AUTO = f"{LOCALIZED}auto"
IN_SAMPLE = ("**In-sample:** the shared sets and the histories are the development data every rule here was "
             "designed on (the corpus rule's constants were fitted on function corpora, before; the files rule's on "
             "the shared sets).")
Q_ONE = f"{LOCALIZED}fuse+path+evidence+va"
Q_FILES = f"{LOCALIZED}fuse+path+evidence+va+auto-files"
#: the rows of :func:`q_section`: ``auto`` and its two variants that differ from it by q alone
Q_VARIANTS = ((Q_ONE, "auto at q = 1"), (AUTO, "auto (q: the corpus rule)"), (Q_FILES, "auto, q by the files rule"))


def per_query(sweep: str | Path) -> pd.DataFrame:
    """A sweep folder's per-instance table (``system:measure`` columns), instances the qrels lack dropped."""
    frame = pd.read_csv(Path(sweep) / "per_query.csv", index_col=0)
    return frame.dropna(subset=[f"bm25:{CHOOSER}"])


def stronger_baseline(frame: pd.DataFrame) -> str:
    """The baseline of :data:`BASELINES` with the higher mean MRR on ``frame`` (the first on a tie)."""
    return max(BASELINES, key=lambda s: (frame[f"{s}:{CHOOSER}"].mean(), -BASELINES.index(s)))


def set_rows(frames: Mapping[str, pd.DataFrame], resamples: int) -> list[dict]:
    """One record a set: its size, its baseline, and per measure the means of BM25, the baseline, ``auto`` at
    q = 1 and ``auto``, with ``auto``'s randomization p against the baseline."""
    rows = []
    for name, frame in frames.items():
        base = stronger_baseline(frame)
        row = {"set": name, "instances": len(frame), "baseline": base}
        for m in MEASURES:
            row[m] = {s: float(frame[f"{s}:{m}"].mean()) for s in ("bm25", base, Q_ONE, AUTO)}
            row[m]["p"] = compare_scores(frame[f"{base}:{m}"], frame[f"{AUTO}:{m}"], resamples=resamples).p
        rows.append(row)
    return rows


def joined(frames: Mapping[str, pd.DataFrame]) -> pd.DataFrame:
    """The sets' per-instance tables as one, each row indexed by its set and instance (ids may repeat across
    sets); empty without a set."""
    parts = [frame.set_axis([f"{name}/{q}" for q in frame.index]) for name, frame in frames.items()]
    return pd.concat(parts) if parts else pd.DataFrame()


def pooled_row(frames: Mapping[str, pd.DataFrame], resamples: int) -> dict:
    """Every instance of every set: ``auto`` against each set's own baseline, BM25 and ``auto`` at q = 1."""
    parts = {}
    for name, frame in frames.items():
        base = stronger_baseline(frame)
        part = pd.DataFrame({(s, m): frame[f"{s}:{m}"] for s in ("bm25", Q_ONE, AUTO) for m in MEASURES})
        for m in MEASURES:
            part[("baseline", m)] = frame[f"{base}:{m}"]
        parts[name] = part
    pooled = joined(parts)
    row = {"set": "pooled", "instances": len(pooled), "baseline": "each set's"}
    for m in MEASURES:
        row[m] = {s: float(pooled[(s, m)].mean()) for s in ("bm25", "baseline", Q_ONE, AUTO)}
        row[m]["p"] = compare_scores(pooled[("baseline", m)], pooled[(AUTO, m)], resamples=resamples).p
    return row


def analyzer_section(analyzer: str, frames: Mapping[str, pd.DataFrame], resamples: int) -> tuple[str, dict]:
    """The markdown and JSON of one analyzer: a table of Acc/MRR per set and pooled, Holm across the sets."""
    rows = set_rows(frames, resamples)
    adjusted = {m: holm([r[m]["p"] for r in rows]) for m in ("success.1", "recip_rank")}
    for i, r in enumerate(rows):
        r["holm"] = {m: adjusted[m][i] for m in adjusted}
    pooled = pooled_row(frames, resamples)
    headline = ("success.1", "every.1", "every.3", "every.5", "recip_rank", "ndcg_cut.10", "recall_tokens.27000")
    table = []
    for r in [*rows, pooled]:
        base = r["baseline"] if r["baseline"] in BASELINES else "baseline"
        for system, label in (("bm25", "BM25"), (base, _label(r["baseline"])), (Q_ONE, "auto at q = 1"),
                              (AUTO, "auto")):
            table.append([r["set"], r["instances"], label] + [cell(r[m][system]) for m in headline])
        table.append([r["set"], "", "p auto vs baseline (Holm)"]
                     + [cell(r[m]["p"], ".4g") + (f" ({cell(r['holm'][m], '.4g')})" if "holm" in r and m in r["holm"]
                                                   else "") for m in headline])
    headers = ["set", "n", "system", *(measure_name(m) for m in headline)]
    text = (f"### Analyzer: {analyzer}\n\n" + markdown_table(table, headers)
            + f"\nHolm's adjustment runs over the {len(rows)} sets of this analyzer (Hit@1 and MRR); the pooled row "
              "is one randomization test over every instance.\n")
    return text, {"analyzer": analyzer, "sets": rows, "pooled": pooled}


def _label(baseline: str) -> str:
    return {"engine": "engine default (1.2, 0.75)", "bm25_cv": "tuned BM25 (CV)"}.get(baseline, "stronger baseline")


def read_frames(by_analyzer: Mapping[str, Mapping[str, str | Path]]) -> dict[str, dict[str, pd.DataFrame]]:
    """``{analyzer: {set name: per-instance table}}`` from ``{analyzer: {set name: sweep folder}}``."""
    return {a: {name: per_query(folder) for name, folder in sweeps.items()} for a, sweeps in by_analyzer.items()}


def section(by_analyzer: Mapping[str, Mapping[str, pd.DataFrame]], resamples: int,
            sample: str | None = None) -> tuple[str, dict]:
    """``results/localization.md``'s body and JSON from ``{analyzer: {set name: per-instance table}}``
    (:func:`read_frames`); ``sample`` says which data the figures are measured on (by default: the development
    data, in-sample)."""
    parts, records = [], []
    for analyzer, frames in by_analyzer.items():
        if not frames:
            continue
        text, record = analyzer_section(analyzer, frames, resamples)
        parts.append(text)
        records.append(record)
    intro = ("## The label-free configuration against the stronger baseline\n\n"
             "`auto` is `search --instances --auto`: units fused with the file ranking by reciprocal rank, the path "
             "field at weight 1, the issue's own paths, modules, frames and identifiers fused by reciprocal rank, "
             "b from each index's verboseness (BM25-VA at the mean) and q from each index's corpus rule (the slope "
             "of its document-frequency distribution, shrunk toward BM25 by its size: `--q auto`); `auto at q = 1` "
             "is the same with plain BM25's IDF, so the two rows differ by what q-log adds. The baseline of a set is "
             "the stronger (by MRR) of tuned BM25 (CV) and the engine default. " + (sample or IN_SAMPLE)
             + " Hit@k: the first modified file in the top k; Acc@k all: every modified file in the top k (SweRank's "
               "Acc@k).\n\n")
    q_text, q_record = q_section(by_analyzer, resamples)
    return intro + "\n".join(parts) + q_text, {"analyzers": records, "q": q_record}


def q_section(by_analyzer: Mapping[str, Mapping[str, pd.DataFrame]], resamples: int) -> tuple[str, dict]:
    """What q adds beside the other levers, pooled per analyzer: ``auto`` at q = 1, under the corpus rule and
    under the files rule (p against q = 1), and the q each rule gave the instances' file and units indexes."""
    table, record = [], {}
    for analyzer, frames in by_analyzer.items():
        if not frames:
            continue
        pooled = pd.concat(frames.values())
        record[analyzer] = {}
        for system, label in Q_VARIANTS:
            row = {m: float(pooled[f"{system}:{m}"].mean()) for m in ("success.1", "recip_rank")}
            row["p"] = {m: compare_scores(pooled[f"{Q_ONE}:{m}"], pooled[f"{system}:{m}"], resamples=resamples).p
                        for m in ("success.1", "recip_rank")}
            qs = {k: _share_below_one(pooled, f"{system}:{k}") for k in ("q", "unit_q")}
            record[analyzer][label] = {**row, "share_q_below_1": qs}
            table.append([analyzer, label, len(pooled), cell(row["success.1"]), cell(row["recip_rank"]),
                          "" if system == Q_ONE else cell(row["p"]["success.1"], ".4g"),
                          "" if system == Q_ONE else cell(row["p"]["recip_rank"], ".4g"),
                          _share_text(qs["q"]), _share_text(qs["unit_q"])])
    if not table:
        return "", record
    headers = ["analyzer", "system", "n", "Hit@1", "MRR", "p Hit@1 vs q = 1", "p MRR vs q = 1",
               "instances with q < 1: files index", "units index"]
    return ("\n## What q adds beside units, paths, evidence and b\n\n"
            "Every set pooled. The three rows differ by q alone; p is the paired randomization test against "
            "`auto at q = 1`; the last columns give the share of instances whose index the row's rule set below "
            "q = 1.\n\n" + markdown_table(table, headers)), record


def _share_below_one(frame: pd.DataFrame, column: str) -> float | None:
    """The share of ``frame``'s rows whose ``column`` (a q) is below 1; None when the column is absent."""
    if column not in frame:
        return None
    values = frame[column].dropna()
    return float((values < 1).mean()) if len(values) else None


def _share_text(share: float | None) -> str:
    return "" if share is None else f"{share:.1%}"

