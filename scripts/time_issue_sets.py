"""Time the instance-set pipeline on the shared issue sets: prepare (git -> corpora) and index (one JVM)
per language set; then the pipeline's target at size: prepare --format git-history, index --instances and
sweep --instances (the verb's default grids, and the label-free configuration ``--localize auto``: units,
path field, the issue's evidence with each file's symbol table) on 300 commits of a repository of about 1,000 source files.
The figures go to results/issue-sets-timing.json and results/issue-sets-timing.md. Not a test: it runs on
the shared data and the repository mirrors, and the machine's load is recorded beside the figures.

    .venv/bin/python scripts/time_issue_sets.py [--issues ../shared/data/issues] [--repos cache/repos]
        [--sets cache/issue-sets] [--indexes cache/issue-indexes] [--sweeps cache/issue-sweeps] [--threads 2]
        [--results results]

Each set is prepared into SETS/<set> and indexed into INDEXES/<set>; a set folder that exists is
replaced only when this tool wrote it (--overwrite semantics), and indexes already built from the same
corpora are reused, so the index time is that of a cold build only when INDEXES/<set> is new (the JSON
says how many indexes were built and how many reused). The projection to the pipeline's target (300
instances of about 1,000 files) scales the measured documents per second of the cold builds.

The at-size run (SETS/at-size, INDEXES/at-size, SWEEPS/at-size) measures that target instead of projecting
it: wall-clock and CPU seconds of each step (this process and its finished children: git, and the JVM, which
runs in this process) and the load average before and after it. The machine may be shared, so the figure for
two cores of its own is derived from CPU time: the CPU seconds of a step that runs on --threads threads (index,
sweep) divided by --threads, and prepare's CPU seconds whole (one Python thread, git beside it).
"""

from __future__ import annotations

import argparse
import os
import resource
import time
from pathlib import Path

from qlog_pyserini.cli.parser import run_cli
from qlog_pyserini.errors import QLogError
from qlog_pyserini.eval.report import markdown_table
from qlog_pyserini.instances.build import prepare_history_set, prepare_issue_set
from qlog_pyserini.instances.indexing import index_instance_set
from qlog_pyserini.instances.rules import FileRules
from qlog_pyserini.sweep.results import read as read_result
from qlog_pyserini.system.outputs import check_results_dir, mark_results, write_json, write_text
from qlog_pyserini.system.provenance import command_line, git_commit, load_average, machine

# The shared sets and the languages whose files are documents: Multi-SWE-bench's js set holds
# TypeScript repositories too (Kong/insomnia), so it reads both.
SETS = {"java": ("java",), "js": ("javascript", "typescript"), "ts": ("typescript",), "c": ("c",)}
TARGET_INSTANCES, TARGET_FILES = 300, 1000
NAMES = ("issue-sets-timing.json", "issue-sets-timing.md")
TARGET_SECONDS = 600
# The at-size repository: alibaba/fastjson2, 859 non-test Java files at its mirror's head, the mirror nearest
# 1,000 (apache/dubbo has 2,283). A fixed revision and start date make the same 300 commits on every run
# whatever the mirror's head; the range (2023-05 to 2026-01) renames no file whose blob the mirror lacks,
# so git's rename detection runs (report.json: renames_detected).
AT_SIZE = {"repo": "alibaba__fastjson2", "languages": ("java",), "revision": "2e31d68b18a6613dfe1e49914116cb610976e26c~1",
           "since": "2023-05-01", "instances": TARGET_INSTANCES}


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--issues", default="../shared/data/issues")
    parser.add_argument("--repos", default="cache/repos")
    parser.add_argument("--sets", default="cache/issue-sets")
    parser.add_argument("--indexes", default="cache/issue-indexes")
    parser.add_argument("--sweeps", default="cache/issue-sweeps")
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--results", default="results")
    args = parser.parse_args(argv)
    # every input is checked before the half hour of preparing, indexing and sweeping
    missing = [name for name in SETS if not (Path(args.issues) / name).exists()]
    if missing:
        raise QLogError(f"--issues {args.issues!r} holds no {', '.join(missing)} (the shared issue sets)")
    if not (Path(args.repos) / AT_SIZE["repo"]).is_dir():
        raise QLogError(f"--repos {args.repos!r} holds no {AT_SIZE['repo']} (fetch its mirror there)")
    if args.threads < 1:
        raise QLogError(f"--threads must be at least 1, not {args.threads}")
    results = check_results_dir(args.results, NAMES, option="--results")
    Path(args.sets).mkdir(parents=True, exist_ok=True)
    Path(args.indexes).mkdir(parents=True, exist_ok=True)
    rows = []
    for name, languages in SETS.items():
        started, cpu = time.monotonic(), cpu_seconds()
        prepared = prepare_issue_set("multi-swe-bench", [Path(args.issues) / name], args.repos,
                                     Path(args.sets) / name, FileRules(languages), overwrite=True, progress=False)
        prepare_s, prepare_cpu = time.monotonic() - started, cpu_seconds() - cpu
        cpu = cpu_seconds()
        indexed = index_instance_set(Path(args.sets) / name, Path(args.indexes) / name, threads=args.threads,
                                     progress=False)
        rows.append({"set": name, "languages": list(languages), "read": prepared.read, "kept": prepared.kept,
                     "dropped": prepared.dropped, "corpora": prepared.corpora, "documents": prepared.documents,
                     "prepare_seconds": round(prepare_s, 1), "prepare_cpu_seconds": round(prepare_cpu, 1),
                     "indexes_built": indexed.built, "indexes_reused": indexed.reused,
                     "indexed_documents": indexed.documents, "index_seconds": round(indexed.seconds, 1),
                     "index_cpu_seconds": round(cpu_seconds() - cpu, 1), "load_average_after": load_average()})
        print(rows[-1])
    cold = [r for r in rows if r["indexes_built"] and not r["indexes_reused"]]
    docs, secs = sum(r["indexed_documents"] for r in cold), sum(r["index_seconds"] for r in cold)
    cpu = sum(r["index_cpu_seconds"] for r in cold)
    per_index = secs / sum(r["indexes_built"] for r in cold) if cold else None
    total = {"instances": sum(r["kept"] for r in rows), "corpora": sum(r["corpora"] for r in rows),
             "documents": sum(r["documents"] for r in rows),
             "prepare_seconds": round(sum(r["prepare_seconds"] for r in rows), 1),
             "index_seconds": round(sum(r["index_seconds"] for r in rows), 1),
             "cold_documents_per_second": round(docs / secs, 1) if secs else None,
             "cold_index_cpu_seconds": round(cpu, 1),
             "cold_documents_per_cpu_second": round(docs / cpu, 1) if cpu else None,
             f"projected_index_seconds_{TARGET_INSTANCES}x{TARGET_FILES}_on_{args.threads}_idle_cores":
                 round(TARGET_INSTANCES * TARGET_FILES / (docs / cpu) / args.threads, 0) if cpu else None,
             "cold_seconds_per_index": round(per_index, 2) if per_index else None,
             f"projected_index_seconds_{TARGET_INSTANCES}x{TARGET_FILES}":
                 round(TARGET_INSTANCES * TARGET_FILES / (docs / secs), 0) if secs else None}
    at_size = time_at_size(Path(args.repos) / AT_SIZE["repo"], Path(args.sets) / "at-size",
                           Path(args.indexes) / "at-size", Path(args.sweeps) / "at-size", args.threads)
    data = {"command": command_line("scripts/time_issue_sets.py", argv), "git_commit": git_commit(),
            "machine": machine(), "threads": args.threads, "sets": rows, "total": total, "at_size": at_size}
    Path(results).mkdir(exist_ok=True)
    write_json(Path(results) / NAMES[0], data)
    write_text(Path(results) / NAMES[1], markdown(data))
    mark_results(results, NAMES)


def time_at_size(repository: Path, set_dir: Path, index_dir: Path, sweep_dir: Path, threads: int) -> dict:
    """prepare --format git-history, index --instances and sweep --instances at the target's size, each step timed."""
    from qlog_pyserini.sweep.__main__ import main as sweep_main

    steps: dict[str, dict] = {}

    def step(name: str, work):
        load, started, cpu = load_average(), time.monotonic(), cpu_seconds()
        result = work()
        wall, used = time.monotonic() - started, cpu_seconds() - cpu
        idle = used if name == "prepare" else used / threads
        steps[name] = {"wall_seconds": round(wall, 1), "cpu_seconds": round(used, 1),
                       "idle_seconds": round(idle, 1), "load_average_before": load,
                       "load_average_after": load_average()}
        print(name, steps[name])
        return result

    prepared = step("prepare", lambda: prepare_history_set(
        repository, set_dir, FileRules(AT_SIZE["languages"]), revision=AT_SIZE["revision"], since=AT_SIZE["since"],
        max_instances=AT_SIZE["instances"], overwrite=True, progress=False))
    indexed = step("index", lambda: index_instance_set(set_dir, index_dir, threads=threads, progress=False))
    sweep_dir.parent.mkdir(parents=True, exist_ok=True)
    step("sweep", lambda: sweep_main(["--instances", str(set_dir), "--index", str(index_dir), "--out", str(sweep_dir),
                                      "--localize", "auto", "--threads", str(threads), "--overwrite", "--quiet"]))
    summary = read_result(sweep_dir)
    total = {k: round(sum(s[k] for s in steps.values()), 1) for k in ("wall_seconds", "cpu_seconds", "idle_seconds")}
    return {"repository": AT_SIZE["repo"].replace("__", "/"), "languages": list(AT_SIZE["languages"]),
            "revision": AT_SIZE["revision"], "since": AT_SIZE["since"], "read": prepared.read,
            "kept": prepared.kept, "corpora": prepared.corpora, "documents": prepared.documents,
            "documents_per_corpus": round(prepared.documents / prepared.corpora, 1) if prepared.corpora else None,
            "indexes_built": indexed.built, "indexes_reused": indexed.reused, "sweep_models": summary["points"],
            "grids": summary["grids"], "localize": ["auto"], "threads": threads, "steps": steps, "total": total,
            "target_seconds": TARGET_SECONDS, "meets_target_on_idle_cores": total["idle_seconds"] <= TARGET_SECONDS}


def cpu_seconds() -> float:
    """User and system CPU seconds of this process and its finished children (git, the JVM)."""
    me, children = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    return me.ru_utime + me.ru_stime + children.ru_utime + children.ru_stime


def markdown(data: dict) -> str:
    lines = ["# Instance sets: prepare and index times on the shared issue sets", "",
             f"Written by `scripts/time_issue_sets.py` (commit {data['git_commit']}); {data['machine']['cpu']}, "
             f"{data['machine']['cores']} cores; "
             f"index --threads {data['threads']}. Wall-clock seconds; the load average after each set is in "
             "the JSON (the machine is shared).", "",
             markdown_table([[r["set"], ", ".join(r["languages"]), f"{r['kept']} / {r['read']}", r["corpora"],
                              f"{r['documents']:,}", f"{r['prepare_seconds']} ({r['prepare_cpu_seconds']})",
                              f"{r['indexes_built']} / {r['indexes_reused']}",
                              f"{r['index_seconds']} ({r['index_cpu_seconds']})"] for r in data["sets"]],
                            ["set", "languages", "instances kept / read", "corpora", "documents", "prepare s (CPU s)",
                             "indexes built / reused", "index s (CPU s)"], ["left"] * 2 + ["right"] * 6).rstrip()]
    t = data["total"]
    key = f"projected_index_seconds_{TARGET_INSTANCES}x{TARGET_FILES}"
    idle = f"{key}_on_{data['threads']}_idle_cores"
    lines += ["", f"Total: {t['instances']} instances, {t['corpora']} corpora, {t['documents']:,} documents; "
              f"prepare {t['prepare_seconds']} s, index {t['index_seconds']} s. Cold builds: "
              f"{t['cold_documents_per_second']} documents/s of wall-clock time ({t['cold_seconds_per_index']} s per "
              f"index), {t['cold_documents_per_cpu_second']} documents per CPU second. {TARGET_INSTANCES} instances "
              f"of {TARGET_FILES:,} files: {t[key]} s of indexing at the wall-clock rate measured here, "
              f"{t[idle]} s on {data['threads']} cores of their own at the CPU rate.", ""]
    a = data["at_size"]
    lines += ["## At the target's size: prepare, index and sweep", "",
              f"`prepare --format git-history` on {a['repository']} ({', '.join(a['languages'])}; history from "
              f"`{a['revision']}` since {a['since']}): {a['kept']} instances kept of {a['read']} commits read, "
              f"{a['corpora']} corpora, {a['documents']:,} documents ({a['documents_per_corpus']} per corpus); "
              f"`index --instances` built {a['indexes_built']} indexes and reused {a['indexes_reused']}; "
              f"`sweep --instances` with the verb's default grids ({a['sweep_models']} models) and "
              f"`--localize {' '.join(a['localize'])}` (the label-free configuration: units, path field, the "
              "issue's evidence read against every file's symbol table); --threads "
              f"{a['threads']}. Wall-clock and CPU seconds (this process and its children; the JVM runs in it). "
              f"On {a['threads']} idle cores: CPU seconds / {a['threads']} for index and sweep, prepare's CPU "
              "seconds whole (it runs on one thread)."]
    steps = [[name, f"{s['wall_seconds']}", f"{s['cpu_seconds']}", f"{s['idle_seconds']}",
              _load(s["load_average_before"]), _load(s["load_average_after"])] for name, s in a["steps"].items()]
    t = a["total"]
    steps.append(["total", f"{t['wall_seconds']}", f"{t['cpu_seconds']}", f"{t['idle_seconds']}", "", ""])
    lines += ["", markdown_table(steps, ["step", "wall s", "CPU s", "on 2 idle cores s", "load average before",
                                         "load average after"], "lrrrll"),
              f"Target: {a['target_seconds']} s for prepare, index and sweep on {a['threads']} cores: "
              f"{'met' if a['meets_target_on_idle_cores'] else 'not met'} on idle cores ({t['idle_seconds']} s); "
              f"{t['wall_seconds']} s of wall-clock time on this machine at the load shown.", ""]
    return "\n".join(lines)


def _load(load: list[float] | None) -> str:
    return "n/a" if load is None else " / ".join(f"{x:g}" for x in load)


if __name__ == "__main__":
    os.environ.setdefault("QLOG_PROGRESS", "0")
    run_cli(main)
