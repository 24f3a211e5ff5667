"""Build a standard Lucene index from a BEIR/CoIR or Anserini JsonCollection corpus, with Anserini's indexer.

    python -m qlog_pyserini.index --corpus corpus.jsonl --index indexes/mycode [--threads 2]
    python -m qlog_pyserini.index --corpus corpus.jsonl --index indexes/mycode-ids --analyzer identifier

The index is exactly what Pyserini/Anserini would build (``JsonCollection``,
``DefaultLuceneDocumentGenerator``, Anserini's default English analyzer: the frozen generic
tokenization q-log BM25 is meant for), so any Pyserini user can search it with plain BM25 too.
Documents are validated first (docids must be unique and whitespace-free), then handed to
Anserini's ``IndexCollection`` in a staging folder; the index appears at ``--index`` only when
it is complete.

``--analyzer identifier`` (the tokenizer ablation) splits identifiers as well; see
:mod:`qlog_pyserini.analysis`. Anserini's ``IndexCollection`` cannot take another analyzer, so
that index is built by ``io.qlog.index.AnalyzerIndexer``, which reads and makes documents with
Anserini's own classes and writes the same fields (with ``default`` its BM25 runs equal
``IndexCollection``'s), and records the analyzer in the index for the searcher.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

from qlog_pyserini.errors import QLogError
from qlog_pyserini.formats.documents import count_documents, iter_documents, write_json_collection
from qlog_pyserini.build.jar import similarity_jar
from qlog_pyserini.jvm.toolchain import find_jdk, jvm_options, pyserini_jar
from qlog_pyserini.system.progress import progress_bar
from qlog_pyserini.system.outputs import check_output_dir, publish_dir, staging_dir
from qlog_pyserini.system.processes import popen, reaped
from qlog_pyserini.analysis.analyzers import INDEXER_CLASS, check_analyzer

INDEXER = "io.anserini.index.IndexCollection"
STORAGE_FLAGS = ("-storePositions", "-storeDocvectors", "-storeRaw")


@dataclass(frozen=True)
class IndexSummary:
    index_dir: Path
    documents: int


def anserini_index_command(input_dir: Path, index_dir: Path, threads: int) -> list[str]:
    """The ``IndexCollection`` command line Pyserini documents for JSON corpora."""
    return [str(find_jdk().java), *jvm_options(), "-cp", str(pyserini_jar()), INDEXER,
            "-collection", "JsonCollection", "-generator", "DefaultLuceneDocumentGenerator",
            "-input", str(input_dir), "-index", str(index_dir), "-threads", str(threads), *STORAGE_FLAGS]


def analyzer_index_command(input_dir: Path, index_dir: Path, threads: int, analyzer: str) -> list[str]:
    """The ``AnalyzerIndexer`` command line: the same collection, generator and stored data, any analyzer."""
    return [str(find_jdk().java), *jvm_options(), "-cp", os.pathsep.join([str(pyserini_jar()), str(similarity_jar())]),
            INDEXER_CLASS, "-analyzer", check_analyzer(analyzer),
            "-input", str(input_dir), "-index", str(index_dir), "-threads", str(threads), *STORAGE_FLAGS]


def index_command(input_dir: Path, index_dir: Path, threads: int, analyzer: str = "default") -> list[str]:
    """Anserini's ``IndexCollection`` for ``default`` (the index Pyserini builds), else ``AnalyzerIndexer``."""
    if check_analyzer(analyzer) == "default":
        return anserini_index_command(input_dir, index_dir, threads)
    return analyzer_index_command(input_dir, index_dir, threads, analyzer)


def build_index(corpus: str | os.PathLike, index_dir: str | os.PathLike, threads: int = 1,
                overwrite: bool = False, progress: bool = True, analyzer: str = "default") -> IndexSummary:
    """Index ``corpus`` (file or folder of jsonl) into ``index_dir`` with ``analyzer``; returns the document count."""
    corpus, index_dir = Path(corpus), Path(index_dir)
    check_analyzer(analyzer)
    if not corpus.exists():
        raise QLogError(f"corpus {str(corpus)!r} does not exist")
    if threads < 1:
        raise QLogError(f"--threads must be at least 1, got {threads}")
    # Only ever replace an index this tool (or Anserini) wrote, never '.', a parent of the corpus,
    # or a folder holding anything but an index (safety.check_output_dir).
    check_output_dir(index_dir, "index", option="--index", inputs=[corpus], overwrite=overwrite)
    staging = staging_dir(index_dir, "building")
    try:
        total = count_documents(corpus) if progress else None
        docs = iter_documents(corpus)
        if progress:
            docs = progress_bar(docs, total=total, desc="validating", unit="doc")
        written = write_json_collection(docs, staging / "json")
        if written == 0:
            raise QLogError(f"corpus {str(corpus)!r} holds no documents")
        cmd = index_command(staging / "json", staging / "index", threads, analyzer)
        counters = _run_indexer(cmd, written, progress)
        indexed, empty = counters.get("indexed", -1), counters.get("empty", 0)
        if empty:
            # Anserini skips documents whose contents are empty; they cannot match any query anyway.
            print(f"warning: {empty} documents with empty contents were skipped by Anserini", file=sys.stderr)
        if indexed + empty != written:
            raise QLogError(f"Anserini indexed {indexed} documents (and skipped {empty} empty ones) "
                            f"but the corpus has {written}: {counters}")
        publish_dir(staging / "index", index_dir, "index", overwrite=overwrite)
    finally:
        shutil.rmtree(staging, ignore_errors=True)
    return IndexSummary(index_dir, indexed)


_COUNTER = re.compile(r"\s(indexed|unindexable|empty|skipped|errors):\s+([\d,]+)\s*$")
_PROGRESS = re.compile(r"([\d,]+) documents indexed")


def _run_indexer(cmd: list[str], expected: int, progress: bool) -> dict[str, int]:
    """Run an indexer command, mirroring its progress in a bar; returns its final counters."""
    bar = progress_bar(total=expected, desc="indexing", unit="doc", quiet=not progress)
    log: list[str] = []
    counters: dict[str, int] = {}
    # The indexer dies with us (SIGKILL included) and is killed on Ctrl-C/SIGTERM: see safety.popen.
    proc = popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    with reaped(proc):
        assert proc.stdout is not None
        for line in proc.stdout:
            log.append(line.rstrip())
            if (m := _COUNTER.search(line)):
                counters[m.group(1)] = int(m.group(2).replace(",", ""))
            elif (m := _PROGRESS.search(line)):
                bar.update(max(0, int(m.group(1).replace(",", "")) - bar.n))
        proc.wait()
    bar.close()
    bar.update(max(0, counters.get("indexed", 0) - bar.n))
    if proc.returncode != 0 or "indexed" not in counters:
        if any("No space left on device" in line for line in log):
            raise QLogError(f"no space left on the device of {str(cmd[cmd.index('-index') + 1])!r} while "
                            f"the indexer {_indexer_name(cmd)} wrote the index; nothing half-written was kept")
        tail = "\n".join(log[-15:])
        raise QLogError(f"the indexer {_indexer_name(cmd)} failed (exit {proc.returncode}):\n{tail}")
    return counters


def _indexer_name(cmd: list[str]) -> str:
    return next((c for c in cmd if c in (INDEXER, INDEXER_CLASS)), cmd[0])
