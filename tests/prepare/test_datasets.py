"""Dataset adapters on tiny inline collections, their error paths, and the real collections' counts."""

from __future__ import annotations

import json

import pytest
from oracles import load_texts

from qlog_pyserini.errors import QLogError
from qlog_pyserini.formats.documents import iter_documents
from qlog_pyserini.formats.topics import read_topics
from qlog_pyserini.formats.trec import read_qrels
from qlog_pyserini.prepare.datasets import (
    csn_docid,
    prepare_beir,
    prepare_cosqa,
    prepare_csn,
    prepare_trec,
    read_beir_qrels,
    remove_python_docstring,
)


def jsonl(path, rows):
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    return path


def manifest(out):
    return json.loads((out / "manifest.json").read_text(encoding="utf-8"))


def leftovers(folder):
    """Temporary folders an adapter left behind beside its output."""
    return [p.name for p in folder.iterdir() if p.name.startswith(".")]


# --- BEIR --------------------------------------------------------------------------------------

@pytest.fixture
def beir(tmp_path):
    folder = tmp_path / "beir"
    jsonl(folder / "corpus.jsonl", [
        {"_id": "<dbpedia:Foo>", "title": "Foo", "text": "Foo is a placeholder name."},
        {"_id": "a/b.go:12", "title": "", "text": "func Foo() {}"},
        {"_id": "d3", "title": "Bar", "text": "unrelated"},
    ])
    jsonl(folder / "queries.jsonl", [
        {"_id": "q1", "text": "what is foo"},
        {"_id": "q2", "text": "never judged"},
        {"_id": "q3", "text": "go function foo"},
    ])
    (folder / "qrels").mkdir()
    (folder / "qrels" / "test.tsv").write_text(
        "query-id\tcorpus-id\tscore\nq3\ta/b.go:12\t1\nq1\t<dbpedia:Foo>\t2\nq1\td3\t0\n", encoding="utf-8")
    return folder


def test_beir_keeps_judged_queries_and_graded_qrels(beir, tmp_path):
    out = tmp_path / "out"
    result = prepare_beir(beir, out)
    assert (result.documents, result.queries, result.judged_queries, result.qrels) == (3, 2, 2, 3)
    assert read_topics(out / "topics.tsv") == {"q1": "what is foo", "q3": "go function foo"}
    # qrels follow the topics' order, grades as given
    assert (out / "qrels.txt").read_text() == "q1 0 <dbpedia:Foo> 2\nq1 0 d3 0\nq3 0 a/b.go:12 1\n"
    assert load_texts(out / "corpus") == {"<dbpedia:Foo>": "Foo\nFoo is a placeholder name.",
                                          "a/b.go:12": "func Foo() {}", "d3": "Bar\nunrelated"}
    m = manifest(out)
    assert m["format"] == "beir"
    assert m["counts"] == {"documents": 3, "queries": 2, "judged_queries": 2, "qrels": 3}
    assert m["notes"]["queries_without_qrels_dropped"] == 1
    assert leftovers(tmp_path) == []


def test_beir_missing_split_lists_the_present_ones(beir, tmp_path):
    with pytest.raises(QLogError, match=r"dev.tsv' not found \(splits present: test\)"):
        prepare_beir(beir, tmp_path / "out", split="dev")


def test_beir_judged_query_without_text_is_an_error(beir, tmp_path):
    with open(beir / "qrels" / "test.tsv", "a") as f:
        f.write("q9\td3\t1\n")
    with pytest.raises(QLogError, match=r"1 judged queries are not in queries.jsonl \(first: 'q9'\)"):
        prepare_beir(beir, tmp_path / "out")
    assert not (tmp_path / "out").exists()


@pytest.mark.parametrize("body, message", [
    ("query-id\tcorpus-id\tscore\nq1\td1\n", r"test.tsv:2: a BEIR qrels line needs 3 tab-separated columns"),
    ("q1\td1\t1\nq1\tmy doc\t1\n", r"docid 'my doc' at .*test.tsv:2 contains whitespace"),
    ("q1\td1\tyes\n", r"test.tsv:1: score 'yes' is not an integer"),
    ("q1\td1\t1\nq1\td1\t2\n", r"test.tsv:2: \(q1, d1\) judged 2 here but 1 at line 1"),
])
def test_beir_qrels_errors(tmp_path, body, message):
    path = tmp_path / "test.tsv"
    path.write_text(body, encoding="utf-8")
    with pytest.raises(QLogError, match=message):
        read_beir_qrels(path)


def test_beir_missing_folder(tmp_path):
    with pytest.raises(QLogError, match="folder .*nope' not found"):
        prepare_beir(tmp_path / "nope", tmp_path / "out")


# --- CodeSearchNet -----------------------------------------------------------------------------

def csn_row(repo, path, func, lines, code, docstring, tokens, language="ruby", url=True):
    row = {"repo": repo, "path": path, "func_name": func, "language": language, "code": code,
           "original_string": code, "docstring": docstring, "docstring_tokens": tokens}
    if url:
        row["url"] = f"https://github.com/{repo}/blob/0123abcd/{path}#{lines}"
    return row


RUBY_TEST = [
    csn_row("acme/shop", "lib/cart.rb", "Cart.total", "L10-L14",
            "def total\n  items.sum(&:price)\nend", "Sum of all item prices.\n\n@return [Integer]",
            ["Sum", "of", "all", "item", "prices", "."]),
    csn_row("acme/shop", "lib/cart.rb", "Cart.empty?", "L16-L18", "def empty?\n  items.none?\nend", "", []),
]
RUBY_VALID = [
    csn_row("acme/shop", "lib/my cart.rb", "Cart.add", "L3-L5", "def add(x)\n  items << x\nend",
            "Add an item", ["Add", "an", "item"]),
    csn_row("acme/other", "lib/a.rb", "A.b", "", "def b; end", "B", ["B"], url=False),
]
PY_CODE = 'def area(r):\n    """Area of a circle of radius r."""\n    return 3.14159 * r * r\n'


def test_csn_corpus_queries_and_ids(tmp_path):
    test = jsonl(tmp_path / "test.jsonl", RUBY_TEST)
    valid = jsonl(tmp_path / "valid.jsonl", RUBY_VALID)
    out = tmp_path / "out"
    result = prepare_csn([test, valid], out)
    assert (result.documents, result.queries, result.qrels) == (4, 1, 1)
    texts = load_texts(out / "corpus")
    assert list(texts) == ["acme/shop/lib/cart.rb#L10-L14", "acme/shop/lib/cart.rb#L16-L18",
                           "acme/shop/lib/my_cart.rb#L3-L5", "acme/other/lib/a.rb:A.b"]
    assert texts["acme/shop/lib/cart.rb#L10-L14"] == "def total\n  items.sum(&:price)\nend"
    # Query: the joined docstring tokens (first paragraph); the function without a docstring is
    # not a query, and the valid file contributes documents only.
    assert read_topics(out / "topics.tsv") == {"acme/shop/lib/cart.rb#L10-L14": "Sum of all item prices ."}
    assert read_qrels(out / "qrels.txt") == {"acme/shop/lib/cart.rb#L10-L14": {"acme/shop/lib/cart.rb#L10-L14": 1}}
    notes = manifest(out)["notes"]
    assert notes["queries_skipped_empty"] == 1
    assert notes["query_field"] == "docstring_tokens"


def test_csn_whole_docstring_and_chosen_query_files(tmp_path):
    test = jsonl(tmp_path / "test.jsonl", RUBY_TEST)
    valid = jsonl(tmp_path / "valid.jsonl", RUBY_VALID)
    out = tmp_path / "out"
    prepare_csn([test, valid], out, query_files=[valid], query_field="docstring")
    assert read_topics(out / "topics.tsv") == {"acme/shop/lib/my_cart.rb#L3-L5": "Add an item",
                                               "acme/other/lib/a.rb:A.b": "B"}
    out2 = tmp_path / "out2"
    prepare_csn([test], out2, query_field="docstring")
    assert read_topics(out2 / "topics.tsv")["acme/shop/lib/cart.rb#L10-L14"] == \
        "Sum of all item prices. @return [Integer]"


def test_csn_repeated_function_gets_a_suffix(tmp_path):
    same = RUBY_TEST[0]
    path = jsonl(tmp_path / "test.jsonl", [same, same, same])
    out = tmp_path / "out"
    prepare_csn([path], out)
    assert list(read_topics(out / "topics.tsv")) == [
        "acme/shop/lib/cart.rb#L10-L14", "acme/shop/lib/cart.rb#L10-L14~2", "acme/shop/lib/cart.rb#L10-L14~3"]


def test_csn_python_docstring_is_removed_from_the_document(tmp_path):
    row = csn_row("acme/geo", "geo.py", "area", "L1-L3", PY_CODE, "Area of a circle of radius r.",
                  ["Area", "of", "a", "circle", "of", "radius", "r", "."], language="python")
    out = tmp_path / "out"
    prepare_csn([jsonl(tmp_path / "py.jsonl", [row])], out)
    assert load_texts(out / "corpus") == {"acme/geo/geo.py#L1-L3": "def area(r):\n    return 3.14159 * r * r\n"}
    assert manifest(out)["notes"]["python_docstrings_removed"] == 1


def test_csn_errors(tmp_path):
    test = jsonl(tmp_path / "test.jsonl", RUBY_TEST)
    other = jsonl(tmp_path / "other.jsonl", RUBY_VALID)
    with pytest.raises(QLogError, match="query file .*other.jsonl' is not one of the corpus files"):
        prepare_csn([test], tmp_path / "out", query_files=[other])
    bad = jsonl(tmp_path / "bad.jsonl", [RUBY_TEST[0], {"repo": "a/b", "docstring": "x"}])
    with pytest.raises(QLogError, match=r"bad.jsonl:2: a CodeSearchNet row needs a string \"code\""):
        prepare_csn([bad], tmp_path / "out")
    with pytest.raises(QLogError, match="CodeSearchNet file .*missing.jsonl' not found"):
        prepare_csn([tmp_path / "missing.jsonl"], tmp_path / "out")
    with pytest.raises(ValueError, match="illegal query_field: 'title'"):
        prepare_csn([test], tmp_path / "out", query_field="title")
    assert not (tmp_path / "out").exists() and leftovers(tmp_path) == []


def test_csn_docid_needs_a_name():
    assert csn_docid({"url": "https://github.com/o/r/blob/abc/src/x y.rb#L1-L2"}) == "o/r/src/x_y.rb#L1-L2"
    with pytest.raises(QLogError, match="f.jsonl:3: a CodeSearchNet row needs a GitHub"):
        csn_docid({"repo": "o/r", "path": "x.rb"}, "f.jsonl:3")


@pytest.mark.parametrize("code, expected", [
    (PY_CODE, "def area(r):\n    return 3.14159 * r * r\n"),
    # multi-line signature with annotations: the header ends at the ':' outside brackets
    ('def f(a: int,\n      b: dict = {"k": 1}) -> str:\n    r"""Doc\n    more."""  \n    return "x"',
     'def f(a: int,\n      b: dict = {"k": 1}) -> str:\n    return "x"'),
    # a comment before the docstring, and a single-quoted one-liner
    ("def g():\n    # note\n    'Doc.'\n    pass\n", "def g():\n    # note\n    pass\n"),
    # a string later in the body is not a docstring
    ('def h():\n    x = 1\n    """not a docstring"""\n', 'def h():\n    x = 1\n    """not a docstring"""\n'),
    # docstring on the def line
    ('def k(): """Doc."""', "def k(): "),
    # the tokenizer rejects it: unchanged
    ('def bad():\n    """unterminated\n', 'def bad():\n    """unterminated\n'),
])
def test_remove_python_docstring(code, expected):
    assert remove_python_docstring(code) == expected


# --- CoSQA -------------------------------------------------------------------------------------

@pytest.fixture
def cosqa(tmp_path):
    folder = tmp_path / "cosqa"
    folder.mkdir()
    code = {'def a():\n    """Sort tokens."""\n    return 1': 0, "def b():\n    return 2": 1, "def c(): pass": 2}
    (folder / "code_idx_map.txt").write_text(json.dumps(code, indent=1), encoding="utf-8")
    items = [
        {"idx": "cosqa-train-7", "doc": "python sort tokens", "code": 'def a():\n    """Sort tokens."""\n    return 1',
         "label": 1, "retrieval_idx": 0},
        {"idx": "cosqa-dev-3", "doc": "return two", "code": "def b():\n    return 2", "label": 1, "retrieval_idx": 1},
    ]
    (folder / "cosqa-retrieval-test-500.json").write_text(json.dumps(items, indent=1), encoding="utf-8")
    return folder


def test_cosqa(cosqa, tmp_path):
    out = tmp_path / "out"
    result = prepare_cosqa(cosqa, out)
    assert (result.documents, result.queries, result.qrels) == (3, 2, 2)
    texts = load_texts(out / "corpus")
    assert list(texts) == ["code-0", "code-1", "code-2"]
    assert '"""Sort tokens."""' in texts["code-0"]  # CoSQA code is kept as published
    assert read_topics(out / "topics.tsv") == {"cosqa-train-7": "python sort tokens", "cosqa-dev-3": "return two"}
    assert read_qrels(out / "qrels.txt") == {"cosqa-train-7": {"code-0": 1}, "cosqa-dev-3": {"code-1": 1}}


def test_cosqa_records_file_without_code_map(tmp_path):
    records = tmp_path / "cosqa-test.json"
    records.write_text(json.dumps([
        {"idx": "t-1", "doc": "sort a list", "code": "def s(x): return sorted(x)", "label": 1},
        {"idx": "t-2", "doc": "open a file", "code": "def o(p): return open(p)", "label": 0},
        {"idx": "t-3", "doc": "read lines", "code": "def r(p): return open(p).readlines()", "label": 1},
        {"idx": "t-3", "doc": "read lines", "code": "def o(p): return open(p)", "label": 0},
        {"idx": 4, "doc": "sorted copy", "code": "def s(x): return sorted(x)", "label": 1},
    ]))
    out = tmp_path / "out"
    result = prepare_cosqa(records, out)
    # distinct code by first appearance; a label-0 record's code is still a (distractor) document
    assert list(load_texts(out / "corpus")) == ["code-0", "code-1", "code-2"]
    assert read_qrels(out / "qrels.txt") == {"t-1": {"code-0": 1}, "t-3": {"code-2": 1}, "4": {"code-0": 1}}
    assert read_topics(out / "topics.tsv") == {"t-1": "sort a list", "t-3": "read lines", "4": "sorted copy"}
    assert result.notes["queries_without_qrels_dropped"] == 1  # t-2 has no relevant record
    with pytest.raises(QLogError, match=r"record 1 needs \"idx\", \"doc\" and \"code\""):
        records.write_text(json.dumps([{"idx": "x", "doc": "y", "retrieval_idx": 0}]))
        prepare_cosqa(records, tmp_path / "out2")


def test_cosqa_missing_input_and_file_for_a_folder(tmp_path):
    with pytest.raises(QLogError, match="CoSQA input .* not found"):
        prepare_cosqa(tmp_path / "nope", tmp_path / "out")
    f = tmp_path / "corpus.jsonl"
    f.write_text("")
    with pytest.raises(QLogError, match=r"is a file; a folder holding the BEIR corpus file 'corpus.jsonl' is expected"):
        prepare_beir(f, tmp_path / "out")


def test_cosqa_unknown_retrieval_idx(cosqa, tmp_path):
    path = cosqa / "cosqa-retrieval-test-500.json"
    items = json.loads(path.read_text())
    items[1]["retrieval_idx"] = 99
    path.write_text(json.dumps(items))
    with pytest.raises(QLogError, match=r"entry 2 of its JSON array: retrieval_idx 99 is not an id of code_idx_map.txt"):
        prepare_cosqa(cosqa, tmp_path / "out")


def test_cosqa_id_shared_by_two_functions(cosqa, tmp_path):
    (cosqa / "code_idx_map.txt").write_text('{"def a(): 1": 0, "def b(): 2": 0}')
    with pytest.raises(QLogError, match="id 0 is given to two different functions"):
        prepare_cosqa(cosqa, tmp_path / "out")


def test_cosqa_whitespace_qid_and_bad_json(cosqa, tmp_path):
    path = cosqa / "cosqa-retrieval-test-500.json"
    path.write_text('[{"idx": "q 1", "doc": "x", "retrieval_idx": 0}]')
    with pytest.raises(QLogError, match=r"qid 'q 1' at .*entry 1 of its JSON array contains whitespace"):
        prepare_cosqa(cosqa, tmp_path / "out")
    path.write_text('[{"idx": "q1",\n "doc": }]')
    with pytest.raises(QLogError, match=r"cosqa-retrieval-test-500.json:2: bad JSON"):
        prepare_cosqa(cosqa, tmp_path / "out")


# --- TREC --------------------------------------------------------------------------------------

@pytest.fixture
def trec(tmp_path):
    folder = tmp_path / "trec"
    corpus = jsonl(folder / "corpus.jsonl", [{"id": "D-1", "contents": "time sharing"},
                                              {"id": "D-2", "contents": "compilers"}])
    topics = folder / "topics.txt"
    topics.write_text("<top>\n<num> Number: 1\n<title> time sharing systems\n</top>\n"
                      "<top>\n<num> Number: 2\n<title> unjudged\n</top>\n", encoding="utf-8")
    qrels = folder / "qrels.txt"
    qrels.write_text("1 Q0 D-1 1\n1 Q0 D-0001 1\n", encoding="utf-8")
    return corpus, topics, qrels


def test_trec_keeps_all_topics_and_counts_unknown_docids(trec, tmp_path):
    out = tmp_path / "out"
    result = prepare_trec(*trec, out)
    assert (result.documents, result.queries, result.judged_queries, result.qrels) == (2, 2, 1, 2)
    assert read_topics(out / "topics.tsv") == {"1": "time sharing systems", "2": "unjudged"}
    assert (out / "qrels.txt").read_text() == "1 0 D-1 1\n1 0 D-0001 1\n"
    assert result.notes["qrels_lines_docid_not_in_corpus"] == 1
    assert manifest(out)["sources"]["topics"] == str(trec[1].resolve())


def test_trec_duplicate_docid_leaves_no_output(trec, tmp_path):
    corpus, topics, qrels = trec
    jsonl(corpus, [{"id": "D-1", "contents": "a"}, {"id": "D-1", "contents": "b"}])
    with pytest.raises(QLogError, match=r"corpus.jsonl:2: duplicate docid 'D-1'"):
        prepare_trec(corpus, topics, qrels, tmp_path / "out")
    assert not (tmp_path / "out").exists() and leftovers(tmp_path) == []


# --- output folder -----------------------------------------------------------------------------

def test_output_folder_rules(trec, tmp_path):
    out = tmp_path / "out"
    out.mkdir()
    prepare_trec(*trec, out)  # an existing empty folder is fine
    with pytest.raises(QLogError, match="is not empty; pass --overwrite"):
        prepare_trec(*trec, out)
    # --overwrite replaces only what this tool wrote: a file somebody added is a reason to refuse, and it stays
    (out / "stale.txt").write_text("added by hand")
    with pytest.raises(QLogError, match=r"entries this tool did not write there \(stale.txt\)"):
        prepare_trec(*trec, out, overwrite=True)
    assert (out / "stale.txt").read_text() == "added by hand"
    (out / "stale.txt").unlink()
    prepare_trec(*trec, out, overwrite=True)
    assert sorted(p.name for p in out.iterdir()) == [".qlog-pyserini.json", "corpus", "manifest.json", "qrels.txt",
                                                     "topics.tsv"]

    precious = tmp_path / "precious"
    precious.mkdir()
    (precious / "thesis.tex").write_text("keep me")
    with pytest.raises(QLogError, match="it has no .qlog-pyserini.json of a prepare output"):
        prepare_trec(*trec, precious, overwrite=True)
    assert (precious / "thesis.tex").read_text() == "keep me"

    with pytest.raises(QLogError, match="output folder .*missing' does not exist"):
        prepare_trec(*trec, tmp_path / "missing" / "out")
    assert leftovers(tmp_path) == []


# --- the real collections ----------------------------------------------------------------------

def test_real_csn_ruby(shared_data, tmp_path):
    csn = shared_data / "csn-ruby"
    out = tmp_path / "csn"
    result = prepare_csn([csn / "test.jsonl", csn / "valid.jsonl"], out)
    assert (result.documents, result.queries, result.judged_queries, result.qrels) == (2661, 1261, 1261, 1261)
    # CodeXGLUE Ruby code never holds the docstring block; one function repeats its docstring
    # as an inline comment ("# Parse the configuration file"), which is code and stays.
    assert result.notes["python_docstrings_removed"] == 0
    assert result.notes["docstring_text_still_in_code"] == 1
    qrels = read_qrels(out / "qrels.txt")
    docids = {docid for docid, _ in iter_documents(out / "corpus")}
    assert all(qid in docids and rel == {qid: 1} for qid, rel in qrels.items())
    assert "Shopify/kubernetes-deploy/lib/kubernetes-deploy/deferred_summary_logging.rb#L37-L60" in qrels


def test_real_cosqa(shared_data, tmp_path):
    result = prepare_cosqa(shared_data / "cosqa", tmp_path / "cosqa")
    assert (result.documents, result.queries, result.qrels) == (6267, 500, 500)
    qrels = read_qrels(tmp_path / "cosqa" / "qrels.txt")
    assert len({d for rel in qrels.values() for d in rel}) == 472  # some functions answer several queries
    assert result.notes["items_code_id_mismatch"] == 0


def test_real_cacm(shared_data, tmp_path):
    cacm = shared_data / "cacm"
    result = prepare_trec(cacm / "cacm.json", cacm / "topics.cacm.txt", cacm / "qrels.cacm.txt", tmp_path / "cacm")
    assert (result.documents, result.queries, result.judged_queries, result.qrels) == (3204, 64, 52, 796)
    # The corpus pads docids to four digits (CACM-0115) but the qrels do not (CACM-115):
    # 55 judgments name 46 documents that the corpus spells differently.
    assert result.notes["qrels_lines_docid_not_in_corpus"] == 55
    assert result.notes["qrels_docids_not_in_corpus"] == 46
