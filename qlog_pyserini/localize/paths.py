"""The path field: a file's path as words, so an issue that names a file, a module or a class matches it.

    >>> path_text("core/src/main/java/com/alibaba/fastjson2/util/TypeUtils.java")  # doctest: +NORMALIZE_WHITESPACE
    'core/src/main/java/com/alibaba/fastjson2/util/TypeUtils.java core src main java com alibaba fastjson2 fastjson 2 util TypeUtils Type Utils java'

The text is the whole path (the analyzer keeps ``typeutils.java`` whole, as it keeps a file name an issue
writes), then its parts split on ``/ . _ -`` and each part's case changes (``TypeUtils`` -> ``TypeUtils Type
Utils``; ``HTTPServer2`` -> ``HTTPServer2 HTTP Server 2``), the whole part kept beside its pieces. The field is
searched as one more boosted clause beside ``contents`` (:data:`PATH_WEIGHT`).
"""

from __future__ import annotations

import json
import re

PATH_FIELD = "path"
#: the path field's weight beside ``contents`` (1). A path is a file's title; Pyserini's multifield BEIR
#: indexes weight the title 1.0 beside the contents 1.0, and nothing here says a path deserves more or less.
PATH_WEIGHT = 1.0
_PARTS = re.compile(r"[/._\-\s]+")
_CASE = re.compile(r"[A-Z]+(?=[A-Z][a-z])|[A-Z]?[a-z]+|[A-Z]+|[0-9]+")


def path_words(path: str) -> list[str]:
    """The parts of ``path`` split on ``/ . _ -``, each followed by its case pieces when it has more than one."""
    words: list[str] = []
    for part in _PARTS.split(path):
        if not part:
            continue
        words.append(part)
        pieces = _CASE.findall(part)
        if len(pieces) > 1:
            words += pieces
    return words


def path_text(path: str) -> str:
    """The path field's text of the file ``path`` (see the module docstring)."""
    return " ".join([path, *path_words(path)])


def path_document(docid: str, contents: str, path: str, **other: str) -> str:
    """The JSON line (Anserini's ``JsonCollection``) of a file's or unit's document ``docid`` with the path field of
    the file ``path``, and ``other`` fields as given."""
    return json.dumps({"id": docid, "contents": contents, PATH_FIELD: path_text(path), **other}, ensure_ascii=False)
