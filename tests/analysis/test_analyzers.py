"""The identifier-aware analyzer: its splits, its indexer (equal to Anserini's with the default
analyzer), and the analyzer choice recorded in the index and reused for queries."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from qlog_pyserini.analysis.analyzers import analyze, index_analyzer
from qlog_pyserini.errors import QLogError
from qlog_pyserini.formats.documents import iter_documents, write_json_collection
from qlog_pyserini.formats.topics import read_topics
from qlog_pyserini.index.__main__ import main as index_main
from qlog_pyserini.jvm.bridge import jclass
from qlog_pyserini.lucene import indexer as index_lib
from qlog_pyserini.lucene.searcher import QLogSearcher

pytestmark = pytest.mark.jvm  # every test here starts the JVM or runs Java

# Original token first (lower-cased and Porter-stemmed like every token), then its parts.
SPLITS = {
    "handleWebSocketUpgrade": ["handlewebsocketupgrad", "handl", "web", "socket", "upgrad"],
    "HTTPServer2": ["httpserver2", "http", "server", "2"],
    "parse_json_value": ["parse_json_valu", "pars", "json", "valu"],
}


@pytest.mark.parametrize("identifier", sorted(SPLITS))
def test_identifier_analyzer_splits_and_keeps_the_original(identifier):
    assert analyze(identifier, "identifier") == SPLITS[identifier]
    # StandardTokenizer alone keeps each of them whole: the splits are the new analyzer's doing.
    assert analyze(identifier, "default") == SPLITS[identifier][:1]


def test_identifier_analyzer_in_running_code():
    assert analyze("conn = getHTTPResponseCode(os.path.join(dir, XMLHttpRequest))", "identifier") == [
        "conn", "gethttpresponsecod", "get", "http", "respons", "code",
        "os.path.join", "os", "path", "join", "dir", "xmlhttprequest", "xml", "http", "request"]


def test_identifier_analyzer_leaves_plain_english_as_the_default_does():
    text = "John's parser returns the values of a list, with 42 entries."
    assert analyze(text, "identifier") == analyze(text, "default") == [
        "john", "parser", "return", "valu", "list", "42", "entri"]


def test_unknown_analyzer_is_refused():
    with pytest.raises(QLogError, match="unknown analyzer 'snowball'"):
        analyze("x", "snowball")
    with pytest.raises(QLogError, match="unknown analyzer"):
        index_lib.build_index("missing.jsonl", "nowhere", analyzer="whitespace")
    with pytest.raises(QLogError, match="invalid choice"):
        index_main(["--corpus", "c.jsonl", "--index", "i", "--analyzer", "whitespace"])


# ---- equivalence: AnalyzerIndexer with the default analyzer == Anserini's IndexCollection ----

def _lucene_shape(index_dir: Path) -> dict:
    """Field schema and contents statistics of an index, read with Lucene itself."""
    reader = jclass("org.apache.lucene.index.DirectoryReader").open(
        jclass("org.apache.lucene.store.FSDirectory").open(jclass("java.io.File")(str(index_dir)).toPath()))
    try:
        fields = {}
        for info in jclass("org.apache.lucene.index.FieldInfos").getMergedFieldInfos(reader).iterator():
            fields[info.getName()] = (info.getIndexOptions().toString(), info.hasTermVectors(),
                                      info.hasNorms(), info.getDocValuesType().toString())
        return {"fields": fields, "docs": reader.numDocs(), "sum_ttf": reader.getSumTotalTermFreq("contents"),
                "sum_df": reader.getSumDocFreq("contents")}
    finally:
        reader.close()


@pytest.fixture(scope="module")
def stdlib_default_by_us(stdlib_code, tmp_path_factory) -> Path:
    """The stdlib corpus indexed by AnalyzerIndexer with the default analyzer."""
    work = tmp_path_factory.mktemp("analyzer-indexer")
    written = write_json_collection(iter_documents(stdlib_code[0]), work / "json")
    cmd = index_lib.analyzer_index_command(work / "json", work / "index", 2, "default")
    counters = index_lib._run_indexer(cmd, written, False, work / "index")
    assert counters["indexed"] + counters.get("empty", 0) == written
    return work / "index"


def test_analyzer_indexer_with_default_analyzer_equals_index_collection(stdlib_default_by_us, stdlib_index,
                                                                         stdlib_code):
    ours, anserini = _lucene_shape(stdlib_default_by_us), _lucene_shape(stdlib_index)
    assert ours == anserini
    assert set(ours["fields"]) == {"id", "contents", "raw"}
    assert ours["fields"]["contents"][:2] == ("DOCS_AND_FREQS_AND_POSITIONS", True)
    assert ours["fields"]["id"][3] == "BINARY"  # SimpleSearcher breaks score ties by these doc values

    topics = read_topics(stdlib_code[1])
    qids = list(topics)
    queries = [topics[q] for q in qids]
    for q in (1.0, 0.3):
        runs = [QLogSearcher(path, q=q).batch_search(queries, qids, k=100, threads=2)
                for path in (stdlib_default_by_us, stdlib_index)]
        assert sum(map(len, runs[0].values())) > 10_000
        for qid in qids:
            assert runs[0][qid] == runs[1][qid], (q, qid)  # same docids, ranks and scores

    ours_s, theirs_s = QLogSearcher(stdlib_default_by_us), QLogSearcher(stdlib_index)
    for hit in theirs_s.search("write the archive member to a file", 5):
        assert ours_s.doc_text(hit.docid) == theirs_s.doc_text(hit.docid)
    assert index_analyzer(stdlib_default_by_us) == index_analyzer(stdlib_index) == "default"


# ---- end to end: the identifier index finds identifiers by their words ----

CODE = {
    "ws/server.go:handleWebSocketUpgrade":
        "func handleWebSocketUpgrade(w http.ResponseWriter, r *http.Request) error { return hijack(w, r) }",
    "net/dial.go:dialTCP": "func dialTCP(addr string) (net.Conn, error) { return net.Dial(\"tcp\", addr) }",
    "util/json.py:parse_json_value": "def parse_json_value(text):\n    return json.loads(text)",
    "srv/server.go:NewHTTPServer2": "func NewHTTPServer2(port int) *HTTPServer2 { return &HTTPServer2{port: port} }",
    "docs/readme.md:intro": "This package serves web pages over a socket; see the upgrade notes.",
}


@pytest.fixture(scope="module")
def code_indexes(tmp_path_factory) -> dict[str, Path]:
    """The small code corpus indexed once per analyzer, through the CLI."""
    work = tmp_path_factory.mktemp("code")
    corpus = work / "corpus.jsonl"
    corpus.write_text("".join(json.dumps({"id": d, "contents": c}) + "\n" for d, c in CODE.items()))
    out = {}
    for name in ("default", "identifier"):
        out[name] = work / name
        assert index_main(["--corpus", str(corpus), "--index", str(out[name]), "--analyzer", name,
                               "--threads", "2", "--quiet"]) == 0
    return out


def test_identifier_index_finds_the_identifier_by_its_words(code_indexes):
    query, target = "web socket upgrade", "ws/server.go:handleWebSocketUpgrade"
    found = [h.docid for h in QLogSearcher(code_indexes["identifier"]).search(query, 10)]
    assert target in found
    default_found = [h.docid for h in QLogSearcher(code_indexes["default"]).search(query, 10)]
    assert default_found == ["docs/readme.md:intro"]  # the prose matches; the identifier cannot


def test_analyzer_is_recorded_and_reused_for_queries(code_indexes):
    assert index_analyzer(code_indexes["identifier"]) == "identifier"
    assert index_analyzer(code_indexes["default"]) == "default"
    s = QLogSearcher(code_indexes["identifier"])
    assert s.analyzer == "identifier"
    # parseJsonValue only matches if the query is split too (the index holds pars, json, valu).
    assert [h.docid for h in s.search("parseJsonValue", 3)] == ["util/json.py:parse_json_value"]
    assert s.search("HTTPServer", 3)[0].docid == "srv/server.go:NewHTTPServer2"
    mismatched = QLogSearcher(code_indexes["identifier"], analyzer="default")
    assert mismatched.analyzer == "default"
    assert mismatched.search("parseJsonValue", 3) == []
    assert QLogSearcher(code_indexes["default"]).analyzer == "default"
    with pytest.raises(QLogError, match="unknown analyzer"):
        QLogSearcher(code_indexes["default"], analyzer="snowball")


def test_identifier_index_stores_what_the_default_one_does(code_indexes):
    shapes = {name: _lucene_shape(path) for name, path in code_indexes.items()}
    assert shapes["identifier"]["fields"] == shapes["default"]["fields"]
    assert shapes["identifier"]["docs"] == shapes["default"]["docs"] == len(CODE)
    assert shapes["identifier"]["sum_ttf"] > shapes["default"]["sum_ttf"]  # the parts are indexed too
    s = QLogSearcher(code_indexes["identifier"])
    assert s.doc_text("util/json.py:parse_json_value") == CODE["util/json.py:parse_json_value"]
