"""Build a standard Lucene index from a BEIR/CoIR or Anserini JsonCollection corpus, with Anserini's indexer.

    python -m qlog_pyserini.index --corpus corpus.jsonl --index indexes/mycode [--threads 2]
    python -m qlog_pyserini.index --corpus corpus.jsonl --index indexes/mycode-ids --analyzer identifier

The index is exactly what Pyserini/Anserini would build (``JsonCollection``,
``DefaultLuceneDocumentGenerator``, Anserini's default English analyzer: the frozen generic
tokenization q-log BM25 is meant for), so any Pyserini user can search it with plain BM25 too.
Documents are validated first (docids must be unique and whitespace-free), then handed to
Anserini's ``IndexCollection``, which builds the index in a staging folder; the index appears at
``--index`` only when it is complete. A corpus file already in Anserini's form (``{"id",
"contents"}`` lines, a ``.jsonl``/``.json`` name) is read in place, through a link in the staging
folder, not copied; only files in another form (BEIR's ``_id``/``title``/``text``, gzip, extra
fields Anserini would index too) are converted there.

``--analyzer identifier`` (the tokenizer ablation) splits identifiers as well; see
:mod:`qlog_pyserini.analysis`. Anserini's ``IndexCollection`` cannot take another analyzer, so
that index is built by ``io.qlog.index.AnalyzerIndexer``, which reads and makes documents with
Anserini's own classes and writes the same fields (with ``default`` its BM25 runs equal
``IndexCollection``'s), and records the analyzer in the index for the searcher.
"""

from __future__ import annotations

import os
import re
import subprocess
from dataclasses import dataclass
from pathlib import Path

from qlog_pyserini.analysis.analyzers import INDEXER_CLASS, check_analyzer
from qlog_pyserini.errors import QLogError
from qlog_pyserini.formats.documents import corpus_files, count_documents_in, scan_documents, write_json_collection
from qlog_pyserini.jvm.jar import similarity_jar
from qlog_pyserini.jvm.toolchain import (
    HEAP_HINT,
    checked_java_options,
    find_jdk,
    jvm_options,
    pyserini_jar,
    user_java_options,
)
from qlog_pyserini.system.outputs import MARKER, OutputKind, check_output_dir, disk_errors, staged_output
from qlog_pyserini.system.processes import popen, reaped
from qlog_pyserini.system.progress import progress_bar, warn

INDEXER = "io.anserini.index.IndexCollection"
STORAGE_FLAGS = ("-storePositions", "-storeDocvectors", "-storeRaw")
IN_PLACE_SUFFIXES = (".jsonl", ".json")  # what Anserini's JsonCollection reads uncompressed
# Files a Lucene index consists of: segments, per-segment files, the write lock.
_LUCENE_FILE = re.compile(r"^(segments_[0-9a-z]+|pending_segments_[0-9a-z]+|segments\.gen|write\.lock|_[0-9a-z]+.*)$")


def is_lucene_index(path: Path) -> bool:
    """True if ``path`` holds a ``segments_N`` file and nothing but Lucene's files and our marker."""
    names = [p.name for p in path.iterdir()]
    return (any(n.startswith("segments_") for n in names)
            and all(_LUCENE_FILE.match(n) or n == MARKER for n in names))


#: What ``index`` writes. An index Anserini or Pyserini built (no marker, nothing but Lucene's files) may be
#: replaced too, and Lucene itself may add a write.lock or a commit to an index we wrote.
INDEX_OUTPUT = OutputKind("index", adopts=is_lucene_index, adopted="a Lucene index",
                          regrows=lambda entry: _LUCENE_FILE.match(entry) is not None)


@dataclass(frozen=True)
class IndexSummary:
    index_dir: Path
    documents: int


def java_launcher(index_dir: Path) -> list[str]:
    """``java`` and its options for an indexer writing beside ``index_dir``."""
    # An OutOfMemoryError in any indexing thread ends the JVM at once, so its log says so (Anserini's own
    # messages after one, "IndexWriter is closed", hide it); a crash report goes beside the index being
    # built, in the staging folder that is removed, not into the user's working folder.
    return [str(find_jdk().java), "-XX:+ExitOnOutOfMemoryError", f"-XX:ErrorFile={index_dir.parent}/hs_err_pid%p.log",
            *jvm_options()]


def anserini_index_command(input_dir: Path, index_dir: Path, threads: int) -> list[str]:
    """The ``IndexCollection`` command line Pyserini documents for JSON corpora."""
    return [*java_launcher(index_dir), "-cp", str(pyserini_jar()), INDEXER,
            "-collection", "JsonCollection", "-generator", "DefaultLuceneDocumentGenerator",
            "-input", str(input_dir), "-index", str(index_dir), "-threads", str(threads), *STORAGE_FLAGS]


def analyzer_index_command(input_dir: Path, index_dir: Path, threads: int, analyzer: str) -> list[str]:
    """The ``AnalyzerIndexer`` command line: the same collection, generator and stored data, any analyzer."""
    return [*java_launcher(index_dir), "-cp", os.pathsep.join([str(pyserini_jar()), str(similarity_jar())]),
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
    # or a folder holding anything but an index (system.outputs.check_output_dir).
    check_output_dir(index_dir, INDEX_OUTPUT, option="--index", inputs=[corpus], overwrite=overwrite)
    checked_java_options()  # a bad $QLOG_JAVA_OPTS fails now, not after the corpus was read
    files = corpus_files(corpus)
    with staged_output(index_dir, INDEX_OUTPUT, overwrite=overwrite, built="index") as staging, disk_errors(index_dir):
        written = collection_folder(files, staging / "json", progress)
        if written == 0:
            raise QLogError(f"corpus {str(corpus)!r} holds no documents")
        cmd = index_command(staging / "json", staging / "index", threads, analyzer)
        counters = _run_indexer(cmd, written, progress, index_dir)
        indexed, empty = counters.get("indexed", -1), counters.get("empty", 0)
        if empty:
            # Anserini skips documents whose contents are empty; they cannot match any query anyway.
            warn(f"{empty} documents with empty contents were skipped by Anserini")
        if indexed + empty != written:
            raise QLogError(f"Anserini indexed {indexed} documents (and skipped {empty} empty ones) "
                            f"but the corpus has {written}: {counters}")
    return IndexSummary(index_dir, indexed)


def collection_folder(files: list[Path], folder: Path, progress: bool = False) -> int:
    """Check every document of the corpus ``files`` and make ``folder`` the JsonCollection Anserini indexes;
    returns the document count.

    A file whose every line is already an Anserini document is linked, not copied (a corpus of millions of
    documents costs no second copy on disk); the others are converted into ``docs*.jsonl`` shards.
    """
    docs = scan_documents(files)
    if progress:
        docs = progress_bar(docs, total=count_documents_in(files), desc="validating", unit="doc")
    convert = {f for f in files if not f.name.endswith(IN_PLACE_SUFFIXES) or _starts_with_bom(f)}
    count = 0
    for file, _, _, as_is in docs:
        count += 1
        if not as_is:
            convert.add(file)
    folder.mkdir()
    if convert:
        write_json_collection(((d, c) for _, d, c, _ in scan_documents([f for f in files if f in convert])), folder)
    for i, file in enumerate(f for f in files if f not in convert):
        (folder / f"corpus{i:04d}-{file.name}").symlink_to(file.resolve())
    return count


def _starts_with_bom(path: Path) -> bool:
    with open(path, "rb") as f:
        return f.read(3) == b"\xef\xbb\xbf"


_COUNTER = re.compile(r"\s(indexed|unindexable|empty|skipped|errors):\s+([\d,]+)\s*$")
_PROGRESS = re.compile(r"([\d,]+) documents indexed")


def _run_indexer(cmd: list[str], expected: int, progress: bool, out: Path) -> dict[str, int]:
    """Run an indexer command, mirroring its progress in a bar; returns its final counters."""
    bar = progress_bar(total=expected, desc="indexing", unit="doc", quiet=not progress)
    log: list[str] = []
    counters: dict[str, int] = {}
    # The indexer dies with us (SIGKILL included) and is killed on Ctrl-C/SIGTERM: see system.processes.popen.
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
        if any("OutOfMemoryError" in line for line in log):
            heap = next((o for o in reversed(user_java_options()) if o.startswith("-Xmx")), "the default heap")
            raise QLogError(f"the indexer {_indexer_name(cmd)} ran out of Java heap ({heap}); {HEAP_HINT}")
        if any("No space left on device" in line for line in log):
            raise QLogError(f"no space left on the device of {str(out)!r} while "
                            f"the indexer {_indexer_name(cmd)} wrote the index; nothing half-written was kept")
        tail = "\n".join(log[-15:])
        raise QLogError(f"the indexer {_indexer_name(cmd)} failed (exit {proc.returncode}):\n{tail}")
    return counters


def _indexer_name(cmd: list[str]) -> str:
    return next((c for c in cmd if c in (INDEXER, INDEXER_CLASS)), cmd[0])
