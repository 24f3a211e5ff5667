"""The rewritten queries on real engines against the q-log model itself.

Lucene: the boosted query under plain BM25Similarity against QLogBM25Similarity on the same index (every
CSN-Ruby query, q = 1, 0.7, 0.3, both odds forms). Tantivy: the boosted query under Tantivy's own BM25
against an independent q-log computation with Tantivy's parameters (k1 = 1.2, b = 0.75, N = every document).
"""

from __future__ import annotations

import re
from collections import Counter

import numpy as np
import pytest
from conftest import same_ranking

from qlog_pyserini.formula import qlog_bm25
from qlog_pyserini.prepare.datasets import prepare_csn

QS = (1.0, 0.7, 0.3)
FORMS = ("lucene", "rsj")


@pytest.mark.parametrize("form", FORMS)
def test_lucene_rewrite_ranks_as_qlog_similarity(csn_ruby, form: str) -> None:
    from qlog_pyserini.formats.topics import read_topics
    from qlog_pyserini.lucene.searcher import QLogSearcher
    from qlog_pyserini.rewrite.lucene import LuceneRewriter

    prepared, index = csn_ruby
    topics = read_topics(prepared / "topics.tsv")
    with QLogSearcher(index) as reference:
        for q in QS:
            reference.set_qlog(q=q, idf_form=form)
            with LuceneRewriter(index, q, form) as rewriter:
                assert "BM25Similarity" not in reference.similarity
                failures = []
                for qid, text in topics.items():
                    want = [(h.docid, h.score) for h in reference.search(text, 10)]
                    got = [(h.docid, h.score) for h in rewriter.search(text, 10)]
                    # Anserini's tie adjuster rounds scores to 4 decimals: a float-rounding difference (1e-7
                    # relative, 2 float ulps at scores in the hundreds) may cross a rounding boundary, one 1e-4
                    # step, plus its 1e-6 tie steps
                    why = same_ranking(got, want, rel=1e-6, tol=1.2e-4) if got != want else None
                    if why:
                        failures.append(f"{qid}: {why}")
                assert not failures, f"q={q} {form}: {len(failures)}/{len(topics)} differ: {failures[:5]}"


TOKEN = re.compile(r"[a-z0-9]+")
MAX_TOKENS = 40  # Tantivy stores field lengths up to 40 exactly (one-byte fieldnorms beyond)


def _tokens(text: str) -> list[str]:
    """ASCII letter/digit runs shorter than 40 bytes, lower-cased, at most 40 of them: a text Tantivy's default
    tokenizer (which drops tokens of 40 bytes or more) splits into exactly these tokens, with an exact length."""
    return [t for t in TOKEN.findall(text.lower()) if len(t) < 40][:MAX_TOKENS]


class TokenCorpus:
    """Documents as token lists with their postings: the independent side of the Tantivy comparison."""

    def __init__(self, docs: dict[str, list[str]]) -> None:
        self.docs = docs
        self.ids = list(docs)
        self.lengths = np.array([len(t) for t in docs.values()], dtype=float)
        self.avgdl = self.lengths.sum() / len(self.ids)  # Tantivy: total tokens / total documents
        postings: dict[str, dict[int, int]] = {}
        for i, tokens in enumerate(docs.values()):
            for term, tf in Counter(tokens).items():
                postings.setdefault(term, {})[i] = tf
        self.postings = {t: (np.array(list(p)), np.array(list(p.values()), dtype=float)) for t, p in postings.items()}

    def top10(self, query: list[str], q: float, form: str) -> list[tuple[str, float]]:
        """q-log BM25 with Tantivy's k1 = 1.2, b = 0.75, N and avgdl, in float64; documents scoring 0 left out."""
        scores = np.zeros(len(self.ids))
        for term, count in Counter(query).items():
            if term in self.postings:
                at, tf = self.postings[term]
                # Tantivy keeps BM25's (k1 + 1) factor, which Lucene >= 8 drops
                scores[at] += count * 2.2 * qlog_bm25(tf, self.lengths[at], self.avgdl, len(at), len(self.ids),
                                                      q, form, k1=1.2, b=0.75)
        best = [i for i in np.argsort(-scores, kind="stable")[:10] if scores[i] > 0]
        return [(self.ids[i], float(scores[i])) for i in best]


@pytest.fixture(scope="module")
def csn_ruby_tokens(shared_data, tmp_path_factory) -> tuple[TokenCorpus, dict[str, list[str]]]:
    """CSN-Ruby's documents and queries as token lists."""
    from qlog_pyserini.formats.documents import iter_documents
    from qlog_pyserini.formats.topics import read_topics

    folder = shared_data / "csn-ruby"
    if not (folder / "test.jsonl").is_file():
        pytest.skip("csn-ruby is absent")
    prepared = prepare_csn([folder / "test.jsonl", folder / "valid.jsonl"], tmp_path_factory.mktemp("csn") / "data")
    docs = {docid: _tokens(text) for docid, text in iter_documents(prepared.out / "corpus")}
    topics = {qid: _tokens(text) for qid, text in read_topics(prepared.out / "topics.tsv").items()}
    return TokenCorpus(docs), {qid: t for qid, t in topics.items() if t}


def test_tantivy_rewrite_ranks_as_independent_qlog(csn_ruby_tokens) -> None:
    tantivy = pytest.importorskip("tantivy", reason="the tantivy package is not installed (extra: rewrite)")
    from qlog_pyserini.rewrite.tantivy_index import TantivyRewriter

    corpus, topics = csn_ruby_tokens
    builder = tantivy.SchemaBuilder()
    builder.add_text_field("id", stored=True, tokenizer_name="raw")
    builder.add_text_field("body")
    schema = builder.build()
    index = tantivy.Index(schema)
    writer = index.writer(heap_size=50_000_000, num_threads=1)
    for docid, tokens in corpus.docs.items():
        writer.add_document(tantivy.Document(id=docid, body=" ".join(tokens)))
    writer.commit()
    writer.wait_merging_threads()
    index.reload()
    searcher = index.searcher()
    assert searcher.num_docs == len(corpus.ids)
    for form in FORMS:
        for q in QS:
            rewriter = TantivyRewriter(index, "body", q, form)
            failures = []
            for qid, query in topics.items():
                # under rsj a document matching only zero-boost terms scores 0: Tantivy lists it, the
                # reference leaves it out; the documents that score are compared
                got = [(searcher.doc(a)["id"][0], s) for s, a in rewriter.search(" ".join(query), 10) if s > 0]
                want = corpus.top10(query, q, form)
                why = same_ranking(got, want, rel=2e-6)
                if why:
                    failures.append(f"{qid}: {why}")
            assert not failures, f"q={q} {form}: {len(failures)}/{len(topics)} differ: {failures[:5]}"


@pytest.mark.parametrize("form", ["rsj"])
def test_rewrite_verb_run_matches_search_run(csn_ruby, tmp_path, form: str) -> None:
    from qlog_pyserini.formats.trec import read_run
    from qlog_pyserini.rewrite.__main__ import main as rewrite_main
    from qlog_pyserini.search.__main__ import main as search_main

    prepared, index = csn_ruby
    topics = str(prepared / "topics.tsv")
    common = ["--index", str(index), "--topics", topics, "--q", "0.5", "--idf-form", form, "--hits", "100"]
    assert rewrite_main(["--engine", "lucene", *common, "--output", str(tmp_path / "rewrite.txt")]) == 0
    assert search_main([*common, "--output", str(tmp_path / "search.txt")]) == 0
    got, want = read_run(tmp_path / "rewrite.txt"), read_run(tmp_path / "search.txt")
    assert list(got) == list(want) and len(want) > 1000
    differ = [qid for qid in want if same_ranking([(h.docid, h.score) for h in got[qid]],
                                                   [(h.docid, h.score) for h in want[qid]], rel=1e-6, tol=1.2e-4)]
    assert not differ, differ[:5]


def test_rewrite_verb_refuses_missing_inputs(tmp_path, capsys) -> None:
    from qlog_pyserini.cli.parser import run_cli
    from qlog_pyserini.rewrite.__main__ import main as rewrite_main

    topics = tmp_path / "t.tsv"
    topics.write_text("1\tparse json\n")
    for args, words in ((["--engine", "lucene", "--topics", str(topics), "--q", "0.7", "--output", str(tmp_path / "r")],
                         "--engine lucene needs --index"),
                        (["--engine", "elasticsearch", "--topics", str(topics), "--q", "0.7", "--print"],
                         "needs --url and --collection"),
                        (["--engine", "solr", "--url", "http://127.0.0.1:1/solr", "--collection", "c",
                          "--topics", str(topics), "--q", "9", "--print"], "illegal q value")):
        with pytest.raises(SystemExit) as e:
            run_cli(rewrite_main, args)
        assert e.value.code == 2
        err = capsys.readouterr().err
        assert err.startswith("error: ") and words in err, err
    assert not (tmp_path / "r").exists()


def test_rewrite_verb_on_a_tantivy_index_folder(tmp_path, capsys) -> None:
    tantivy = pytest.importorskip("tantivy", reason="the tantivy package is not installed (extra: rewrite)")
    import json

    from qlog_pyserini.formats.trec import read_run
    from qlog_pyserini.rewrite.__main__ import main as rewrite_main

    builder = tantivy.SchemaBuilder()
    builder.add_text_field("id", stored=True, tokenizer_name="raw")
    builder.add_text_field("body")
    (tmp_path / "idx").mkdir()
    index = tantivy.Index(builder.build(), path=str(tmp_path / "idx"))
    writer = index.writer(heap_size=15_000_000, num_threads=1)
    texts = {"d1": "parse json body", "d2": "json json", "d3": "write file", "d4": "parse file", "d5": "other"}
    for docid, text in texts.items():
        writer.add_document(tantivy.Document(id=docid, body=text))
    writer.commit()
    writer.wait_merging_threads()
    (tmp_path / "t.tsv").write_text("1\tParse JSON json\n2\tnowhere\n")
    common = ["--engine", "tantivy", "--index", str(tmp_path / "idx"), "--topics", str(tmp_path / "t.tsv"), "--q", "0.5"]
    assert rewrite_main([*common, "--print"]) == 0
    lines = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    corpus = TokenCorpus({d: t.split() for d, t in texts.items()})
    w = {k: v for k, v in lines[0]["boosts"].items()}
    assert set(w) == {"body:parse", "body:json"} and set(lines[1]["boosts"]) == {"body:nowhere"}
    x = 1 + (5 - 2 + 0.5) / (2 + 0.5)  # "json": n = 2 of N = 5, repeated in the query
    assert w["body:json"] == pytest.approx(2 * (x ** 0.5 - 1) / 0.5 / np.log(x))
    assert rewrite_main([*common, "--output", str(tmp_path / "run.txt"), "--hits", "5"]) == 0
    run = read_run(tmp_path / "run.txt")
    want = corpus.top10(["parse", "json", "json"], 0.5, "lucene")
    assert not same_ranking([(h.docid, h.score) for h in run["1"]], want, rel=2e-6)
    assert "2" not in run  # a query of absent terms matches nothing
