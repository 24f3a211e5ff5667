"""The pieces of a ``reproduce`` table: cells, a markdown table, a CSV, the provenance footer."""

from __future__ import annotations

import os
import shlex
import sys
from pathlib import Path
from typing import Any, Sequence

import pandas as pd

from qlog_pyserini.eval.report import cell, markdown_table
from qlog_pyserini.jvm.provenance import provenance
from qlog_pyserini.reproduce.cache import Config
from qlog_pyserini.system.outputs import atomic_output
from qlog_pyserini.system.provenance import project_relative, provenance_markdown, recorded_path


def simple_markdown(table: pd.DataFrame, columns: Sequence[str]) -> str:
    return markdown_table([[_shown(c, r[c]) for c in columns] for r in table.to_dict("records")], columns)


def _shown(column: str, v: Any) -> str:
    """A cell of a reproduce table: gains signed, q values as given, other floats to 4 decimals, counts grouped."""
    if column == "rel_gain":
        return cell(v, "+.1%")
    if column == "gain":
        return cell(v, "+.4f")
    if isinstance(v, float):
        return f"{v:g}" if column == "q_opt" else cell(v)
    return f"{v:,}" if isinstance(v, int) else str(v)


def write_csv(table: pd.DataFrame, path: Path) -> None:
    with atomic_output(path) as f:
        table.to_csv(f, index=False)


def footer(cfg: Config) -> str:
    """The provenance paragraph that ends a table, after a blank line."""
    return "\n" + provenance_markdown(provenance(cfg.command))


def mode(cfg: Config) -> str:
    """The run's mode as a table's title names it."""
    return "quick (small slices)" if cfg.quick else "full"


def shown_path(path: str | os.PathLike, cfg: Config) -> str:
    """``path`` as a record shows it: relative to the project root (``../shared/data`` beside it), else
    ``WORK/...`` under ``--work`` or ``SHARED/...`` under ``--shared``, else as :func:`recorded_path` writes it."""
    relative = project_relative(path, beside=False)
    if relative is not None:
        return relative
    full = Path(path).resolve()
    for base, label in ((Path(cfg.work).resolve(), "WORK"), (Path(cfg.shared).resolve(), "SHARED")):
        if full == base or base in full.parents:
            rel = full.relative_to(base)
            return f"{label}/{rel}" if str(rel) != "." else label
    # a folder beside the project (../shared/data) only after --work and --shared, which may lie beside it too
    return project_relative(path) or recorded_path(str(full))


def shown_command(cmd: Sequence[str], env: dict[str, str], cfg: Config) -> str:
    """The command as typed from the project root, every path in it shown by :func:`shown_path`."""
    def one(arg: str) -> str:
        name, eq, value = arg.partition("=")
        if eq and (value.startswith("/") or Path(value).is_absolute()):
            return f"{name}={shown_path(value, cfg)}"
        if arg == sys.executable:
            return "python"
        return shown_path(arg, cfg) if arg.startswith("/") else arg

    words = [one(f"{k}={v}") for k, v in env.items()] + [one(a) for a in cmd]
    text = " ".join(shlex.quote(w) for w in words)
    return f"cd java-similarity && {text}" if cmd and cmd[0] == "mvn" else text
