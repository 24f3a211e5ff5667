"""locate beside bm25s's pure-Python route: speed on one repository, effectiveness on the issue sets.

    .venv/bin/python scripts/bench_locate.py --repos cache/repos --repo apache__dubbo --rev HEAD \
        --shared ../shared/data --work work/locate-bench [--issue-reports DIR] [--max-instances N] \
        [--speed-only] [--output results/locate-bench.md]

Speed: a checkout of --rev of the mirror --repos/--repo; cold index, warm queries (the issues of the shared sets),
the update after one changed file, and bm25s's build and query over the same files, with ratios
(qlog_pyserini.bench.locate). Effectiveness: Acc@1, Acc@5 and MRR of both routes on every shared set and, with
--issue-reports, every language of the issue-report sets (``DIR/<language>/*_dataset.jsonl``, SWE-bench's format:
scripts/issue_report_set.py), prepared by prepare's rules under --work (kept, and reused while their inputs and
file rules are unchanged). Not a test: timings on a shared machine are noisy; the load average
at the start is printed with them. Writes --output (markdown) and the same figures as JSON beside it.
"""

from __future__ import annotations

import argparse
import json
import shutil
import tempfile
from pathlib import Path

from qlog_pyserini.cli.parser import run_cli
from qlog_pyserini.errors import QLogError
from qlog_pyserini.jvm.provenance import provenance
from qlog_pyserini.system.outputs import check_output_files, write_text
from qlog_pyserini.system.progress import info
from qlog_pyserini.system.provenance import command_line, provenance_markdown

QUERIES = 60


def prepare_sets(shared: Path, repos: Path, work: Path, max_instances: int | None,
                 issue_reports: Path | None = None) -> list[tuple[str, Path, tuple]]:
    """(name, prepared set, languages) of every shared set, then of every language of ``issue_reports``."""
    from qlog_pyserini.instances.build import prepare_issue_set
    from qlog_pyserini.instances.rules import FileRules
    from qlog_pyserini.instances.sources import record_format
    from qlog_pyserini.reproduce.cache import cached, stamp
    from qlog_pyserini.reproduce.issue_reports import PREFIX, language_folders
    from qlog_pyserini.reproduce.issues import FOLDER_LANGUAGES, prepared_set_key

    sources = [(folder.name, folder, sorted(folder.glob("*.jsonl")))
               for folder in sorted(p for p in (shared / "issues").iterdir() if p.is_dir() and any(p.glob("*.jsonl")))]
    if issue_reports is not None:
        sources += [(PREFIX + folder.name, folder, sorted(folder.glob("*_dataset.jsonl")))
                    for folder in language_folders(issue_reports)]
    sets = []
    (work / "sets").mkdir(parents=True, exist_ok=True)
    for name, folder, inputs in sources:
        languages = FOLDER_LANGUAGES[folder.name]
        out = work / "sets" / name
        key = prepared_set_key(languages, inputs=[str(p) for p in inputs], sizes=[p.stat().st_size for p in inputs],
                               repos=str(repos), max_instances=max_instances)
        if not cached(out, key):
            prepare_issue_set(record_format(inputs), inputs, repos, out, FileRules(languages),
                              max_instances=max_instances, skip_missing=True, overwrite=True, progress=False)
            stamp(out, key)
        sets.append((name, out, languages))
    return sets


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--repos", required=True, help="the folder of mirrors (<org>__<repo>)")
    parser.add_argument("--repo", default="apache__dubbo", help="the mirror timed for speed (default %(default)s)")
    parser.add_argument("--rev", default="HEAD", help="its commit (default %(default)s)")
    parser.add_argument("--shared", required=True, help="the shared data folder (issues/<language>/*.jsonl)")
    parser.add_argument("--work", required=True, help="where the sets are prepared and the indexes built")
    parser.add_argument("--issue-reports", help="the issue-report sets' folder (<language>/*_dataset.jsonl), measured "
                        "beside the shared sets")
    parser.add_argument("--max-instances", type=int, help="instances per set (default: all)")
    parser.add_argument("--speed-only", action="store_true", help="skip the effectiveness runs")
    parser.add_argument("--output", default="results/locate-bench.md")
    args = parser.parse_args(argv)
    command = command_line("scripts/bench_locate.py", argv)
    repos, shared, work = Path(args.repos), Path(args.shared), Path(args.work)
    if not (repos / args.repo).is_dir():
        raise QLogError(f"--repos {args.repos!r} holds no {args.repo}")
    if not (shared / "issues").is_dir():
        raise QLogError(f"--shared {args.shared!r} holds no issues/ folder")
    if args.issue_reports is not None and not Path(args.issue_reports).is_dir():
        raise QLogError(f"--issue-reports {args.issue_reports!r} is not a folder")
    if args.max_instances is not None and args.max_instances < 1:
        raise QLogError(f"--max-instances must be at least 1, got {args.max_instances}")
    output = Path(args.output)
    check_output_files({"--output": output})
    from qlog_pyserini.bench import locate as bench

    work.mkdir(parents=True, exist_ok=True)
    sets = prepare_sets(shared, repos, work, args.max_instances,
                        Path(args.issue_reports) if args.issue_reports else None)
    queries = bench.issue_queries([folder for _, folder, _ in sets], QUERIES)
    info(f"speed on {args.repo} at {args.rev}: {len(queries)} queries")
    with tempfile.TemporaryDirectory(dir=work, prefix="speed-") as tmp:
        speed = bench.measure_speed(repos / args.repo, args.rev, queries, Path(tmp))
    info(json.dumps(speed.to_json()))
    rows = []
    if not args.speed_only:
        pooled: dict[str, list] = {"locate": [], "bm25s": []}
        for name, folder, languages in sets:
            per_route = bench.rank_instances(folder, repos, work / "effectiveness" / name, languages, progress=info)
            rows += [bench.summarize(name, route, r) for route, r in per_route.items()]
            for route, r in per_route.items():
                pooled[route] += r
            shutil.rmtree(work / "effectiveness" / name, ignore_errors=True)  # one index per base commit: large
        rows += [bench.summarize("all", route, r) for route, r in pooled.items()]
    sections = ["# locate beside bm25s: speed and effectiveness", "", bench.speed_markdown(speed)]
    if rows:
        sections += ["", bench.effectiveness_markdown(rows)]
    sections += ["", provenance_markdown(provenance(command))]
    write_text(output, "\n".join(sections))
    write_text(output.with_suffix(".json"), json.dumps({"speed": speed.to_json(),
                                                        "effectiveness": [r.__dict__ for r in rows]}, indent=2) + "\n")
    print(f"wrote {output}")
    return 0


if __name__ == "__main__":
    run_cli(main)
