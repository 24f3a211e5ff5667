"""The bench stage of ``reproduce``: query-time cost on the JDK benchmark (``results/bench.md`` / ``.json``).

The benchmark is built from the JDK's ``lib/src.zip`` (:func:`qlog_pyserini.corpus.build_benchmark`,
1,000 seeded queries; ``--quick`` benchmarks its own first code corpus instead), indexed and prepared as the
main stage's corpora are, and cached under ``--work/bench``. ``python -m qlog_pyserini.bench`` then
runs as a child process (its own JVM, not the pipeline's) writing into ``--work/bench/run``; the
report is copied to ``--out`` with reproduce's provenance appended. Timings want an idle machine:
run this stage alone (``--stages bench``) when the numbers matter. Cached by its command and commit.
"""

from __future__ import annotations

import json
import shutil
import sys
from pathlib import Path
from typing import Sequence

from qlog_pyserini.errors import QLogError
from qlog_pyserini.jvm.provenance import provenance
from qlog_pyserini.reproduce.cache import Config, PreparedCorpus, cached, cached_index, stamp
from qlog_pyserini.reproduce.corpora import code_corpora
from qlog_pyserini.reproduce.report import shown_command, shown_path
from qlog_pyserini.system import processes
from qlog_pyserini.system.outputs import atomic_output
from qlog_pyserini.system.progress import info
from qlog_pyserini.system.project import PROJECT_ROOT
from qlog_pyserini.system.provenance import git_commit, provenance_markdown, recorded_path

FULL_QUERIES, QUICK_QUERIES, QUICK_DOCS = 1000, 100, 3000


def jdk_benchmark(cfg: Config) -> PreparedCorpus:
    """The JDK ``src.zip`` benchmark, built, prepared and indexed (cached under ``--work/bench/jdk``).

    ``--quick`` is a smoke pass of the stage: it benchmarks the quick pipeline's first code corpus
    (built for the sweeping stages anyway) instead of parsing the JDK's sources a second time; the JDK
    benchmark only when no code corpus is configured.
    """
    from qlog_pyserini.corpus import build_benchmark
    from qlog_pyserini.jvm.toolchain import find_jdk
    from qlog_pyserini.prepare.datasets import prepare_beir

    if cfg.quick:
        built = code_corpora(cfg)
        if built:
            return built[0]

    jdk = find_jdk()
    src_zip = jdk.home / "lib" / "src.zip"
    if not src_zip.is_file():
        raise QLogError(f"bench: the JDK at {jdk.home} has no lib/src.zip to build the benchmark from")
    folder = cfg.work / "bench" / "jdk"
    queries, max_docs = (QUICK_QUERIES, QUICK_DOCS) if cfg.quick else (FULL_QUERIES, None)
    key = {"source": str(src_zip), "jdk": jdk.version, "queries": queries, "max_docs": max_docs, "seed": 42}
    if not cached(folder / "prepared", key):
        folder.mkdir(parents=True, exist_ok=True)
        info(f"[bench] building the benchmark from {src_zip}")
        build_benchmark([(src_zip, f"jdk{jdk.version}")], folder / "beir", languages=["java"], n_queries=queries,
                        seed=42, max_docs=max_docs, overwrite=True, progress=True)
        prepare_beir(folder / "beir", folder / "prepared", overwrite=True)
        stamp(folder / "prepared", key)
    return PreparedCorpus("jdk-bench", "code", "java", folder / "prepared", cached_index(folder / "prepared", folder / "index", cfg))


def bench_arguments(corpus: PreparedCorpus, out: Path, cfg: Config) -> list[str]:
    """``python -m qlog_pyserini.bench``'s arguments: results/bench.md's settings, or a small quick pass."""
    common = ["--index", str(corpus.index), "--topics", str(corpus.folder / "topics.tsv"),
              "--qrels", str(corpus.folder / "qrels.txt"), "--q", "0.5", "--python-q", "0.5",
              "--paths", "top-k,anserini-order,anserini-sort,routed", "--end-to-end", str(corpus.folder.parent / "beir" / "corpus.jsonl"),
              "--output", str(out / "bench.md"), "--json", str(out / "bench.json"), "--quiet"]
    if cfg.quick:
        return [*common, "--k", "10", "--threads", str(cfg.threads), "--repeats", "1", "--warmup", "1",
                "--sweep-points", "2", "--check-queries", "20", "--scale", "1"]
    return [*common, "--k", "10,1000", "--threads", str(cfg.threads), "--repeats", "5", "--warmup", "2",
            "--sweep-points", "10", "--check-queries", "200", "--scale", "100"]


def run(cfg: Config, corpora: Sequence[PreparedCorpus] = ()) -> None:
    """Run the benchmark (cached by its arguments and the commit; always again on a dirty tree) into ``--out``."""
    corpus = jdk_benchmark(cfg)
    folder = cfg.work / "bench" / "run"
    args = bench_arguments(corpus, folder, cfg)
    commit = git_commit()
    key = {"args": args, "commit": commit, "index": json.loads((corpus.index / ".qlog-reproduce.json").read_text())}
    if commit is None or commit.endswith("+dirty") or not cached(folder, key):
        if folder.exists():
            shutil.rmtree(folder)
        folder.mkdir(parents=True)
        cmd = [sys.executable, "-m", "qlog_pyserini.bench", *args]
        shown = shown_command(cmd, {}, cfg)
        info(f"[bench] {shown}")
        # stderr is the child's own (progress and errors); the report is read from --output
        proc = processes.run(cmd, cwd=PROJECT_ROOT, text=True, stderr=None)
        if proc.returncode != 0 or not (folder / "bench.md").is_file():
            raise QLogError(f"bench: `{shown}` failed (exit {proc.returncode}"
                            + ("; the pruned top-k differed from exhaustive scoring" if proc.returncode == 1 else "")
                            + ")")
        with atomic_output(folder / "command.json") as f:
            json.dump({"command": shown, "provenance": provenance(cfg.command)}, f, indent=2)
        stamp(folder, key)
    made = json.loads((folder / "command.json").read_text())
    report = (folder / "bench.md").read_text()
    report = _relative(report, args, cfg)
    with atomic_output(cfg.out / "bench.md") as f:
        f.write(report.rstrip() + f"\n\nRun by reproduce's bench stage (WORK is its --work folder): `{made['command']}`. "
                + provenance_markdown(made["provenance"]))
    payload = json.loads((folder / "bench.json").read_text())
    payload["reproduce"] = {**made["provenance"], "bench_command": made["command"]}
    with atomic_output(cfg.out / "bench.json") as f:
        json.dump(json.loads(_relative(json.dumps(payload), args, cfg)), f, indent=1)


def _relative(text: str, args: list[str], cfg: Config) -> str:
    """``text`` with the absolute paths the verb was given shown as reproduce shows paths, both as given and as the
    verb's own record of its command writes them (:func:`recorded_path`)."""
    for path in sorted({a for a in args if a.startswith("/")}, key=len, reverse=True):
        for written in sorted({path, recorded_path(path)}, key=len, reverse=True):
            text = text.replace(written, shown_path(path, cfg))
    return text
