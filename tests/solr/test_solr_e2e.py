"""End to end against a real SolrCloud: the verbs of ``python -m qlog_pyserini.solr`` on CodeSearchNet Ruby.

A 2-node MiniSolrCloudCluster (java-similarity/qlog-solr's ``MiniClusterLauncher``, run from the Maven
test classpath) listens on 127.0.0.1; a 2-shard collection with ExactStatsCache is made by ``deploy``, filled
by ``index``, searched by ``search`` and swept by ``sweep``. The independent reference is this project's
Lucene path: ``index`` + ``search`` (Anserini's indexer, QLogSearcher on Lucene 10.5), scored by the same
trec_eval. Needs Maven, a JDK >= 21 and ../shared/data; skipped with the reason otherwise.
"""

from __future__ import annotations

import io
import os
import queue
import shutil
import signal
import subprocess
import sys
import threading
import time
import zipfile
from pathlib import Path
from typing import Iterator

import pytest

from conftest import ROOT, SHARED_DATA, same_ranking
from qlog_pyserini.errors import QLogError
from qlog_pyserini.eval.trec_eval import trec_eval

pytestmark = [pytest.mark.jvm, pytest.mark.solr, pytest.mark.data]

JAVA = ROOT / "java-similarity"
CSN = SHARED_DATA / "csn-ruby"


def _cli(*args: str, timeout: float = 900) -> str:
    proc = subprocess.run([sys.executable, "-m", *args], cwd=ROOT, capture_output=True, text=True, timeout=timeout)
    assert proc.returncode == 0, f"{' '.join(args[:2])} failed:\n{proc.stderr[-3000:]}"
    return proc.stdout


def _start_cluster(jdk, base: Path, log_path: Path) -> tuple[subprocess.Popen, str]:
    env = {**os.environ, "JAVA_HOME": str(jdk.home)}
    build = subprocess.run(
        ["mvn", "-q", "-B", "-f", str(JAVA / "pom.xml"), "-pl", "qlog-solr", "-am", "test-compile",
         "dependency:build-classpath", "-Dmdep.outputFile=target/test-classpath.txt", "-Dmdep.includeScope=test"],
        env=env, capture_output=True, text=True, timeout=1200)
    assert build.returncode == 0, f"mvn test-compile failed:\n{build.stdout[-2000:]}{build.stderr[-2000:]}"
    module = JAVA / "qlog-solr"
    classpath = os.pathsep.join([str(module / "target" / "test-classes"), str(module / "target" / "classes"),
                                 (module / "target" / "test-classpath.txt").read_text().strip()])
    log = open(log_path, "w")
    # stdin is the cluster's lifeline: MiniClusterLauncher shuts down when it closes (also if pytest dies)
    proc = subprocess.Popen(
        [str(jdk.java), "-Xmx1g", "-Djava.security.egd=file:/dev/./urandom", "-cp", classpath,
         "io.qlog.solr.MiniClusterLauncher", str(base), "2"],
        stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=log, text=True, start_new_session=True)
    lines: queue.Queue[str] = queue.Queue()
    threading.Thread(target=lambda: [lines.put(line) for line in proc.stdout], daemon=True).start()
    deadline = time.monotonic() + 300
    while time.monotonic() < deadline:
        try:
            line = lines.get(timeout=1)
        except queue.Empty:
            if proc.poll() is not None:
                break
            continue
        if line.startswith("SOLR_URL "):
            return proc, line.split()[1]
    _stop(proc)
    pytest.fail(f"MiniSolrCloudCluster did not start; see {log_path}")


def _stop(proc: subprocess.Popen) -> None:
    try:
        if proc.stdin:
            proc.stdin.close()
        proc.wait(timeout=90)
    except (subprocess.TimeoutExpired, OSError):
        pass
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()


def cluster_url(tmp_path_factory) -> Iterator[str]:
    """Start a 2-node MiniSolrCloudCluster for a module's tests, yield its URL, stop it (skips without Maven or a JDK)."""
    if shutil.which("mvn") is None:
        pytest.skip("Maven (mvn) is not installed: the MiniSolrCloudCluster runs from the Maven test classpath")
    from qlog_pyserini.jvm.toolchain import find_jdk
    try:
        jdk = find_jdk(21)
    except QLogError as e:
        pytest.skip(str(e))
    base = tmp_path_factory.mktemp("solrcloud")
    proc, url = _start_cluster(jdk, base / "nodes", base / "cluster.log")
    try:
        yield url
    finally:
        _stop(proc)


@pytest.fixture(scope="module")
def solr_url(tmp_path_factory):
    if not (CSN / "test.jsonl").is_file():
        pytest.skip(f"{CSN} is absent")
    yield from cluster_url(tmp_path_factory)


@pytest.fixture(scope="module")
def csn(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("csn") / "csn-ruby"
    _cli("qlog_pyserini.prepare", "--format", "csn", "--input", str(CSN / "test.jsonl"), str(CSN / "valid.jsonl"),
         "--out", str(out))
    return out


def _ndcg(qrels: Path, run: Path) -> float:
    return trec_eval(qrels, run, metrics=["ndcg_cut.10"], per_query=False).aggregate["ndcg_cut.10"]


def test_solr_verbs_reproduce_the_lucene_run(solr_url, csn, tmp_path) -> None:
    qrels, topics = csn / "qrels.txt", csn / "topics.tsv"
    solr = ["qlog_pyserini.solr"]
    out = _cli(*solr, "deploy", "--solr", solr_url, "--collection", "csn", "--shards", "2", "--q", "0.7")
    assert "csn: created" in out
    out = _cli(*solr, "index", "--solr", solr_url, "--collection", "csn", "--corpus", str(csn / "corpus"))
    assert "indexed 2661 documents (2661 in the collection)" in out
    _cli(*solr, "search", "--solr", solr_url, "--collection", "csn", "--topics", str(topics),
         "--output", str(tmp_path / "solr.q07.txt"))

    # the reference: this project's Lucene index and QLogSearcher, same corpus, topics and q
    _cli("qlog_pyserini.index", "--corpus", str(csn / "corpus"), "--index", str(tmp_path / "idx"))
    for q, name in (("0.7", "lucene.q07.txt"), ("1", "lucene.q1.txt")):
        _cli("qlog_pyserini.search", "--index", str(tmp_path / "idx"), "--topics", str(topics),
             "--output", str(tmp_path / name), "--q", q)

    # 2 shards with global statistics on Lucene 9.12 against one Anserini index on Lucene 10.5: the same
    # documents, ranks and written scores on every line (only the run tag differs)
    solr_lines = [line.split()[:5] for line in (tmp_path / "solr.q07.txt").read_text().splitlines()]
    lucene_lines = [line.split()[:5] for line in (tmp_path / "lucene.q07.txt").read_text().splitlines()]
    assert len(solr_lines) == len(lucene_lines) > 100_000
    assert solr_lines == lucene_lines

    solr_ndcg = _ndcg(qrels, tmp_path / "solr.q07.txt")
    lucene_ndcg = _ndcg(qrels, tmp_path / "lucene.q07.txt")
    assert round(solr_ndcg, 4) == round(lucene_ndcg, 4), (solr_ndcg, lucene_ndcg)

    # the eval verb reads a Solr run like any other
    assert f"{solr_ndcg:.4f}" in _cli("qlog_pyserini.eval", "--qrels", str(qrels), "--run", str(tmp_path / "solr.q07.txt"),
                                      "--metrics", "ndcg_cut.10")

    # sweep: each q through a new schema and a RELOAD of the same collection, no reindexing
    out = _cli(*solr, "sweep", "--solr", solr_url, "--collection", "csn", "--topics", str(topics), "--qrels", str(qrels),
               "--q-grid", "1,0.7", "--out", str(tmp_path / "sweep"), "--hits", "100")
    rows = (tmp_path / "sweep" / "metrics.csv").read_text().splitlines()
    assert rows[0].startswith("q,ndcg_cut.10")
    by_q = {float(r.split(",")[0]): float(r.split(",")[1]) for r in rows[1:]}
    assert round(by_q[0.7], 4) == round(lucene_ndcg, 4)
    assert round(by_q[1.0], 4) == round(_ndcg(qrels, tmp_path / "lucene.q1.txt"), 4)
    assert by_q[0.7] != by_q[1.0]  # the RELOAD really changed the similarity


def test_rewrite_on_plain_bm25_solr_ranks_as_qlog(solr_url, csn, tmp_path) -> None:
    """The no-plugin route on SolrCloud: a 2-shard collection scored by Solr's own BM25SimilarityFactory (k1 = 0.9,
    b = 0.4, ExactStatsCache), searched by ``rewrite --engine solr`` (Solr's field analysis handler, ``{!term}``
    statistics from the debug explanation, ``contents:term^boost`` clauses), against the q-log Lucene run."""
    from qlog_pyserini.formats.trec import read_run
    from qlog_pyserini.solr.client import SolrClient
    from qlog_pyserini.solr.configset import FACTORY, ConfigSet
    from qlog_pyserini.solr.workflow import deploy, index_corpus

    config = ConfigSet(q=1.0)
    schema = config.schema_xml()
    start, end = schema.index(f'<similarity class="{FACTORY}">'), schema.index("</similarity>") + len("</similarity>")
    schema = schema[:start] + ('<similarity class="solr.BM25SimilarityFactory"><float name="k1">0.9</float>'
                               '<float name="b">0.4</float></similarity>') + schema[end:]
    assert FACTORY not in schema
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as z:
        z.writestr("schema.xml", schema)
        z.writestr("solrconfig.xml", config.solrconfig_xml())
    with SolrClient(solr_url) as client:
        deploy(client, "csn_bm25", zip_bytes=buffer.getvalue(), shards=2)
        assert index_corpus(client, "csn_bm25", csn / "corpus") == 2661

    topics = csn / "topics.tsv"
    _cli("qlog_pyserini.index", "--corpus", str(csn / "corpus"), "--index", str(tmp_path / "idx"))
    for q, form in (("0.7", "lucene"), ("0.3", "rsj")):
        rewrite, search = tmp_path / f"rewrite-{q}-{form}.txt", tmp_path / f"search-{q}-{form}.txt"
        _cli("qlog_pyserini.rewrite", "--engine", "solr", "--url", solr_url, "--collection", "csn_bm25",
             "--topics", str(topics), "--q", q, "--idf-form", form, "--hits", "10", "--output", str(rewrite))
        _cli("qlog_pyserini.search", "--index", str(tmp_path / "idx"), "--topics", str(topics), "--q", q,
             "--idf-form", form, "--hits", "10", "--output", str(search))
        got, want = read_run(rewrite), read_run(search)
        assert set(got) == set(want) and len(want) > 1200
        # the Lucene run is rounded to 4 decimals (Anserini's tie adjuster), the rewrite's run is not
        differ = [qid for qid in want if same_ranking([(h.docid, h.score) for h in got[qid]],
                                                       [(h.docid, h.score) for h in want[qid]], rel=1e-6, tol=1.2e-4)]
        assert not differ, (q, form, len(differ), differ[:5])
