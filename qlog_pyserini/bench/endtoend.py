"""End to end, each in a fresh process: the search verb, a bm25s script writing the same run, the sweep
verb, and Lucene alone making the sweep's passes in a fresh JVM.

Each command runs as a child process (JVM start, reading, writing included); its wall time and peak
resident memory are recorded by :func:`measure_command`, through a small launcher process (see
there for why the benchmark cannot simply ``wait4`` its own child). The commands
alternate, ``repeats`` rounds, order reversed every other round. The search verb also runs once on
the topics repeated ``scale`` times (fresh qids), to show its peak memory does not grow with the
number of queries. ``Lucene alone`` (``io.qlog.bench.SearchBenchmark``'s ``main``: open the index,
parse the queries, one top-k pass per grid point, exit) is the cold-start yardstick of the sweep verb:
a fresh process pays the JVM's start and JIT warm-up that the in-JVM passes of the Python-path table
have behind them.
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

from qlog_pyserini.eval.report import markdown_table
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


def lucene_alone(index: str | os.PathLike, topics: str | os.PathLike, k: int, threads: int, passes: int,
                 k1: float, b: float, q: float) -> list[str]:
    """The command of Lucene alone in a fresh JVM: ``passes`` top-k passes of q-log BM25 over ``topics``,
    with the searching JVM's own options (collector and heap as :func:`embedded_jvm_options` sets them)."""
    from qlog_pyserini.jvm.jar import bench_jar, similarity_jar
    from qlog_pyserini.jvm.toolchain import embedded_jvm_options, find_jdk, pyserini_jar

    classpath = os.pathsep.join([str(pyserini_jar()), str(similarity_jar()), str(bench_jar())])
    return [str(find_jdk().java), *embedded_jvm_options(), "-cp", classpath, "io.qlog.bench.SearchBenchmark",
            str(index), str(topics), str(k), str(threads), str(passes), f"{k1:g}", f"{b:g}", f"{q:g}"]


def measure_end_to_end(index: str | os.PathLike, topics: str | os.PathLike, corpus: str | os.PathLike,
                       qrels: str | os.PathLike | None, q: float, k: int, threads: int, repeats: int,
                       scale: int, grid: str, say: Callable[[str], None], k1: float = 0.9,
                       b: float = 0.4) -> dict[str, Any]:
    """Wall time and peak RSS of each command, medians over ``repeats`` alternating rounds (the search
    verb on ``scale`` times the topics runs in the first round only: it is the memory check)."""
    from qlog_pyserini.eval.grid import parse_grid

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
        passes = len(parse_grid(grid))
        if qrels is not None:
            commands["sweep verb"] = [py, "-m", "qlog_pyserini.sweep", "--index", str(index), "--topics", str(tsv),
                                      "--qrels", str(qrels), "--q-grid", grid, "--hits", str(k), "--threads",
                                      str(threads), "--resamples", "1000", "--no-auto", "--quiet", "--overwrite",
                                      "--out", str(work / "sweep")]
            commands[f"Lucene alone, {passes} passes"] = lucene_alone(index, tsv, k, threads, passes, k1, b, q)
        once = f"search verb, {scale}x queries"
        runs: dict[str, list[tuple[float, int]]] = {name: [] for name in commands}
        names = list(commands)
        for r in range(repeats):
            for name in (names if r % 2 == 0 else names[::-1]):
                if name == once and runs[name]:
                    continue
                say(f"end to end: round {r + 1}/{repeats}: {name}")
                m = measure_command(commands[name])
                runs[name].append((m.wall_s, m.peak_rss_bytes))
                if name == once:
                    (work / "run-x.txt").unlink(missing_ok=True)  # k hits for each of scale x the queries
    return {"q": q, "k": k, "threads": threads, "queries": len(queries), "scale": scale, "grid": grid,
            "passes": passes, "once": once,
            "rows": {name: {"median_s": float(np.median([w for w, _ in v])),
                            "peak_rss_bytes": int(max(m for _, m in v)), "values_s": [w for w, _ in v]}
                     for name, v in runs.items()},
            "commands": {name: _shown(cmd, work) for name, cmd in commands.items()}}


def _shown(cmd: Sequence[str], work: Path) -> str:
    """A command as the report prints it: ``python ...`` or ``java ... CLASS ARGS`` (the JVM's options and
    class path left out: they are the searching JVM's own), the temporary folder as TMP."""
    if Path(cmd[0]).name == "java":
        start = list(cmd).index("-cp") + 2
        cmd = ["java", "-cp", "CLASSPATH", *cmd[start:]]
    else:
        cmd = ["python", *cmd[1:]]
    return " ".join(cmd).replace(str(work), "TMP")


def lucene_pass_seconds(result: dict[str, Any], k: int, queries: int) -> float | None:
    """One Lucene top-k pass at ``k`` over ``queries`` queries in the benchmark's own (warm) JVM: the
    Python-path table's ``lucene`` median, or None when those rounds did not run or ran another number
    of queries (``--max-queries``)."""
    timed = result.get("python_path") or {}
    if timed.get("queries") != queries:
        return None
    for row in timed.get("rows", []):
        if row["k"] == k and "lucene" in row["sides"]:
            return float(row["sides"]["lucene"]["median_s"])
    return None


def end_to_end_ratios(result: dict[str, Any], lucene_pass_s: float | None) -> list[tuple[str, float]]:
    """The ratios the end-to-end table is read for: the sweep verb against ten (``passes``) Lucene passes,
    warm (``lucene_pass_s``, one pass in the benchmark's own JVM) and from a fresh JVM; the search verb
    against the bm25s script; the memory check's peak against the plain search verb's."""
    rows, out = result["rows"], []
    sweep, alone = rows.get("sweep verb"), rows.get(f"Lucene alone, {result['passes']} passes")
    if sweep is not None and lucene_pass_s:
        out.append((f"sweep verb / {result['passes']} Lucene passes in a warm JVM",
                    sweep["median_s"] / (result["passes"] * lucene_pass_s)))
    if sweep is not None and alone is not None:
        out.append((f"sweep verb / Lucene alone, {result['passes']} passes from a fresh JVM",
                    sweep["median_s"] / alone["median_s"]))
    if "bm25s script" in rows:
        out.append(("search verb / bm25s script", rows["search verb"]["median_s"] / rows["bm25s script"]["median_s"]))
    out.append((f"peak RSS, {result['once']} / search verb",
                rows[result["once"]]["peak_rss_bytes"] / rows["search verb"]["peak_rss_bytes"]))
    return out


def format_end_to_end(result: dict[str, Any], lucene_pass_s: float | None = None) -> str:
    """The end-to-end table as markdown, with :func:`end_to_end_ratios` under it."""
    rows = result["rows"]
    lines = ["", "## End to end, each in a fresh process", "",
             f"q = {result['q']:g}, k = {result['k']}, {result['threads']} threads, {result['queries']:,} queries "
             f"(and {result['scale']}x as many, run once, for the memory check); wall time includes the JVM start; "
             "medians of alternating rounds; peak RSS is the command's own (`wait4` in a small launcher process, "
             "so it does not inherit the benchmark's).", "",
             markdown_table([[name, len(row["values_s"]), f"{row['median_s']:.2f}",
                              f"{row['peak_rss_bytes'] / 2**20:.0f} MiB"] for name, row in rows.items()],
                            ["command", "runs", "seconds", "peak RSS"], ["left", "right", "right", "right"]).rstrip()]
    lines += ["", markdown_table([[name, f"{value:.2f}x"] for name, value in end_to_end_ratios(result, lucene_pass_s)],
                                 ["ratio", "value"], ["left", "right"]).rstrip()]
    lines += ["", "Commands (TMP is the run's temporary folder; CLASSPATH the Anserini fatjar, this project's "
              "similarity jar and its bench jar, the JVM options the searching JVM's own):", ""]
    lines += [f"- {name}: `{cmd}`" for name, cmd in result["commands"].items()]
    return "\n".join(lines) + "\n"
