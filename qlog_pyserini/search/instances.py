"""An instance set's indexes: one standard Lucene index per corpus, ``DIR/<key>/``.

The search and sweep verbs take ``--instances SET --index DIR`` and search every instance on the index of
its own corpus (:func:`qlog_pyserini.search.run.run_instance_search`,
:func:`qlog_pyserini.sweep.instances.run_instance_sweep`); this module finds and checks those indexes.
"""

from __future__ import annotations

import os
from pathlib import Path

from qlog_pyserini.errors import QLogError
from qlog_pyserini.formats.instances import InstanceSet, index_problem, read_index_record
from qlog_pyserini.search.searcher import check_index_dir


def corpus_indexes(instance_set: InstanceSet, index_dir: str | os.PathLike) -> dict[str, Path]:
    """``{corpus key: DIR/<key>}`` for every corpus of ``instance_set``, each checked to be a Lucene index,
    before any is opened; one ``index --instances`` recorded is refused when its corpus or its files changed
    since it was built (a stale index would answer from another tree, a damaged one fail halfway)."""
    root = Path(index_dir)
    if not str(index_dir) or not root.is_dir():
        raise QLogError(f"instance indexes {str(root)!r} is not a folder (give --index DIR, the folder of "
                        "per-corpus indexes)")
    indexes: dict[str, Path] = {}
    missing = []
    for key in instance_set.by_corpus():
        if (root / key).is_dir():
            indexes[key] = check_index_dir(root / key)
        else:
            missing.append(key)
    if missing:
        raise QLogError(f"{len(missing)} corpora of {str(instance_set.folder)!r} have no index in {str(root)!r} "
                        f"(first: {missing[0]!r}); build them with index --instances")
    for key, record in read_index_record(root).items():
        why = index_problem(instance_set.folder, root, key, record) if key in indexes else None
        if why is not None:
            raise QLogError(f"index {str(root / key)!r} is stale or damaged: {why}; rebuild it with "
                            f"index --instances {str(instance_set.folder)!r} --index {str(root)!r}")
    return indexes
