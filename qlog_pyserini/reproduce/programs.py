"""Running the benchmark programs of ``scripts/`` (and the verbs they need) for the stages that keep the file a
program writes into ``--out``: the stage gives the program its inputs, the program measures and writes."""

from __future__ import annotations

import sys
from pathlib import Path

from qlog_pyserini.errors import QLogError
from qlog_pyserini.system.processes import run as run_process
from qlog_pyserini.system.project import PROJECT_ROOT


def run_checked(cmd: list[str]) -> None:
    """``cmd`` run from the project root, its output passed through; QLogError naming it when it fails."""
    done = run_process(cmd, cwd=PROJECT_ROOT, stdout=None, stderr=None)
    if done.returncode:
        raise QLogError(f"{' '.join(cmd)} failed with exit code {done.returncode}")


def run_script(script: str, *args: str | Path) -> None:
    run_checked([sys.executable, str(PROJECT_ROOT / "scripts" / script), *map(str, args)])
