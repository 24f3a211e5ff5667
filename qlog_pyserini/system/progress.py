"""One channel for what a verb tells the user on stderr: progress, informational lines and warnings.

- On a terminal, long stages draw a tqdm bar (counts, rate, ETA).
- In a log or a pipe (CI), each stage writes one line when it ends (``indexing: 2661 doc in 3.1 s``)
  instead of a bar's thousands of redraws.
- ``--quiet`` (:func:`set_quiet`) silences both, and :func:`info` lines; warnings and errors still print.

Informational lines go through the ``qlog_pyserini`` logger (so a module's ``logging.getLogger(__name__)``
lines join the same channel): INFO lines print as they are, warnings as ``warning: ...``.
``QLOG_PROGRESS=1`` forces bars on, ``QLOG_PROGRESS=0`` off (stage lines stay, unless quiet).
"""

from __future__ import annotations

import logging
import os
import sys
import time
from typing import Any, Iterable, Iterator

from tqdm import tqdm

_quiet = False
LOGGER = logging.getLogger("qlog_pyserini")


class _StderrHandler(logging.Handler):
    """Writes to the current ``sys.stderr`` (looked up at each line, so a redirected stderr is honoured)."""

    def emit(self, record: logging.LogRecord) -> None:
        try:
            text = record.getMessage()
            if record.levelno >= logging.WARNING and not text.startswith(("warning:", "error:")):
                text = f"{record.levelname.lower()}: {text}"
            sys.stderr.write(text + "\n")
            sys.stderr.flush()
        except Exception:  # a broken stderr must not turn a message into a crash
            self.handleError(record)


def _channel() -> logging.Logger:
    """The ``qlog_pyserini`` logger with our one stderr handler (installed once; no root duplicates)."""
    if not any(isinstance(h, _StderrHandler) for h in LOGGER.handlers):
        LOGGER.addHandler(_StderrHandler())
        LOGGER.propagate = False
    LOGGER.setLevel(logging.WARNING if _quiet else logging.INFO)
    return LOGGER


def set_quiet(quiet: bool = True) -> None:
    """Silence progress and informational lines for the rest of the process (``--quiet``), or turn them back on."""
    global _quiet
    _quiet = quiet
    _channel()


def info(message: str) -> None:
    """An informational line on stderr, unless ``--quiet``."""
    _channel().info(message)


def warn(message: str) -> None:
    """A warning on stderr (``warning: ...``), printed even with ``--quiet``."""
    _channel().warning(message)


def show_progress(quiet: bool = False) -> bool:
    """Whether to draw progress bars: never when quiet (here or by ``--quiet``), else ``QLOG_PROGRESS`` or a terminal."""
    if quiet or _quiet:
        return False
    forced = os.environ.get("QLOG_PROGRESS")
    if forced in ("0", "1"):
        return forced == "1"
    return sys.stderr.isatty()


class _Bar(tqdm):
    """tqdm that, when it draws nothing but the user is not quiet, logs one line as its stage ends."""

    def __init__(self, iterable: Iterable[Any] | None = None, *, stage_line: bool = False, **kwargs: Any) -> None:
        self._stage = kwargs.get("desc") or "working"
        self._unit = kwargs.get("unit", "it")
        self._stage_line = stage_line
        self._started = time.perf_counter()
        super().__init__(iterable, **kwargs)

    def update(self, n: float | None = 1) -> bool | None:
        if self.disable:
            self.n += n or 0  # counted even when not drawn, for the stage line and for callers reading .n
            return None
        return super().update(n)

    def __iter__(self) -> Iterator[Any]:
        if not self.disable:
            yield from super().__iter__()
            return
        for item in self.iterable:
            yield item
            self.n += 1
        self._log_stage()

    def __exit__(self, exc_type: Any, *rest: Any) -> Any:
        if exc_type is not None:
            self._stage_line = False  # a stage that failed did not end: its error is the last line
        return super().__exit__(exc_type, *rest)

    def __del__(self) -> None:
        self._stage_line = False  # dropped unfinished (an exception unwound past it)
        super().__del__()

    def close(self) -> None:
        if sys.exc_info()[0] is None:  # closed in a finally block while an error unwinds: no line
            self._log_stage()
        self._stage_line = False
        super().close()

    def _log_stage(self) -> None:
        if self._stage_line:
            self._stage_line = False
            total = f"/{self.total:g}" if self.total and self.total != self.n else ""
            info(f"{self._stage}: {self.n:g}{total} {self._unit} in {time.perf_counter() - self._started:.1f} s")


def progress_bar(iterable: Iterable[Any] | None = None, *, quiet: bool = False, **kwargs: Any) -> tqdm:
    """A bar on a terminal (:func:`show_progress`), else one line when the stage ends; nothing when quiet."""
    kwargs.setdefault("file", sys.stderr)
    kwargs.setdefault("dynamic_ncols", True)
    draw = show_progress(quiet)
    return _Bar(iterable, disable=not draw, stage_line=not draw and not quiet and not _quiet, **kwargs)
