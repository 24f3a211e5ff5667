"""``locate``: issue -> files of a repository, for coding agents (a command, a Python object, an MCP server).

See :mod:`qlog_pyserini.locate.locator` and docs/coding-agents.md.
"""

from qlog_pyserini.locate.locator import (
                                          DEFAULT_BUDGET,
                                          DEFAULT_HITS,
                                          IndexReport,
                                          LocatedFile,
                                          LocateResult,
                                          Locator,
                                          UnitHit,
)
from qlog_pyserini.locate.model import AUTO_MODEL, FILES_RULE_MODEL, LocateModel

__all__ = ["DEFAULT_BUDGET", "DEFAULT_HITS", "IndexReport", "LocateResult", "LocatedFile", "Locator",
           "UnitHit", "AUTO_MODEL", "FILES_RULE_MODEL", "LocateModel"]
