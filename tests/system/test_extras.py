"""A missing optional package is one error line naming the extra that installs it, and every extra named exists."""

from __future__ import annotations

import configparser
from pathlib import Path

import pytest

from qlog_pyserini.cli.parser import run_cli
from qlog_pyserini.system.extras import EXTRA_OF_MODULE

ROOT = Path(__file__).resolve().parents[2]


def test_every_extra_named_is_one_setup_cfg_defines() -> None:
    config = configparser.ConfigParser()
    config.read(ROOT / "setup.cfg")
    defined = set(config["options.extras_require"])
    assert set(EXTRA_OF_MODULE.values()) <= defined
    core = [line for line in config["options"]["install_requires"].splitlines() if line.strip()]
    assert core == ["numpy", "tqdm"]  # what the bm25s and rank_bm25 integrations import, and nothing else


@pytest.mark.parametrize("module, extra", [("mcp.server.mcpserver", "agent"), ("jnius", "lucene"), ("bm25s", "bm25s")])
def test_a_missing_package_names_its_extra(module: str, extra: str, capsys: pytest.CaptureFixture) -> None:
    def main(argv):
        raise ModuleNotFoundError(f"No module named {module!r}", name=module)

    with pytest.raises(SystemExit) as exit_:
        run_cli(main, [])
    assert exit_.value.code == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert err == [f"error: this needs the {module.split('.')[0]!r} package: pip install 'qlog-pyserini[{extra}]' "
                   f"(pip install -e '.[{extra}]' in a checkout)"]


def test_a_missing_module_that_is_no_extras_is_not_hidden() -> None:
    def main(argv):
        raise ModuleNotFoundError("No module named 'qlog_pyserini.nowhere'", name="qlog_pyserini.nowhere")

    with pytest.raises(ModuleNotFoundError):
        run_cli(main, [])


def _tree_sitter_pins(extra: str) -> set[str]:
    config = configparser.ConfigParser()
    config.read(ROOT / "setup.cfg")
    lines = config["options.extras_require"][extra].splitlines()
    return {line.strip() for line in lines if line.strip().startswith("tree-sitter")}


def test_every_grammar_is_pinned_alike_where_files_are_cut_into_functions() -> None:
    from qlog_pyserini.corpus.languages import GRAMMAR_PACKAGES, UNIT_GRAMMAR_PACKAGES

    # the corpus builder (lucene) and locate (agent) cut files with the same grammars: the same pins, every one
    lucene, agent = _tree_sitter_pins("lucene"), _tree_sitter_pins("agent")
    assert lucene == agent
    pinned = {pin.split("==")[0] for pin in lucene}
    assert pinned == {"tree-sitter", *GRAMMAR_PACKAGES.values(), *UNIT_GRAMMAR_PACKAGES.values()}
    assert all("==" in pin for pin in lucene)
    for package in pinned:  # each grammar's module is one the missing-package error can name
        assert EXTRA_OF_MODULE[package.replace("-", "_")] == "lucene"
