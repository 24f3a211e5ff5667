"""Build the label-free-q evidence: corpora, nested size subsamples, indexes and q sweeps.

    .venv/bin/python scripts/build_evidence.py STEP...

Everything goes under work/evidence/ (corpora/<name>/{prepared,index}, sweeps/<name>, sweeps-models/).
Steps (each cached; a finished sweep is never redone):
  labelled                      CSN-Ruby, CoSQA, CACM from ../shared/data
  demo                          the running Python's stdlib, the JDK's src.zip (capped at 50,000 functions)
  debian:LANG                   a Debian language already fetched (python -m qlog_pyserini.fetch --language LANG;
                                Go with --target-functions 50000), 50,000 functions at most, 500 queries
  subs:BASE:SIZE,...            nested seeded subsamples of a built corpus: a fixed query order and a fixed order
                                of the other documents; at most a fifth of the documents are answers
  redo:NAME                     re-sweep NAME if its sweep predates cross-validation
  model:NAME:SIMILARITY:GRID    sweep another model (idf-gamma, qld) on NAME
The results of 2026-12-01 were made with:
  labelled demo subs:cosqa:500,cosqa:2000,csn-ruby:500,py-stdlib:500,py-stdlib:2000,jdk-src:2000,jdk-src:10000
  debian:python debian:ruby debian:php debian:javascript debian:go
  subs:python-code:500,python-code:2000,python-code:10000 subs:ruby-code:2000
  model:{csn-ruby,cosqa,cacm}:idf-gamma:0.6,0.8,1.0,1.2,1.5,2.0 model:{csn-ruby,cosqa,cacm}:qld:100,300,1000,3000
then python -m qlog_pyserini.table / lolo as recorded in results/.
"""
from __future__ import annotations

import json
import random
import shutil
import subprocess
import sys
import sysconfig
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
W = ROOT / "work" / "evidence"
SHARED = ROOT.parent / "shared" / "data"
GRID = "0.3,0.4,0.5,0.55,0.6,0.65,0.7,0.75,0.8,0.85,0.9,0.95,1.0,1.1,1.25"
THREADS = 2
QUERIES = 500
REL_SHARE = 0.2  # subsamples: at most this share of the documents are some query's relevant one

sys.path.insert(0, str(ROOT))
from qlog_pyserini.corpus import build_benchmark  # noqa: E402
from qlog_pyserini.prepare.datasets import prepare_beir, prepare_cosqa, prepare_csn, prepare_trec  # noqa: E402
from qlog_pyserini.formats.documents import iter_documents, write_json_collection  # noqa: E402
from qlog_pyserini.formats.topics import read_topics  # noqa: E402
from qlog_pyserini.formats.trec import read_qrels  # noqa: E402
from qlog_pyserini.index.indexer import build_index  # noqa: E402


def log(msg: str) -> None:
    print(f"[{time.strftime('%H:%M:%S', time.gmtime())}] {msg}", file=sys.stderr, flush=True)


def index(name: str) -> Path:
    prepared = W / "corpora" / name / "prepared"
    idx = W / "corpora" / name / "index"
    if not (idx / ".done").is_file():
        log(f"{name}: indexing")
        build_index(prepared / "corpus", idx, threads=THREADS, overwrite=True, progress=False)
        (idx / ".done").write_text("ok")
    return idx


def sweep(name: str, similarity: str = "qlog", grid: str = GRID, folder: str = "sweeps") -> None:
    out = W / folder / (name if similarity == "qlog" else f"{name}-{similarity}")
    if (out / "summary.json").is_file():
        return
    idx = index(name)
    prepared = W / "corpora" / name / "prepared"
    out.parent.mkdir(parents=True, exist_ok=True)
    log(f"{name}: sweeping")
    t = time.time()
    cmd = [str(ROOT / ".venv/bin/python"), "-m", "qlog_pyserini.sweep", "--index", str(idx),
           "--topics", str(prepared / "topics.tsv"), "--qrels", str(prepared / "qrels.txt"),
           "--out", str(out), "--name", out.name, "--grid", grid, "--hits", "100", "--threads", str(THREADS),
           "--similarity", similarity, "--overwrite", "--quiet"]
    for attempt in range(4):  # the shared tree may be mid-edit by someone else: retry
        if subprocess.run(cmd, cwd=ROOT).returncode == 0 and (out / "summary.json").is_file():
            break
        log(f"{name}: sweep attempt {attempt + 1} failed; retrying in 60 s")
        time.sleep(60)
    log(f"{name}: swept in {time.time() - t:.0f} s")


def labelled() -> None:
    specs = {
        "csn-ruby": lambda o: prepare_csn([SHARED / "csn-ruby/test.jsonl", SHARED / "csn-ruby/valid.jsonl"], o, overwrite=True),
        "cosqa": lambda o: prepare_cosqa(SHARED / "cosqa", o, overwrite=True),
        "cacm": lambda o: prepare_trec(SHARED / "cacm/cacm.json", SHARED / "cacm/topics.cacm.txt",
                                       SHARED / "cacm/qrels.cacm.txt", o, overwrite=True),
    }
    for name, prep in specs.items():
        folder = W / "corpora" / name
        if not (folder / "prepared" / "manifest.json").is_file():
            folder.mkdir(parents=True, exist_ok=True)
            prep(folder / "prepared")
        sweep(name)


def code(name: str, roots: list[tuple[Path, str]], language: str, max_docs: int | None) -> None:
    folder = W / "corpora" / name
    if not (folder / "prepared" / "manifest.json").is_file():
        folder.mkdir(parents=True, exist_ok=True)
        log(f"{name}: building from {len(roots)} roots")
        build_benchmark(roots, folder / "beir", languages=[language], n_queries=QUERIES, seed=42,
                        max_docs=max_docs, overwrite=True, progress=False)
        prepare_beir(folder / "beir", folder / "prepared", overwrite=True)
        shutil.rmtree(folder / "beir", ignore_errors=True)
    sweep(name)


def demo() -> None:
    from qlog_pyserini.jvm.toolchain import find_jdk

    code("py-stdlib", [(Path(sysconfig.get_paths()["stdlib"]), "stdlib")], "python", None)
    src = find_jdk().home / "lib" / "src.zip"
    code("jdk-src", [(src, f"jdk{find_jdk().version}")], "java", 50_000)


def subsample(base: str, size: int, seed: int = 7) -> str:
    """Nested subsample: a fixed query order and a fixed order of the other documents; prefixes grow with size."""
    name = f"{base}-{size // 1000}k" if size >= 1000 else f"{base}-{size}"
    folder = W / "corpora" / name / "prepared"
    if (folder / "manifest.json").is_file():
        return name
    src = W / "corpora" / base / "prepared"
    topics = read_topics(src / "topics.tsv")
    qrels = read_qrels(src / "qrels.txt")
    qids = sorted(q for q in topics if q in qrels)
    random.Random(seed).shuffle(qids)
    docs = [d for d, _ in iter_documents(src / "corpus")]
    relevant_all = {d for q in qids for d, g in qrels[q].items() if g > 0}
    others = sorted(d for d in docs if d not in relevant_all)
    random.Random(seed + 1).shuffle(others)
    keep_q, keep_rel = [], set()
    for q in qids:
        rel = {d for d, g in qrels[q].items() if g > 0}
        if len(keep_rel | rel) > REL_SHARE * size or len(keep_q) >= QUERIES:
            break
        keep_q.append(q)
        keep_rel |= rel
    keep = keep_rel | set(others[:max(0, size - len(keep_rel))])
    tmp = folder.parent / "prepared.tmp"
    shutil.rmtree(tmp, ignore_errors=True)
    tmp.mkdir(parents=True)
    write_json_collection(((d, t) for d, t in iter_documents(src / "corpus") if d in keep), tmp / "corpus")
    with open(tmp / "topics.tsv", "w") as f:
        for q in keep_q:
            f.write(f"{q}\t{topics[q]}\n")
    with open(tmp / "qrels.txt", "w") as f:
        for q in keep_q:
            for d, g in qrels[q].items():
                if d in keep:
                    f.write(f"{q} 0 {d} {g}\n")
    (tmp / "manifest.json").write_text(json.dumps({"subset_of": base, "documents": len(keep), "queries": len(keep_q),
                                                   "seed": seed}))
    shutil.rmtree(folder, ignore_errors=True)
    tmp.rename(folder)
    log(f"{name}: {len(keep)} docs, {len(keep_q)} queries")
    return name


def subs(spec: str) -> None:
    for item in spec.split(","):
        base, size = item.split(":")
        if not (W / "corpora" / base / "prepared" / "manifest.json").is_file():
            log(f"{base}: absent, skipping subsample {size}")
            continue
        n = len(list(iter_documents(W / "corpora" / base / "prepared" / "corpus")))
        if int(size) >= n:
            log(f"{base}: {n} docs, no subsample of {size}")
            continue
        sweep(subsample(base, int(size)))


def debian(language: str) -> None:
    from qlog_pyserini.fetch import debian as sources

    while True:
        done = (W / "logs" / "fetch.log").read_text() if (W / "logs" / "fetch.log").is_file() else ""
        if f"done {language} " in done:
            break
        time.sleep(30)
    roots = [(Path(p), label) for p, label in sources.source_roots(language, ROOT / "cache" / "sources")]
    code(f"{language}-code", roots, language, 50_000)


if __name__ == "__main__":
    for step in sys.argv[1:]:
        try:
            if step == "labelled":
                labelled()
            elif step == "demo":
                demo()
            elif step.startswith("subs:"):
                subs(step[5:])
            elif step.startswith("redo:"):
                name = step[5:]
                if (W / "sweeps" / name / "summary.json").is_file() and "cv" not in json.loads(
                        (W / "sweeps" / name / "summary.json").read_text()):
                    shutil.rmtree(W / "sweeps" / name)
                sweep(name)
            elif step.startswith("model:"):
                _, name, sim, grid = step.split(":")
                sweep(name, sim, grid, "sweeps-models")
            elif step.startswith("debian:"):
                debian(step[7:])
            else:
                raise SystemExit(f"unknown step {step}")
        except Exception as e:  # keep going: one failed corpus must not stop the others
            log(f"step {step} FAILED: {type(e).__name__}: {e}")
