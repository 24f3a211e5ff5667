"""One name, one label-free rule: ``--q auto`` is the corpus rule (of one index, or of each index of an instance set:
tests/instances/test_index_sets.py), ``--q auto-files`` the files rule (an instance set); where a name does not apply
it is refused, in one line naming the other, before anything is read."""

from __future__ import annotations

import pytest
from conftest import run_verb


@pytest.mark.parametrize("verb, args, message", [
    ("search", ("--topics", "T", "--index", "IDX", "--q", "auto-files"),
     "error: --q auto-files is the files rule of an instance set (--instances); on one index the label-free q is "
     "--q auto"),
    ("sweep", ("--instances", "SET", "--index", "IDX", "--q-grid", "0.5,auto"),
     "error: 'auto' in the grid is the corpus rule of one index; on an instance set the grid's label-free q is the "
     "files rule, 'auto-files' (or --q auto-files), and the corpus rule on each index is --localize auto's"),
    ("sweep", ("--topics", "T", "--qrels", "Q", "--index", "IDX", "--q-grid", "0.5,auto-files"),
     "error: 'auto-files' in the grid is the files rule of an instance set (--instances); on one index the "
     "label-free q is 'auto'"),
])
def test_each_label_free_name_is_refused_where_the_other_rule_applies(tmp_path, verb, args, message):
    out = ("--output", str(tmp_path / "run.txt")) if verb == "search" else ("--out", str(tmp_path / "sweep"))
    proc = run_verb(verb, *[str(tmp_path / a) if a in ("SET", "IDX", "T", "Q") else a for a in args], *out)
    assert proc.returncode == 2 and proc.stderr.splitlines() == [message], proc.stderr
    assert list(tmp_path.iterdir()) == []


def test_auto_files_parses_as_its_own_mode():
    from qlog_pyserini.predict.files import AUTO_FILES
    from qlog_pyserini.predict.flags import q_or_auto
    from qlog_pyserini.predict.rule import AUTO

    assert q_or_auto(" Auto-Files ") == AUTO_FILES and q_or_auto("auto") == AUTO and AUTO_FILES != AUTO
