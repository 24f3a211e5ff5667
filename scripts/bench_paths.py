"""Side-by-side timings of the search paths moved onto columns, each against the per-hit route it replaces,
interleaved (A B A B ...) in one process, medians printed. Not a test: figures on a shared machine are noisy;
read the ratios.

    .venv/bin/python scripts/bench_paths.py pyserini INDEX TOPICS [--q 0.7] [--repeats 3]
    .venv/bin/python scripts/bench_paths.py fields   INDEX TOPICS [--q 0.7] [--repeats 3]
    .venv/bin/python scripts/bench_paths.py solr     [--queries 256] [--repeats 5]

pyserini: Anserini's SimpleSearcher.batch_search (what Pyserini's LuceneSearcher.batch_search calls; every
hit's docid and score read, as a run writer reads them) against QLogLuceneSearcher's array-bridge batch on
the same SimpleSearcher (qlog_pyserini.search.pyserini_hits), at k = 10 and 1000.
fields: the multi-field batch's lines parsed into Hits and written by run_lines, against the same lines read
as columns (lucene.fields.FieldResults) and formatted by formats.trec.format_run_columns, k = 1000.
solr: the Solr verb's Python side on made-up answers (1000 float32 scores a query): Hits and per-query
anserini_scores then formats.trec.write_run, against solr.workflow's columns (anserini_score_steps over a
chunk, format_run_columns).
"""

from __future__ import annotations

import argparse
import statistics
import tempfile
import time
from typing import Callable

import numpy as np


def interleaved(routes: dict[str, Callable[[], object]], repeats: int) -> dict[str, float]:
    """Median seconds of each route, the routes run in turn ``repeats`` times."""
    times: dict[str, list[float]] = {name: [] for name in routes}
    for _ in range(repeats):
        for name, route in routes.items():
            started = time.perf_counter()
            route()
            times[name].append(time.perf_counter() - started)
    return {name: statistics.median(t) for name, t in times.items()}


def pyserini(index: str, topics_path: str, q: float, repeats: int) -> None:
    from qlog_pyserini.formats.topics import read_topics
    from qlog_pyserini.jvm.bridge import jclass, start_jvm

    start_jvm()
    from qlog_pyserini.lucene.results import SEARCHER
    from qlog_pyserini.search.pyserini_hits import docid_table, search_simple_searcher

    topics = read_topics(topics_path)
    qids, queries = list(topics), list(topics.values())
    simple = jclass("io.anserini.search.SimpleSearcher")(index)
    jclass(SEARCHER).install(simple, jclass(SEARCHER).qlog_model(0.9, 0.4, q, "lucene"))
    table = docid_table(simple, index)
    array_list = jclass("java.util.ArrayList")

    def theirs(k: int) -> int:
        jq, jids = array_list(), array_list()
        for text, qid in zip(queries, qids):
            jq.add(text)
            jids.add(qid)
        results = {r.getKey(): r.getValue() for r in simple.batch_search(jq, jids, k, 2).entrySet().toArray()}
        return sum(1 for hits in results.values() for h in hits if (h.docid, h.score))

    def ours(k: int) -> int:
        results = search_simple_searcher(simple, queries, qids, k, 2, table)
        return sum(1 for hits in results.values() for h in hits if (h.docid, h.score))

    for k in (10, 1000):
        t = interleaved({"pyserini": lambda k=k: theirs(k), "array bridge": lambda k=k: ours(k)}, repeats)
        print(f"pyserini k={k} q={q:g}, {len(qids)} queries: Pyserini's path {t['pyserini']:.2f} s, array bridge "
              f"{t['array bridge']:.2f} s, ratio {t['pyserini'] / t['array bridge']:.1f}x (medians of {repeats})")


def fields(index: str, topics_path: str, q: float, repeats: int, k: int = 1000) -> None:
    from qlog_pyserini import QLogSearcher
    from qlog_pyserini.formats.topics import read_topics
    from qlog_pyserini.formats.trec import Hit, run_lines
    from qlog_pyserini.jvm.bridge import java_list, jclass
    from qlog_pyserini.lucene.fields import FIELD_SEARCH, search_fields_columns

    topics = read_topics(topics_path)
    qids, queries = list(topics), list(topics.values())
    searcher = QLogSearcher(index, q=q)
    chunks = [(qids[at:at + 64], queries[at:at + 64]) for at in range(0, len(qids), 64)]

    def per_hit() -> str:
        out = []
        for ids, texts in chunks:
            weights = jclass("java.util.HashMap")()
            weights.put("contents", jclass("java.lang.Float")(1.0))
            text = jclass(FIELD_SEARCH).batch_search_fields_tsv(searcher.java, java_list(texts), java_list(ids),
                                                                k, 2, weights)
            results: dict[str, list[Hit]] = {qid: [] for qid in ids}
            for line in text.splitlines():
                qid, docid, score, number = line.split("\t")
                results[qid].append(Hit(docid, float(np.float32(score)), int(number)))
            out.append("".join(run_lines(results, "t")))
        return "".join(out)

    def columns() -> str:
        return "".join(search_fields_columns(searcher, texts, ids, {"contents": 1.0}, k, 2).run_text("t")
                       for ids, texts in chunks)

    t = interleaved({"per hit": per_hit, "columns": columns}, repeats)
    same = per_hit() == columns()
    print(f"fields k={k} q={q:g}, {len(qids)} queries: per hit {t['per hit']:.2f} s, columns {t['columns']:.2f} s, "
          f"ratio {t['per hit'] / t['columns']:.2f}x (medians of {repeats}); same run text: {same}")


def solr(queries: int, repeats: int, k: int = 1000) -> None:
    from qlog_pyserini.formats.trec import Hit, format_run_columns, write_run
    from qlog_pyserini.solr.workflow import BATCH, anserini_score_steps, anserini_scores

    rng = np.random.default_rng(1)
    answers = [([f"repo/path/file{int(x)}.rb#L1-L9" for x in rng.integers(0, 10**6, k)],
                np.sort(rng.gamma(2, 3, k).astype(np.float32))[::-1].astype(np.float64)) for _ in range(queries)]
    qids = [f"q{i}" for i in range(queries)]
    folder = tempfile.mkdtemp()

    def per_hit() -> None:
        results = {qid: anserini_scores([Hit(d, s) for d, s in zip(ids, scores.tolist())])
                   for qid, (ids, scores) in zip(qids, answers)}
        write_run(f"{folder}/per-hit.txt", results, "tag", qids=qids)

    def columns() -> None:
        with open(f"{folder}/columns.txt", "w") as f:
            for at in range(0, queries, BATCH):
                chunk = answers[at:at + BATCH]
                offsets = np.cumsum([0] + [len(ids) for ids, _ in chunk])
                scores = anserini_score_steps(np.concatenate([s for _, s in chunk]).astype(np.float32), offsets)
                f.write(format_run_columns(qids[at:at + BATCH], offsets, [d for ids, _ in chunk for d in ids],
                                           scores, "tag"))

    t = interleaved({"per hit": per_hit, "columns": columns}, repeats)
    same = open(f"{folder}/per-hit.txt").read() == open(f"{folder}/columns.txt").read()
    print(f"solr {queries} queries x {k} hits: per hit {1e3 * t['per hit'] / queries:.2f} ms/query, columns "
          f"{1e3 * t['columns'] / queries:.2f} ms/query, ratio {t['per hit'] / t['columns']:.1f}x "
          f"(medians of {repeats}); same run: {same}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("path", choices=("pyserini", "fields", "solr"))
    parser.add_argument("index", nargs="?")
    parser.add_argument("topics", nargs="?")
    parser.add_argument("--q", type=float, default=0.7)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--queries", type=int, default=256)
    args = parser.parse_args()
    if args.path == "solr":
        solr(args.queries, args.repeats)
    elif not (args.index and args.topics):
        parser.error(f"{args.path} needs INDEX and TOPICS")
    else:
        (pyserini if args.path == "pyserini" else fields)(args.index, args.topics, args.q, args.repeats)


if __name__ == "__main__":
    main()
