"""The ``locate`` command: every bad input is one ``error:`` line and exit 2 before any work, with nothing
written; a good one prints the JSON object; the MCP server answers through the SDK's own stdio client."""

from __future__ import annotations

import asyncio
import json
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import run_verb
from instances.gitrepos import new_repo

FILES = {"src/network.py": "class WebsocketUpgrade:\n    def upgrade(self, request):\n        return request\n",
         "src/config.py": "def parse_config(path):\n    return open(path).read()\n"}


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    return new_repo(tmp_path / "repo", FILES)


def bad_inputs(repo: Path, tmp_path: Path) -> dict[str, list[str]]:
    (tmp_path / "plain").mkdir()
    (tmp_path / "blank.txt").write_text("  \n\t\n")
    return {
        "repo is not a folder": ["--repo", tmp_path / "nowhere", "--query", "x"],
        "repo is a file": ["--repo", repo / "src/config.py", "--query", "x"],
        "repo is not a repository": ["--repo", tmp_path / "plain", "--query", "x"],
        "empty issue": ["--repo", repo, "--query", ""],
        "whitespace issue": ["--repo", repo, "--query", " \n\t "],
        "whitespace issue file": ["--repo", repo, "--query-file", tmp_path / "blank.txt"],
        "no issue": ["--repo", repo],
        "budget 0": ["--repo", repo, "--query", "x", "--budget", "0"],
        "budget below 0": ["--repo", repo, "--query", "x", "--budget", "-5"],
        "hits 0": ["--repo", repo, "--query", "x", "--hits", "0"],
        "unknown language": ["--repo", repo, "--query", "x", "--language", "cobol"],
        "rev the repository lacks": ["--repo", repo, "--query", "x", "--rev", "no-such-branch"],
        "option as rev": ["--repo", repo, "--query", "x", "--rev=--all"],
        "bare mirror without rev": ["--repo", tmp_path / "mirror.git", "--query", "x"],
        "cache is a file": ["--repo", repo, "--query", "x", "--cache", tmp_path / "blank.txt"],
        "mcp on no repository": ["--mcp", "--repo", tmp_path / "plain"],
        "mcp with a query": ["--mcp", "--repo", repo, "--query", "x"],
        "mcp with budget 0": ["--mcp", "--repo", repo, "--budget", "0"],
    }


def test_every_bad_input_is_one_error_line_and_exit_2_with_nothing_written(repo: Path, tmp_path: Path) -> None:
    subprocess.run(["git", "clone", "-q", "--bare", str(repo), str(tmp_path / "mirror.git")], check=True)
    cases = bad_inputs(repo, tmp_path)
    before = sorted(p.relative_to(tmp_path) for p in tmp_path.rglob("*"))
    for name, argv in cases.items():
        cache = tmp_path / "cache"
        out = run_verb("locate", *argv, *([] if "--cache" in argv else ["--cache", cache]), "--json")
        assert out.returncode == 2, (name, out.stderr)
        lines = out.stderr.strip().splitlines()
        assert len(lines) == 1 and lines[0].startswith("error: "), (name, out.stderr)
        assert out.stdout == "", name
        assert not cache.exists(), name
    assert sorted(p.relative_to(tmp_path) for p in tmp_path.rglob("*")) == before


@pytest.mark.jvm
def test_the_command_prints_one_json_object(repo: Path, tmp_path: Path) -> None:
    (repo / "src/untracked.py").write_text("def quince():\n    return 'jelly'\n")
    argv = [sys.executable, "-m", "qlog_pyserini.locate", "--repo", str(repo), "--query-file", "-",
            "--cache", str(tmp_path / "cache"), "--json", "--budget", "500"]
    out = subprocess.run(argv, input="quince jelly", capture_output=True, text=True, check=True)
    data = json.loads(out.stdout)
    assert set(data) == {"files", "budget", "packed_tokens", "model", "index"}
    assert data["files"][0]["path"] == "src/untracked.py" and data["files"][0]["packed"]
    assert set(data["files"][0]) == {"path", "rank", "score", "tokens", "packed", "unit", "packed_units"}
    assert {"k1", "units", "path_weight", "evidence", "files_index", "units_index"} <= set(data["model"])
    assert {"b", "q"} <= set(data["model"]["files_index"]) and {"b", "q"} <= set(data["model"]["units_index"])
    assert {"files", "updated", "removed", "seconds", "skipped"} <= set(data["index"])
    assert data["budget"] == 500 and data["packed_tokens"] <= 500


@pytest.mark.jvm
def test_the_mcp_tool_answers_through_the_sdks_stdio_client(repo: Path, tmp_path: Path) -> None:
    pytest.importorskip("mcp")
    from mcp import ClientSession
    from mcp.client.stdio import StdioServerParameters, stdio_client

    params = StdioServerParameters(command=sys.executable, args=["-m", "qlog_pyserini.locate", "--mcp", "--repo",
                                                                 str(repo), "--cache", str(tmp_path / "cache")])

    async def session() -> tuple[list[str], dict, dict, tuple[bool, str]]:
        async with stdio_client(params) as (read, write), ClientSession(read, write) as client:
            await client.initialize()
            tools = [t.name for t in (await client.list_tools()).tools]
            first = await client.call_tool("locate", {"query": "websocket upgrade", "budget": 1000})
            (repo / "src/added.py").write_text("def persimmon():\n    pass\n")
            second = await client.call_tool("locate", {"query": "persimmon", "budget": 1000, "hits": 3})
            bad = await client.call_tool("locate", {"query": "  ", "budget": 1000})
            return tools, _payload(first), _payload(second), (bool(bad.is_error), bad.content[0].text)

    tools, first, second, bad_is_error = asyncio.run(asyncio.wait_for(session(), 120))
    assert tools == ["locate"]
    assert first["files"][0]["path"] == "src/network.py" and first["index"]["updated"] == 0  # warmed before serving
    assert second["files"][0]["path"] == "src/added.py" and second["index"]["updated"] == 1
    assert bad_is_error[0] and "the issue is empty" in bad_is_error[1]


def _payload(result) -> dict:
    assert not result.is_error, result.content
    if result.structured_content:
        return result.structured_content.get("result", result.structured_content)
    return json.loads(result.content[0].text)
