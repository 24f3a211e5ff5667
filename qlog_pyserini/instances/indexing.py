"""Index every corpus of an instance set in one JVM: ``index --instances SET --index DIR``.

``DIR/<key>/`` is one standard Lucene index per corpus key, built by ``io.qlog.index.BatchIndexer``:
each is what ``io.qlog.index.AnalyzerIndexer`` builds alone (Anserini's ``JsonCollection`` and
``DefaultLuceneDocumentGenerator``, positions, doc vectors and raw documents stored), with Anserini's
default English analyzer: what the ``index`` verb builds from ``corpora/<key>.jsonl`` (a test compares
their postings, statistics and BM25 rankings). One JVM start serves every index; ``threads`` indexes
are built at a time, one thread each.

Each index is built in a hidden staging folder beside ``DIR/<key>`` and renamed into place as soon as
the JVM reports it complete, so a killed run keeps every index it finished. ``DIR/instances.json``
names the set last indexed and, per key, the SHA-256 of the corpus each index was built from: a key
whose index exists and whose corpus is unchanged is reused, not rebuilt.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import time
from dataclasses import dataclass
from pathlib import Path

from qlog_pyserini.analysis.analyzers import check_analyzer
from qlog_pyserini.build.jar import similarity_jar
from qlog_pyserini.errors import QLogError
from qlog_pyserini.index.indexer import INDEX_OUTPUT, java_launcher
from qlog_pyserini.formats.documents import scan_documents
from qlog_pyserini.formats.instances import (INDEX_RECORD, REPORT_FILE, corpus_path, index_files, index_problem,
                                             read_index_record, read_instances)
from qlog_pyserini.jvm.toolchain import checked_java_options, pyserini_jar
from qlog_pyserini.system.digests import file_sha256
from qlog_pyserini.system.outputs import (OutputKind, atomic_output, check_output_dir, is_owned, publish_dir, record_entries,
                                          staging_dir, sweep_stale, work_dir, write_json)
from qlog_pyserini.system.processes import popen, reaped
from qlog_pyserini.system.progress import progress_bar

BATCH_INDEXER = "io.qlog.index.BatchIndexer"
RECORD_FILE = INDEX_RECORD
#: The folder of a set's indexes: later runs (and other sets) add to it; each index in it carries its own marker.
INDEXES_OUTPUT = OutputKind("indexes", work=True)


@dataclass(frozen=True)
class IndexSetSummary:
    """What :func:`index_instance_set` did: indexes built and reused, documents indexed, wall-clock seconds."""

    index_dir: Path
    built: int
    reused: int
    documents: int
    seconds: float

    def line(self) -> str:
        return (f"{self.index_dir}: {self.built} indexes built ({self.documents:,} documents) and "
                f"{self.reused} reused, in {self.seconds:.1f} s")


def _line_count(path: Path) -> int:
    with open(path, "rb") as f:
        return sum(block.count(b"\n") for block in iter(lambda: f.read(1 << 20), b""))


def _check_corpus(path: Path) -> None:
    """Refuse the corpus file ``path`` when it holds no document or a docid twice (the index verb's checks of
    every document): a run of such an index would be empty, or list one file twice."""
    if sum(1 for _ in scan_documents([path])) == 0:
        raise QLogError(f"corpus {str(path)!r} holds no documents")


def index_instance_set(instance_set: str | os.PathLike, index_dir: str | os.PathLike, threads: int = 1,
                       progress: bool = True, analyzer: str = "default") -> IndexSetSummary:
    """Build (or reuse) the index of every corpus the set's instances use, in one JVM."""
    started = time.monotonic()
    instance_set, index_dir = Path(instance_set), Path(index_dir)
    check_analyzer(analyzer)
    if threads < 1:
        raise QLogError(f"--threads must be at least 1, got {threads}")
    keys = list(dict.fromkeys(i.corpus for i in read_instances(instance_set)))
    missing = [k for k in keys if not corpus_path(instance_set, k).is_file()]
    if missing:
        raise QLogError(f"instance set {str(instance_set)!r} lacks corpora/{missing[0]}.jsonl "
                        f"({len(missing)} of {len(keys)} corpora missing)")
    checked_java_options()  # a bad $QLOG_JAVA_OPTS fails now, not after the corpora were hashed
    # A folder of indexes is added to run after run: an existing one is fine when this tool made it.
    check_output_dir(index_dir, INDEXES_OUTPUT, option="--index", inputs=[instance_set], overwrite=True)
    if index_dir.is_dir():
        # A killed run leaves the staging folders of indexes it had already published too; a later run may reuse
        # those indexes and stage nothing for them, so what dead runs left is swept here, whatever its key.
        sweep_stale(index_dir, None)
    record = {k: v for k, v in read_index_record(index_dir).items() if (index_dir / k).is_dir()}
    digests = {k: file_sha256(corpus_path(instance_set, k)) for k in keys}
    # an index whose corpus or files changed since it was recorded (a segment deleted, a file truncated) is rebuilt
    todo = [k for k in keys if not (k in record and is_owned(index_dir / k, INDEX_OUTPUT)
                                    and record[k].get("analyzer", "default") == analyzer
                                    and index_problem(instance_set, index_dir, k, record[k], digests[k]) is None)]
    for key in todo:
        _check_corpus(corpus_path(instance_set, key))
    for key in set(keys) - set(todo):
        record[key].setdefault("files", index_files(index_dir / key))  # recorded before records listed files
    work_dir(index_dir, INDEXES_OUTPUT, option="--index", inputs=[instance_set])
    built_docs = 0
    if todo:
        built_docs = _build(instance_set, index_dir, todo, digests, record, threads, progress, analyzer)
    summary = IndexSetSummary(index_dir, len(todo), len(keys) - len(todo), built_docs,
                              time.monotonic() - started)
    _write_record(index_dir, instance_set, record, summary)
    return summary


def _write_record(index_dir: Path, instance_set: Path, record: dict, summary: IndexSetSummary | None = None) -> None:
    data = {"instances": str(instance_set.resolve()), "report": str((instance_set / REPORT_FILE).resolve()),
            "corpora": dict(sorted(record.items()))}
    if summary is not None:
        data["last_run"] = {"built": summary.built, "reused": summary.reused, "documents": summary.documents,
                            "seconds": round(summary.seconds, 2)}
    write_json(index_dir / RECORD_FILE, data)
    record_entries(index_dir, RECORD_FILE)


def _build(instance_set: Path, index_dir: Path, todo: list[str], digests: dict[str, str], record: dict,
           threads: int, progress: bool, analyzer: str) -> int:
    """Run the batch indexer over ``todo``; publish each index as it completes; the documents indexed."""
    stagings: dict[str, Path] = {}
    jobs = staging_dir(index_dir / "jobs", "batch")
    try:
        for key in todo:
            stage = stagings[key] = staging_dir(index_dir / key, "building")
            (stage / "json").mkdir()
            (stage / "json" / f"{key}.jsonl").symlink_to(corpus_path(instance_set, key).resolve())
        by_index = {str(stagings[k] / "index"): k for k in todo}
        with atomic_output(jobs / "jobs.tsv") as f:
            for key in todo:
                f.write(f"{stagings[key] / 'json'}\t{stagings[key] / 'index'}\n")
        cmd = [*java_launcher(index_dir), "-cp", os.pathsep.join([str(pyserini_jar()), str(similarity_jar())]),
               BATCH_INDEXER, "-jobs", str(jobs / "jobs.tsv"), "-threads", str(threads), "-analyzer", analyzer]
        bar = progress_bar(total=len(todo), desc="indexes", unit="index", quiet=not progress)
        failures, documents, log = [], 0, []
        proc = popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        with reaped(proc):
            assert proc.stdout is not None
            for line in proc.stdout:
                fields = line.rstrip("\n").split("\t")
                if fields[0] == "done" and len(fields) == 4 and fields[1] in by_index:
                    key = by_index[fields[1]]
                    documents += _publish(instance_set, index_dir, key, stagings[key], int(fields[2]))
                    record[key] = {"sha256": digests[key], "documents": int(fields[2]), "analyzer": analyzer,
                                   "milliseconds": int(fields[3]), "files": index_files(index_dir / key)}
                    _write_record(index_dir, instance_set, record)
                    bar.update()
                elif fields[0] == "failed" and len(fields) >= 3:
                    failures.append(f"{by_index.get(fields[1], fields[1])}: {fields[2]}")
                else:
                    log.append(line.rstrip())
            proc.wait()
        bar.close()
        if failures or proc.returncode != 0:
            detail = failures[0] if failures else "\n".join(log[-15:])
            raise QLogError(f"the batch indexer failed on {len(failures) or 'some'} of {len(todo)} corpora "
                            f"(exit {proc.returncode}): {detail}")
        return documents
    finally:
        shutil.rmtree(jobs, ignore_errors=True)
        for stage in stagings.values():
            shutil.rmtree(stage, ignore_errors=True)


def _publish(instance_set: Path, index_dir: Path, key: str, stage: Path, documents: int) -> int:
    expected = _line_count(corpus_path(instance_set, key))
    if documents != expected:
        raise QLogError(f"the batch indexer indexed {documents} documents of corpora/{key}.jsonl, "
                        f"which holds {expected}")
    target = index_dir / key
    replace = target.exists() and any(target.iterdir())
    if replace and not is_owned(target, INDEX_OUTPUT):
        raise QLogError(f"refusing to replace {str(target)!r}: it is not an index this tool wrote")
    publish_dir(stage / "index", target, INDEX_OUTPUT, overwrite=replace)
    return documents
