"""Child processes that die with us (the Java indexer, trec_eval), and process look-ups.

Children are started by :func:`popen` so that they die with us: on Linux the kernel sends them
SIGKILL when our process dies, however it dies (``PR_SET_PDEATHSIG``); on an exception (Ctrl-C,
SIGTERM) they are killed and reaped before the exception propagates (:func:`reaped`).
"""

from __future__ import annotations

import concurrent.futures
import contextlib
import ctypes
import multiprocessing
import os
import signal
import subprocess
import sys
from typing import Any, Iterator, Sequence

from qlog_pyserini.system import signals


def pid_alive(pid: int) -> bool:
    """True if a process ``pid`` exists (ours or anyone's)."""
    if pid <= 0:
        return False
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


# --------------------------------------------------------------------------------------------
# Children that die with us

_PR_SET_PDEATHSIG = 1


_STOPPING = {signal.SIGTERM, signal.SIGHUP, signal.SIGINT}


def _child_setup(mask: set) -> Any:
    """The child's ``preexec_fn``: it dies with its parent and runs with its parent's own signal mask and
    default handlers (a signal the group got meanwhile ends it as it would end the program it runs)."""
    def setup() -> None:
        for s in _STOPPING:
            signal.signal(s, signal.SIG_DFL)
        signal.pthread_sigmask(signal.SIG_SETMASK, mask)
        _die_with_parent()
    return setup


def _die_with_parent() -> None:  # runs in the child between fork and exec
    if sys.platform.startswith("linux"):
        try:
            libc = ctypes.CDLL(None, use_errno=True)
            libc.prctl(_PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)
        except (OSError, AttributeError):
            pass
    # The parent may have died between fork and prctl; then nobody would send the signal.
    if os.getppid() == 1:
        os._exit(1)


def _worker_dies_with(parent: int) -> None:
    """Initializer of :func:`process_pool`'s workers: SIGKILL when the parent dies (it may be gone already)."""
    _die_with_parent()
    if os.getppid() != parent:
        os._exit(1)


def process_pool(workers: int) -> concurrent.futures.ProcessPoolExecutor:
    """A ``spawn`` process pool whose workers die with this process, however it dies.

    A worker of a plain pool outlives a ``kill -9`` of its parent, blocked on a queue nobody will
    fill, together with multiprocessing's resource tracker (which ends once the workers close its
    pipe); these set ``PR_SET_PDEATHSIG`` first. Create the pool from the main thread: the signal
    fires when the thread that started a worker ends.
    """
    return concurrent.futures.ProcessPoolExecutor(workers, mp_context=multiprocessing.get_context("spawn"),
                                                  initializer=_worker_dies_with, initargs=(os.getpid(),))


def popen(cmd: Sequence[str], **kwargs: Any) -> subprocess.Popen:
    """``subprocess.Popen`` whose child gets SIGKILL when this process dies (Linux), however it dies.

    Callers use :func:`reaped` around the wait so an exception kills the child too.
    """
    # PR_SET_PDEATHSIG fires when the *thread* that forked exits; children started from
    # short-lived threads would die early, so they are started from the main thread only.
    # SIGTERM, SIGHUP and Ctrl-C wait while the child is forked: CPython runs a handler in the parent's at-fork
    # callbacks (logging's _afterFork), where its exception is printed as "Exception ignored" and dropped.
    # Unblocked, a signal that came meanwhile raises here, once, and the child is killed.
    mask = signal.pthread_sigmask(signal.SIG_BLOCK, _STOPPING)
    proc = None
    try:
        proc = subprocess.Popen(cmd, preexec_fn=_child_setup(mask), **kwargs)
    finally:
        try:
            signal.pthread_sigmask(signal.SIG_SETMASK, mask)
        except BaseException:
            if proc is not None:
                with contextlib.suppress(OSError):
                    proc.kill()
                proc.wait()
            raise
    if signals.pending_signal is not None:
        # The signal arrived during the fork: CPython ran our handler inside an at-fork callback
        # (logging's), where an exception is printed and dropped. Deliver it now.
        with contextlib.suppress(OSError):
            proc.kill()
        proc.wait()
        raise signals.Terminated(signals.pending_signal)
    return proc


@contextlib.contextmanager
def reaped(proc: subprocess.Popen) -> Iterator[subprocess.Popen]:
    """Yield ``proc``; on any exception (Ctrl-C, SIGTERM) kill it and wait for it before re-raising."""
    try:
        yield proc
    except BaseException:
        with contextlib.suppress(OSError):
            proc.kill()
        with contextlib.suppress(Exception):
            proc.wait(timeout=30)
        raise
    finally:
        for stream in (proc.stdout, proc.stderr, proc.stdin):
            if stream is not None:
                with contextlib.suppress(Exception):
                    stream.close()


def run(cmd: Sequence[str], **kwargs: Any) -> subprocess.CompletedProcess:
    """``subprocess.run(cmd, capture_output=True, ...)`` whose child dies with us (see :func:`popen`)."""
    input_text = kwargs.pop("input", None)
    kwargs.setdefault("stdout", subprocess.PIPE)
    kwargs.setdefault("stderr", subprocess.PIPE)
    kwargs.pop("capture_output", None)
    proc = popen(cmd, stdin=subprocess.PIPE if input_text is not None else None, **kwargs)
    with reaped(proc):
        out, err = proc.communicate(input_text)
    return subprocess.CompletedProcess(list(cmd), proc.returncode, out, err)
