"""Where the source checkout is: the one definition of ``PROJECT_ROOT``.

From an editable install or a checkout this is the repository (with ``java-similarity/``,
``cache/``, ``work/``, ``results/``); from an installed wheel it is ``site-packages``, where none
of those exist, and the code that uses it falls back to the packaged jar or asks for paths.
"""

from __future__ import annotations

from pathlib import Path

PROJECT_ROOT = Path(__file__).resolve().parents[2]


def relative_to_project(path: str | Path) -> str:
    """``path`` relative to :data:`PROJECT_ROOT` when it lies inside it (so a record names no machine's folders), else as given."""
    full = Path(path)
    full = full if full.is_absolute() else Path.cwd() / full
    try:
        return str(full.resolve().relative_to(PROJECT_ROOT.resolve())) or "."
    except (ValueError, OSError):
        return str(path)
