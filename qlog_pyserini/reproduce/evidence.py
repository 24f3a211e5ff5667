"""The label-free-q evidence as stages of ``reproduce``: subsamples, the cross-validated tables, model sweeps, lolo.

After the main sweeps (:func:`qlog_pyserini.reproduce.main_table.main_rows`), this stage writes

    sweeps-cv.md / .csv           every corpus: BM25, the 5-fold cross-validated q, the oracle, the label-free q
    sweeps-subsamples.md / .csv   the same for nested seeded subsamples (:mod:`qlog_pyserini.corpus.subsample`)
    sweeps-models.md / .csv       the other tunable models (idf-gamma, qld) on the labelled corpora, cross-validated
    lolo.md / lolo.json           leave-one-family-out evaluation of the label-free rule over all of those sweeps

Each sweep's ``summary.json`` records its family (a subsample's is its source corpus), which is what
leave-one-family-out holds out together. Every table ends with the ``reproduce`` command that made it.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Sequence

from qlog_pyserini.corpus.subsample import subsample, subsample_name
from qlog_pyserini.eval.grid import parse_grid
from qlog_pyserini.formats.documents import iter_documents
from qlog_pyserini.jvm.provenance import provenance
from qlog_pyserini.lolo.fit import LoloOptions
from qlog_pyserini.lolo.report import lolo_report
from qlog_pyserini.reproduce.cache import Config, PreparedCorpus, cached, cached_index, stamp
from qlog_pyserini.reproduce.sweeps import sweep
from qlog_pyserini.sweep.results import read as read_result
from qlog_pyserini.system.outputs import atomic_output
from qlog_pyserini.system.progress import info
from qlog_pyserini.system.provenance import provenance_markdown
from qlog_pyserini.table.rows import (
    NOTE,
    current_auto,
    current_auto_query,
    format_markdown,
    format_tuned_markdown,
    table_rows,
)

SWEEP_FORM = "lucene"  # the evidence is on the default odds form


def subsample_corpora(corpora: Sequence[PreparedCorpus], cfg: Config) -> list[PreparedCorpus]:
    """The nested subsamples ``cfg.subsamples`` asks for, prepared and indexed (cached); absent sources skipped."""
    by_name = {c.name: c for c in corpora}
    out = []
    for base, sizes in cfg.subsamples.items():
        source = by_name.get(base)
        if source is None:
            info(f"[{base}] no subsamples: the corpus is absent in this run")
            continue
        documents = sum(1 for _ in iter_documents(source.folder / "corpus"))
        for size in sizes:
            if size >= documents:
                info(f"[{base}] {documents:,} documents: no subsample of {size:,}")
                continue
            name = subsample_name(base, size)
            folder = cfg.work / "corpora" / name
            key = {"source": str(source.folder), "source_manifest": json.loads((source.folder / "manifest.json").read_text()),
                   "size": size, "max_queries": cfg.queries}
            if not cached(folder / "prepared", key):
                folder.mkdir(parents=True, exist_ok=True)
                subsample(source.folder, folder / "prepared", size, max_queries=cfg.queries, family=source.family,
                          overwrite=True)
                stamp(folder / "prepared", key)
            out.append(PreparedCorpus(name, source.kind, source.language, folder / "prepared",
                                cached_index(folder / "prepared", folder / "index", cfg), family=source.family))
    return out


def write_table(folders: Sequence[Path], cfg: Config, stem: str, title: str, current_rules: bool = False) -> None:
    """``stem``.md / .csv in ``--out``: the table verb's rows over the sweeps ``folders``, with reproduce's provenance.

    ``current_rules``: the label-free q columns (auto, auto-query) of today's default rules, scored from each
    sweep's per-query data (``table --auto current``), instead of those the sweeps recorded.
    """
    summaries = [dict(read_result(f)) for f in folders]
    if current_rules:
        for s, folder in zip(summaries, folders):
            if (auto := current_auto(s, folder)) is not None:
                s["auto"] = auto
            if (auto_query := current_auto_query(s, folder)) is not None:
                s["auto_query"] = auto_query
    table = table_rows(summaries)
    tuned = format_tuned_markdown(table)
    md = (f"# {title}\n\n" + format_markdown(table) + "\n" + NOTE + "\n\n"
          + (f"## Tuned BM25 beside q-log\n\n{tuned}\n" if tuned else "") + provenance_markdown(provenance(cfg.command)))
    with atomic_output(cfg.out / f"{stem}.md") as f:
        f.write(md)
    with atomic_output(cfg.out / f"{stem}.csv") as f:
        table.to_csv(f, index=False)


def _folder(corpus: PreparedCorpus, similarity: str = "qlog") -> str:
    return f"{corpus.name}{'' if similarity == 'qlog' else '-' + similarity}-{SWEEP_FORM}"


def run(cfg: Config, corpora: Sequence[PreparedCorpus]) -> None:
    """Write the stage's tables to ``--out``."""
    sweeps = cfg.work / "sweeps"
    for corpus in corpora:
        sweep(corpus, cfg, SWEEP_FORM)  # cached: the main table's sweeps
    main = [sweeps / _folder(c) for c in corpora]
    write_table(main, cfg, "sweeps-cv", "Cross-validated q, with the oracle beside it")

    subs = subsample_corpora(corpora, cfg)
    for corpus in subs:
        sweep(corpus, cfg, SWEEP_FORM)
    sub_folders = [sweeps / _folder(c) for c in subs]
    if sub_folders:
        write_table(sub_folders, cfg, "sweeps-subsamples", "Nested subsamples: cross-validated q and the oracle")

    model_folders = []
    for corpus in (c for c in corpora if c.kind == "labelled"):
        model_folders.append(sweeps / _folder(corpus))
        for similarity, grid in cfg.models.items():
            sweep(corpus, cfg, SWEEP_FORM, grid=parse_grid(grid), similarity=similarity)
            model_folders.append(sweeps / _folder(corpus, similarity))
    if model_folders and cfg.models:
        write_table(model_folders, cfg, "sweeps-models", "Other tunable models, cross-validated the same way")

    families = {c.family for c in [*corpora, *subs]}
    if len(families) >= 2:
        report, payload, _ = lolo_report([str(f) for f in main + sub_folders],
                                         LoloOptions(text=cfg.text, threads=cfg.threads).check(), cfg.command)
        with atomic_output(cfg.out / "lolo.md") as f:
            f.write(report)
        with atomic_output(cfg.out / "lolo.json") as f:
            json.dump(payload, f, indent=2)
    else:
        info("[lolo] skipped: leave-one-family-out needs at least two families")
