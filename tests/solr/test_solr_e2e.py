"""End to end against a real SolrCloud: the verbs of ``python -m qlog_pyserini.solr`` on CodeSearchNet Ruby.

A 2-node MiniSolrCloudCluster (java-similarity/qlog-solr's ``MiniClusterLauncher``, run from the Maven
test classpath, started once per session by ``solr_url`` in conftest.py) listens on 127.0.0.1; a 2-shard
collection with ExactStatsCache is made by ``deploy``, filled by ``index``, searched by ``search`` and swept by
``sweep``. The independent reference is this project's Lucene path: the session's CSN-Ruby index (Anserini's
indexer) searched by QLogSearcher on Lucene 10.5 (``csn_ruby_runs``; ``search`` at the rewrite's depth), scored
by the same trec_eval. The verbs run in process (``run_verb``); ``rewrite`` runs as the fresh processes a user
starts, its two passes side by side. Needs Maven, a JDK >= 21 and ../shared/data; skipped with the reason otherwise.
"""

from __future__ import annotations

import io
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest
from conftest import ROOT, run_verb, same_ranking

from qlog_pyserini.eval.trec_eval import trec_eval

pytestmark = [pytest.mark.jvm, pytest.mark.solr, pytest.mark.data]


def _verb(name: str, *args: object) -> str:
    """``python -m qlog_pyserini.<name> args`` in process; its stdout (the test fails on a non-zero exit)."""
    proc = run_verb(name, *args, cwd=ROOT, timeout=900)
    assert proc.returncode == 0, f"{name} {' '.join(map(str, args[:1]))} failed:\n{proc.stderr[-3000:]}"
    return proc.stdout


def _ndcg(qrels: Path, run: Path) -> float:
    return trec_eval(qrels, run, metrics=["ndcg_cut.10"], per_query=False).aggregate["ndcg_cut.10"]


# Every third CSN-Ruby topic (421 of 1,261; a slice of the topics file as written, not chosen by result): the
# collection holds all 2,661 documents, so statistics and scores are the full corpus's, and 421 queries to depth
# 1,000 still compare over 150,000 run lines, in a third of the time of all of them.
EVERY = 3


def _topics_slice(topics: Path, folder: Path) -> tuple[Path, set[str]]:
    lines = [line for line in topics.read_text(encoding="utf-8").splitlines() if line.strip()][::EVERY]
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "topics.tsv").write_text("\n".join(lines) + "\n", encoding="utf-8")
    return folder / "topics.tsv", {line.split("\t", 1)[0] for line in lines}


def _run_slice(run: Path, qids: set[str], out: Path) -> Path:
    """The lines of ``run`` whose query is in ``qids``, in their order."""
    with open(run, encoding="utf-8") as f, open(out, "w", encoding="utf-8") as o:
        o.writelines(line for line in f if line.split(maxsplit=1)[0] in qids)
    return out


def test_solr_verbs_reproduce_the_lucene_run(csn_ruby, csn_ruby_runs, solr_url, tmp_path) -> None:
    csn = csn_ruby[0]
    qrels = csn / "qrels.txt"
    topics, qids = _topics_slice(csn / "topics.tsv", tmp_path / "topics")
    out = _verb("solr", "deploy", "--solr", solr_url, "--collection", "csn", "--shards", "2", "--q", "0.7")
    assert "csn: created" in out
    out = _verb("solr", "index", "--solr", solr_url, "--collection", "csn", "--corpus", csn / "corpus")
    assert "indexed 2661 documents (2661 in the collection)" in out
    _verb("solr", "search", "--solr", solr_url, "--collection", "csn", "--topics", topics,
          "--output", tmp_path / "solr.q07.txt")

    # the reference: this project's Lucene index and QLogSearcher, same corpus, topics, q and depth (1000)
    lucene_q07 = _run_slice(csn_ruby_runs[0.7], qids, tmp_path / "lucene.q07.txt")
    lucene_q1 = _run_slice(csn_ruby_runs[1.0], qids, tmp_path / "lucene.q1.txt")

    # 2 shards with global statistics on Lucene 9.12 against one Anserini index on Lucene 10.5: the same
    # documents, ranks and written scores on every line (only the run tag differs)
    solr_lines = [line.split()[:5] for line in (tmp_path / "solr.q07.txt").read_text().splitlines()]
    lucene_lines = [line.split()[:5] for line in lucene_q07.read_text().splitlines()]
    assert len(solr_lines) == len(lucene_lines) > 100_000
    assert solr_lines == lucene_lines

    solr_ndcg = _ndcg(qrels, tmp_path / "solr.q07.txt")
    lucene_ndcg = _ndcg(qrels, lucene_q07)
    assert round(solr_ndcg, 4) == round(lucene_ndcg, 4), (solr_ndcg, lucene_ndcg)

    # the eval verb reads a Solr run like any other
    assert f"{solr_ndcg:.4f}" in _verb("eval", "--qrels", qrels, "--run", tmp_path / "solr.q07.txt",
                                       "--metrics", "ndcg_cut.10")

    # sweep: each q through a new schema and a RELOAD of the same collection, no reindexing
    _verb("solr", "sweep", "--solr", solr_url, "--collection", "csn", "--topics", topics, "--qrels", qrels,
          "--q-grid", "1,0.7", "--out", tmp_path / "sweep", "--hits", "100", "--threads", "3")
    rows = (tmp_path / "sweep" / "metrics.csv").read_text().splitlines()
    assert rows[0].startswith("q,ndcg_cut.10")
    by_q = {float(r.split(",")[0]): float(r.split(",")[1]) for r in rows[1:]}
    assert round(by_q[0.7], 4) == round(lucene_ndcg, 4)
    assert round(by_q[1.0], 4) == round(_ndcg(qrels, lucene_q1), 4)
    assert by_q[0.7] != by_q[1.0]  # the RELOAD really changed the similarity


def test_rewrite_on_plain_bm25_solr_ranks_as_qlog(csn_ruby, solr_url, tmp_path) -> None:
    """The no-plugin route on SolrCloud: a 2-shard collection scored by Solr's own BM25SimilarityFactory (k1 = 0.9,
    b = 0.4, ExactStatsCache), searched by ``rewrite --engine solr`` (Solr's field analysis handler, ``{!term}``
    statistics from the debug explanation, ``contents:term^boost`` clauses), against the q-log Lucene run."""
    from qlog_pyserini.formats.trec import read_run
    from qlog_pyserini.solr.client import SolrClient
    from qlog_pyserini.solr.configset import FACTORY, ConfigSet
    from qlog_pyserini.solr.workflow import deploy, index_corpus

    csn, index = csn_ruby
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

    topics, _ = _topics_slice(csn / "topics.tsv", tmp_path / "topics")
    passes = (("0.7", "lucene"), ("0.3", "rsj"))
    # The two passes are independent queries of one collection, each a fresh process that waits on Solr for most
    # of its time (a field analysis and a statistics request per term, then the search): they run side by side.
    rewrites = {}
    for q, form in passes:
        rewrite = tmp_path / f"rewrite-{q}-{form}.txt"
        rewrites[q, form] = rewrite, subprocess.Popen(
            [sys.executable, "-m", "qlog_pyserini.rewrite", "--engine", "solr", "--url", solr_url,
             "--collection", "csn_bm25", "--topics", str(topics), "--q", q, "--idf-form", form, "--hits", "10",
             "--output", str(rewrite)], cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        for q, form in passes:
            search = tmp_path / f"search-{q}-{form}.txt"
            _verb("search", "--index", index, "--topics", topics, "--q", q, "--idf-form", form, "--hits", "10",
                  "--output", search)
            rewrite, proc = rewrites[q, form]
            _, stderr = proc.communicate(timeout=900)
            assert proc.returncode == 0, f"rewrite --q {q} failed:\n{stderr[-3000:]}"
            got, want = read_run(rewrite), read_run(search)
            assert set(got) == set(want) and len(want) > 400
            # the Lucene run is rounded to 4 decimals (Anserini's tie adjuster), the rewrite's run is not
            differ = [qid for qid in want if same_ranking([(h.docid, h.score) for h in got[qid]],
                                                           [(h.docid, h.score) for h in want[qid]], rel=1e-6, tol=1.2e-4)]
            assert not differ, (q, form, len(differ), differ[:5])
    finally:
        for _, proc in rewrites.values():  # a failed pass leaves no rewrite running
            if proc.poll() is None:
                proc.kill()
                proc.wait()
    # a field the collection's schema lacks is one error line, not an empty run
    absent = run_verb("rewrite", "--engine", "solr", "--url", solr_url, "--collection", "csn_bm25", "--field", "nosuch",
                      "--topics", topics, "--q", "0.7", "--output", tmp_path / "absent.txt")
    assert absent.returncode == 2 and absent.stderr.startswith("error: ") and "'nosuch'" in absent.stderr, absent.stderr
    assert not (tmp_path / "absent.txt").exists()
