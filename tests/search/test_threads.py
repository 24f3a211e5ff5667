"""Searchers shared across Python threads: no batch answered from another index or model, and a
searcher's Python parameters always equal its Java model's.

pyjnius binds the Java instance of an instance-method call on the class's shared method object, so
two threads calling one method on two Java objects of one class can swap them. Only the public
API is used here, so the same test runs against any version of the bridge.
"""

from __future__ import annotations

import json
import re
import threading

import pytest

from qlog_pyserini.formats.trec import to_dict
from qlog_pyserini.lucene.searcher import QLogSearcher

pytestmark = pytest.mark.jvm

QUERIES = ["z0001 z0010", "z0025", "z0040 z0002", "z0010 z0025 z0040", "z0002", "z0040", "z0001 z0040 f003x1"]
QIDS = [f"q{i}" for i in range(len(QUERIES))]
MODEL = re.compile(r"k1=([0-9.]+),b=([0-9.]+),q=([0-9.eE-]+),form=(\w+)")


@pytest.fixture(scope="module")
def other_index(tmp_path_factory):
    """A second index over the same terms with other docids and other statistics."""
    from conftest import tiny_documents

    from qlog_pyserini.index import build_index

    folder = tmp_path_factory.mktemp("other")
    with open(folder / "corpus.jsonl", "w") as f:
        for i, (docid, tokens) in enumerate(tiny_documents().items()):
            if i % 3:  # two thirds of the documents: other N and n, so other IDFs
                f.write(json.dumps({"id": "other/" + docid, "contents": " ".join(tokens[::-1])}) + "\n")
    build_index(folder / "corpus.jsonl", folder / "index", threads=1, progress=False)
    return folder / "index"


def _run(workers):
    errors: list[BaseException] = []

    def guard(fn):
        def wrapped():
            try:
                fn()
            except BaseException as e:  # noqa: BLE001 - reported below
                errors.append(e)
        return wrapped

    threads = [threading.Thread(target=guard(w)) for w in workers]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    if errors:
        raise errors[0]


def test_two_indexes_two_models_four_threads(tiny_index, other_index):
    searchers = {(index, q): QLogSearcher(index, q=q) for index in (tiny_index, other_index) for q in (1.0, 0.3)}
    expected = {key: to_dict(s.batch_search(QUERIES, QIDS, k=20)) for key, s in searchers.items()}
    assert len({json.dumps(v, sort_keys=True) for v in expected.values()}) == 4  # the four really differ
    crossed: list[tuple] = []

    def worker(key):
        def run():
            for _ in range(50):
                got = to_dict(searchers[key].batch_search(QUERIES, QIDS, k=20, threads=2))
                if got != expected[key]:
                    crossed.append(key)
        return run

    def switcher():  # concurrent set_q on a fifth searcher of the first index
        s = QLogSearcher(tiny_index)
        for i in range(100):
            s.set_q((0.3, 0.8)[i % 2])
        s.close()

    _run([worker(key) for key in searchers] + [switcher])
    for s in searchers.values():
        s.close()
    assert crossed == []


def _java_model(s: QLogSearcher) -> tuple[float, float, float, str]:
    k1, b, q, form = MODEL.search(s.similarity).groups()
    return float(k1), float(b), float(q), form


def test_concurrent_set_q_python_equals_java(tiny_index):
    with QLogSearcher(tiny_index) as s:
        for trial in range(100):
            barrier = threading.Barrier(2)

            def setter(q, barrier=barrier):
                def run():
                    barrier.wait()
                    s.set_q(q)
                return run

            _run([setter(0.3), setter(0.8)])
            assert s.q in (0.3, 0.8)
            assert _java_model(s)[2] == pytest.approx(s.q), trial


def test_concurrent_set_qlog_keeps_both_updates(tiny_index):
    with QLogSearcher(tiny_index) as s:
        for trial in range(100):
            s.set_qlog(q=1.0, k1=0.9)
            barrier = threading.Barrier(2)

            def update(barrier=barrier, **params):
                def run():
                    barrier.wait()
                    s.set_qlog(**params)
                return run

            _run([update(q=0.3), update(k1=1.2)])
            assert (s.q, s.k1) == (0.3, 1.2), trial
            k1, _, q, _ = _java_model(s)
            assert (k1, q) == pytest.approx((1.2, 0.3)), trial
