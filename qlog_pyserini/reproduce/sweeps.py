"""The cached sweep every stage of ``reproduce`` runs: :func:`sweep`, one sweep of a prepared corpus in
``--work``, rerun only when its inputs changed (the cache rule of :mod:`qlog_pyserini.reproduce.cache`)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Sequence

from qlog_pyserini.eval.grid import parse_grid
from qlog_pyserini.jvm.provenance import provenance
from qlog_pyserini.reproduce.cache import STAMP, Config, PreparedCorpus, cached, stamp
from qlog_pyserini.sweep.results import SUMMARY
from qlog_pyserini.sweep.results import read as read_result
from qlog_pyserini.sweep.run import SweepSettings, run_sweep

#: hits per query of every reproduce sweep
HITS = 100


def sweep(corpus: PreparedCorpus, cfg: Config, form: str = "lucene", grid: Sequence[float] | None = None,
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
