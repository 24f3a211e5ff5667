"""What every ``python -m qlog_pyserini.<verb>`` shares: argparse with one-line errors, and the runner
that turns :class:`~qlog_pyserini.errors.QLogError` into ``error: ...`` and exit code 2."""

from __future__ import annotations

import argparse
import sys
from typing import Callable, NoReturn, Sequence

from qlog_pyserini.errors import QLogError


def run_cli(main: Callable[[Sequence[str] | None], int | None], argv: Sequence[str] | None = None) -> None:
    """Run a CLI ``main``; a :class:`QLogError` becomes ``error: ...`` on stderr and exit code 2."""
    try:
        code = main(argv)
    except QLogError as e:
        print(f"error: {e}", file=sys.stderr)
        sys.exit(2)
    except KeyboardInterrupt:
        print("error: interrupted", file=sys.stderr)
        sys.exit(130)
    sys.exit(code or 0)


class ArgumentParser(argparse.ArgumentParser):
    """argparse with usage errors reported as one ``error: ...`` line (run ``--help`` for usage)."""

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
