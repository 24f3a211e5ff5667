"""End to end, each in a fresh process: the search verb, a bm25s script writing the same run, and the sweep verb.

Each command runs as a child process (JVM start, reading, writing included); its wall time and peak
resident memory are recorded by :func:`measure_command`, through a small launcher process (see
there for why the benchmark cannot simply ``wait4`` its own child). The commands
alternate, ``repeats`` rounds, order reversed every other round. The search verb also runs on the
topics repeated ``scale`` times (fresh qids), to show its peak memory does not grow with the number
of queries.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable, Sequence

import numpy as np

from qlog_pyserini.formats.topics import read_topics

# A Python user's bm25s script: index the corpus with the numba backend, retrieve, write the TREC run.
BM25S_SCRIPT = r"""
import json, sys
import bm25s
corpus_path, topics_path, out, k, threads = sys.argv[1:6]
ids, texts = [], []
with open(corpus_path, encoding="utf-8") as f:
    for line in f:
        d = json.loads(line)
        ids.append(d.get("_id", d.get("id")))
        texts.append((d.get("title", "") + "\n" + d.get("text", "")) if "text" in d else d["contents"])
qids, queries = [], []
with open(topics_path, encoding="utf-8") as f:
    for line in f:
        qid, text = line.rstrip("\n").split("\t", 1)
        qids.append(qid); queries.append(text)
model = bm25s.BM25(k1=0.9, b=0.4, method="lucene", backend="numba")
model.index(bm25s.tokenize(texts, stopwords="en", show_progress=False), show_progress=False)
docs, scores = model.retrieve(bm25s.tokenize(queries, stopwords="en", show_progress=False), k=int(k),
                              n_threads=int(threads), backend_selection="numba", show_progress=False)
with open(out, "w", encoding="utf-8") as f:
    for qid, row, srow in zip(qids, docs, scores):
        f.writelines(f"{qid} Q0 {ids[d]} {r} {s:.6f} bm25s\n" for r, (d, s) in enumerate(zip(row, srow), 1))
"""


# Runs sys.argv[1:] as its child and prints that child's wall time, exit code and ru_maxrss as JSON.
# It is started with -S (no site imports), so its own resident set, which the child's peak starts from,
# is a few MiB; the child's stdout goes to /dev/null and its stderr is the launcher's.
LAUNCHER = r"""
import ctypes, json, os, signal, sys, time
t0 = time.perf_counter()
pid = os.fork()
if pid == 0:
    try:
        ctypes.CDLL(None).prctl(1, signal.SIGKILL, 0, 0, 0)  # PR_SET_PDEATHSIG: die with the launcher
        os.dup2(os.open(os.devnull, os.O_WRONLY), 1)
        os.execvp(sys.argv[1], sys.argv[1:])
    except BaseException as e:
        os.write(2, f"cannot run {sys.argv[1]}: {e}\n".encode())
    os._exit(127)
_, status, usage = os.wait4(pid, 0)
print(json.dumps({"wall_s": time.perf_counter() - t0, "exit": os.waitstatus_to_exitcode(status),
                  "maxrss_kib": usage.ru_maxrss}))
"""


@dataclass(frozen=True)
class Measured:
    """One command run to completion: its wall time and the peak resident memory of its process tree's
    largest process (``ru_maxrss`` is a maximum over the child and the descendants it waited for)."""

    wall_s: float
    peak_rss_bytes: int


def measure_command(cmd: Sequence[str]) -> Measured:
    """Run ``cmd`` to completion (its stdout discarded) and measure it; :class:`RuntimeError` if it fails.

    Linux carries a process's RSS high-water mark across ``fork`` and ``exec`` (at ``exec`` the old
    address space's peak is kept in ``ru_maxrss``), so a child that this process forks reports at
    least this process's own peak, however small the child: the benchmark, holding a JVM and an
    open index, would see its own ~1 GiB in every row. The command is therefore started by a
    launcher (:data:`LAUNCHER`, a bare Python of a few MiB), which forks and execs it and reports
    ``wait4``'s figures for its own child.
    """
    from qlog_pyserini.system.processes import popen, reaped

    proc = popen([sys.executable, "-S", "-c", LAUNCHER, *cmd], stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    with reaped(proc):
        out, err = proc.communicate()
    text = err.decode(errors="replace")
    try:
        report = json.loads(out.decode().strip().splitlines()[-1])
    except (ValueError, IndexError):
        raise RuntimeError(f"the launcher of {' '.join(cmd)} failed ({proc.returncode}): {text[-2000:]}") from None
    if report["exit"] != 0:
        raise RuntimeError(f"{' '.join(cmd)} failed ({report['exit']}): {text[-2000:]}")
    return Measured(float(report["wall_s"]), int(report["maxrss_kib"]) * 1024)


def measure_end_to_end(index: str | os.PathLike, topics: str | os.PathLike, corpus: str | os.PathLike,
                       qrels: str | os.PathLike | None, q: float, k: int, threads: int, repeats: int,
                       scale: int, grid: str, say: Callable[[str], None]) -> dict[str, Any]:
    """Wall time and peak RSS of each command, medians over ``repeats`` alternating rounds."""
    py = sys.executable
    with tempfile.TemporaryDirectory(prefix="qlog-e2e-") as tmp:
        work = Path(tmp)
        queries = read_topics(topics)
        tsv = work / "topics.tsv"
        tsv.write_text("".join(f"{qid}\t{text}\n" for qid, text in queries.items()), encoding="utf-8")
        big = work / "topics-x.tsv"
        with open(big, "w", encoding="utf-8") as f:
            for i in range(scale):
                f.writelines(f"r{i}:{qid}\t{text}\n" for qid, text in queries.items())
        script = work / "bm25s_run.py"
        script.write_text(BM25S_SCRIPT, encoding="utf-8")
        search = [py, "-m", "qlog_pyserini.search", "--index", str(index), "--q", f"{q:g}", "--hits", str(k),
                  "--threads", str(threads), "--quiet"]
        commands: dict[str, list[str]] = {
            "search verb": search + ["--topics", str(tsv), "--output", str(work / "run.txt")],
            f"search verb, {scale}x queries": search + ["--topics", str(big), "--output", str(work / "run-x.txt")],
        }
        try:
            import bm25s  # noqa: F401
            commands["bm25s script"] = [py, str(script), str(corpus), str(tsv), str(work / "bm25s.txt"), str(k),
                                        str(threads)]
        except ImportError:
            pass
        if qrels is not None:
            commands["sweep verb"] = [py, "-m", "qlog_pyserini.sweep", "--index", str(index), "--topics", str(tsv),
                                      "--qrels", str(qrels), "--q-grid", grid, "--hits", str(k), "--threads",
                                      str(threads), "--resamples", "1000", "--no-auto", "--quiet", "--overwrite",
                                      "--out", str(work / "sweep")]
        runs: dict[str, list[tuple[float, int]]] = {name: [] for name in commands}
        names = list(commands)
        for r in range(repeats):
            for name in (names if r % 2 == 0 else names[::-1]):
                say(f"end to end: round {r + 1}/{repeats}: {name}")
                m = measure_command(commands[name])
                runs[name].append((m.wall_s, m.peak_rss_bytes))
    return {"q": q, "k": k, "threads": threads, "queries": len(queries), "scale": scale, "grid": grid,
            "rows": {name: {"median_s": float(np.median([w for w, _ in v])),
                            "peak_rss_bytes": int(max(m for _, m in v)), "values_s": [w for w, _ in v]}
                     for name, v in runs.items()},
            "commands": {name: " ".join(cmd[1:]).replace(str(work), "TMP") for name, cmd in commands.items()}}


def format_end_to_end(result: dict[str, Any]) -> str:
    """The end-to-end table as markdown."""
    rows = result["rows"]
    lines = ["", "## End to end, each in a fresh process", "",
             f"q = {result['q']:g}, k = {result['k']}, {result['threads']} threads, {result['queries']:,} queries "
             f"(and {result['scale']}x as many for the memory check); wall time includes the JVM start; medians "
             "of alternating rounds; peak RSS is the command's own (`wait4` in a small launcher process, so it "
             "does not inherit the benchmark's).", "",
             "| command | seconds | peak RSS |", "|---|---:|---:|"]
    for name, row in rows.items():
        lines.append(f"| {name} | {row['median_s']:.2f} | {row['peak_rss_bytes'] / 2**20:.0f} MiB |")
    lines += ["", "Commands (TMP is the run's temporary folder):", ""]
    lines += [f"- {name}: `python {cmd}`" for name, cmd in result["commands"].items()]
    return "\n".join(lines) + "\n"
