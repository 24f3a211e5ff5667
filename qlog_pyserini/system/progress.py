"""Progress bars that appear only where a person is watching.

A bar is drawn on stderr when stderr is a terminal and the user did not ask for ``--quiet``; in a CI
log or a pipe (where tqdm would write thousands of lines) it is silent. ``QLOG_PROGRESS=1`` forces
bars on, ``QLOG_PROGRESS=0`` off.

``--quiet`` on any verb (:func:`set_quiet`) turns bars and :func:`info` lines off for the process.
"""

from __future__ import annotations

import logging
import os
import sys
from typing import Any, Iterable

from tqdm import tqdm

_quiet = False


def set_quiet(quiet: bool = True) -> None:
    """Silence progress bars and informational lines for the rest of the process (``--quiet``)."""
    global _quiet
    _quiet = quiet
    logging.getLogger("qlog_pyserini").setLevel(logging.WARNING if quiet else logging.NOTSET)


def info(message: str) -> None:
    """An informational line on stderr, unless ``--quiet``."""
    if not _quiet:
        print(message, file=sys.stderr, flush=True)


def show_progress(quiet: bool = False) -> bool:
    """Whether to draw progress bars: never when quiet (here or by ``--quiet``), else ``QLOG_PROGRESS`` or a terminal."""
    if quiet or _quiet:
        return False
    forced = os.environ.get("QLOG_PROGRESS")
    if forced in ("0", "1"):
        return forced == "1"
    return sys.stderr.isatty()


def progress_bar(iterable: Iterable[Any] | None = None, *, quiet: bool = False, **kwargs: Any) -> tqdm:
    """``tqdm`` on stderr, disabled unless :func:`show_progress` says a person is watching."""
    kwargs.setdefault("file", sys.stderr)
    kwargs.setdefault("dynamic_ncols", True)
    return tqdm(iterable, disable=not show_progress(quiet), **kwargs)
