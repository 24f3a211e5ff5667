"""Reports: one cell formatter, one markdown table writer (pandas' ``to_markdown``, which tabulate prints) and
the sweep's plot. Compute code returns values; the tables and figures are written from them here."""

from __future__ import annotations

import math
import os
from typing import Any, Sequence

import pandas as pd

from qlog_pyserini.system.outputs import atomic_output


def cell(x: Any, fmt: str = ".4f") -> str:
    """``x`` formatted, or ``n/a`` for a missing value (None or NaN)."""
    return "n/a" if x is None or (isinstance(x, float) and math.isnan(x)) else format(x, fmt)


#: the one-letter spelling of a column's alignment: ``align="lrr"`` is ``["left", "right", "right"]``
ALIGNMENTS = {"l": "left", "r": "right", "c": "center"}


def markdown_table(rows: Sequence[Sequence[Any]], headers: Sequence[str], align: Sequence[str] | None = None) -> str:
    """A GitHub markdown table of ``rows`` (cells as given: format them with :func:`cell` first; markdown in a
    cell, ``**bold**`` say, is kept), one line a row and a final newline. ``align`` is "left", "right" or
    "center" per column, or a string of one letter a column (l, r, c); without it every column is left-aligned."""
    if isinstance(align, str):
        align = [ALIGNMENTS[a] for a in align]
    if align and len(align) != len(headers):
        raise ValueError(f"{len(align)} alignments for {len(headers)} columns")
    frame = pd.DataFrame([list(r) for r in rows], columns=list(headers), dtype=object)
    options = {"colalign": list(align)} if align else {}
    return frame.to_markdown(index=False, tablefmt="pipe", disable_numparse=True, **options) + "\n"


def plot_sweep(table: pd.DataFrame, parameter: str, metric: str, bm25_score: float, oracle: float,
               path: str | os.PathLike, title: str = "", cv: tuple[Sequence[float], float] | None = None,
               auto: tuple[float, float] | None = None) -> list[str]:
    """Metric against the swept parameter, BM25 as a dashed line, the oracle marked, and (when given) the
    cross-validated score (``cv``: the values chosen per fold and the score) and the label-free value
    (``auto``: value and score); PNG, atomically. Returns the legend's labels."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(6, 4), dpi=120)
    ax.plot(table[parameter], table[metric], marker="o", ms=3, label="q-log BM25" if parameter == "q" else parameter)
    ax.axhline(bm25_score, color="grey", ls="--", lw=1, label=f"BM25 = {bm25_score:.4f}")
    best = float(table.loc[table[parameter] == oracle, metric].iloc[0])
    ax.scatter([oracle], [best], color="red", zorder=3, label=f"oracle {parameter} = {oracle:g}: {best:.4f}")
    if cv is not None:
        # The cross-validated score has no single value of the parameter: each fold chose its own.
        chosen = "/".join(f"{v:g}" for v in sorted(set(cv[0])))
        ax.axhline(cv[1], color="green", ls=":", lw=1.5, label=f"cross-validated ({parameter} = {chosen}): {cv[1]:.4f}")
    if auto is not None:
        ax.scatter([auto[0]], [auto[1]], color="purple", marker="D", zorder=4,
                   label=f"label-free {parameter} = {auto[0]:g}: {auto[1]:.4f}")
    ax.set_xlabel(parameter)
    ax.set_ylabel(metric)
    ax.set_title(title)
    ax.grid(alpha=0.3)
    legend = ax.legend(fontsize=8)
    labels = [t.get_text() for t in legend.get_texts()]
    fig.tight_layout()
    with atomic_output(path, "wb") as f:
        fig.savefig(f, format="png")
    plt.close(fig)
    return labels
