"""Time the instance-set pipeline on the shared issue sets: prepare (git -> corpora) and index (one JVM)
per language set, and write the figures to results/issue-sets-timing.json and results/issue-sets-timing.md. Not a test: it runs on
the shared data and the repository mirrors, and the machine's load is recorded beside the figures.

    .venv/bin/python scripts/time_issue_sets.py [--issues ../shared/data/issues] [--repos cache/repos]
        [--sets cache/issue-sets] [--indexes cache/issue-indexes] [--threads 2] [--results results]

Each set is prepared into SETS/<set> and indexed into INDEXES/<set>; a set folder that exists is
replaced only when this tool wrote it (--overwrite semantics), and indexes already built from the same
corpora are reused, so the index time is that of a cold build only when INDEXES/<set> is new (the JSON
says how many indexes were built and how many reused). The projection to the pipeline's target (300
instances of about 1,000 files) scales the measured documents per second of the cold builds.
"""

from __future__ import annotations

import argparse
import os
import resource
import time
from pathlib import Path

from qlog_pyserini.instances.build import prepare_issue_set
from qlog_pyserini.instances.indexing import index_instance_set
from qlog_pyserini.instances.rules import FileRules
from qlog_pyserini.system.outputs import check_results_dir, mark_results, write_json, write_text
from qlog_pyserini.system.provenance import command_line, git_commit, load_average, machine

# The shared sets and the languages whose files are documents: Multi-SWE-bench's js set holds
# TypeScript repositories too (Kong/insomnia), so it reads both.
SETS = {"java": ("java",), "js": ("javascript", "typescript"), "ts": ("typescript",), "c": ("c",)}
TARGET_INSTANCES, TARGET_FILES = 300, 1000
NAMES = ("issue-sets-timing.json", "issue-sets-timing.md")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--issues", default="../shared/data/issues")
    parser.add_argument("--repos", default="cache/repos")
    parser.add_argument("--sets", default="cache/issue-sets")
    parser.add_argument("--indexes", default="cache/issue-indexes")
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--results", default="results")
    args = parser.parse_args()
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
    data = {"command": command_line("scripts/time_issue_sets.py", None), "git_commit": git_commit(),
            "machine": machine(), "threads": args.threads, "sets": rows, "total": total}
    Path(results).mkdir(exist_ok=True)
    write_json(Path(results) / NAMES[0], data)
    write_text(Path(results) / NAMES[1], markdown(data))
    mark_results(results, NAMES)


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
             "| set | languages | instances kept / read | corpora | documents | prepare s (CPU s) | "
             "indexes built / reused | index s (CPU s) |", "|---|---|---:|---:|---:|---:|---:|---:|"]
    for r in data["sets"]:
        lines.append(f"| {r['set']} | {', '.join(r['languages'])} | {r['kept']} / {r['read']} | {r['corpora']} | "
                     f"{r['documents']:,} | {r['prepare_seconds']} ({r['prepare_cpu_seconds']}) | "
                     f"{r['indexes_built']} / {r['indexes_reused']} | {r['index_seconds']} ({r['index_cpu_seconds']}) |")
    t = data["total"]
    key = f"projected_index_seconds_{TARGET_INSTANCES}x{TARGET_FILES}"
    idle = f"{key}_on_{data['threads']}_idle_cores"
    lines += ["", f"Total: {t['instances']} instances, {t['corpora']} corpora, {t['documents']:,} documents; "
              f"prepare {t['prepare_seconds']} s, index {t['index_seconds']} s. Cold builds: "
              f"{t['cold_documents_per_second']} documents/s of wall-clock time ({t['cold_seconds_per_index']} s per "
              f"index), {t['cold_documents_per_cpu_second']} documents per CPU second. {TARGET_INSTANCES} instances "
              f"of {TARGET_FILES:,} files: {t[key]} s of indexing at the wall-clock rate measured here, "
              f"{t[idle]} s on {data['threads']} cores of their own at the CPU rate.", ""]
    return "\n".join(lines)


if __name__ == "__main__":
    os.environ.setdefault("QLOG_PROGRESS", "0")
    main()
