"""Where an index and topics come from: local paths, or Pyserini's names resolved by Pyserini itself.

- An index is a folder, or the name of a Pyserini prebuilt index (``--prebuilt-index NAME``, or
  ``--index NAME`` when no such folder exists, as Pyserini reads ``--index``). Names go through
  ``pyserini.util.download_prebuilt_index``: Pyserini's catalogue, its cache (``$PYSERINI_CACHE`` or
  ``~/.cache/pyserini``), its download and checksum code.
- Topics are a file (TSV, BEIR ``queries.jsonl``, TREC; :mod:`qlog_pyserini.formats.topics`), or a
  topic-set name Pyserini and Anserini know (``msmarco-passage-dev-subset``, ``beir-v1.0.0-scifact-test``,
  ...), read with ``pyserini.search.get_topics``. Anserini 2.3's fatjar carries the names of its topic
  sets; the files themselves are fetched once and cached by Pyserini.

Pyserini 2.4.0 fetches its prebuilt-index catalogue when these modules are imported, so a name needs
network access the first time (or a filled cache); a local path never imports them.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

from qlog_pyserini.errors import QLogError
from qlog_pyserini.formats.lines import STDIN
from qlog_pyserini.formats.topics import TopicStream
from qlog_pyserini.formats.trec import check_id
from qlog_pyserini.lucene.searcher import check_index_dir

# Pyserini's search CLI picks these BM25 parameters for MS MARCO prebuilt indexes when neither
# --k1 nor --b is given (pyserini.search.lucene.__main__.set_bm25_parameters).
PYSERINI_BM25_DEFAULTS = {
    "msmarco-v1-passage": (0.82, 0.68), "msmarco-v1-passage-slim": (0.82, 0.68),
    "msmarco-v1-passage-full": (0.82, 0.68), "msmarco-passage": (0.82, 0.68),
    "msmarco-v1-passage.d2q-t5": (2.18, 0.86), "msmarco-v1-passage.d2q-t5-docvectors": (2.18, 0.86),
    "msmarco-v1-passage-d2q-t5": (2.18, 0.86),
    "msmarco-v1-doc": (4.46, 0.82), "msmarco-v1-doc-slim": (4.46, 0.82), "msmarco-v1-doc-full": (4.46, 0.82),
    "msmarco-v1-doc-segmented": (2.16, 0.61), "msmarco-v1-doc-segmented-slim": (2.16, 0.61),
    "msmarco-v1-doc-segmented-full": (2.16, 0.61),
    "msmarco-v1-doc.d2q-t5": (4.68, 0.87), "msmarco-v1-doc.d2q-t5-docvectors": (4.68, 0.87),
    "msmarco-v1-doc-segmented.d2q-t5": (2.56, 0.59), "msmarco-v1-doc-segmented.d2q-t5-docvectors": (2.56, 0.59),
}


@dataclass(frozen=True)
class IndexSource:
    """A resolved index: its folder, and the prebuilt name it came from (None for a local folder)."""

    path: Path
    prebuilt_name: str | None = None


def resolve_index(index: str | None, prebuilt_index: str | None = None) -> IndexSource:
    """A local index folder, or a Pyserini prebuilt index downloaded (or found in Pyserini's cache)."""
    if index and prebuilt_index:
        raise QLogError("give --index or --prebuilt-index, not both")
    if prebuilt_index is None:
        if not index:
            raise QLogError("--index (a folder or a Pyserini prebuilt index name) or --prebuilt-index is required")
        if os.path.exists(index) or os.sep in index:
            return IndexSource(check_index_dir(index))
        prebuilt_index = index
    return IndexSource(check_index_dir(_download_prebuilt(prebuilt_index)), prebuilt_index)


def _download_prebuilt(name: str) -> str:
    try:
        from pyserini.util import download_prebuilt_index
    except OSError as e:  # URLError included: the catalogue is fetched on import
        raise QLogError(f"prebuilt index {name!r}: Pyserini could not fetch its prebuilt-index catalogue ({e}); "
                        "this needs network access, or give --index a local folder") from None
    try:
        return download_prebuilt_index(name, verbose=False)
    except ValueError as e:  # unknown name, or every download URL failed
        raise QLogError(f"prebuilt index {name!r}: {e}") from None
    except (OSError, AssertionError) as e:  # network, disk, or a checksum/size mismatch
        raise QLogError(f"prebuilt index {name!r} could not be downloaded: {e}") from None


def load_topics(spec: str) -> TopicStream | dict[str, str]:
    """The topics of a file, checked and counted but read again as they are searched (a
    :class:`~qlog_pyserini.formats.topics.TopicStream`: memory flat in their number), or ``{qid: query}``
    of a topic set Pyserini knows by name."""
    if os.path.exists(spec) or os.sep in spec or spec == STDIN:
        return TopicStream(spec)
    try:
        from pyserini.search import get_topics
    except OSError as e:
        raise QLogError(f"topics {spec!r} is not a file, and Pyserini could not fetch its catalogue to look the "
                        f"name up ({e})") from None
    try:
        topics = get_topics(spec)
    except ValueError as e:
        raise QLogError(f"topics {spec!r} is neither a file nor a topic set Pyserini knows ({e})") from None
    except OSError as e:
        raise QLogError(f"topics {spec!r}: Pyserini could not fetch them ({e})") from None
    return {check_id(str(qid), "qid", f" in topics {spec!r}"): _query_text(topic) for qid, topic in topics.items()}


def _query_text(topic: dict) -> str:
    # Pyserini's query iterator searches a topic's title (the query proper for TREC, BEIR and MS MARCO).
    return str(topic.get("title", ""))
