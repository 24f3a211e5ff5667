"""Stored document texts by Lucene doc number: what a run's doc numbers point at, with no docid lookup.

:meth:`QLogSearcher.doc_text <qlog_pyserini.lucene.searcher.QLogSearcher.doc_text>` finds a document by
its external docid (a term lookup in the index, then the stored fields); a run held as arrays
already has each hit's Lucene doc number, so :class:`StoredTexts` reads the stored fields directly,
many documents per call, in ascending doc number (the order Lucene's compressed stored-field blocks
are laid out in). The text is the one ``doc_text`` gives: the stored raw document's ``contents``
when it is a JSON object (Anserini's ``JsonCollection``), the raw document itself otherwise, the
stored ``contents`` field when there is no raw document.
"""

from __future__ import annotations

from typing import Sequence

import numpy as np

from qlog_pyserini.errors import QLogError
from qlog_pyserini.jvm.bridge import jclass
from qlog_pyserini.lucene.searcher import QLogSearcher, instance_call, text_of_raw

SEARCHER = "io.qlog.search.QLogSearcher"
PACKER = "io.qlog.search.StoredTexts"
RAW, CONTENTS, NONE = ord("r"), ord("c"), ord("-")  # the kind bytes of io.qlog.search.StoredTexts


class StoredTexts:
    """``texts(doc_numbers)``: the indexed texts of documents of ``searcher``'s open index, by Lucene doc number.

    One Java call per list (``io.qlog.search.StoredTexts``), however many documents: a call per
    document through the bridge would cost more than reading the documents.
    """

    def __init__(self, searcher: QLogSearcher) -> None:
        self.searcher = searcher
        self._max_doc: int | None = None  # the open reader's, read once (a walk calls this once per rank)

    def __call__(self, doc_numbers: Sequence[int] | np.ndarray) -> list[str]:
        numbers = np.asarray(doc_numbers, dtype=np.int64)
        if not numbers.size:
            return []
        reader = jclass(SEARCHER).reader_of(self.searcher.java)  # a closed searcher is one clear error
        if self._max_doc is None:
            self._max_doc = int(instance_call(reader, "maxDoc"))
        count = self._max_doc
        if numbers.min() < 0 or numbers.max() >= count:
            raise QLogError(f"doc numbers must lie in [0, {count}), the index's doc numbers")
        order = np.argsort(numbers, kind="stable")
        blob = jclass(PACKER).packed(reader, numbers[order].tolist()).tostring()
        texts: list[str] = [""] * numbers.size
        at = 0
        for i in order.tolist():
            kind, size = blob[at], int.from_bytes(blob[at + 1:at + 5], "little")
            text = blob[at + 5:at + 5 + size].decode("utf-8")
            at += 5 + size
            if kind == NONE:
                raise QLogError(f"document {int(numbers[i])} of {self.searcher.index_dir} stores no text")
            texts[i] = text_of_raw(text) if kind == RAW else text
        return texts
