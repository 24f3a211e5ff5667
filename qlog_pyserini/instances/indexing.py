"""Index every corpus of an instance set in one JVM: ``index --instances SET --index DIR``.

``DIR/<key>/`` is one standard Lucene index per corpus key, built by ``io.qlog.index.BatchIndexer``:
each is what ``io.qlog.index.AnalyzerIndexer`` builds alone (Anserini's ``JsonCollection`` and
``DefaultLuceneDocumentGenerator``, positions, doc vectors and raw documents stored), with Anserini's
default English analyzer: what the ``index`` verb builds from ``corpora/<key>.jsonl`` (a test compares
their postings, statistics and BM25 rankings). One JVM start serves every index; ``threads`` indexes
are built at a time, one thread each.

Beside each ``DIR/<key>/`` the same run builds ``DIR/<key>.units/``, the index of the corpus's units (each file's
functions and the lines between them, or windows of lines: :mod:`qlog_pyserini.localize.units`), one document
``path#start-end`` a unit. Both indexes also index a ``path`` field (the file's path as words:
:mod:`qlog_pyserini.localize.paths`) beside ``contents``; BM25 statistics are per field, so a search of
``contents`` alone ranks and scores exactly as on an index without it. So one run builds what every
configuration of ``search --instances`` and ``sweep --instances`` needs.

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
from qlog_pyserini.errors import QLogError
from qlog_pyserini.formats.documents import iter_documents, scan_documents
from qlog_pyserini.formats.instances import (
    INDEX_RECORD,
    REPORT_FILE,
    corpus_path,
    file_text,
    index_files,
    index_problem,
    read_index_record,
    read_instances,
)
from qlog_pyserini.jvm.jar import similarity_jar
from qlog_pyserini.jvm.toolchain import checked_java_options, pyserini_jar
from qlog_pyserini.localize.paths import PATH_FIELD, path_document
from qlog_pyserini.localize.units import UNITS_VERSION, UnitCache, unit_documents, units_index
from qlog_pyserini.lucene.indexer import INDEX_OUTPUT, java_launcher
from qlog_pyserini.system.digests import file_sha256
from qlog_pyserini.system.outputs import (
    OutputKind,
    atomic_output,
    check_output_dir,
    is_owned,
    publish_dir,
    record_entries,
    staging_dir,
    sweep_stale,
    work_dir,
    write_json,
)
from qlog_pyserini.system.processes import popen, reaped
from qlog_pyserini.system.progress import progress_bar

BATCH_INDEXER = "io.qlog.index.BatchIndexer"
RECORD_FILE = INDEX_RECORD
#: what an index of this layout holds beyond the corpus (the path field, the units index); an index recorded
#: with another layout is rebuilt
LAYOUT = f"path+units-{UNITS_VERSION}"
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
                                    and record[k].get("layout") == LAYOUT
                                    and is_owned(units_index(index_dir, k), INDEX_OUTPUT)
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


def _with_path(docid: str, contents: str, path: str) -> str:
    return path_document(docid, contents, path) + "\n"


def _write_collections(corpus: Path, files_dir: Path, units_dir: Path, key: str, cache: UnitCache) -> tuple[int, int]:
    """The file documents (with their path field) and the unit documents of one corpus, as JsonCollection
    files; the numbers of each."""
    files = units = 0
    with open(files_dir / f"{key}.jsonl", "w", encoding="utf-8") as f, \
            open(units_dir / f"{key}.jsonl", "w", encoding="utf-8") as u:
        for docid, contents in iter_documents(corpus):
            f.write(_with_path(docid, contents, docid))
            files += 1
            text = file_text(contents)
            for unit_id, unit_contents in unit_documents(docid, text, cache.units(docid, text)):
                u.write(_with_path(unit_id, unit_contents, docid))
                units += 1
    return files, units


def _stage(instance_set: Path, index_dir: Path, todo: list[str], stagings: dict[str, Path]
           ) -> tuple[dict[str, tuple[str, str]], dict[tuple[str, str], int]]:
    """Each corpus's two collections written into its staging folder (added to ``stagings`` as it is made, for the
    caller to remove); ``{index folder: (key, "files" | "units")}`` and the documents each must hold."""
    by_index: dict[str, tuple[str, str]] = {}
    expected: dict[tuple[str, str], int] = {}
    cache = UnitCache()
    for key in todo:
        stage = stagings[key] = staging_dir(index_dir / key, "building")
        for kind in ("files", "units"):
            (stage / f"{kind}-json").mkdir()
            by_index[str(stage / f"{kind}-index")] = (key, kind)
        counts = _write_collections(corpus_path(instance_set, key), stage / "files-json", stage / "units-json", key,
                                    cache)
        expected[(key, "files")], expected[(key, "units")] = counts
    return by_index, expected


def _build(instance_set: Path, index_dir: Path, todo: list[str], digests: dict[str, str], record: dict,
           threads: int, progress: bool, analyzer: str) -> int:
    """Run the batch indexer over ``todo`` (each corpus's files and units); publish each index as it completes;
    the file documents indexed."""
    stagings: dict[str, Path] = {}
    jobs = staging_dir(index_dir / "jobs", "batch")
    try:
        by_index, expected = _stage(instance_set, index_dir, todo, stagings)
        with atomic_output(jobs / "jobs.tsv") as f:
            for folder in by_index:
                key, kind = by_index[folder]
                f.write(f"{stagings[key] / (kind + '-json')}\t{folder}\n")
        cmd = [*java_launcher(index_dir), "-cp", os.pathsep.join([str(pyserini_jar()), str(similarity_jar())]),
               BATCH_INDEXER, "-jobs", str(jobs / "jobs.tsv"), "-threads", str(threads), "-analyzer", analyzer,
               "-fields", PATH_FIELD]
        bar = progress_bar(total=len(todo), desc="indexes", unit="corpus", quiet=not progress)
        failures, log = [], []
        finished: dict[str, dict[str, int]] = {}

        def done(folder: str, documents: int, milliseconds: int) -> None:
            key, kind = by_index[folder]
            _publish(index_dir, key, kind, Path(folder), documents, expected[(key, kind)])
            counts = finished.setdefault(key, {"milliseconds": 0})
            counts[kind] = documents
            counts["milliseconds"] += milliseconds
            if {"files", "units"} <= counts.keys():  # a corpus is recorded once both its indexes are in place
                record[key] = {"sha256": digests[key], "documents": counts["files"], "units": counts["units"],
                               "analyzer": analyzer, "layout": LAYOUT, "milliseconds": counts["milliseconds"],
                               "files": index_files(index_dir / key)}
                _write_record(index_dir, instance_set, record)
                bar.update()

        proc = popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        with reaped(proc):
            assert proc.stdout is not None
            for line in proc.stdout:
                fields = line.rstrip("\n").split("\t")
                if fields[0] == "done" and len(fields) == 4 and fields[1] in by_index:
                    done(fields[1], int(fields[2]), int(fields[3]))
                elif fields[0] == "failed" and len(fields) >= 3:
                    where = by_index.get(fields[1])
                    failures.append(f"{where[0] + ' (' + where[1] + ')' if where else fields[1]}: {fields[2]}")
                else:
                    log.append(line.rstrip())
            proc.wait()
        bar.close()
        if failures or proc.returncode != 0:
            detail = failures[0] if failures else "\n".join(log[-15:])
            raise QLogError(f"the batch indexer failed on {len(failures) or 'some'} of {len(by_index)} indexes "
                            f"(exit {proc.returncode}): {detail}")
        return sum(record[key]["documents"] for key in todo)
    finally:
        shutil.rmtree(jobs, ignore_errors=True)
        for stage in stagings.values():
            shutil.rmtree(stage, ignore_errors=True)


def _publish(index_dir: Path, key: str, kind: str, built: Path, documents: int, expected: int) -> None:
    if documents != expected:
        raise QLogError(f"the batch indexer indexed {documents} {kind} documents of corpora/{key}.jsonl, "
                        f"expected {expected}")
    target = index_dir / key if kind == "files" else units_index(index_dir, key)
    replace = target.exists() and any(target.iterdir())
    if replace and not is_owned(target, INDEX_OUTPUT):
        raise QLogError(f"refusing to replace {str(target)!r}: it is not an index this tool wrote")
    publish_dir(built, target, INDEX_OUTPUT, overwrite=replace)
