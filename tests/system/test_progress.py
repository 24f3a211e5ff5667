"""Progress bars only where a person watches, one line per stage elsewhere; --quiet silences both and info lines."""

from __future__ import annotations

import io
import re
import sys

import pytest

from qlog_pyserini.cli.parser import ArgumentParser
from qlog_pyserini.system import progress


class _Tty(io.StringIO):
    def isatty(self) -> bool:
        return True


@pytest.fixture(autouse=True)
def _reset(monkeypatch):
    monkeypatch.delenv("QLOG_PROGRESS", raising=False)
    progress.set_quiet(False)  # an earlier in-process CLI test may have passed --quiet
    yield
    progress.set_quiet(False)


def test_bar_drawn_on_a_terminal_and_not_in_a_log(monkeypatch):
    tty = _Tty()
    monkeypatch.setattr(sys, "stderr", tty)
    for _ in progress.progress_bar(range(3), desc="x"):
        pass
    assert "x:" in tty.getvalue()
    log = io.StringIO()
    monkeypatch.setattr(sys, "stderr", log)
    for _ in progress.progress_bar(range(3), desc="x"):
        pass
    # a log gets no bar, but one line when the stage ends, with its count
    (line,) = log.getvalue().splitlines()
    assert re.fullmatch(r"x: 3 it in \d+\.\d s", line), line
    quiet = io.StringIO()
    monkeypatch.setattr(sys, "stderr", quiet)
    with progress.progress_bar(total=2, desc="y", quiet=True) as bar:
        bar.update(2)
    assert quiet.getvalue() == ""


def test_environment_forces_bars_on_or_off(monkeypatch):
    monkeypatch.setattr(sys, "stderr", io.StringIO())
    monkeypatch.setenv("QLOG_PROGRESS", "1")
    assert progress.show_progress()
    monkeypatch.setattr(sys, "stderr", _Tty())
    monkeypatch.setenv("QLOG_PROGRESS", "0")
    assert not progress.show_progress()
    assert not progress.show_progress(quiet=True)


def test_quiet_flag_of_every_parser_silences_bars_and_info(monkeypatch, capsys):
    monkeypatch.setattr(sys, "stderr", _Tty())
    parser = ArgumentParser(prog="t")
    parser.add_argument("--x")
    assert parser.parse_args(["--x", "1"]).quiet is False
    assert progress.show_progress()
    progress.info("shown")
    assert parser.parse_args(["--quiet"]).quiet is True
    assert not progress.show_progress()
    progress.info("hidden")
    assert "shown" in sys.stderr.getvalue() and "hidden" not in sys.stderr.getvalue()


def test_a_verb_may_redefine_quiet():
    parser = ArgumentParser(prog="t")
    parser.add_argument("--quiet", action="store_true", help="own help")
    assert parser.parse_args(["--quiet"]).quiet is True
    assert "own help" in parser.format_help()
