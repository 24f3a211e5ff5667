"""The corpora of ``reproduce``, built (or read from the ``--work`` cache) when a stage that sweeps them runs:
CodeSearchNet-style benchmarks from real source code, one per language, and the labelled sets of ``--shared``."""

from __future__ import annotations

import sys
from pathlib import Path

from qlog_pyserini.corpus import build_benchmark
from qlog_pyserini.prepare.datasets import prepare_beir, prepare_cosqa, prepare_csn, prepare_trec
from qlog_pyserini.reproduce.cache import Config, PreparedCorpus, cached, cached_index, stamp
from qlog_pyserini.system.progress import info

# name -> (language, folder under --shared, how that folder is prepared)
LABELLED = {
    "csn-ruby": ("ruby", "csn-ruby", lambda d, o: prepare_csn([d / "test.jsonl", d / "valid.jsonl"], o, overwrite=True)),
    "cosqa": ("python", "cosqa", lambda d, o: prepare_cosqa(d, o, overwrite=True)),
    "cacm": ("text", "cacm", lambda d, o: prepare_trec(d / "cacm.json", d / "topics.cacm.txt", d / "qrels.cacm.txt", o,
                                                      overwrite=True)),
}


def prepared_labelled(name: str, cfg: Config) -> Path | None:
    """The prepared folder (corpus/, topics.tsv, qrels.txt) of the labelled set ``name`` (cached under
    ``--work/corpora``), or None when ``--shared`` lacks it."""
    _, source, prepare = LABELLED[name]
    src = cfg.shared / source
    if not src.is_dir():
        info(f"[{name}] skipped: {src} is absent")
        return None
    folder = cfg.work / "corpora" / name
    key = {"source": str(src)}
    if not cached(folder / "prepared", key):
        folder.mkdir(parents=True, exist_ok=True)
        prepare(src, folder / "prepared")
        stamp(folder / "prepared", key)
    return folder / "prepared"


def labelled_corpora(cfg: Config) -> list[PreparedCorpus]:
    """CodeSearchNet Ruby, CoSQA and CACM from ../shared/data, when present."""
    out = []
    for name, (language, _, _) in LABELLED.items():
        prepared = prepared_labelled(name, cfg)
        if prepared is not None:
            out.append(PreparedCorpus(name, "labelled", language, prepared,
                                cached_index(prepared, prepared.parent / "index", cfg)))
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


def code_corpora(cfg: Config) -> list[PreparedCorpus]:
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
        if not cached(folder / "prepared", key):
            folder.mkdir(parents=True, exist_ok=True)
            info(f"[{name}] building the benchmark from {len(roots)} source roots")
            build_benchmark(roots, folder / "beir", languages=[language], n_queries=cfg.queries, seed=42,
                            max_docs=cfg.max_docs, overwrite=True, progress=True)
            prepare_beir(folder / "beir", folder / "prepared", overwrite=True)
            stamp(folder / "prepared", key)
        out.append(PreparedCorpus(name, "code", language, folder / "prepared",
                            cached_index(folder / "prepared", folder / "index", cfg)))
    return out
