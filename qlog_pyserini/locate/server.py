"""``locate`` as an MCP server over stdio: one tool, ``locate``, answered by one warm :class:`Locator`.

    python -m qlog_pyserini.locate --mcp --repo /path/to/repo

An agent's MCP configuration needs one entry (docs/coding-agents.md)::

    {"mcpServers": {"qlog": {"command": "python", "args": ["-m", "qlog_pyserini.locate", "--mcp", "--repo", "/path"]}}}

The server is the official ``mcp`` SDK's (``pip install 'qlog-pyserini[agent]'``). The index is brought up to
date before the server answers its first request, and again (changed files only) at every call; the searcher
stays open between calls. While it serves, the SDK points file descriptor 1 at stderr, so nothing the JVM
prints reaches the protocol's stream.
"""

from __future__ import annotations

from typing import Any

from qlog_pyserini.errors import QLogError
from qlog_pyserini.locate.locator import DEFAULT_BUDGET, DEFAULT_HITS, Locator
from qlog_pyserini.system.extras import missing_extra

TOOL_DESCRIPTION = (
    "Rank the repository's source files for an issue or task description and pack the best into a token budget. "
    "Returns JSON: files [{path, rank, score, tokens, packed, unit: {name, start, end}, packed_units}], budget, "
    "packed_tokens, reason (when nothing fits), model, index. Tests, vendored and generated files are left out; "
    "the index follows the working tree's edits.")


def build_server(locator: Locator, budget: int = DEFAULT_BUDGET, hits: int = DEFAULT_HITS) -> Any:
    """The MCP server (not yet running) whose tool ``locate`` answers with ``locator``; ``budget`` and ``hits`` are
    the tool's defaults."""
    try:
        from mcp.server.mcpserver import MCPServer
        from mcp.server.mcpserver.exceptions import ToolError
    except ImportError:
        raise missing_extra("mcp") from None
    server = MCPServer("qlog-locate", instructions="Call locate with the issue text to find the files to read or edit.")

    @server.tool(name="locate", description=TOOL_DESCRIPTION)
    def locate(query: str, budget: int = budget, hits: int = hits) -> dict[str, Any]:
        try:
            return locator.locate(query, budget=budget, hits=hits).to_json()
        except QLogError as e:  # the caller's mistake (an empty query, a bad budget): its message, not a crash
            raise ToolError(str(e)) from None

    return server


def serve(server: Any, locator: Locator) -> None:
    """Serve ``locator`` (through ``server``, :func:`build_server`'s) over stdio until the client closes the stream."""
    locator.update()  # warm: the first call does not pay for indexing
    server.run("stdio")
