"""Corpus statistics on a hand-made two-segment index whose every count is known by construction."""

from __future__ import annotations

import json
import math
import os
import subprocess
import sys
from collections import Counter
from pathlib import Path

import pytest
from conftest import ROOT  # noqa: E402

from qlog_pyserini.errors import QLogError
from qlog_pyserini.stats.statistics import corpus_stats, df_slope, features, slope_feature

pytestmark = pytest.mark.jvm  # every test here starts the JVM or runs Java

# Two segments, so a term that is df = 1 in each of them (z0003) must still come out as df = 2.
SEGMENT_A = {
    "a/1": "z0001 z0002 z0002 z0002 z0005",
    "a/2": "z0003 z0005 z0005",
    "a/3": "z0004 z0005 z0007 z0007",
    "a/4": "z0005 z0007",
}
SEGMENT_B = {
    "b/5": "z0003 z0005 z0006",
    "b/6": "z0005 z0006 z0008 z0008",
    "b/7": "z0005 z0006",
    "b/8": "z0005 z0006 z0009",
    "b/9": "the of and",  # only stopwords: indexed, but no term in contents, so not one of the N documents
}
STOPWORDS = {"the", "of", "and"}
# By hand:  term   df cf        z0001 1 1 (hapax)   z0002 1 3   z0003 2 2   z0004 1 1 (hapax)   z0005 8 9
#                               z0006 4 4   z0007 2 3   z0008 1 2   z0009 1 1 (hapax)
EXPECTED = {"documents": 8, "vocabulary": 9, "tokens": 26, "df1_types": 5, "df1_tokens": 8, "hapax_types": 3,
            "mean_doc_length": 3.25, "df_histogram": [5, 2, 1, 1], "max_doc": 9, "deleted_docs": 0}


def tokens(docs: dict[str, str]) -> dict[str, list[str]]:
    return {d: [t for t in text.split() if t not in STOPWORDS] for d, text in docs.items()}


def reference_counts(docs: dict[str, list[str]]) -> dict:
    """The counts computed in Python from the token lists, independently of Lucene."""
    df, cf = Counter(), Counter()
    for toks in docs.values():
        cf.update(toks)
        df.update(set(toks))
    n = sum(1 for toks in docs.values() if toks)
    hist = [0] * 64
    for d in df.values():
        hist[d.bit_length() - 1] += 1
    while hist and hist[-1] == 0:
        hist.pop()
    t = sum(cf.values())
    return {"documents": n, "vocabulary": len(df), "tokens": t,
            "df1_types": sum(1 for w in df if df[w] == 1), "df1_tokens": sum(cf[w] for w in df if df[w] == 1),
            "hapax_types": sum(1 for w in cf if cf[w] == 1), "mean_doc_length": t / n, "df_histogram": hist}


MASK = 2 ** 64 - 1


def _mix64(z: int) -> int:
    z &= MASK
    z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & MASK
    z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & MASK
    return z ^ (z >> 31)


def sample_key(docid: str, seed: int) -> tuple[int, bytes]:
    """The Java sample order, re-implemented from its documented definition."""
    h = 0xCBF29CE484222325 ^ _mix64(seed)
    for byte in docid.encode("utf-8"):
        h = ((h ^ byte) * 0x100000001B3) & MASK
    return _mix64(h), docid.encode("utf-8")


def write_jsonl(path: Path, docs: dict[str, str]) -> Path:
    path.write_text("".join(json.dumps({"id": d, "contents": c}) + "\n" for d, c in docs.items()))
    return path


@pytest.fixture(scope="module")
def two_segment_index(tmp_path_factory) -> Path:
    """Segments A and B indexed by Anserini separately, then joined without merging by Lucene's addIndexes."""
    from qlog_pyserini.jvm.bridge import jcast, jclass
    from qlog_pyserini.lucene.indexer import build_index

    tmp = tmp_path_factory.mktemp("two-seg")
    parts = []
    for name, docs in (("a", SEGMENT_A), ("b", SEGMENT_B)):
        build_index(write_jsonl(tmp / f"{name}.jsonl", docs), tmp / name, threads=1, progress=False)
        parts.append(tmp / name)
    out = tmp / "index"
    out.mkdir()

    def directory(p: Path):
        return jclass("org.apache.lucene.store.FSDirectory").open(jclass("java.io.File")(str(p)).toPath())

    config = jclass("org.apache.lucene.index.IndexWriterConfig")()
    config.setMergePolicy(jclass("org.apache.lucene.index.NoMergePolicy").INSTANCE)
    writer = jclass("org.apache.lucene.index.IndexWriter")(directory(out), config)
    writer.addIndexes(*[jcast("org.apache.lucene.store.Directory", directory(p)) for p in parts])  # Java varargs
    writer.commit()
    writer.close()
    reader = jclass("org.apache.lucene.index.DirectoryReader").open(directory(out))
    assert reader.leaves().size() == 2  # the cross-segment case is really exercised
    reader.close()
    return out


def test_reference_matches_the_hand_counts():
    assert reference_counts(tokens({**SEGMENT_A, **SEGMENT_B})) == {
        k: v for k, v in EXPECTED.items() if k not in ("max_doc", "deleted_docs")}


def test_whole_index_counts(two_segment_index):
    stats = corpus_stats(two_segment_index, sample_docs=0)
    for key, value in EXPECTED.items():
        assert stats[key] == value, key
    assert stats["sample"] is None and stats["field"] == "contents"
    assert stats["h_tok"] == {
        "df1-token-share": 8 / 26, "df1-types-per-token": 5 / 26, "df1-type-share": 5 / 9, "hapax-per-token": 3 / 26,
        "sample-df1-token-share": None, "sample-df1-types-per-token": None, "sample-df1-type-share": None,
        "sample-hapax-per-token": None}
    assert stats["seconds"]["terms"] >= 0


@pytest.mark.parametrize("seed", [0, 1, 12345, -5])
def test_sample_is_the_documented_hash_order_and_counts_within_it(two_segment_index, seed):
    docs = tokens({**SEGMENT_A, **SEGMENT_B})
    stats = corpus_stats(two_segment_index, sample_docs=3, seed=seed)
    expected_ids = sorted((d for d, t in docs.items() if t), key=lambda d: sample_key(d, seed))[:3]
    sample = stats["sample"]
    assert sample["docids"] == expected_ids
    assert sample["requested"] == 3 and sample["seed"] == seed and sample["key"] == "id"
    ref = reference_counts({d: docs[d] for d in expected_ids})
    for key, value in ref.items():
        assert sample[key] == value, key
    assert stats["h_tok"]["sample-hapax-per-token"] == ref["hapax_types"] / ref["tokens"]


def test_sample_larger_than_corpus_is_the_whole_corpus_without_empty_documents(two_segment_index):
    stats = corpus_stats(two_segment_index, sample_docs=1000)
    sample = stats["sample"]
    assert "b/9" not in sample["docids"] and len(sample["docids"]) == 8
    for key in ("documents", "vocabulary", "tokens", "df1_types", "df1_tokens", "hapax_types", "df_histogram"):
        assert sample[key] == EXPECTED[key], key
    assert all(stats["h_tok"]["sample-" + v] == stats["h_tok"][v] for v in ("df1-token-share", "hapax-per-token"))


def test_tiny_fixture_matches_reference(tiny_index):
    from conftest import tiny_documents

    stats = corpus_stats(tiny_index, sample_docs=0)
    ref = reference_counts(tiny_documents())
    for key, value in ref.items():
        assert stats[key] == value, key


def test_df_slope_recovers_an_exact_power_law():
    s = 2.7
    hist = []
    for k in range(8):
        lo, hi = 2 ** k, 2 ** (k + 1) - 1
        hist.append((hi - lo + 1) * math.sqrt(lo * hi) ** -s * 1e9)  # density at the bin's geometric centre
    assert df_slope(hist) == pytest.approx(s, abs=1e-9)
    assert slope_feature(s) == pytest.approx(0.7) and slope_feature(1.5) == 0.0 and slope_feature(None) is None


def test_df_slope_stops_at_the_first_sparse_bin():
    assert df_slope([1000, 100, 9, 5000]) == pytest.approx(-math.log(50 / 1000) / math.log(math.sqrt(6)))
    assert df_slope([1000, 9, 500]) is None  # one qualifying bin: no slope
    assert df_slope([]) is None


def test_features_include_both_slope_rules(two_segment_index):
    stats = corpus_stats(two_segment_index, sample_docs=1000)
    f = features(stats)
    assert f["df-slope"] is None  # [5, 2, 1, 1]: no bin reaches 10 types
    assert f["hapax-per-token"] == 3 / 26


def test_unknown_field_and_bad_arguments(two_segment_index, tmp_path):
    with pytest.raises(QLogError, match="field 'nope' has no indexed terms"):
        corpus_stats(two_segment_index, field="nope")
    with pytest.raises(QLogError, match="sample_docs"):
        corpus_stats(two_segment_index, sample_docs=-1)
    with pytest.raises(QLogError, match="not a Lucene index"):
        corpus_stats(tmp_path)


def test_index_without_term_vectors_has_no_sample(tmp_path):
    from qlog_pyserini.lucene.indexer import anserini_index_command

    corpus = tmp_path / "json"
    corpus.mkdir()
    write_jsonl(corpus / "docs.jsonl", SEGMENT_A)
    cmd = [a for a in anserini_index_command(corpus, tmp_path / "index", 1) if a != "-storeDocvectors"]
    subprocess.run(cmd, check=True, capture_output=True)
    stats = corpus_stats(tmp_path / "index", sample_docs=10)
    assert stats["sample"] is None and "-storeDocvectors" in stats["sample_error"]
    assert stats["documents"] == 4 and stats["h_tok"]["sample-hapax-per-token"] is None


def cli(*args: str) -> subprocess.CompletedProcess:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    return subprocess.run([sys.executable, "-m", "qlog_pyserini.stats", *map(str, args)],
                          capture_output=True, text=True, env=env, timeout=600)


def test_stats_cli_prints_json(two_segment_index):
    proc = cli("--index", two_segment_index, "--sample-docs", "3", "--sample-ids")
    assert proc.returncode == 0, proc.stderr
    out = json.loads(proc.stdout)
    assert out["tokens"] == 26 and out["df1_types"] == 5 and len(out["sample"]["docids"]) == 3
    assert out["h_tok"]["df1-type-share"] == 5 / 9
    proc = cli("--index", two_segment_index)
    assert "docids" not in json.loads(proc.stdout)["sample"]


def test_stats_cli_errors_are_one_line(tmp_path):
    proc = cli("--index", tmp_path / "missing")
    assert proc.returncode == 2 and proc.stderr.strip().startswith("error: ") and "Traceback" not in proc.stderr
    assert "does not exist" in proc.stderr
