"""``python -m qlog_pyserini.build``: the command line over :mod:`qlog_pyserini.build.jar`."""

from __future__ import annotations

from typing import Sequence

from qlog_pyserini.cli.parser import run_cli, verb_parser
from qlog_pyserini.build.jar import bench_jar, similarity_jar
from qlog_pyserini.jvm.toolchain import find_jdk, pyserini_jar


def main(argv: Sequence[str] | None = None) -> int:
    parser = verb_parser(
        "build",
        "Compile the q-log BM25 Lucene similarity (java-similarity/) against the installed "
        "Pyserini's Anserini fatjar with a JDK >= 21, and cache the jar. Searching builds it "
        "on first use; run this to build ahead of time or to check the toolchain.")
    parser.add_argument("--force", action="store_true", help="rebuild even if a jar for these sources exists")
    parser.add_argument("--verbose", action="store_true", help="print the javac command line")
    parser.add_argument("--bench", action="store_true",
                        help="also build the bench jar (java-similarity/qlog-benchmark: SearchBenchmark, which "
                        "python -m qlog_pyserini.bench runs), a jar of its own beside the similarity jar")
    args = parser.parse_args(argv)
    jdk = find_jdk()
    jar = similarity_jar(force=args.force, verbose=args.verbose)
    print(f"JDK:       {jdk.home} (Java {jdk.version})")
    print(f"Pyserini:  {pyserini_jar()}")
    print(f"built jar: {jar}")
    if args.bench:
        print(f"bench jar: {bench_jar(force=args.force, verbose=args.verbose)}")
    return 0


if __name__ == "__main__":
    run_cli(main)
