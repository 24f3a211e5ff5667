"""Reproduce the paper's comparisons on real code: one command from sources to result tables and plots.

    scripts/reproduce            # full: Debian-packaged source in six languages + ../shared/data sets
    scripts/reproduce --quick    # minutes: small slices of local code (stdlib, JDK src.zip) + ../shared/data

For each corpus: documents, queries, BM25 NDCG@10, the 5-fold cross-validated q and its NDCG@10,
gain and two-sided p, q_opt (the oracle), NDCG@10 at q_opt, gain and two-sided p, q_auto (label-free)
and its NDCG@10, Recall@8K
tokens of BM25 and of q-log at q_opt, for both IDF odds forms. Then the scaling curve (gain
against corpus size on the largest code corpus, the same queries' own functions always kept),
the tokenizer ablation (Anserini's generic analyzer against the identifier-aware one, each at
q = 1 and at its q_opt), and the label-free-q evidence (:mod:`qlog_pyserini.reproduce.evidence`:
cross-validated tables, nested subsamples, the other models, leave-one-family-out), the per-query
label-free q (:mod:`qlog_pyserini.reproduce.auto_query`), the query-time benchmark
(:mod:`qlog_pyserini.reproduce.query_cost`) and the engine tests' tables
(:mod:`qlog_pyserini.reproduce.engines`). :data:`STAGES` names them; ``Config.stages`` picks some. Every
step is cached under ``--work`` and reused when its inputs match; tables and plots go to ``--out`` with
the command, versions and date that produced them.

Sweeps retrieve 100 hits per query: NDCG@10, recall.100 and Recall@8K-tokens never look deeper
(MAP is then truncated at 100, which these one-relevant-document benchmarks barely notice).
"""

from __future__ import annotations

import json
import random
import shutil
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Sequence

import pandas as pd

from qlog_pyserini.corpus import build_benchmark
from qlog_pyserini.prepare.datasets import prepare_beir, prepare_cosqa, prepare_csn, prepare_trec
from qlog_pyserini.errors import QLogError
from qlog_pyserini.eval.significance import format_p
from qlog_pyserini.system.provenance import provenance, provenance_markdown
from qlog_pyserini.sweep.run import SweepSettings, run_sweep
from qlog_pyserini.formats.documents import iter_documents, write_json_collection
from qlog_pyserini.system.outputs import atomic_output, check_results_dir, mark_results, record_entries
from qlog_pyserini.formats.trec import read_qrels
from qlog_pyserini.index.indexer import build_index
from qlog_pyserini.system.progress import info
from qlog_pyserini.reproduce.engines import ENGINE_FILES

FULL_GRID = "0.05,0.1,...,1.0,1.25,1.5"
QUICK_GRID = "0.1,0.3,0.5,0.7,1.0,1.5"
CODE_LANGUAGES = ("go", "java", "ruby", "php", "javascript", "python")
FULL_SCALING = (1_000, 5_000, 20_000, 50_000, 100_000, None)  # None = the full corpus
QUICK_SCALING = (1_000, 3_000, None)
HITS = 100
# The stages, in the order they run: (name, what it writes). "corpora" is not a stage of its own: the
# corpora are built (or read from the cache) when a stage that sweeps them runs.
STAGES = (
    ("main", "main.md/.csv, ndcg_vs_q.png: every corpus swept for both odds forms"),
    ("scaling", "scaling.md/.csv/.png: the gain against corpus size"),
    ("ablation", "ablation.md/.csv: generic against identifier-aware analysis"),
    ("evidence", "sweeps-cv, sweeps-subsamples, sweeps-models (.md/.csv), lolo.md/.json"),
    ("auto-query", "auto-query-sweeps.md/.csv, auto-query.md/.json: the per-query label-free q"),
    ("bench", "bench.md/.json: query-time cost on the JDK benchmark (wants an idle machine)"),
    ("engines", "solr-*, opensearch-*, elasticsearch-*, rewrite-bench, tantivy-rewrite-bench (.md): "
                "the engine tests (Maven)"),
)
STAGE_NAMES = tuple(name for name, _ in STAGES)
SWEEPING_STAGES = ("main", "scaling", "ablation", "evidence", "auto-query")


def select_stages(stages: str | None = None, skip: str | None = None) -> tuple[str, ...]:
    """The stages named by ``stages`` (comma-separated; default all) less those named by ``skip``, in run order."""
    def names(text: str, option: str) -> set[str]:
        chosen = {n.strip() for n in text.split(",") if n.strip()}
        bad = sorted(chosen - set(STAGE_NAMES))
        if bad:
            raise QLogError(f"{option}: unknown stage(s) {', '.join(bad)}; choose from {', '.join(STAGE_NAMES)}")
        return chosen

    chosen = names(stages, "--stages") if stages else set(STAGE_NAMES)
    dropped = names(skip, "--skip") if skip else set()
    selected = tuple(n for n in STAGE_NAMES if n in chosen and n not in dropped)
    if not selected:
        raise QLogError("no stage left to run (--stages and --skip leave none)")
    return selected
# the label-free-q evidence: nested subsamples (corpus -> sizes) and the other models' grids
FULL_SUBSAMPLES = {"java-code": (2_000, 10_000), "python-code": (500, 2_000, 10_000), "ruby-code": (2_000,),
                   "csn-ruby": (500,), "cosqa": (500, 2_000)}
QUICK_SUBSAMPLES = {"python-code": (500,), "csn-ruby": (500,)}
FULL_MODELS = {"idf-gamma": "0.6,0.8,1.0,1.2,1.5,2.0", "qld": "100,300,1000,3000"}
QUICK_MODELS = {"idf-gamma": "0.8,1.0,1.5", "qld": "300,1000"}


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
    text: tuple[str, ...] = ("cacm",)  # natural-language corpora, for leave-one-family-out
    stages: tuple[str, ...] = ()  # the stages to run (STAGES' names); empty: all of them
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


# --- corpora --------------------------------------------------------------------------------

def _cached(folder: Path, key: dict) -> bool:
    stamp = folder / ".qlog-reproduce.json"
    return stamp.is_file() and json.loads(stamp.read_text()) == key


def _stamp(folder: Path, key: dict) -> None:
    with atomic_output(folder / ".qlog-reproduce.json") as f:
        json.dump(key, f)
    record_entries(folder, ".qlog-reproduce.json")  # ours: a later --overwrite may replace the folder


def _index(prepared_dir: Path, index_dir: Path, cfg: Config, analyzer: str = "default") -> Path:
    key = {"corpus": str(prepared_dir), "analyzer": analyzer,
           "manifest": json.loads((prepared_dir / "manifest.json").read_text())}
    if not _cached(index_dir, key):
        build_index(prepared_dir / "corpus", index_dir, threads=cfg.threads, overwrite=True, progress=True,
                    **({"analyzer": analyzer} if analyzer != "default" else {}))
        _stamp(index_dir, key)
    return index_dir


def labelled_corpora(cfg: Config) -> list[Prepared]:
    """CodeSearchNet Ruby, CoSQA and CACM from ../shared/data, when present."""
    out, data = [], cfg.shared
    specs = [
        ("csn-ruby", "ruby", data / "csn-ruby", lambda d, o: prepare_csn([d / "test.jsonl", d / "valid.jsonl"], o, overwrite=True)),
        ("cosqa", "python", data / "cosqa", lambda d, o: prepare_cosqa(d, o, overwrite=True)),
        ("cacm", "text", data / "cacm", lambda d, o: prepare_trec(d / "cacm.json", d / "topics.cacm.txt",
                                                                 d / "qrels.cacm.txt", o, overwrite=True)),
    ]
    for name, language, src, prepare in specs:
        if not src.is_dir():
            info(f"[{name}] skipped: {src} is absent")
            continue
        folder = cfg.work / "corpora" / name
        key = {"source": str(src)}
        if not _cached(folder / "prepared", key):
            folder.mkdir(parents=True, exist_ok=True)
            prepare(src, folder / "prepared")
            _stamp(folder / "prepared", key)
        out.append(Prepared(name, "labelled", language, folder / "prepared", _index(folder / "prepared", folder / "index", cfg)))
    return out


def code_sources(language: str, cfg: Config) -> list[tuple[Path, str]]:
    """Source roots for one language: local code in quick mode, Debian packages otherwise."""
    if cfg.quick:
        import sysconfig

        from qlog_pyserini.jvm.toolchain import find_jdk

        if language == "python":
            return [(Path(sysconfig.get_paths()["stdlib"]), f"python{sys.version_info.major}.{sys.version_info.minor}")]
        src_zip = find_jdk().home / "lib" / "src.zip"
        if language == "java" and src_zip.is_file():
            return [(src_zip, f"jdk{find_jdk().version}")]
        return []
    from qlog_pyserini.fetch import debian as sources

    target = cfg.go_target if language == "go" else None
    sources.fetch(language, cache=cfg.cache, **({"target_functions": target} if target else {}))
    return [(Path(p), label) for p, label in sources.source_roots(language, cfg.cache)]


def code_corpora(cfg: Config) -> list[Prepared]:
    """CodeSearchNet-style benchmarks built from real source code, one per language."""
    out = []
    for language in cfg.languages:
        roots = code_sources(language, cfg)
        if not roots:
            info(f"[{language}] skipped: no source code available in this mode")
            continue
        name = f"{language}-code"
        folder = cfg.work / "corpora" / name
        key = {"roots": [[str(p), l] for p, l in roots], "queries": cfg.queries, "max_docs": cfg.max_docs, "seed": 42}
        if not _cached(folder / "prepared", key):
            folder.mkdir(parents=True, exist_ok=True)
            info(f"[{name}] building the benchmark from {len(roots)} source roots")
            build_benchmark(roots, folder / "beir", languages=[language], n_queries=cfg.queries, seed=42,
                            max_docs=cfg.max_docs, overwrite=True, progress=True)
            prepare_beir(folder / "beir", folder / "prepared", overwrite=True)
            _stamp(folder / "prepared", key)
        out.append(Prepared(name, "code", language, folder / "prepared", _index(folder / "prepared", folder / "index", cfg)))
    return out


# --- measurements -----------------------------------------------------------------------------

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
    key = {"index": str(index), "grid": grid, "form": form, "hits": HITS, "resamples": cfg.resamples,
           "index_stamp": json.loads((index / ".qlog-reproduce.json").read_text()), "auto_q": auto.q if auto else None,
           "similarity": similarity, "family": corpus.family,
           "summary_version": 3}  # 3: the family and the reproduce provenance in summary.json
    if _cached(out, key) and (out / "summary.json").is_file():
        return json.loads((out / "summary.json").read_text())
    out.parent.mkdir(parents=True, exist_ok=True)
    settings = SweepSettings(grid=tuple(grid), idf_form=form, hits=HITS, threads=cfg.threads, resamples=cfg.resamples,
                             similarity=similarity)
    summary = run_sweep(index, corpus.folder / "topics.tsv", corpus.folder / "qrels.txt", out, settings,
                        name=name, family=corpus.family + tag, overwrite=True, progress=True, prediction=auto,
                        extra={"provenance": provenance(cfg.command)})
    _stamp(out, key)
    return summary


def main_rows(corpora: Sequence[Prepared], cfg: Config) -> pd.DataFrame:
    """The per-corpus, per-form table: BM25, cross-validated q, oracle q, label-free q."""
    rows = []
    for corpus in corpora:
        for form in cfg.forms:
            s = sweep(corpus, cfg, form)
            c, cv, auto = s["comparison"], s["cv"], s["auto"]
            rows.append({
                "corpus": corpus.name, "kind": corpus.kind, "language": corpus.language, "idf_form": form,
                "docs": s["docs"], "queries": s["judged_queries"], "bm25": s["baseline_score"],
                "cv": cv["score"], "cv_gain": cv["comparison"]["diff"], "cv_rel_gain": cv["comparison"]["rel_diff"],
                "cv_p": cv["comparison"]["p_randomization"], "cv_resamples": cv["comparison"]["resamples"],
                "cv_q": "/".join(f"{v:g}" for v in sorted(set(cv["chosen"]))),
                "q_opt": s["oracle_value"], "at_q_opt": s["oracle_score"],
                "gain": c["diff"], "rel_gain": c["rel_diff"], "p": c["p_randomization"], "p_ttest": c["p_ttest"],
                "reversal_share": c["p_bootstrap"], "reversals": c["reversals"], "resamples": c["resamples"],
                "q_auto": auto["q"], "at_q_auto": auto["score"], "auto_rel": auto["comparison"]["rel_diff"],
                "recall8k_bm25": s["recall_at_tokens"]["bm25"]["8192"],
                "recall8k_qlog": s["recall_at_tokens"]["oracle"]["8192"], "sweep_seconds": s["seconds"],
            })
    return pd.DataFrame(rows)


def scaling_rows(corpus: Prepared, cfg: Config) -> pd.DataFrame:
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
            if not _cached(folder / "prepared", key):
                if folder.exists():
                    shutil.rmtree(folder)
                (folder / "prepared").mkdir(parents=True)
                write_json_collection(((d, t) for d, t in iter_documents(corpus.folder / "corpus") if d in keep),
                                      folder / "prepared" / "corpus")
                shutil.copy(corpus.folder / "topics.tsv", folder / "prepared" / "topics.tsv")
                shutil.copy(corpus.folder / "qrels.txt", folder / "prepared" / "qrels.txt")
                with atomic_output(folder / "prepared" / "manifest.json") as f:
                    json.dump({"subset_of": str(corpus.folder), "documents": len(keep), "seed": 42}, f)
                _stamp(folder / "prepared", key)
            sub = Prepared(f"{corpus.name}-{size}", corpus.kind, corpus.language, folder / "prepared",
                           _index(folder / "prepared", folder / "index", cfg), family=corpus.family)
            label = str(len(keep))
        s = sweep(sub, cfg, "lucene")
        rows.append({"corpus": corpus.name, "docs": int(label), "bm25": s["baseline_score"], "q_opt": s["oracle_value"],
                     "at_q_opt": s["oracle_score"], "gain": s["comparison"]["diff"], "rel_gain": s["comparison"]["rel_diff"]})
    return pd.DataFrame(rows).sort_values("docs")


def ablation_rows(corpora: Sequence[Prepared], cfg: Config) -> pd.DataFrame:
    """Generic vs identifier-aware analyzer, each at q = 1 and at its own q_opt."""
    rows = []
    for corpus in corpora:
        if corpus.name not in cfg.ablation and corpus.language not in cfg.ablation:
            continue
        generic = sweep(corpus, cfg, "lucene")
        ident_index = _index(corpus.folder, corpus.folder.parent / "index-identifier", cfg, analyzer="identifier")
        ident = sweep(corpus, cfg, "lucene", index=ident_index, tag="-identifier")
        for label, s in (("generic (Anserini default)", generic), ("identifier-aware", ident)):
            rows.append({"corpus": corpus.name, "analyzer": label, "bm25": s["baseline_score"], "q_opt": s["oracle_value"],
                         "at_q_opt": s["oracle_score"], "gain": s["comparison"]["diff"], "rel_gain": s["comparison"]["rel_diff"],
                         "p": s["comparison"]["p_randomization"], "reversals": s["comparison"]["reversals"]})
    return pd.DataFrame(rows)


# --- reporting ----------------------------------------------------------------------------------

def _f(x: Any, fmt: str = ".4f") -> str:
    return "n/a" if x is None or (isinstance(x, float) and x != x) else format(x, fmt)


def main_markdown(table: pd.DataFrame) -> str:
    head = ("| corpus | form | docs | queries | BM25 | CV q | CV NDCG@10 | CV gain | CV p | q_opt | at q_opt | oracle gain "
            "| oracle p | q_auto | at q_auto | Recall@8K BM25 → q-log |\n"
            "|---|---|---:|---:|---:|---|---:|---:|---|---:|---:|---:|---|---:|---:|---|\n")
    lines = [f"| {r['corpus']} | {r['idf_form']} | {r['docs']:,} | {r['queries']:,} | {r['bm25']:.4f} "
             f"| {r['cv_q']} | {r['cv']:.4f} | {r['cv_gain']:+.4f} ({_f(r['cv_rel_gain'], '+.1%')}) "
             f"| {format_p(r['cv_p'], r['cv_resamples'])} | {r['q_opt']:g} | {r['at_q_opt']:.4f} "
             f"| {r['gain']:+.4f} ({_f(r['rel_gain'], '+.1%')}) | {format_p(r['p'], r['resamples'])} "
             f"| {r['q_auto']:.2f} | {r['at_q_auto']:.4f} ({_f(r['auto_rel'], '+.1%')}) "
             f"| {r['recall8k_bm25']:.1%} → {r['recall8k_qlog']:.1%} |\n"
             for r in table.to_dict("records")]
    return head + "".join(lines)


def simple_markdown(table: pd.DataFrame, columns: Sequence[str]) -> str:
    head = "| " + " | ".join(columns) + " |\n|" + "---|" * len(columns) + "\n"
    body = []
    for r in table.to_dict("records"):
        cells = []
        for c in columns:
            v = r[c]
            cells.append(_f(v, "+.1%") if c == "rel_gain" else _f(v, "+.4f") if c == "gain"
                         else _f(v) if isinstance(v, float) and c not in ("q_opt",) else f"{v:g}" if isinstance(v, float)
                         else f"{v:,}" if isinstance(v, int) else str(v))
        body.append("| " + " | ".join(cells) + " |\n")
    return head + "".join(body)


def plot_curves(corpora: Sequence[Prepared], cfg: Config, path: Path) -> None:
    """NDCG@10 against q, one line per corpus (lucene form)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(7, 4.5), dpi=120)
    for corpus in corpora:
        s = sweep(corpus, cfg, "lucene")
        qs = sorted(float(q) for q in s["scores"])
        ax.plot(qs, [s["scores"][f"{q:g}"] for q in qs], marker="o", ms=2.5, label=corpus.name)
    ax.axvline(1.0, color="grey", ls="--", lw=1)
    ax.set_xlabel("q (q = 1 is BM25)")
    ax.set_ylabel("NDCG@10")
    ax.grid(alpha=0.3)
    ax.legend(fontsize=7, ncol=2)
    fig.tight_layout()
    with atomic_output(path, "wb") as f:
        fig.savefig(f, format="png")
    plt.close(fig)


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


# What each stage writes into the --out folder; reproduce writes these (and provenance.json) and nothing else
# (system.outputs.check_results_dir).
STAGE_FILES = {
    "main": ("main.md", "main.csv", "ndcg_vs_q.png"),
    "scaling": ("scaling.md", "scaling.csv", "scaling.png"),
    "ablation": ("ablation.md", "ablation.csv"),
    "evidence": ("sweeps-cv.md", "sweeps-cv.csv", "sweeps-subsamples.md", "sweeps-subsamples.csv",
                 "sweeps-models.md", "sweeps-models.csv", "lolo.md", "lolo.json"),
    "auto-query": ("auto-query-sweeps.md", "auto-query-sweeps.csv", "auto-query.md", "auto-query.json"),
    "bench": ("bench.md", "bench.json"),
    "engines": ENGINE_FILES,
}
RESULT_FILES = (*(name for files in STAGE_FILES.values() for name in files), "provenance.json")


def _write_csv(table: pd.DataFrame, path: Path) -> None:
    with atomic_output(path) as f:
        table.to_csv(f, index=False)


def _largest(corpora: Sequence[Prepared]) -> Prepared:
    code = [c for c in corpora if c.kind == "code"]
    return max(code or corpora, key=lambda c: json.loads((c.folder / "manifest.json").read_text()).get("documents", 0))


def _timed(cfg: Config, stage: str, started: float) -> None:
    cfg.timings[stage] = time.perf_counter() - started


def reproduce(cfg: Config) -> dict[str, pd.DataFrame]:
    """Run the stages ``cfg.stages`` (all when empty) and write their tables to ``cfg.out``; returns the
    main, scaling and ablation tables of the stages that ran (keys absent otherwise)."""
    check_results_dir(cfg.out, RESULT_FILES, inputs=[cfg.work, cfg.cache, cfg.shared])
    cfg.out.mkdir(exist_ok=True)
    try:
        return _run_stages(cfg)
    finally:
        # also after a failed stage: the tables written so far are ours (none of RESULT_FILES was someone
        # else's, check_results_dir saw to it), so the next run may replace them
        mark_results(cfg.out, RESULT_FILES)


def _run_stages(cfg: Config) -> dict[str, pd.DataFrame]:
    started = time.perf_counter()
    stages = cfg.stages or STAGE_NAMES
    (cfg.work / "runs").mkdir(parents=True, exist_ok=True)
    corpora: list[Prepared] = []
    if any(stage in SWEEPING_STAGES for stage in stages):
        corpora = code_corpora(cfg) + labelled_corpora(cfg)
        if not corpora:
            raise QLogError("no corpus available: no source code was found and ../shared/data is absent")
        _timed(cfg, "corpora", started)
    foot = "\n" + provenance_markdown(provenance(cfg.command))
    mode = "quick (small slices)" if cfg.quick else "full"
    tables: dict[str, pd.DataFrame] = {}
    if "main" in stages:
        tables["main"] = main_rows(corpora, cfg)
        _write_main(tables["main"], corpora, cfg, mode, foot)
        _timed(cfg, "main", started)
    if "scaling" in stages:
        largest = _largest(corpora)
        tables["scaling"] = scaling_rows(largest, cfg)
        with atomic_output(cfg.out / "scaling.md") as f:
            f.write(f"# Scaling curve ({mode}): {largest.name}\n\nNested seeded subsets; every query's own function "
                    "is always kept, so the same queries are asked at every size.\n\n"
                    + simple_markdown(tables["scaling"], ["docs", "bm25", "q_opt", "at_q_opt", "gain", "rel_gain"]) + foot)
        _write_csv(tables["scaling"], cfg.out / "scaling.csv")
        if len(tables["scaling"]):
            plot_scaling(tables["scaling"], cfg.out / "scaling.png")
        _timed(cfg, "scaling", started)
    if "ablation" in stages:
        tables["ablation"] = ablation_rows(corpora, cfg)
        with atomic_output(cfg.out / "ablation.md") as f:
            f.write(f"# Tokenizer ablation ({mode})\n\nThe same corpus indexed with Anserini's default English analyzer "
                    "and with the identifier-aware analyzer (qlog_pyserini.analysis), each swept over q.\n\n"
                    + simple_markdown(tables["ablation"], ["corpus", "analyzer", "bm25", "q_opt", "at_q_opt", "gain",
                                                           "rel_gain"]) + foot)
        _write_csv(tables["ablation"], cfg.out / "ablation.csv")
        _timed(cfg, "ablation", started)
    if "evidence" in stages:
        from qlog_pyserini.reproduce.evidence import evidence

        evidence(corpora, cfg)
        _timed(cfg, "evidence", started)
    if "auto-query" in stages:
        from qlog_pyserini.reproduce.auto_query import auto_query

        auto_query(corpora, cfg)
        _timed(cfg, "auto-query", started)
    if "bench" in stages:
        from qlog_pyserini.reproduce.query_cost import bench

        bench(cfg)
        _timed(cfg, "bench", started)
    if "engines" in stages:
        from qlog_pyserini.reproduce.engines import engines

        engines(cfg)
        _timed(cfg, "engines", started)
    _timed(cfg, "total", started)
    with atomic_output(cfg.out / "provenance.json") as f:
        json.dump({**provenance(cfg.command), "stages": list(stages), "timings_seconds": cfg.timings, "grid": cfg.grid},
                  f, indent=2)
    return tables


def _write_main(main: pd.DataFrame, corpora: Sequence[Prepared], cfg: Config, mode: str, foot: str) -> None:
    with atomic_output(cfg.out / "main.md") as f:
        f.write(f"# Main table ({mode})\n\nNDCG@10 (trec_eval), Anserini default English analyzer, k1 = 0.9, b = 0.4; "
                f"q_opt = best q on the grid {cfg.grid}; bootstrap over queries, {cfg.resamples} resamples; "
                f"CV = 5-fold cross-validated q over queries (each query scored at the q chosen on the other folds; "
                f"CV q lists the q's the folds chose); p = two-sided paired randomization test against BM25; "
                f"q_auto = the label-free rule (qlog_pyserini.predict defaults).\n\n" + main_markdown(main) + foot)
    _write_csv(main, cfg.out / "main.csv")
    plot_curves(corpora, cfg, cfg.out / "ndcg_vs_q.png")
