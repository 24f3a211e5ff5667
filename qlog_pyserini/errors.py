"""The one error type users see, and the number check every input reader shares."""

from __future__ import annotations

import math


class QLogError(ValueError):
    """Bad input or a missing prerequisite, reported to the user as one clear line.

    A ``ValueError`` so that API callers who already catch bad values catch it too; the command
    line turns it into ``error: ...`` on stderr and exit code 2 (:func:`qlog_pyserini.cli.parser.run_cli`).
    """


def finite_number(token: str, where: str) -> float:
    """``token`` as a finite float, else a :class:`QLogError` naming ``where`` (e.g. ``"runs.txt:3: score"``).

    NaN and infinity are refused as well as text: sorted by score, trec_eval would put a NaN anywhere and an
    infinity first, and report metrics as if all were well.
    """
    try:
        value = float(token)
    except ValueError:
        raise QLogError(f"{where} {token!r} is not a number") from None
    if not math.isfinite(value):
        raise QLogError(f"{where} {token!r} is not a finite number")
    return value
