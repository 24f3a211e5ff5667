"""Signals: SIGTERM and SIGHUP clean up exactly as Ctrl-C does.

:func:`install_signal_handlers` turns SIGTERM and SIGHUP into :class:`Terminated`, a
``KeyboardInterrupt``, so that ``finally`` blocks and :func:`qlog_pyserini.system.processes.reaped`
clean up as for Ctrl-C.
"""

from __future__ import annotations

import signal
from typing import Any


# --------------------------------------------------------------------------------------------
# Signals


class Terminated(KeyboardInterrupt):
    """SIGTERM or SIGHUP, raised where the program is so that ``finally`` blocks clean up as for Ctrl-C."""

    def __init__(self, signum: int) -> None:
        super().__init__(signal.Signals(signum).name)
        self.signum = signum


pending_signal: int | None = None


def _raise_terminated(signum: int, frame: Any) -> None:
    global pending_signal
    pending_signal = signum  # remembered, in case the exception below is dropped (see popen)
    # Once: a second signal during cleanup must not abort the cleanup itself.
    for s in (signal.SIGTERM, signal.SIGHUP):
        signal.signal(s, signal.SIG_IGN)
    raise Terminated(signum)


def install_signal_handlers() -> None:
    """SIGTERM and SIGHUP raise :class:`Terminated` (a ``KeyboardInterrupt``) in the main thread."""
    import threading

    if threading.current_thread() is not threading.main_thread():
        return
    for s in (signal.SIGTERM, signal.SIGHUP):
        if signal.getsignal(s) in (signal.SIG_DFL, None) or signal.getsignal(s) is _raise_terminated:
            signal.signal(s, _raise_terminated)
