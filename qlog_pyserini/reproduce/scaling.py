"""The scaling stage of ``reproduce``: the gain against corpus size on the largest code corpus
(``scaling.md`` / ``.csv`` / ``.png``)."""

from __future__ import annotations

import json
import random
import shutil
from pathlib import Path
from typing import Sequence

import pandas as pd

from qlog_pyserini.formats.documents import iter_documents, write_json_collection
from qlog_pyserini.formats.trec import read_qrels
from qlog_pyserini.reproduce.cache import Config, PreparedCorpus, cached, cached_index, stamp
from qlog_pyserini.reproduce.report import footer, mode, simple_markdown, write_csv
from qlog_pyserini.reproduce.sweeps import sweep
from qlog_pyserini.system.outputs import atomic_output


def scaling_rows(corpus: PreparedCorpus, cfg: Config) -> pd.DataFrame:
    """Gain against corpus size: nested seeded subsets that always keep every query's own function."""
    qrels = read_qrels(corpus.folder / "qrels.txt")
    relevant = {d for docs in qrels.values() for d, g in docs.items() if g > 0}
    docs = [d for d, _ in iter_documents(corpus.folder / "corpus")]
    others = [d for d in docs if d not in relevant]
    random.Random(42).shuffle(others)
    rows = []
    for size in cfg.scaling:
        if size is not None and size >= len(docs):
            continue
        if size is None:
            sub, label = corpus, f"{len(docs)}"
        else:
            keep = relevant | set(others[:max(0, size - len(relevant))])
            folder = cfg.work / "scaling" / f"{corpus.name}-{size}"
            key = {"source": str(corpus.folder), "size": size, "seed": 42}
            if not cached(folder / "prepared", key):
                if folder.exists():
                    shutil.rmtree(folder)
                (folder / "prepared").mkdir(parents=True)
                write_json_collection(((d, t) for d, t in iter_documents(corpus.folder / "corpus") if d in keep),
                                      folder / "prepared" / "corpus")
                shutil.copy(corpus.folder / "topics.tsv", folder / "prepared" / "topics.tsv")
                shutil.copy(corpus.folder / "qrels.txt", folder / "prepared" / "qrels.txt")
                with atomic_output(folder / "prepared" / "manifest.json") as f:
                    json.dump({"subset_of": str(corpus.folder), "documents": len(keep), "seed": 42}, f)
                stamp(folder / "prepared", key)
            sub = PreparedCorpus(f"{corpus.name}-{size}", corpus.kind, corpus.language, folder / "prepared",
                           cached_index(folder / "prepared", folder / "index", cfg), family=corpus.family)
            label = str(len(keep))
        s = sweep(sub, cfg, "lucene")
        rows.append({"corpus": corpus.name, "docs": int(label), "bm25": s["baseline_score"], "q_opt": s["oracle_value"],
                     "at_q_opt": s["oracle_score"], "gain": s["comparison"]["diff"], "rel_gain": s["comparison"]["rel_diff"]})
    return pd.DataFrame(rows).sort_values("docs")


def plot_scaling(table: pd.DataFrame, path: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(6, 4), dpi=120)
    ax.plot(table["docs"], table["gain"], marker="o")
    ax.set_xscale("log")
    ax.set_xlabel("documents in the corpus")
    ax.set_ylabel("NDCG@10 gain at q_opt over BM25")
    ax.set_title(str(table["corpus"].iloc[0]) if len(table) else "")
    ax.grid(alpha=0.3)
    fig.tight_layout()
    with atomic_output(path, "wb") as f:
        fig.savefig(f, format="png")
    plt.close(fig)


def largest(corpora: Sequence[PreparedCorpus]) -> PreparedCorpus:
    """The code corpus with the most documents (any corpus when none is code)."""
    code = [c for c in corpora if c.kind == "code"]
    return max(code or corpora, key=lambda c: json.loads((c.folder / "manifest.json").read_text()).get("documents", 0))


def run(cfg: Config, corpora: Sequence[PreparedCorpus]) -> pd.DataFrame:
    """Write the scaling table and plot of the largest corpus to ``--out``; returns the table."""
    corpus = largest(corpora)
    table = scaling_rows(corpus, cfg)
    with atomic_output(cfg.out / "scaling.md") as f:
        f.write(f"# Scaling curve ({mode(cfg)}): {corpus.name}\n\nNested seeded subsets; every query's own function "
                "is always kept, so the same queries are asked at every size.\n\n"
                + simple_markdown(table, ["docs", "bm25", "q_opt", "at_q_opt", "gain", "rel_gain"]) + footer(cfg))
    write_csv(table, cfg.out / "scaling.csv")
    if len(table):
        plot_scaling(table, cfg.out / "scaling.png")
    return table
