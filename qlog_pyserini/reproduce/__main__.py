"""``python -m qlog_pyserini.reproduce``: the command line over :mod:`qlog_pyserini.reproduce.pipeline`."""

from __future__ import annotations

from pathlib import Path
from typing import Sequence

from qlog_pyserini.cli.options import add_threads_option
from qlog_pyserini.cli.parser import ArgumentParser, run_cli
from qlog_pyserini.errors import QLogError
from qlog_pyserini.eval.grid import parse_grid
from qlog_pyserini.reproduce.cache import WORK_KIND, Config
from qlog_pyserini.reproduce.main_table import main_markdown
from qlog_pyserini.reproduce.pipeline import (
    CODE_LANGUAGES,
    FULL_GRID,
    FULL_MODELS,
    FULL_SCALING,
    FULL_SUBSAMPLES,
    QUICK_GRID,
    QUICK_MODELS,
    QUICK_SCALING,
    QUICK_SUBSAMPLES,
    RESULT_FILES,
    STAGES,
    describe,
    reproduce,
    select_stages,
)
from qlog_pyserini.sweep.baselines import DEFAULT_B_GRID, DEFAULT_K1_GRID
from qlog_pyserini.system.outputs import check_not_precious, check_output_dir, check_results_dir, write_marker
from qlog_pyserini.system.progress import info
from qlog_pyserini.system.project import PROJECT_ROOT
from qlog_pyserini.system.provenance import command_line


def main(argv: Sequence[str] | None = None) -> int:
    parser = ArgumentParser(
        prog="scripts/reproduce",
        description="Build the code-search benchmarks that are missing, sweep q on each (both IDF odds forms), "
                    "predict q without labels, run the scaling curve and the tokenizer ablation, then the "
                    "label-free-q evidence (cross-validated tables, nested subsamples, the other models' sweeps, "
                    "leave-one-family-out), the per-query label-free q, the query-time benchmark and the engine "
                    "tests' tables, and write tables and plots with their provenance. Stages, in order: "
                    + "; ".join(describe(name) for name in STAGES)
                    + ". The engines stage runs Maven (mvn on PATH; it fetches what ~/.m2 lacks) and skips its Maven "
                    "tables with one line when mvn is absent; bench and engines time queries: run them on an idle "
                    "machine (e.g. alone, --stages bench,engines).")
    parser.add_argument("--quick", action="store_true",
                        help="minutes instead of an hour: local code only (Python stdlib, JDK src.zip), small slices, "
                             "a coarse q grid")
    names = ",".join(STAGES)
    parser.add_argument("--stages", default=None, metavar="S[,S...]",
                        help=f"run only these stages (default: all of {names}); the corpora are built when a "
                             "stage that sweeps them runs, every step read from the --work cache when its inputs match")
    parser.add_argument("--skip", default=None, metavar="S[,S...]", help="do not run these stages")
    parser.add_argument("--out", default=None, help="results folder (default results/, or results/quick/ with --quick)")
    parser.add_argument("--work", default=str(PROJECT_ROOT / "work" / "reproduce"), help="cache of corpora, indexes, sweeps")
    parser.add_argument("--cache", default=str(PROJECT_ROOT / "cache" / "sources"), help="downloaded Debian packages")
    parser.add_argument("--repos", default=str(PROJECT_ROOT / "cache" / "repos"),
                        help="clones or bare mirrors of the issue sets' repositories (<org>__<repo>), read, never fetched")
    parser.add_argument("--issue-reports", default=str(PROJECT_ROOT / "cache" / "issue-reports" / "sets"),
                        help="the issue-report sets' <language>/ folders (scripts/issue_report_set.py), read in place")
    parser.add_argument("--shared", default=str(PROJECT_ROOT.parent / "shared" / "data"), help="labelled sets folder")
    parser.add_argument("--languages", default=None, help=f"comma-separated subset of {','.join(CODE_LANGUAGES)}")
    parser.add_argument("--queries", type=int, default=None, help="queries per built corpus (default 1000; quick 200)")
    parser.add_argument("--max-docs", type=int, default=None, help="cap on documents per built corpus (quick: 3000)")
    parser.add_argument("--grid", default=None, help=f"q grid (default {FULL_GRID}; quick {QUICK_GRID})")
    add_threads_option(parser, "indexing and search threads of every stage")
    parser.add_argument("--resamples", type=int, default=10000)
    parser.add_argument("--go-target", type=int, default=180_000, help="documented Go functions to fetch (default 180000)")
    args = parser.parse_args(argv)
    quick = args.quick
    stages = select_stages(args.stages, args.skip)
    languages = tuple(args.languages.split(",")) if args.languages else (("python", "java") if quick else CODE_LANGUAGES)
    bad = [lang for lang in languages if lang not in CODE_LANGUAGES]
    if bad:
        raise QLogError(f"unknown language(s) {', '.join(bad)}; choose from {', '.join(CODE_LANGUAGES)}")
    # absolute: the bench and engines stages hand these paths to child processes run from the project root
    args.work, args.cache, args.shared, args.repos, args.issue_reports = (
        str(Path(p).absolute()) for p in (args.work, args.cache, args.shared, args.repos, args.issue_reports))
    work = Path(args.work) / ("quick" if quick else "full")
    # Stale cache entries under the work folder are deleted and rebuilt, so it must be new, empty or
    # reproduce's own (safety.check_output_dir: never '.', a parent of it, home, or someone's folder).
    check_not_precious(args.work, "--work", inputs=[args.shared, args.cache])
    out = Path(args.out or (PROJECT_ROOT / "results" / ("quick" if quick else ""))).absolute()
    check_results_dir(out, RESULT_FILES, inputs=[args.work, args.cache, args.shared])
    Path(args.work).mkdir(parents=True, exist_ok=True)
    check_output_dir(work, WORK_KIND, option="--work", overwrite=True)
    work.mkdir(exist_ok=True)
    write_marker(work, WORK_KIND)
    cfg = Config(
        quick=quick, work=work,
        out=out, cache=Path(args.cache),
        shared=Path(args.shared), languages=languages, queries=args.queries or (200 if quick else 1000),
        max_docs=args.max_docs or (3000 if quick else None), grid=parse_grid(args.grid or (QUICK_GRID if quick else FULL_GRID)),
        forms=("lucene", "rsj"), scaling=QUICK_SCALING if quick else FULL_SCALING,
        ablation=("python-code", "csn-ruby") if quick else (*[f"{l}-code" for l in CODE_LANGUAGES], "csn-ruby", "cosqa"),
        threads=args.threads, resamples=args.resamples, go_target=args.go_target,
        subsamples=QUICK_SUBSAMPLES if quick else FULL_SUBSAMPLES, models=QUICK_MODELS if quick else FULL_MODELS,
        tune_bm25=(DEFAULT_K1_GRID, DEFAULT_B_GRID), repos=Path(args.repos),
        issue_reports=Path(args.issue_reports),
        stages=stages,
        command=command_line("scripts/reproduce", argv))
    tables = reproduce(cfg)
    if "main" in tables:
        print(main_markdown(tables["main"]))
    info(f"wrote {cfg.out} in {cfg.timings['total'] / 60:.1f} min")
    return 0


if __name__ == "__main__":
    run_cli(main)
