"""Lines of a UTF-8 text file, numbered as an editor numbers them, with errors that name the line.

Every reader of line-oriented input (runs, qrels, topics, JSON-lines corpora) goes through
:func:`numbered_lines`, so that:

* a line ends only at ``\\n`` (a ``\\r`` before it is dropped): form feeds, ``\\x1c``-``\\x1e``,
  U+0085, U+2028 and U+2029, which Python's ``str.splitlines`` also treats as line breaks, stay
  inside the line they are in, as in every TREC tool;
* a byte sequence that is not UTF-8 is reported as ``FILE:LINE: not UTF-8 ...`` with the column,
  not as a character offset inside some read buffer;
* a UTF-8 byte-order mark at the start of the file is dropped.
"""

from __future__ import annotations

import gzip
import os
import stat
import sys
from typing import IO, Iterator

from qlog_pyserini.errors import QLogError


#: the path that names standard input, as cat and Pyserini's tools take it
STDIN = "-"


def is_stream(path: str | os.PathLike) -> bool:
    """Whether ``path`` can be read once only: ``-`` (standard input), a pipe (``/dev/stdin``, bash's
    ``<(cat topics.tsv)`` as ``/dev/fd/63``), a FIFO, a terminal or a socket. A reader that needs two passes
    keeps such a file's lines from its one read."""
    if str(path) == STDIN:
        return True
    try:
        mode = os.stat(path).st_mode
    except (OSError, ValueError):
        return False
    return not (stat.S_ISREG(mode) or stat.S_ISDIR(mode))


def open_binary(path: str | os.PathLike) -> IO[bytes]:
    """``path`` opened for reading bytes, through gzip when it ends in ``.gz``; ``-`` is standard input."""
    if str(path) == STDIN:
        return os.fdopen(os.dup(sys.stdin.fileno()), "rb")
    return gzip.open(path, "rb") if str(path).endswith(".gz") else open(path, "rb")


def check_input_file(path: str | os.PathLike, what: str) -> None:
    """The refusal :func:`numbered_lines` would give for a missing ``what`` file or a folder, without reading it
    (a pipe is read once, later): for a verb to refuse before long work that comes before the reading."""
    if str(path) == STDIN:
        return
    if not os.path.exists(path):
        raise QLogError(f"{what} file {str(path)!r} not found")
    if os.path.isdir(path):
        raise QLogError(f"cannot read {what} file {str(path)!r}: it is a folder")


def numbered_lines(path: str | os.PathLike, what: str) -> Iterator[tuple[int, str]]:
    """Yield ``(line number, text without its line end)`` for each line of the UTF-8 file ``path``.

    Raises :class:`QLogError` naming ``what`` file when it is missing or unreadable, and the line
    and column of the first byte that is not UTF-8.
    """
    try:
        with open_binary(path) as f:
            for lineno, raw in enumerate(f, start=1):
                if lineno == 1 and raw.startswith(b"\xef\xbb\xbf"):
                    raw = raw[3:]
                try:
                    text = raw.decode("utf-8")
                except UnicodeDecodeError as e:
                    raise QLogError(f"{path}:{lineno}: not UTF-8 (byte 0x{raw[e.start]:02x} at column "
                                    f"{len(raw[:e.start].decode('utf-8', 'replace')) + 1})") from None
                if text.endswith("\n"):
                    text = text[:-2] if text.endswith("\r\n") else text[:-1]
                yield lineno, text
    except FileNotFoundError:
        raise QLogError(f"{what} file {str(path)!r} not found") from None
    except IsADirectoryError:
        raise QLogError(f"cannot read {what} file {str(path)!r}: it is a folder") from None
    except (OSError, EOFError) as e:
        raise QLogError(f"cannot read {what} file {str(path)!r}: {e}") from None
