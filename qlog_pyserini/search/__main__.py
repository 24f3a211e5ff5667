"""``python -m qlog_pyserini.search``: the command line over :mod:`qlog_pyserini.search.batch`."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Sequence

from qlog_pyserini.cli import ArgumentParser, run_cli
from qlog_pyserini.errors import QLogError
from qlog_pyserini.formats.topics import read_topics
from qlog_pyserini.formats.trec import check_id, write_run
from qlog_pyserini.formula import DEFAULT_B, DEFAULT_K1, check_form, check_q
from qlog_pyserini.qpred.rule import add_auto_arguments, describe, is_auto, predict_from_args
from qlog_pyserini.search.batch import default_run_tag, search_topics
from qlog_pyserini.search.searcher import QLogSearcher, check_index_dir
from qlog_pyserini.search.similarities import model


def main(argv: Sequence[str] | None = None) -> int:
    parser = ArgumentParser(
        prog="python -m qlog_pyserini.search",
        description="Search a Lucene index with BM25 whose IDF is the q-logarithm of the odds, "
                    "ln_q(x) = (x^(1-q) - 1)/(1 - q), and write a TREC run (qid Q0 docid rank score tag). "
                    "q = 1 is Lucene/Pyserini BM25; q < 1 amplifies rare terms such as code identifiers; "
                    "q > 1 saturates. Only the IDF changes: k1, b and the analyzer are BM25's.")
    parser.add_argument("--index", required=True, metavar="DIR", help="Lucene index built by qlog_pyserini.index, Anserini or Pyserini")
    parser.add_argument("--topics", required=True, metavar="FILE",
                        help="queries: TSV (qid<TAB>text), BEIR/CoIR queries.jsonl, or TREC topics. "
                             "A query whose text is empty (or only stopwords) gets no hits and no run lines.")
    parser.add_argument("--output", required=True, metavar="RUN", help="TREC run file to write (atomically; its folder must exist)")
    parser.add_argument("--q", default="1", metavar="Q|auto",
                        help="q of the q-logarithm IDF (default 1 = BM25); finite, or 'auto': predicted from the "
                             "index's hapax density with no labels, q = clip(1 - c * h_tok, q_min, 1), "
                             "logged on stderr (see --auto-*)")
    add_auto_arguments(parser)
    parser.add_argument("--k1", type=float, default=DEFAULT_K1, help=f"BM25 k1 (default {DEFAULT_K1}, as Pyserini)")
    parser.add_argument("--b", type=float, default=DEFAULT_B, help=f"BM25 b (default {DEFAULT_B}, as Pyserini)")
    parser.add_argument("--idf-form", default="lucene", metavar="lucene|rsj",
                        help="odds inside ln_q: 'lucene' = 1 + (N-n+0.5)/(n+0.5) (default; q=1 is Lucene's BM25), "
                             "'rsj' = (N-n+0.5)/(n+0.5), the paper's form, IDF floored at 0")
    parser.add_argument("--similarity", default="qlog", metavar="NAME",
                        help="ranking model: qlog (default), bm25, idf-gamma (BM25 with idf^gamma), qld "
                             "(Dirichlet LM), dfr (DFR InL2), dph (DFR DPH); see qlog_pyserini.similarities")
    parser.add_argument("--gamma", type=float, default=1.0, help="exponent for --similarity idf-gamma (default 1)")
    parser.add_argument("--mu", type=float, default=1000.0, help="Dirichlet mu for --similarity qld (default 1000, as Pyserini)")
    parser.add_argument("--hits", type=int, default=1000, help="hits per query (default 1000)")
    parser.add_argument("--threads", type=int, default=1, help="search threads (default 1)")
    parser.add_argument("--run-tag", default=None, help="run tag in column 6 (default qlog-bm25-q<Q>-<form> for qlog, "
                                                         "else the model name and its parameter)")
    parser.add_argument("--quiet", action="store_true", help="no progress bar")
    args = parser.parse_args(argv)

    auto = is_auto(args.q)
    if auto and args.similarity != "qlog":
        raise QLogError(f"--q auto applies to --similarity qlog only, not {args.similarity!r}")
    try:
        q = 1.0 if auto else check_q(args.q)
        form = check_form(args.idf_form)
    except ValueError as e:
        raise QLogError(str(e)) from None
    if args.hits < 1:
        raise QLogError(f"--hits must be at least 1, got {args.hits}")
    if args.threads < 1:
        raise QLogError(f"--threads must be at least 1, got {args.threads}")
    tag = check_id(args.run_tag or default_run_tag(args.similarity, q, form, args.gamma, args.mu), "run tag")
    out_dir = Path(args.output).parent
    if not (out_dir if str(out_dir) else Path(".")).is_dir():
        raise QLogError(f"output folder {str(out_dir)!r} does not exist")
    check_index_dir(args.index)
    topics = read_topics(args.topics)
    if not topics:
        raise QLogError(f"topics file {args.topics!r} holds no queries")
    if auto:
        prediction = predict_from_args(args.index, args)
        print(describe(prediction), file=sys.stderr)
        q = prediction.q
        tag = args.run_tag or default_run_tag(args.similarity, q, form)
    empty = sum(1 for text in topics.values() if not text.strip())

    try:
        model(args.similarity)
        searcher = QLogSearcher(args.index, k1=args.k1, b=args.b, q=q, idf_form=form)
        if args.similarity != "qlog":
            searcher.set_similarity(args.similarity, gamma=args.gamma, mu=args.mu)
    except ValueError as e:
        raise QLogError(str(e)) from None
    print(f"similarity: {searcher.similarity} on {args.index} ({searcher.num_docs} docs), "
          f"{len(topics)} queries", file=sys.stderr)
    if empty:
        print(f"warning: {empty} queries have empty text; they get no hits", file=sys.stderr)
    results = search_topics(searcher, topics, hits=args.hits, threads=args.threads, progress=not args.quiet)
    write_run(args.output, results, tag, qids=list(topics))
    print(f"wrote {sum(map(len, results.values()))} lines for {len(topics)} queries to {args.output}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    run_cli(main)
