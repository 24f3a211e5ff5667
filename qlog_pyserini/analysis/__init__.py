"""Analysis: the analyzer an index was built with, and query analysis to match (``index`` and ``search`` both use it)."""
