"""q-log inside genuine Pyserini 2.4.0: import order, install_qlog, QLogLuceneSearcher, prebuilt indexes,
fields and feedback, each checked against Pyserini's own BM25 or our QLogSearcher in fresh processes.

Pyserini runs offline here: ``offline/sitecustomize.py`` stubs torch & co. and serves its network
fetches from the fixture (see ``conftest.py``). Runs are compared exactly: same docids, same order,
same float scores.
"""

from __future__ import annotations

import json

import pytest

pytestmark = pytest.mark.jvm

# Shared by the subprocesses: a run as [[qid, [[docid, score, lucene_docid], ...]], ...] from any searcher's results.
RUN = """
import json
def run(results, qids):
    return [[q, [[h.docid, float(h.score), h.lucene_docid] for h in results[q]]] for q in qids]
"""


def strict(run: list) -> list:
    """A Pyserini run with each score made strictly below the one above as a float (the next float
    down where Anserini's 1e-6 tie step vanished in float rounding), as QLogSearcher's scores are."""
    import numpy as np

    out = []
    for qid, hits in run:
        kept: list = []
        for docid, score, number in hits:
            if kept and not np.float32(score) < np.float32(kept[-1][1]):
                score = float(np.nextafter(np.float32(kept[-1][1]), np.float32(-np.inf)))
            kept.append([docid, score, number])
        out.append([qid, kept])
    return out


def test_pyserini_first_then_qlog(pyserini_fixture, run_with_pyserini):
    f = pyserini_fixture
    out = run_with_pyserini(f"""
        from pyserini.search.lucene import LuceneSearcher      # starts the JVM without our jar
        from jnius import autoclass
        ours_at_start = "qlog-similarity" in autoclass("java.lang.System").getProperty("java.class.path")
        from qlog_pyserini import QLogSearcher, install_qlog
        s = LuceneSearcher({str(f['index'])!r})
        install_qlog(s, q=0.5)
        ours = QLogSearcher({str(f['index'])!r}, q=0.5).search("parse json config", 10)
        theirs = s.search("parse json config", 10)
        import json
        print(json.dumps({{"ours_at_start": ours_at_start, "similarity": s.get_similarity().toString(),
                          "same": [(h.docid, h.score) for h in ours] == [(h.docid, h.score) for h in theirs],
                          "hits": len(theirs)}}))
        """)
    assert out == {"ours_at_start": False, "similarity": "QLogBM25(k1=0.9,b=0.4,q=0.5,form=lucene)",
                   "same": True, "hits": 10}


def test_qlog_first_then_pyserini_starts_one_jvm_with_both_jars(pyserini_fixture, run_with_pyserini):
    f = pyserini_fixture
    out = run_with_pyserini(f"""
        import jnius_config
        import qlog_pyserini
        running_after_import = jnius_config.vm_running
        from pyserini.search.lucene import LuceneSearcher      # Pyserini starts the JVM
        from jnius import autoclass
        classpath = autoclass("java.lang.System").getProperty("java.class.path")
        from qlog_pyserini import install_qlog
        s = install_qlog(LuceneSearcher({str(f['index'])!r}), q=0.7)
        import json
        print(json.dumps({{"running_after_import": running_after_import, "ours": "qlog-similarity" in classpath,
                          "anserini": "anserini-" in classpath, "similarity": s.get_similarity().toString(),
                          "hits": len(s.search("parse json config", 5))}}))
        """)
    assert out == {"running_after_import": False, "ours": True, "anserini": True,
                   "similarity": "QLogBM25(k1=0.9,b=0.4,q=0.7,form=lucene)", "hits": 5}


#: test name -> the code it runs with real Pyserini (see ``pyserini_setup``)
SETUPS: dict[str, str] = {}


def pyserini_setup(code: str):
    """Register ``code`` for the decorated test: it runs after Pyserini and qlog_pyserini are loaded (``topics``,
    ``qids``, ``queries``, ``index``, ``prebuilt`` and ``cache`` defined, ``run`` for results) and fills ``out``,
    which the test receives as its ``out`` fixture."""
    def register(test):
        SETUPS[test.__name__] = code
        return test
    return register


@pytest.fixture(scope="module")
def outs(pyserini_fixture, run_with_pyserini) -> dict[str, dict]:
    """Every registered setup run in one fresh process with real Pyserini, each in its own namespace with its own
    searchers (not a fresh process and JVM per test): test name -> its ``out``, or its traceback."""
    f = pyserini_fixture
    return run_with_pyserini(RUN + f"""
import traceback
from pyserini.search.lucene import LuceneSearcher
from qlog_pyserini import QLogSearcher, QLogLuceneSearcher, install_qlog
topics = {f['queries']!r}
qids, queries = list(topics), list(topics.values())
index = {str(f['index'])!r}
prebuilt, cache = {f['prebuilt']!r}, {str(f['cache'])!r}
results = {{}}
for name, code in {SETUPS!r}.items():
    namespace = {{**globals(), "out": {{}}}}
    try:
        exec(code, namespace)
        results[name] = namespace["out"]
    except Exception:
        results[name] = {{"traceback": traceback.format_exc()}}
print(json.dumps(results))
""")


@pytest.fixture()
def out(request, outs) -> dict:
    """What the test's registered setup left in ``out`` (the test fails with the setup's traceback if it raised)."""
    got = outs[request.function.__name__]
    assert "traceback" not in got, got.get("traceback")
    return got


@pyserini_setup("""
bm25 = LuceneSearcher(index); bm25.set_bm25(0.9, 0.4)
out["set_bm25"] = run(bm25.batch_search(queries, qids, k=100, threads=2), qids)
s = install_qlog(LuceneSearcher(index), q=1.0, k1=0.9, b=0.4)
out["install_q1"] = run(s.batch_search(queries, qids, k=100, threads=2), qids)
out["lucene_q1"] = run(QLogLuceneSearcher(index).batch_search(queries, qids, k=100, threads=2), qids)
install_qlog(s, q=0.7)
out["install_q07"] = run(s.batch_search(queries, qids, k=100, threads=2), qids)
out["lucene_q07"] = run({q: QLogLuceneSearcher(index, q=0.7).search(t, 100) for q, t in topics.items()}, qids)
out["qlogsearcher_q07"] = run(QLogSearcher(index, q=0.7).batch_search(queries, qids, k=100, threads=2), qids)
out["qlogsearcher_q1"] = run(QLogSearcher(index).batch_search(queries, qids, k=100, threads=2), qids)
""")
def test_install_qlog_at_q1_is_set_bm25_and_at_q07_is_qlogsearcher(out):
    assert sum(len(h) for _, h in out["set_bm25"]) > 1000
    assert out["install_q1"] == out["set_bm25"] == out["lucene_q1"] == out["qlogsearcher_q1"]
    assert out["install_q07"] == out["lucene_q07"] and strict(out["install_q07"]) == out["qlogsearcher_q07"]
    assert out["install_q07"] != out["set_bm25"]


@pyserini_setup("""
from collections.abc import Mapping
from qlog_pyserini.search import pyserini_hits
ours, theirs = QLogLuceneSearcher(index), LuceneSearcher(index)
for q in (1.0, 0.7, 0.3):
    ours.set_qlog(q=q)
    install_qlog(theirs, q=q)
    for k in (10, 1000):
        got = ours.batch_search(queries, qids, k=k, threads=2)
        out[f"type_{q}_{k}"] = type(got).__name__
        out[f"ours_{q}_{k}"] = run(got, qids)
        out[f"theirs_{q}_{k}"] = run(theirs.batch_search(queries, qids, k=k, threads=2), qids)
    out[f"single_{q}"] = run({qid: ours.search(t, 1000) for qid, t in topics.items()}, qids)
got = ours.batch_search(queries, qids, k=20)
hit = got[qids[0]][0]
out["unread_before"] = hit._document is pyserini_hits._UNREAD
reference = theirs.search(queries[0], 20)
out["documents"] = [[h.raw, h.contents] for h in got[qids[0]]]
out["reference_documents"] = [[h.lucene_document.get("raw"), h.lucene_document.get("contents")] for h in reference]
out["document_class"] = hit.lucene_document.getClass().getName()
out["same_list"] = got[qids[0]] is got[qids[0]]
out["mapping"] = isinstance(got, Mapping) and list(got) == qids and len(got) == len(qids)
hit.score = 1.5  # Pyserini's hits can be changed in place (its fusion does), and the change stays
out["kept"] = got[qids[0]][0].score
out["fields_path"] = type(ours.batch_search(queries, qids, k=5, fields={"contents": 1.0, "title": 0.5})).__name__
ours.set_rm3()
out["rm3_path"] = type(ours.batch_search(queries, qids, k=5)).__name__
""")
def test_qlog_lucene_searcher_searches_on_the_array_bridge_as_pyserini_does(out):
    """batch_search and search of a plain query: Pyserini's docids, ranks, Lucene docids and (after the
    strictly-decreasing step) scores, hits that read their stored document only when asked, one list per qid."""
    for q in (1.0, 0.7, 0.3):
        for k in (10, 1000):
            assert out[f"type_{q}_{k}"] == "PyseriniBatchResults"
            theirs = out[f"theirs_{q}_{k}"]
            assert sum(len(h) for _, h in theirs) > 300
            assert out[f"ours_{q}_{k}"] == strict(theirs), (q, k)
        assert out[f"single_{q}"] == out[f"ours_{q}_1000"]
    assert out["ours_1.0_1000"] == out["theirs_1.0_1000"]  # at q = 1 no tie step is lost here
    assert out["unread_before"] and out["document_class"] == "org.apache.lucene.document.Document"
    # this index stores raw only (contents is None on both sides)
    assert out["documents"] == out["reference_documents"] and all(raw for raw, _ in out["documents"])
    assert out["same_list"] and out["mapping"] and out["kept"] == 1.5
    assert out["fields_path"] == out["rm3_path"] == "dict"  # Pyserini's own path, as before


@pyserini_setup("""
plain, ours = LuceneSearcher(index), QLogLuceneSearcher(index, q=0.3, idf_form="rsj")
out["isinstance"] = isinstance(ours, LuceneSearcher)
out["attributes"] = sorted(vars(plain)) == sorted(vars(ours))
out["similarity"] = ours.similarity
doc = ours.doc("d007")
out["doc"] = [doc.docid(), json.loads(doc.raw())["title"]]
ours.set_bm25(0.9, 0.4)
out["set_bm25_still_works"] = ours.get_similarity().toString()
""")
def test_qlog_lucene_searcher_is_a_lucene_searcher_with_the_same_state(out):
    assert out["isinstance"] and out["attributes"]
    assert out["similarity"] == "QLogBM25(k1=0.9,b=0.4,q=0.3,form=rsj)"
    assert out["doc"][0] == "d007" and out["doc"][1]
    assert out["set_bm25_still_works"] == "BM25(k1=0.9,b=0.4)"


@pyserini_setup("""
ours = QLogLuceneSearcher.from_prebuilt_index(prebuilt)
ours.set_qlog(q=0.7)
out["class"] = type(ours).__name__
out["prebuilt"] = ours.prebuilt_index_name
out["in_cache"] = ours.index_dir.startswith(cache)
out["run"] = run(ours.batch_search(queries, qids, k=20), qids)
out["reference"] = run(QLogSearcher(index, q=0.7).batch_search(queries, qids, k=20), qids)
theirs = install_qlog(LuceneSearcher.from_prebuilt_index(prebuilt), q=0.7)
out["installed"] = run(theirs.batch_search(queries, qids, k=20), qids)
""")
def test_from_prebuilt_index_downloads_through_pyserini_and_searches_with_qlog(pyserini_fixture, out):
    f = pyserini_fixture
    assert out["class"] == "QLogLuceneSearcher" and out["prebuilt"] == f["prebuilt"] and out["in_cache"]
    assert out["run"] == out["reference"] == out["installed"]


@pyserini_setup("""
fields = {"contents": 1.0, "title": 0.5}
bm25 = LuceneSearcher(index); bm25.set_bm25(0.9, 0.4)
out["pyserini"] = run(bm25.batch_search(queries, qids, k=50, threads=2, fields=fields), qids)
out["contents_only"] = run(bm25.batch_search(queries, qids, k=50, threads=2), qids)
ours = QLogLuceneSearcher(index)
out["q1"] = run(ours.batch_search(queries, qids, k=50, threads=2, fields=fields), qids)
ours.set_qlog(q=0.5)
out["q05"] = run(ours.batch_search(queries, qids, k=50, threads=2, fields=fields), qids)
""")
def test_fields_at_q1_equal_pyserinis_and_change_with_q(out):
    assert out["q1"] == out["pyserini"]
    assert out["pyserini"] != out["contents_only"]  # the title field really takes part
    assert out["q05"] != out["q1"]


@pyserini_setup("""
bm25 = LuceneSearcher(index); bm25.set_bm25(0.9, 0.4); bm25.set_rm3()
out["pyserini_rm3"] = run(bm25.batch_search(queries, qids, k=50), qids)
ours = QLogLuceneSearcher(index); ours.set_rm3()
out["rm3_q1"] = run(ours.batch_search(queries, qids, k=50), qids)
ours.set_qlog(q=0.5)
out["rm3_q05"] = run(ours.batch_search(queries, qids, k=50), qids)
# With the original query weighted 1, RM3's second pass is the query itself with weights 1/|q|
# (expansion terms weigh 0): it must rank exactly as q-log does without feedback.
ours.set_rm3(fb_terms=10, fb_docs=10, original_query_weight=1.0)
out["rm3_only_query"] = run(ours.batch_search(queries, qids, k=50), qids)
plain = QLogLuceneSearcher(index, q=0.5)
out["q05"] = run(plain.batch_search(queries, qids, k=50), qids)
bm25.unset_rm3(); bm25.set_rocchio()
out["pyserini_rocchio"] = run(bm25.batch_search(queries, qids, k=50), qids)
ours.unset_rm3(); ours.set_qlog(q=1.0); ours.set_rocchio()
out["rocchio_q1"] = run(ours.batch_search(queries, qids, k=50), qids)
ours.set_qlog(q=0.5)
out["rocchio_q05"] = run(ours.batch_search(queries, qids, k=50), qids)
""")
def test_rm3_and_rocchio_run_on_top_of_qlog(out):
    assert out["rm3_q1"] == out["pyserini_rm3"]
    assert out["rm3_q05"] != out["rm3_q1"]
    assert out["rocchio_q1"] == out["pyserini_rocchio"]
    assert out["rocchio_q05"] != out["rocchio_q1"]
    for (qid, fb), (_, plain) in zip(out["rm3_only_query"], out["q05"]):
        matched = [d for d, s, _ in fb if s > 0]  # documents matching only zero-weight expansion terms trail
        assert matched == [d for d, _, _ in plain][:len(matched)], qid


def test_named_topics_and_prebuilt_index_through_our_cli(pyserini_fixture, cli_with_pyserini, tmp_path):
    f = pyserini_fixture
    run_file = tmp_path / "run.txt"
    proc = cli_with_pyserini("qlog_pyserini.search", ["--prebuilt-index", f["prebuilt"], "--topics", f["topic_set"],
                                                      "--output", run_file, "--q", "0.7", "--hits", "20"])
    assert proc.returncode == 0, proc.stderr
    local = tmp_path / "local.txt"
    proc = cli_with_pyserini("qlog_pyserini.search", ["--index", f["index"], "--topics", f["topics"],
                                                      "--output", local, "--q", "0.7", "--hits", "20"])
    assert proc.returncode == 0, proc.stderr
    from qlog_pyserini.formats.trec import read_run

    # same queries and hits; the topic order is the one Pyserini's reader returns
    assert read_run(run_file) == read_run(local) and len(read_run(local)) == len(f["queries"])


def test_our_cli_equals_pyserinis_cli_for_fields_rm3_and_rocchio(pyserini_fixture, run_with_pyserini, tmp_path):
    """Each tool's command line run as ``python -m`` runs it (runpy, as ``__main__``), its four invocations in one
    fresh process per tool: Pyserini's in a process that never imports qlog_pyserini, ours in another."""
    f = pyserini_fixture
    variants = (["--fields", "contents=1", "title=0.5"], ["--rm3"], ["--rocchio"], [])
    calls: dict[str, list[list[str]]] = {"pyserini.search.lucene": [], "qlog_pyserini.search": []}
    for i, extra in enumerate(variants):
        common = ["--index", f["index"], "--topics", f["topics"], "--bm25", "--k1", "0.9", "--b", "0.4",
                  "--hits", "100", "--batch-size", "8", "--threads", "2", *extra]
        calls["pyserini.search.lucene"].append([*map(str, common), "--output", str(tmp_path / f"theirs{i}.txt")])
        calls["qlog_pyserini.search"].append([*map(str, common), "--output", str(tmp_path / f"ours{i}.txt"),
                                              "--run-tag", "Anserini"])
    for module, argvs in calls.items():
        out = run_with_pyserini(f"""
            import json, runpy, sys
            codes = []
            for argv in {argvs!r}:
                sys.argv = [{module!r}, *argv]
                try:
                    runpy.run_module({module!r}, run_name="__main__", alter_sys=True)
                    codes.append(0)
                except SystemExit as e:
                    codes.append(e.code if isinstance(e.code, int) else 0 if e.code is None else 1)
            print(json.dumps({{"codes": codes}}))
            """)
        assert out["codes"] == [0] * len(variants), module
    for i, extra in enumerate(variants):
        theirs, ours = (tmp_path / f"theirs{i}.txt").read_text(), (tmp_path / f"ours{i}.txt").read_text()
        # line for line the same (Pyserini writes queries in its reader's sorted order, we in file order)
        assert sorted(ours.splitlines()) == sorted(theirs.splitlines()), extra
        assert len(ours.splitlines()) > 1000


@pyserini_setup("""
from qlog_pyserini import to_dict
bm25 = LuceneSearcher(index); bm25.set_bm25(0.9, 0.4)
out["pyserini"] = to_dict(bm25.batch_search(queries, qids, k=10))
out["ours"] = to_dict(QLogSearcher(index).batch_search(queries, qids, k=10))
""")
def test_to_dict_reads_pyserini_hits_too(out):
    assert out["pyserini"] == out["ours"]
    assert all(len(v) == 10 for v in out["ours"].values())
    json.dumps(out["ours"])




def test_install_qlog_on_csn_ruby_is_set_bm25_at_q1_and_qlogsearcher_at_q07(csn_ruby, run_with_pyserini):
    data, index = csn_ruby
    topics = data / "topics.tsv"
    out = run_with_pyserini(RUN + f"""
from pyserini.search.lucene import LuceneSearcher
from qlog_pyserini import QLogSearcher, install_qlog
from qlog_pyserini.formats.topics import read_topics
topics = read_topics({str(topics)!r})
qids, queries = list(topics), list(topics.values())
index = {str(index)!r}
bm25 = LuceneSearcher(index); bm25.set_bm25(0.9, 0.4)
reference = run(bm25.batch_search(queries, qids, k=100, threads=2), qids)
searcher = install_qlog(LuceneSearcher(index), q=1.0)
q1 = run(searcher.batch_search(queries, qids, k=100, threads=2), qids)
install_qlog(searcher, q=0.7)
q07 = run(searcher.batch_search(queries, qids, k=100, threads=2), qids)
ours = run(QLogSearcher(index, q=0.7).batch_search(queries, qids, k=100, threads=2), qids)
print(json.dumps({{"queries": len(qids), "hits": sum(len(h) for _, h in reference),
                  "q1_is_bm25": q1 == reference, "q07": q07, "ours": ours, "q07_differs": q07 != q1}}))
""")
    assert out["queries"] == 1261 and out["hits"] > 100_000  # k = 100 (k = 1000 was checked too, 11 min)
    assert out["q1_is_bm25"] and out["q07_differs"]
    # the same docids in the same order; scores equal once Pyserini's float ties are stepped apart
    assert strict(out["q07"]) == out["ours"]


def test_qlog_lucene_batch_search_on_csn_ruby_is_pyserinis_at_several_q_and_k(csn_ruby, run_with_pyserini):
    """The array-bridge batch_search against Pyserini's own (Anserini's SimpleSearcher.batch_search) on real
    code: identical docids, ranks and Lucene docids, scores identical once Pyserini's lost tie steps are
    stepped apart; every query at k = 10, the first 150 at k = 1000 (Pyserini loads each hit's document)."""
    data, index = csn_ruby
    out = run_with_pyserini(RUN + f"""
from pyserini.search.lucene import LuceneSearcher
from qlog_pyserini import QLogLuceneSearcher, install_qlog
from qlog_pyserini.formats.topics import read_topics
topics = read_topics({str(data / "topics.tsv")!r})
qids, queries = list(topics), list(topics.values())
ours, theirs = QLogLuceneSearcher({str(index)!r}), LuceneSearcher({str(index)!r})
out = {{}}
for q in (1.0, 0.7, 0.3):
    ours.set_qlog(q=q)
    install_qlog(theirs, q=q)
    for k, n in ((10, len(qids)), (1000, 150)):
        out[f"{{q}}_{{k}}"] = [run(s.batch_search(queries[:n], qids[:n], k=k, threads=2), qids[:n])
                               for s in (ours, theirs)]
print(json.dumps(out))
""")
    for q in (1.0, 0.7, 0.3):
        for k in (10, 1000):
            ours, theirs = out[f"{q}_{k}"]
            assert len(ours) == (1261 if k == 10 else 150) and sum(len(h) for _, h in theirs) > k * len(ours) / 4
            assert max(len(h) for _, h in theirs) == k  # the cut-off is reached
            assert ours == strict(theirs), (q, k)


@pyserini_setup("""
ours = install_qlog(QLogSearcher(index), q=0.4)
out["ours"] = ours.similarity
for name, bad in (("object", lambda: install_qlog(object(), q=0.5)),
                  ("nan", lambda: install_qlog(LuceneSearcher(index), q=float("nan"))),
                  ("b", lambda: install_qlog(LuceneSearcher(index), b=1.5))):
    try:
        bad()
        out[name] = "accepted"
    except ValueError as e:
        out[name] = str(e)
""")
def test_install_qlog_takes_our_searcher_and_refuses_anything_else(out):
    assert out["ours"] == "QLogBM25(k1=0.9,b=0.4,q=0.4,form=lucene)"
    assert out["object"] == "install_qlog needs a Pyserini LuceneSearcher (or Anserini's SimpleSearcher), not object"
    assert out["nan"].startswith("illegal q value: NaN") and out["b"].startswith("illegal b value: 1.5")


@pyserini_setup("""
import inspect
from qlog_pyserini.errors import QLogError
out["signatures"] = [str(inspect.signature(c.set_qlog)) for c in (QLogSearcher, QLogLuceneSearcher)]
for name, s in (("ours", QLogSearcher(index)), ("lucene", QLogLuceneSearcher(index))):
    s.set_qlog(0.3, k1=1.2, b=0.75, idf_form="rsj")
    s.set_qlog(k1=1.5)
    kept = s.similarity
    s.set_qlog(0.6)
    after = s.similarity
    refusals = []
    for bad in ({"q": 5}, {"q": float("nan")}, {"k1": -1}, {"b": 1.5}, {"idf_form": "okapi"}):
        try:
            s.set_qlog(**bad)
            refusals.append("accepted " + s.similarity)
        except QLogError as e:
            refusals.append(str(e))
    out[name] = [kept, after, refusals, s.similarity]
# The score-range check: a q whose largest term score on an index of this many documents would exceed
# what run files represent (num_docs is LuceneSearcher's own attribute, read by set_qlog).
lucene = QLogLuceneSearcher(index)
lucene.num_docs = 10**7
try:
    lucene.set_qlog(-1.0)
    out["range"] = "accepted"
except QLogError as e:
    out["range"] = str(e)
""")
def test_both_searchers_share_one_set_qlog_contract(out):
    """One signature, unspecified values kept, the same refusals in the same words (the Java constructor's)."""
    assert out["signatures"][0] == out["signatures"][1]
    assert out["signatures"][0] == "(self, q: 'float | None' = None, *, k1: 'float | None' = None, " \
                                   "b: 'float | None' = None, idf_form: 'str | None' = None) -> 'None'"
    assert out["ours"] == out["lucene"]
    kept, after, refusals, unchanged = out["ours"]
    assert kept == "QLogBM25(k1=1.5,b=0.75,q=0.3,form=rsj)" and after == unchanged == "QLogBM25(k1=1.5,b=0.75,q=0.6,form=rsj)"
    assert refusals == ["illegal q value: 5.0, must be between -1.0 and 3.0",
                            "illegal q value: NaN, must be between -1.0 and 3.0",
                            "illegal k1 value: -1.0, must be a non-negative finite value",
                            "illegal b value: 1.5, must be between 0 and 1",
                            "illegal idf form: okapi, must be one of lucene, rsj"]
    assert out["range"].startswith("q = -1 (lucene odds) on ") and "above the 1e+06" in out["range"]


def test_field_runs_are_written_from_columns_as_from_hits(pyserini_fixture, tmp_path):
    """The multi-field batch read as columns and its run formatted from them, against Java's lines parsed one
    by one into Hits and written by formats.trec.write_run (and the same hits through the streamed writer)."""
    import numpy as np

    from qlog_pyserini import QLogSearcher
    from qlog_pyserini.formats.trec import Hit, run_lines, write_run
    from qlog_pyserini.jvm.bridge import java_list, jclass
    from qlog_pyserini.lucene.batch import write_topics_run
    from qlog_pyserini.lucene.fields import FIELD_SEARCH, search_fields_columns

    topics = pyserini_fixture["queries"]
    qids, queries = list(topics), list(topics.values())
    fields = {"contents": 1.0, "title": 0.5}
    with QLogSearcher(pyserini_fixture["index"], q=0.3) as s:
        columns = search_fields_columns(s, queries, qids, fields, k=100, threads=2)
        weights = jclass("java.util.HashMap")()
        for name, weight in fields.items():
            weights.put(name, jclass("java.lang.Float")(weight))
        text = jclass(FIELD_SEARCH).batch_search_fields_tsv(s.java, java_list(queries), java_list(qids), 100, 2, weights)
        want: dict[str, list[Hit]] = {qid: [] for qid in qids}
        for line in text.splitlines():
            qid, docid, score, number = line.split("\t")
            want[qid].append(Hit(docid, float(np.float32(score)), int(number)))
        got = dict(columns)
        assert got == want and sum(len(h) for h in want.values()) > 1000
        assert [[h.lucene_docid for h in got[q]] for q in qids] == [[h.lucene_docid for h in want[q]] for q in qids]
        assert columns.run_text("t") == "".join(run_lines(want, "t", qids))
        written = write_topics_run(s, topics, tmp_path / "streamed.txt", "t", hits=100, threads=2, progress=False,
                                   batch_size=7, fields=fields)
    write_run(tmp_path / "reference.txt", want, "t", qids=qids)
    assert (tmp_path / "streamed.txt").read_bytes() == (tmp_path / "reference.txt").read_bytes()
    assert written.lines == sum(len(h) for h in want.values())
