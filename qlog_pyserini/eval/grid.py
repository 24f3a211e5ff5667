"""Parameter grids as the verbs take them: ``"0.05,0.1,...,1.0,1.25,1.5"`` (an arithmetic progression filled
between the two values before ``...`` and the value after it), and the default q grid written once."""

from __future__ import annotations

from qlog_pyserini.errors import QLogError, finite_number

#: the q grid of a sweep (and of reproduce's full run) unless one is given
DEFAULT_GRID = "0.05,0.1,...,1.0,1.25,1.5"


def grid_items(text: str) -> list[str]:
    """The comma-separated items of a grid, stripped; an empty one is refused."""
    parts = [p.strip() for p in text.split(",")]
    if "" in parts:
        # '0.5,,0.7' or '': a value lost in typing is refused, not skipped (an empty grid ran BM25 and auto only)
        raise QLogError(f"grid {text!r}: value number {parts.index('') + 1} is empty" if text.strip() else "empty grid")
    return parts


def parse_grid(text: str) -> list[float]:
    """``"0.05,0.1,...,0.3,0.5"`` -> [0.05, 0.1, 0.15, 0.2, 0.25, 0.3, 0.5].

    ``...`` continues the arithmetic progression of the two values before it up to the value after
    it. Values are rounded to 10 decimals so a progression lands exactly on its end points.
    """
    parts = grid_items(text)
    values: list[float] = []
    i = 0
    while i < len(parts):
        if parts[i] == "...":
            if len(values) < 2 or i + 1 >= len(parts):
                raise QLogError(f"grid {text!r}: '...' needs two values before it and one after")
            step, end = values[-1] - values[-2], _number(parts[i + 1], text)
            if step <= 0 or end < values[-1]:
                raise QLogError(f"grid {text!r}: '...' needs an increasing progression up to its end")
            while values[-1] + step < end - 1e-9:
                values.append(round(values[-1] + step, 10))
            i += 1
            continue
        values.append(_number(parts[i], text))
        i += 1
    if not values:
        raise QLogError("empty grid")
    return sorted(set(values))


def _number(token: str, text: str) -> float:
    return round(finite_number(token, f"grid {text!r}:"), 10)
