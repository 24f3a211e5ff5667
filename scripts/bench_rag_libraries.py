"""q-log BM25 in the Python BM25 libraries: speed and effectiveness, each written to its results file.

    .venv/bin/python scripts/bench_rag_libraries.py speed --prepared work/demo/jdk25-src/prepared \
        [--q 0.5] [--repeats 5] [--output results/bm25s-bench.md]
    .venv/bin/python scripts/bench_rag_libraries.py ndcg --stdlib work/demo/python3.13-stdlib \
        --csn-ruby ../shared/data/csn-ruby --work work/rag-libraries [--output results/rag-libraries.md]

speed: bm25s q-log against plain bm25s side by side, and the rescale's cost at the corpus's size and at 1M
documents (qlog_pyserini.bench.rag_speed). ndcg: NDCG@10 of BM25 and q-log BM25 through Lucene, bm25s and
rank_bm25 on the same corpora and queries, with each route's label-free q (qlog_pyserini.bench.rag_ndcg).
The demo's folders come from `python -m qlog_pyserini.demo --work work/demo`. Not a test: timings on a shared
machine are noisy; read the ratios.
"""

from __future__ import annotations

import argparse
from pathlib import Path

from qlog_pyserini.cli.parser import run_cli
from qlog_pyserini.errors import QLogError
from qlog_pyserini.system.outputs import check_output_files, write_text
from qlog_pyserini.system.provenance import command_line


def _require(folder: str, wanted: str, option: str, hint: str = "") -> None:
    if not (Path(folder) / wanted).exists():
        raise QLogError(f"{option} {folder!r} holds no {wanted}{hint}")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    verbs = parser.add_subparsers(dest="what", required=True)
    speed = verbs.add_parser("speed", help="bm25s q-log latency and the rescale's cost")
    speed.add_argument("--prepared", required=True, help="a prepared folder: corpus/ (JsonCollection) and topics.tsv")
    speed.add_argument("--q", type=float, default=0.5)
    speed.add_argument("--repeats", type=int, default=5)
    speed.add_argument("--output", default="results/bm25s-bench.md")
    ndcg = verbs.add_parser("ndcg", help="NDCG@10 through Lucene, bm25s and rank_bm25")
    ndcg.add_argument("--stdlib", required=True, help="the demo's stdlib folder (prepared/ and index/)")
    ndcg.add_argument("--csn-ruby", required=True, help="the CSN-Ruby data folder (test.jsonl, valid.jsonl)")
    ndcg.add_argument("--work", required=True, help="where CSN-Ruby is prepared and indexed (kept and reused)")
    ndcg.add_argument("--output", default="results/rag-libraries.md")
    args = parser.parse_args(argv)
    command = command_line("scripts/bench_rag_libraries.py", argv)
    # every input is checked before the minutes of indexing and searching
    if args.what == "speed":
        for wanted in ("corpus", "topics.tsv"):
            _require(args.prepared, wanted, "--prepared", " (python -m qlog_pyserini.demo makes it)")
    else:
        for wanted in ("prepared/topics.tsv", "index"):
            _require(args.stdlib, wanted, "--stdlib", " (python -m qlog_pyserini.demo makes it)")
        for wanted in ("test.jsonl", "valid.jsonl"):
            _require(args.csn_ruby, wanted, "--csn-ruby")
    check_output_files({"--output": args.output})
    if args.what == "speed":
        from qlog_pyserini.bench import rag_speed as benchmark

        result = benchmark.run(args.prepared, q=args.q, repeats=args.repeats)
        write_text(args.output, benchmark.format_markdown(result, command))
    else:
        from qlog_pyserini.bench import rag_ndcg as effectiveness

        rows = effectiveness.run({"python-stdlib (demo)": effectiveness.demo_corpus(Path(args.stdlib)),
                                  "CSN-Ruby": effectiveness.csn_ruby_corpus(Path(args.csn_ruby), Path(args.work))})
        write_text(args.output, effectiveness.format_markdown(rows, command))
    print(f"wrote {args.output}")
    return 0


if __name__ == "__main__":
    run_cli(main)
