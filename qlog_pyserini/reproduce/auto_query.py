"""The auto-query stage of ``reproduce``: the per-query label-free q (``--q auto-query``) on every corpus.

    auto-query-sweeps.md / .csv   every corpus's sweep with today's corpus rule (auto) and per-query rule
                                  (auto-query) scored from its per-query data (``table --auto current``),
                                  then each built corpus's query-variant pair (-named, -unnamed)
    auto-query.md / .json         leave-one-family-out of the per-query rule over those sweeps
                                  (``lolo --auto-query-only``)

The per-query rule picks a multiple of 0.05 between its floor (at least 0.4) and 1 for each query, so
its score is read from the sweep only when the grid holds every such point: the main sweeps do in the
full run (0.05 to 1.0 by 0.05); otherwise (``--quick``'s coarse grid) each corpus gets a sweep of its
own over :data:`AUTO_QUERY_GRID` (in ``--work/sweeps-per-query``), cached like the others.

The query-variant pair of a corpus built from code: the queries that ``corpus`` wrote a different text
for in ``queries-without-name.jsonl`` (their leading function name dropped), as written (``-named``) and
without the name (``-unnamed``), over the same qrels restricted to them and the same index. Leave-one-
family-out counts a pair in its corpus's family; the pairs are shown in the table, not fitted on.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Sequence

from qlog_pyserini.corpus.build import UNNAMED_QUERIES_FILE
from qlog_pyserini.eval.grid import parse_grid
from qlog_pyserini.formats.topics import read_topics, write_topics_tsv
from qlog_pyserini.lolo.fit import LoloOptions
from qlog_pyserini.lolo.report import lolo_report
from qlog_pyserini.reproduce.cache import Config, PreparedCorpus, cached, stamp
from qlog_pyserini.reproduce.evidence import SWEEP_FORM, write_table
from qlog_pyserini.reproduce.sweeps import sweep
from qlog_pyserini.system.outputs import atomic_output
from qlog_pyserini.system.progress import info

AUTO_QUERY_GRID = "0.4,0.45,...,1.0"
MIN_VARIANT_QUERIES = 5  # one per cross-validation fold


def per_query_sweeps(corpora: Sequence[PreparedCorpus], cfg: Config) -> list[Path]:
    """A lucene-form sweep of each corpus whose grid holds every q the per-query rule can choose (cached)."""
    needed = parse_grid(AUTO_QUERY_GRID)
    on_main_grid = {round(q, 6) for q in needed} <= {round(q, 6) for q in cfg.grid}
    folder = "sweeps" if on_main_grid else "sweeps-per-query"
    for corpus in corpora:
        sweep(corpus, cfg, SWEEP_FORM, grid=None if on_main_grid else needed, folder=folder)
    return [cfg.work / folder / f"{corpus.name}-{SWEEP_FORM}" for corpus in corpora]


def query_variants(corpus: PreparedCorpus, cfg: Config) -> list[PreparedCorpus]:
    """``corpus``'s -named and -unnamed query sets (cached under ``--work/corpora``), or none: a labelled
    corpus, or fewer than :data:`MIN_VARIANT_QUERIES` queries that start with their function's name."""
    from dataclasses import replace

    beir = corpus.folder.parent / "beir"
    if corpus.kind != "code" or not (beir / UNNAMED_QUERIES_FILE).is_file():
        return []
    named = read_topics(corpus.folder / "topics.tsv")
    unnamed = read_topics(beir / UNNAMED_QUERIES_FILE)
    changed = [qid for qid, text in named.items() if qid in unnamed and unnamed[qid] != text]
    if len(changed) < MIN_VARIANT_QUERIES:
        info(f"[auto-query] {corpus.name}: no query-variant pair ({len(changed)} queries start with their "
             f"function's name; at least {MIN_VARIANT_QUERIES} wanted)")
        return []
    keep = set(changed)
    qrels = [line for line in (corpus.folder / "qrels.txt").read_text().splitlines()
             if line.split() and line.split()[0] in keep]
    out = []
    for tag, texts in (("-named", named), ("-unnamed", unnamed)):
        folder = cfg.work / "corpora" / f"{corpus.name}{tag}"
        key = {"source": str(corpus.folder), "manifest": json.loads((corpus.folder / "manifest.json").read_text()),
               "queries": len(changed)}
        if not cached(folder, key):
            folder.mkdir(parents=True, exist_ok=True)
            write_topics_tsv(folder / "topics.tsv", {qid: texts[qid] for qid in changed})
            with atomic_output(folder / "qrels.txt") as f:
                f.write("".join(line + "\n" for line in qrels))
            stamp(folder, key)
        out.append(replace(corpus, name=f"{corpus.name}{tag}", folder=folder))
    return out


def run(cfg: Config, corpora: Sequence[PreparedCorpus]) -> None:
    """Write the stage's tables to ``--out``."""
    folders = per_query_sweeps(corpora, cfg)
    variants = [v for corpus in corpora for v in query_variants(corpus, cfg)]
    write_table([*folders, *per_query_sweeps(variants, cfg)], cfg, "auto-query-sweeps",
                "The label-free q, per corpus (auto) and per query (auto-query)", current_rules=True)
    if len({c.family for c in corpora}) < 2:
        info("[auto-query] leave-one-family-out skipped: it needs at least two families")
        return
    options = LoloOptions(text=cfg.text, threads=cfg.threads, auto_query_only=True).check()
    report, payload, _ = lolo_report([str(f) for f in folders], options, cfg.command)
    with atomic_output(cfg.out / "auto-query.md") as f:
        f.write(report)
    with atomic_output(cfg.out / "auto-query.json") as f:
        json.dump(payload, f, indent=2)
