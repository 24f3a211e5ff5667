"""The one error type users see."""

from __future__ import annotations


class QLogError(ValueError):
    """Bad input or a missing prerequisite, reported to the user as one clear line.

    A ``ValueError`` so that API callers who already catch bad values catch it too; the command
    line turns it into ``error: ...`` on stderr and exit code 2 (:func:`qlog_pyserini.cli.parser.run_cli`).
    """
