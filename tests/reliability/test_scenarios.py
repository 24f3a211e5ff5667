"""The scenario table (scenarios.py) names only tests that exist."""

from __future__ import annotations

import ast
from pathlib import Path

from reliability.scenarios import SCENARIOS

HERE = Path(__file__).resolve().parent


def _tests_of(path: Path) -> set[str]:
    return {node.name for node in ast.parse(path.read_text()).body
            if isinstance(node, ast.FunctionDef) and node.name.startswith("test_")}


def test_every_scenario_names_a_test_that_exists():
    missing = []
    for s in SCENARIOS:
        file, _, name = s.test.partition("::")
        path = (HERE / file).resolve()
        if not path.is_file() or name not in _tests_of(path):
            missing.append(s.test)
    assert missing == []


def test_scenarios_are_listed_once():
    keys = [(s.area, s.scenario) for s in SCENARIOS]
    assert len(keys) == len(set(keys))


#: the areas every probe round covers, each with several scenarios
AREAS = ("kills", "disk full", "threads", "queries", "odd indexes", "evaluation", "pyterrier", "parameters")


def test_the_table_is_a_probe_of_every_area():
    count = {area: sum(s.area == area for s in SCENARIOS) for area in AREAS}
    assert all(n >= 3 for n in count.values()), count
    assert len(SCENARIOS) >= 78
