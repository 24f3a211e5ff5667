"""The auto-query stage of ``reproduce``: the per-query label-free q (``--q auto-query``) on every corpus.

    auto-query-sweeps.md / .csv   every corpus's sweep with today's corpus rule (auto) and per-query rule
                                  (auto-query) scored from its per-query data (``table --auto current``)
    auto-query.md / .json         leave-one-family-out of the per-query rule over those sweeps
                                  (``lolo --auto-query-only``)

The per-query rule picks a multiple of 0.05 between its floor (at least 0.4) and 1 for each query, so
its score is read from the sweep only when the grid holds every such point: the main sweeps do in the
full run (0.05 to 1.0 by 0.05); otherwise (``--quick``'s coarse grid) each corpus gets a sweep of its
own over :data:`AUTO_QUERY_GRID` (in ``--work/sweeps-per-query``), cached like the others.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import TYPE_CHECKING, Sequence

from qlog_pyserini.lolo.fit import LoloOptions
from qlog_pyserini.lolo.report import lolo_report
from qlog_pyserini.sweep.run import parse_grid
from qlog_pyserini.system.outputs import atomic_output
from qlog_pyserini.system.progress import info

if TYPE_CHECKING:
    from qlog_pyserini.reproduce.pipeline import Config, Prepared

AUTO_QUERY_GRID = "0.4,0.45,...,1.0"


def per_query_sweeps(corpora: Sequence[Prepared], cfg: Config) -> list[Path]:
    """A lucene-form sweep of each corpus whose grid holds every q the per-query rule can choose (cached)."""
    from qlog_pyserini.reproduce.evidence import SWEEP_FORM
    from qlog_pyserini.reproduce.pipeline import sweep

    needed = parse_grid(AUTO_QUERY_GRID)
    on_main_grid = {round(q, 6) for q in needed} <= {round(q, 6) for q in cfg.grid}
    folder = "sweeps" if on_main_grid else "sweeps-per-query"
    for corpus in corpora:
        sweep(corpus, cfg, SWEEP_FORM, grid=None if on_main_grid else needed, folder=folder)
    return [cfg.work / folder / f"{corpus.name}-{SWEEP_FORM}" for corpus in corpora]


def auto_query(corpora: Sequence[Prepared], cfg: Config) -> list[Path]:
    """Write the stage's tables to ``--out``; returns the sweep folders they were read from."""
    from qlog_pyserini.reproduce.evidence import write_table

    folders = per_query_sweeps(corpora, cfg)
    write_table(folders, cfg, "auto-query-sweeps", "The label-free q, per corpus (auto) and per query (auto-query)",
                current_rules=True)
    if len({c.family for c in corpora}) < 2:
        info("[auto-query] leave-one-family-out skipped: it needs at least two families")
        return folders
    options = LoloOptions(text=cfg.text, threads=cfg.threads, auto_query_only=True).check()
    report, payload, _ = lolo_report([str(f) for f in folders], options, cfg.command)
    with atomic_output(cfg.out / "auto-query.md") as f:
        f.write(report)
    with atomic_output(cfg.out / "auto-query.json") as f:
        json.dump(payload, f, indent=2)
    return folders
