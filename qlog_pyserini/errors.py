"""One error type for bad input, and the CLI wrapper that turns it into one line on stderr."""

from __future__ import annotations

import argparse
import sys
from typing import Callable, NoReturn, Sequence


class QLogError(Exception):
    """Bad input or a missing prerequisite, reported to the user as one clear line."""


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

    def error(self, message: str) -> NoReturn:
        raise QLogError(f"{message} (see {self.prog} --help)")
