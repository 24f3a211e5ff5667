"""What every stage of ``reproduce`` shares: its settings (:class:`Config`), a prepared corpus
(:class:`Prepared`) and the cache under ``--work``.

A cached step's folder holds ``.qlog-reproduce.json``, the key of the inputs that made it: :func:`cached`
says whether the folder is up to date for a key, :func:`stamp` records the key once the step succeeded.
:func:`cached_index` and :func:`sweep` are the two cached steps the stages call most.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Sequence

from qlog_pyserini.eval.grid import parse_grid
from qlog_pyserini.jvm.provenance import provenance
from qlog_pyserini.lucene.indexer import build_index
from qlog_pyserini.sweep.results import SUMMARY
from qlog_pyserini.sweep.results import read as read_result
from qlog_pyserini.sweep.run import SweepSettings, run_sweep
from qlog_pyserini.system.outputs import OutputKind, atomic_output, record_entries

HITS = 100
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
    text: tuple[str, ...] = ("cacm",)  # natural-language corpora, for leave-one-family-out
    stages: tuple[str, ...] = ()  # the stages to run (pipeline.STAGES' names); empty: all of them
    command: str = ""
    timings: dict[str, float] = field(default_factory=dict)


@dataclass(frozen=True)
class Prepared:
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


def sweep(corpus: Prepared, cfg: Config, form: str = "lucene", grid: Sequence[float] | None = None,
          index: Path | None = None, tag: str = "", similarity: str = "qlog", folder: str = "sweeps") -> dict:
    """A cached sweep of ``corpus`` (summary.json of :func:`qlog_pyserini.sweep.run.run_sweep`) in ``--work/folder``.

    The summary records the corpus's family (a subsample's source) and, as its provenance, the
    ``reproduce`` command that made it.
    """
    grid = list(grid or cfg.grid)
    name = f"{corpus.name}{tag}" + ("" if similarity == "qlog" else f"-{similarity}")
    out = cfg.work / folder / f"{name}-{form}"
    index = index or corpus.index
    from qlog_pyserini.predict.rule import predict_q

    # seconds: one pass over the term dictionary and a fixed-size sample
    auto = predict_q(index) if similarity == "qlog" else None
    tuned = cfg.tune_bm25 if similarity == "qlog" and form == "lucene" else None
    k1_grid, b_grid = (tuple(parse_grid(g)) for g in tuned) if tuned else ((), ())
    key = {"index": str(index), "grid": grid, "form": form, "hits": HITS, "resamples": cfg.resamples,
           "index_stamp": json.loads((index / STAMP).read_text()), "auto_q": auto.q if auto else None,
           "similarity": similarity, "family": corpus.family, "k1_grid": list(k1_grid), "b_grid": list(b_grid),
           "summary_version": 4}  # 4: tuned BM25 beside q (k1_grid, b_grid)
    if cached(out, key) and (out / SUMMARY).is_file():
        return dict(read_result(out))
    out.parent.mkdir(parents=True, exist_ok=True)
    settings = SweepSettings(grid=tuple(grid), idf_form=form, hits=HITS, threads=cfg.threads, resamples=cfg.resamples,
                             similarity=similarity, k1_grid=k1_grid, b_grid=b_grid)
    summary = run_sweep(index, corpus.folder / "topics.tsv", corpus.folder / "qrels.txt", out, settings,
                        name=name, family=corpus.family + tag, overwrite=True, progress=True, prediction=auto,
                        extra={"provenance": provenance(cfg.command)})
    stamp(out, key)
    return dict(summary)
