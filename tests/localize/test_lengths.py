"""The label-free b's mean verboseness, read from real Lucene indexes: the mean of L_d / |d| computed here from
the documents' own tokens, over the statistics' documented sample, whatever order the documents were indexed in
and with deleted documents left out."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

import pytest
from stats.test_statistics import sample_key

from qlog_pyserini.localize.lengths import index_b, mean_average_tf, verboseness_b
from qlog_pyserini.lucene.indexer import build_index
from qlog_pyserini.lucene.searcher import QLogSearcher

pytestmark = pytest.mark.jvm


def _docs(n: int) -> dict[str, list[str]]:
    """``n`` documents of tokens the default analyzer keeps as they are (no stopword, no stem), each repeating its
    terms a different number of times, so documents differ in verboseness."""
    return {f"d/{i:05d}": [f"z{(i * 7 + j) % 97:04d}" for j in range(1 + i % 5) for _ in range(1 + i % 3)]
            for i in range(n)}


def _verboseness(tokens: list[str]) -> float:
    return len(tokens) / len(Counter(tokens))


def _index(tmp_path: Path, name: str, docs: dict[str, list[str]]) -> Path:
    corpus = tmp_path / f"{name}.jsonl"
    corpus.write_text("".join(json.dumps({"id": d, "contents": " ".join(t)}) + "\n" for d, t in docs.items()))
    build_index(corpus, tmp_path / name, threads=1, progress=False)
    return tmp_path / name


def test_mean_verboseness_is_the_mean_over_the_documented_sample(tmp_path):
    docs = _docs(60)
    index = _index(tmp_path, "index", docs)
    with QLogSearcher(index) as s:
        # the whole corpus when the sample is larger; the documents with the smallest seeded hashes otherwise
        assert mean_average_tf(s, sample=1000) == pytest.approx(sum(map(_verboseness, docs.values())) / 60)
        chosen = sorted(docs, key=lambda d: sample_key(d, 0))[:7]
        assert mean_average_tf(s, sample=7) == pytest.approx(sum(_verboseness(docs[d]) for d in chosen) / 7)
        assert index_b(s) == verboseness_b(mean_average_tf(s))


def test_the_same_documents_give_the_same_b_in_any_index_order(tmp_path):
    # more documents than the sample: a sample taken by position in the index would read other documents here
    docs = _docs(2600)
    forward = _index(tmp_path, "forward", docs)
    backward = _index(tmp_path, "backward", dict(reversed(list(docs.items()))))
    with QLogSearcher(forward) as f, QLogSearcher(backward) as b:
        assert f.doc_text("d/00000") is not None and f.java.reader.storedFields().document(0).get("id") == "d/00000"
        assert b.java.reader.storedFields().document(0).get("id") == "d/02599"  # really indexed in reverse
        assert index_b(f) == index_b(b)  # to the last bit


def test_deleted_documents_are_not_read(tmp_path):
    from qlog_pyserini.jvm.bridge import jcast, jclass

    docs = _docs(40)
    index = _index(tmp_path, "index", docs)
    gone = [d for d in docs if _verboseness(docs[d]) >= 2][:6]
    directory = jclass("org.apache.lucene.store.FSDirectory").open(jclass("java.io.File")(str(index)).toPath())
    config = jclass("org.apache.lucene.index.IndexWriterConfig")()
    config.setOpenMode(jclass("org.apache.lucene.index.IndexWriterConfig$OpenMode").APPEND)
    config.setMergePolicy(jclass("org.apache.lucene.index.NoMergePolicy").INSTANCE)  # the deletions stay marked
    writer = jclass("org.apache.lucene.index.IndexWriter")(directory, config)
    term, query = jclass("org.apache.lucene.index.Term"), jclass("org.apache.lucene.search.TermQuery")
    writer.deleteDocuments(*[jcast("org.apache.lucene.search.Query", query(term("id", d))) for d in gone])  # varargs
    writer.commit()
    writer.close()
    kept = [t for d, t in docs.items() if d not in gone]
    with QLogSearcher(index) as s:
        assert s.java.reader.numDeletedDocs() == 6
        assert mean_average_tf(s) == pytest.approx(sum(map(_verboseness, kept)) / len(kept))
