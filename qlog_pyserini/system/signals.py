"""Signals: SIGTERM and SIGHUP clean up exactly as Ctrl-C does.

:func:`install_signal_handlers` turns SIGTERM and SIGHUP into :class:`Terminated`, a
``KeyboardInterrupt``, so that ``finally`` blocks and :func:`qlog_pyserini.system.processes.reaped`
clean up as for Ctrl-C.
"""

from __future__ import annotations

import contextlib
import signal
from typing import Any, Iterator

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


@contextlib.contextmanager
def signals_deferred() -> Iterator[None]:
    """Ctrl-C, SIGTERM and SIGHUP wait until the block is done, then take effect as they would have.

    For a few steps that must not be cut in two (the two renames that replace an output). Python runs
    signal handlers in the main thread whichever thread the signal reached, so the block's handlers only
    note the signal; blocking it with the signal mask would not do while other threads (the JVM's) can
    receive it. Outside the main thread, where handlers cannot be changed, the block runs as it is.
    """
    import threading

    if threading.current_thread() is not threading.main_thread():
        yield
        return
    caught: list[int] = []
    held = (signal.SIGINT, signal.SIGTERM, signal.SIGHUP)
    previous = {s: signal.getsignal(s) for s in held}
    for s in held:
        signal.signal(s, lambda signum, frame: caught.append(signum))
    try:
        yield
    finally:
        for s, handler in previous.items():
            signal.signal(s, handler)
        if caught:
            signal.raise_signal(caught[0])  # now, to the handler the program had

