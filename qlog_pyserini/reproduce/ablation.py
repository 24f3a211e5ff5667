"""The ablation stage of ``reproduce``: Anserini's generic analyzer against the identifier-aware one
(``ablation.md`` / ``.csv``)."""

from __future__ import annotations

from typing import Sequence

import pandas as pd

from qlog_pyserini.reproduce.cache import Config, PreparedCorpus, cached_index
from qlog_pyserini.reproduce.report import footer, mode, simple_markdown, write_csv
from qlog_pyserini.reproduce.sweeps import sweep
from qlog_pyserini.system.outputs import atomic_output


def ablation_rows(corpora: Sequence[PreparedCorpus], cfg: Config) -> pd.DataFrame:
    """Generic vs identifier-aware analyzer, each at q = 1 and at its own q_opt."""
    rows = []
    for corpus in corpora:
        if corpus.name not in cfg.ablation and corpus.language not in cfg.ablation:
            continue
        generic = sweep(corpus, cfg, "lucene")
        ident_index = cached_index(corpus.folder, corpus.folder.parent / "index-identifier", cfg, analyzer="identifier")
        ident = sweep(corpus, cfg, "lucene", index=ident_index, tag="-identifier")
        for label, s in (("generic (Anserini default)", generic), ("identifier-aware", ident)):
            rows.append({"corpus": corpus.name, "analyzer": label, "bm25": s["baseline_score"], "q_opt": s["oracle_value"],
                         "at_q_opt": s["oracle_score"], "gain": s["comparison"]["diff"], "rel_gain": s["comparison"]["rel_diff"],
                         "p": s["comparison"]["p_randomization"], "reversals": s["comparison"]["reversals"]})
    return pd.DataFrame(rows)


def run(cfg: Config, corpora: Sequence[PreparedCorpus]) -> pd.DataFrame:
    """Write the ablation table to ``--out``; returns it."""
    table = ablation_rows(corpora, cfg)
    with atomic_output(cfg.out / "ablation.md") as f:
        f.write(f"# Tokenizer ablation ({mode(cfg)})\n\nThe same corpus indexed with Anserini's default English analyzer "
                "and with the identifier-aware analyzer (qlog_pyserini.analysis), each swept over q.\n\n"
                + simple_markdown(table, ["corpus", "analyzer", "bm25", "q_opt", "at_q_opt", "gain", "rel_gain"])
                + footer(cfg))
    write_csv(table, cfg.out / "ablation.csv")
    return table
