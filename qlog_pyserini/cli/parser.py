"""What every ``python -m qlog_pyserini.<verb>`` shares: argparse with one-line errors, and the runner
that turns :class:`~qlog_pyserini.errors.QLogError` into ``error: ...`` and exit code 2."""

from __future__ import annotations

import argparse
import errno
import os
import re
import signal
import sys
from typing import Callable, NoReturn, Sequence

from qlog_pyserini.errors import QLogError
from qlog_pyserini.system import progress
from qlog_pyserini.system.extras import extra_of, missing_extra
from qlog_pyserini.system.signals import Terminated, install_signal_handlers


def run_cli(main: Callable[[Sequence[str] | None], int | None], argv: Sequence[str] | None = None) -> None:
    """Run a CLI ``main``; a :class:`QLogError` becomes ``error: ...`` on stderr and exit code 2.

    SIGTERM and SIGHUP are handled as Ctrl-C: the verb's temporaries and children are cleaned up
    on the way out, and the exit code is 128 + the signal number (130 for Ctrl-C).
    """
    install_signal_handlers()
    try:
        code = main(argv)
    except QLogError as e:
        print(f"error: {_one_line(e)}", file=sys.stderr)
        sys.exit(2)
    except ModuleNotFoundError as e:
        if extra_of(e.name) is None:
            raise
        print(f"error: {_one_line(missing_extra(e.name or ''))}", file=sys.stderr)
        sys.exit(2)
    except Terminated as e:
        print(f"error: terminated by {signal.Signals(e.signum).name}; nothing half-written was kept", file=sys.stderr)
        sys.exit(128 + e.signum)
    except KeyboardInterrupt:
        print("error: interrupted", file=sys.stderr)
        sys.exit(130)
    except BrokenPipeError:
        # `verb | head -3`: the reader has gone; stop quietly, as cat does, and keep Python's shutdown
        # flush of stdout from printing a second traceback.
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        sys.exit(128 + signal.SIGPIPE)
    except OSError as e:
        # A full disk wherever a verb writes without disk_errors around it: still one line, naming the path.
        if e.errno not in (errno.ENOSPC, errno.EDQUOT):
            raise
        where = f" of {e.filename!r}" if e.filename else ""
        print(f"error: no space left on the device{where} ({os.strerror(e.errno)})", file=sys.stderr)
        sys.exit(2)
    sys.exit(code or 0)


def _one_line(e: BaseException) -> str:
    # An error is one line on stderr; a multi-line detail (a subprocess's log tail) is folded.
    return " | ".join(line.strip() for line in str(e).splitlines() if line.strip())


def verb_parser(verb: str, description: str, **kwargs) -> "ArgumentParser":
    """The parser of ``python -m qlog_pyserini.<verb>``: usage and error lines name the command as it is typed."""
    return ArgumentParser(prog=f"python -m qlog_pyserini.{verb}", description=description, **kwargs)


_NUMBER = r"-?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?"
NEGATIVE_VALUE = re.compile(rf"^-(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?(?:\s*,\s*(?:{_NUMBER}|\.\.\.|auto))*$")


class ArgumentParser(argparse.ArgumentParser):
    """argparse with usage errors reported as one ``error: ...`` line (run ``--help`` for usage).

    Every verb gets ``--quiet``: no progress bars and no informational lines on stderr (warnings and
    errors still print). A verb may redefine it with its own help text.
    """

    def __init__(self, *args, **kwargs) -> None:
        kwargs.setdefault("conflict_handler", "resolve")  # a verb's own --quiet replaces the shared one
        super().__init__(*args, **kwargs)
        # argparse takes '-1' and '-.5' for values but '-1,3' for an unknown option ("expected one argument"):
        # a comma-separated list of numbers (a q grid, '-1,...,3') is a value too
        self._negative_number_matcher = NEGATIVE_VALUE
        self.add_argument("--quiet", action="store_true",
                          help="no progress bars or informational lines on stderr (warnings and errors still print)")

    def parse_args(self, args=None, namespace=None):  # type: ignore[override]
        parsed = super().parse_args(args, namespace)
        if getattr(parsed, "quiet", False):
            progress.set_quiet()
        return parsed

    def _get_value(self, action: argparse.Action, arg_string: str):
        # QLogError is a ValueError, which argparse would swallow into "invalid <type> value";
        # a type function's own message says more, so it is kept.
        try:
            return super()._get_value(action, arg_string)
        except argparse.ArgumentError as e:
            if isinstance(e.__context__, QLogError):
                raise argparse.ArgumentError(action, str(e.__context__)) from None
            raise

    def error(self, message: str) -> NoReturn:
        raise QLogError(f"{message} (see {self.prog} --help)")
