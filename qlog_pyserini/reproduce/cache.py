"""What every stage of ``reproduce`` shares: its settings (:class:`Config`), a prepared corpus
(:class:`PreparedCorpus`) and the cache under ``--work``.

A cached step's folder holds ``.qlog-reproduce.json``, the key of the inputs that made it: :func:`cached`
says whether the folder is up to date for a key, :func:`stamp` records the key once the step succeeded.
:func:`cached_index` is the cached index every stage builds on; the cached sweep is
:func:`qlog_pyserini.reproduce.sweeps.sweep`.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path

from qlog_pyserini.lucene.indexer import build_index
from qlog_pyserini.system.outputs import OutputKind, atomic_output, record_entries

# --work: a work folder (each stage's outputs inside carry markers of their own); an unmarked folder that holds
# nothing but stage folders is one too
WORK_KIND = OutputKind("reproduce", work=True, adopts=lambda path: {p.name for p in path.iterdir()}
                       <= {"corpora", "runs", "scaling", "sweeps", "ablation"})
STAMP = ".qlog-reproduce.json"


@dataclass
class Config:
    quick: bool
    work: Path
    out: Path
    cache: Path
    shared: Path
    languages: tuple[str, ...]
    queries: int
    max_docs: int | None
    grid: list[float]
    forms: tuple[str, ...]
    scaling: tuple[int | None, ...]
    ablation: tuple[str, ...]
    threads: int
    resamples: int
    go_target: int
    subsamples: dict[str, tuple[int, ...]] = field(default_factory=dict)  # corpus -> nested subsample sizes
    models: dict[str, str] = field(default_factory=dict)  # similarity -> grid, swept on the labelled corpora
    # (k1 grid, b grid) of tuned BM25 and the joint (b, q) choice, measured beside q in every q-log sweep of the
    # lucene form (the evidence tables'); None: not measured
    tune_bm25: tuple[str, str] | None = None
    repos: Path = Path("cache/repos")  # clones or bare mirrors of the issue sets' repositories (never fetched)
    issue_reports: Path = Path("cache/issue-reports/sets")  # <language>/ folders of scripts/issue_report_set.py's files
    text: tuple[str, ...] = ("cacm",)  # natural-language corpora, for leave-one-family-out
    stages: tuple[str, ...] = ()  # the stages to run (pipeline.STAGES' names); empty: all of them
    command: str = ""
    timings: dict[str, float] = field(default_factory=dict)


@dataclass(frozen=True)
class PreparedCorpus:
    """An index-ready corpus: ``folder`` holds corpus/, topics.tsv, qrels.txt; ``index`` its Lucene index."""

    name: str
    kind: str  # "code" (built from source) or "labelled" (../shared/data)
    language: str
    folder: Path
    index: Path
    family: str = ""  # the corpus a subsample was drawn from; "" until set: the corpus's own name

    def __post_init__(self) -> None:
        if not self.family:
            object.__setattr__(self, "family", self.name)


def cached(folder: Path, key: dict) -> bool:
    """Whether ``folder`` was made from the inputs ``key`` (its stamp holds the same key)."""
    path = folder / STAMP
    return path.is_file() and json.loads(path.read_text()) == key


def stamp(folder: Path, key: dict) -> None:
    """Record that ``folder`` was made from ``key``: call it last, once the step has succeeded."""
    with atomic_output(folder / STAMP) as f:
        json.dump(key, f)
    record_entries(folder, STAMP)  # ours: a later --overwrite may replace the folder


def cached_index(prepared_dir: Path, index_dir: Path, cfg: Config, analyzer: str = "default") -> Path:
    """The Lucene index of ``prepared_dir``'s corpus in ``index_dir``, built unless its stamp matches."""
    key = {"corpus": str(prepared_dir), "analyzer": analyzer,
           "manifest": json.loads((prepared_dir / "manifest.json").read_text())}
    if not cached(index_dir, key):
        build_index(prepared_dir / "corpus", index_dir, threads=cfg.threads, overwrite=True, progress=True,
                    **({"analyzer": analyzer} if analyzer != "default" else {}))
        stamp(index_dir, key)
    return index_dir
