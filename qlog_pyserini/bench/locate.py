"""What ``locate`` costs and finds, beside bm25s's pure-Python route over the same files (``scripts/bench_locate.py``).

Speed, on one repository's work tree (a checkout of one commit of a mirror):

- the JVM's start, then the cold index (:meth:`Locator.update` on an empty cache folder);
- warm queries: :meth:`Locator.locate` (the work tree checked for changes, ranking, units, packing) and
  :meth:`Locator.rank` without the check (the search alone), each the median over the queries after one
  untimed call;
- the update after one changed file (a line appended to one indexed file), and the check when nothing changed;
- bm25s over the same documents (the path, a newline and the text; bm25s's English stopwords and PyStemmer's
  English stemmer as its README builds it, Lucene's k1 0.9 and b 0.4): its build (tokenize and index) and a
  query (tokenize and retrieve the top 10), on the same queries.

Effectiveness, on the shared issue sets (Multi-SWE-bench instances prepared by ``prepare``'s rules): for each
instance, ``locate``'s ranking (:class:`Locator` on the base commit of the mirror, the set's languages) and
bm25s's ranking of the same corpus (its default BM25, no q), scored by Acc@1 and Acc@5 (a file the fix
modifies is first, in the top 5) and MRR (over the top 100).
"""

from __future__ import annotations

import os
import statistics
import time
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any, Callable, Sequence

import numpy as np

from qlog_pyserini.eval.report import markdown_table
from qlog_pyserini.formula import DEFAULT_B, DEFAULT_K1
from qlog_pyserini.instances.git import git_env
from qlog_pyserini.localize.run import Q_RULES
from qlog_pyserini.locate.locator import Locator
from qlog_pyserini.locate.model import AUTO_MODEL, LocateModel
from qlog_pyserini.system.processes import run

HITS = 10
DEPTH = 100  # ranks MRR looks at


def _median_ms(times: Sequence[float]) -> float:
    return round(1000 * statistics.median(times), 2)


def _p90_ms(times: Sequence[float]) -> float:
    return round(1000 * float(np.percentile(times, 90)), 2)


def _timed(fn: Callable[[], Any]) -> tuple[Any, float]:
    start = time.perf_counter()
    value = fn()
    return value, time.perf_counter() - start


def checkout(mirror: Path, rev: str, folder: Path) -> Path:
    """A work tree of ``rev`` of ``mirror`` in ``folder``, sharing the mirror's objects (nothing written there)."""
    for args in (["clone", "-q", "--shared", "--no-checkout", str(mirror), str(folder)],
                 ["-C", str(folder), "checkout", "-q", "--detach", rev]):
        out = run(["git", *args], env=git_env())
        if out.returncode != 0:
            raise RuntimeError(f"git {args[0]} failed: {out.stderr.decode(errors='replace').strip()}")
    return folder


class Bm25sRoute:
    """bm25s over ``{path: text}`` as its README builds it (see the module docstring)."""

    def __init__(self, documents: dict[str, str]) -> None:
        import bm25s
        import Stemmer

        self._bm25s = bm25s
        self.stemmer = Stemmer.Stemmer("english")
        self.paths = list(documents)
        tokens = bm25s.tokenize(list(documents.values()), stopwords="en", stemmer=self.stemmer, show_progress=False)
        self.model = bm25s.BM25(k1=DEFAULT_K1, b=DEFAULT_B, method="lucene")
        self.model.index(tokens, show_progress=False)

    def rank(self, query: str, k: int = HITS) -> list[tuple[str, float]]:
        words = self._bm25s.tokenize([query], stopwords="en", stemmer=self.stemmer, return_ids=False,
                                     show_progress=False)[0]
        ids = self.model.get_tokens_ids(words)
        if not ids:
            return []
        scores = self.model.get_scores_from_ids(ids)
        k = min(k, len(scores))
        top = np.argpartition(-scores, k - 1)[:k]
        top = top[np.lexsort((top, -scores[top]))]
        return [(self.paths[i], float(scores[i])) for i in top if scores[i] > 0]


@dataclass(frozen=True)
class SpeedReport:
    repo: str
    commit: str
    files_in_tree: int
    files_indexed: int
    languages: tuple[str, ...]
    queries: int
    load_average: float
    jvm_start_s: float
    lucene_cold_s: float
    lucene_locate_ms: float
    lucene_locate_p90_ms: float
    lucene_search_ms: float
    lucene_unchanged_check_s: float
    lucene_one_file_update_s: float
    lucene_first_locate_after_update_ms: float
    bm25s_build_s: float
    bm25s_query_ms: float
    bm25s_query_p90_ms: float

    def to_json(self) -> dict[str, Any]:
        return {**asdict(self), "languages": list(self.languages)}


def measure_speed(mirror: Path, rev: str, queries: Sequence[str], work: Path) -> SpeedReport:
    """The speed figures of the module docstring, on commit ``rev`` of ``mirror`` (``work``: an empty folder)."""
    from qlog_pyserini.jvm.bridge import start_jvm

    tree = checkout(mirror, rev, work / "tree")
    commit = run(["git", "-C", str(tree), "rev-parse", "HEAD"], env=git_env()).stdout.decode().strip()
    files_in_tree = len(run(["git", "-C", str(tree), "ls-files", "-z"], env=git_env()).stdout.split(b"\0")) - 1
    load = os.getloadavg()[0]
    _, jvm = _timed(start_jvm)
    with Locator(tree, cache=work / "cache") as loc:
        cold, cold_s = _timed(loc.update)
        loc.locate(queries[0])  # opens the searcher
        locate_times = [_timed(lambda q=q: loc.locate(q))[1] for q in queries]
        search_times = [_timed(lambda q=q: loc.rank(q, HITS, update=False))[1] for q in queries]
        unchanged = loc.update()
        changed = tree / sorted(loc.indexed_paths())[0]
        with open(changed, "a", encoding="utf-8") as f:
            f.write("\n// one line changed by the benchmark\n")
        one = loc.update()
        assert one.updated == 1 and one.removed == 0, one
        _, after = _timed(lambda: loc.locate(queries[0]))
        documents = {p: (tree / p).read_text(encoding="utf-8", errors="replace") for p in loc.indexed_paths()}
    bm25s_route, build = _timed(lambda: Bm25sRoute({p: f"{p}\n{t}" for p, t in documents.items()}))
    bm25s_times = [_timed(lambda q=q: bm25s_route.rank(q))[1] for q in queries]
    return SpeedReport(mirror.name, commit, files_in_tree, cold.files, cold.languages, len(queries), round(load, 2),
                       round(jvm, 3), round(cold_s, 3), _median_ms(locate_times), _p90_ms(locate_times),
                       _median_ms(search_times), unchanged.seconds, one.seconds, round(1000 * after, 2),
                       round(build, 3), _median_ms(bm25s_times), _p90_ms(bm25s_times))


@dataclass(frozen=True)
class Effectiveness:
    set_name: str
    route: str
    instances: int
    acc1: float
    acc5: float
    mrr: float


def scores_of(ranking: Sequence[str], answers: set[str]) -> tuple[float, float, float]:
    """(Acc@1, Acc@5, reciprocal rank of the first answer) of one ranking."""
    first = next((i for i, p in enumerate(ranking[:DEPTH]) if p in answers), None)
    return (float(first == 0), float(first is not None and first < 5), 0.0 if first is None else 1.0 / (first + 1))


def summarize(set_name: str, route: str, rows: list[tuple[float, float, float]]) -> Effectiveness:
    a = np.array(rows) if rows else np.zeros((0, 3))
    mean = a.mean(axis=0) if len(a) else np.zeros(3)
    return Effectiveness(set_name, route, len(rows), round(float(mean[0]), 4), round(float(mean[1]), 4),
                         round(float(mean[2]), 4))


def speed_markdown(r: SpeedReport) -> str:
    ratio = lambda a, b: f"{a / b:.2f}x" if b else "-"  # noqa: E731
    rows = [["cold build (s)", r.lucene_cold_s, r.bm25s_build_s, ratio(r.bm25s_build_s, r.lucene_cold_s)],
            ["query, median (ms): locate() with the change check, units and packing", r.lucene_locate_ms,
             r.bm25s_query_ms, ratio(r.bm25s_query_ms, r.lucene_locate_ms)],
            ["query, p90 (ms)", r.lucene_locate_p90_ms, r.bm25s_query_p90_ms,
             ratio(r.bm25s_query_p90_ms, r.lucene_locate_p90_ms)],
            ["query, median (ms): the search alone", r.lucene_search_ms, r.bm25s_query_ms,
             ratio(r.bm25s_query_ms, r.lucene_search_ms)],
            ["update after one changed file (s)", r.lucene_one_file_update_s, f"{r.bm25s_build_s} (a rebuild)",
             ratio(r.bm25s_build_s, r.lucene_one_file_update_s)]]
    return "\n".join([
        f"## Speed on {r.repo} at {r.commit[:12]}",
        "",
        f"{r.files_in_tree:,} files in the work tree, {r.files_indexed:,} indexed ({', '.join(r.languages)}: tests, "
        f"vendored and generated files out); {r.queries} queries (the shared sets' issues); load average "
        f"{r.load_average} at the start (the machine's 2 cores are shared).",
        "",
        markdown_table(rows, ["measure", "locate (Lucene)", "bm25s (Python)", "ratio bm25s / locate"], "lrrr").rstrip("\n"),
        "",
        f"JVM start: {r.jvm_start_s} s (once per process). The check when nothing changed: "
        f"{r.lucene_unchanged_check_s} s. The one-file update is {100 * r.lucene_one_file_update_s / r.lucene_cold_s:.1f}% "
        f"of the cold build; the first locate() after it (the searcher reopened): "
        f"{r.lucene_first_locate_after_update_ms} ms.",
        "",
        f"Targets: warm query <= 200 ms ({'met' if r.lucene_locate_ms <= 200 else 'missed'}: {r.lucene_locate_ms} ms); "
        f"one-file update <= 1 s ({'met' if r.lucene_one_file_update_s <= 1 else 'missed'}) and < 5% of the cold "
        f"build ({'met' if r.lucene_one_file_update_s < 0.05 * r.lucene_cold_s else 'missed'}).",
    ])


def model_description(model: LocateModel) -> str:
    """One line naming a locate model's configuration (what its JSON ``model`` gives in full)."""
    how, m = model.how, model.model
    b = "each index's label-free b (BM25-VA, 1 - 1/mavgtf)" if m.b is None else f"b {m.b:g}"
    q = f"each index's q by the {Q_RULES[m.q]}" if isinstance(m.q, str) else f"q {m.q:g}"
    return (f"'{model.name}' (units {how.units}, path field weight {how.path_weight:g}, issue evidence "
            f"{'fused by reciprocal rank' if how.evidence else 'off'}; k1 {m.k1:g}, {b}, {q}; Anserini's analyzer)")


def effectiveness_markdown(rows: Sequence[Effectiveness]) -> str:
    lines = ["## Effectiveness on the issue sets", "",
             "Acc@1, Acc@5: share of instances with a file the fix modifies first, in the top 5; MRR over the top "
             f"{DEPTH}. locate: its default model, {model_description(AUTO_MODEL)}; bm25s: BM25 (k1 {DEFAULT_K1}, "
             f"b {DEFAULT_B}), English stopwords and stemmer; the same documents.", "",
             markdown_table([[r.set_name, r.instances, r.route, f"{r.acc1:.3f}", f"{r.acc5:.3f}", f"{r.mrr:.3f}"]
                             for r in rows], ["set", "instances", "route", "Acc@1", "Acc@5", "MRR"], "lrlrrr").rstrip("\n")]
    pooled = {r.route: r for r in rows if r.set_name == "all"}
    if {"locate", "bm25s"} <= set(pooled):
        ours, theirs = pooled["locate"], pooled["bm25s"]
        verdicts = [f"{name} {getattr(ours, field):.3f} {'at or above' if getattr(ours, field) >= getattr(theirs, field) else 'below'} "
                    f"{getattr(theirs, field):.3f}" for name, field in (("Acc@1", "acc1"), ("Acc@5", "acc5"), ("MRR", "mrr"))]
        lines += ["", f"Over all {ours.instances} instances, locate against bm25s: {'; '.join(verdicts)}."]
    return "\n".join(lines)


def prepared_corpus(path: Path) -> dict[str, str]:
    """``{path: contents}`` of a prepared corpus file (JSON lines ``{"id", "contents"}``)."""
    import json

    with open(path, encoding="utf-8") as f:
        return {d["id"]: d["contents"] for d in map(json.loads, f)}


def rank_instances(set_folder: Path, repos: Path, work: Path, languages: tuple[str, ...],
                   progress: Callable[[str], None] = lambda s: None) -> dict[str, list[tuple[float, float, float]]]:
    """Per route, the (Acc@1, Acc@5, RR) of each instance of the prepared set at ``set_folder``."""
    from qlog_pyserini.formats.instances import corpus_path, read_instance_set
    from qlog_pyserini.instances.git import find_repository

    instance_set = read_instance_set(set_folder)
    rows: dict[str, list[tuple[float, float, float]]] = {"locate": [], "bm25s": []}
    for key, instances in instance_set.by_corpus().items():
        first = instances[0]
        org, name = first.repo.split("/", 1)
        mirror = find_repository(repos, org, name)
        if mirror is None:
            continue
        documents = prepared_corpus(corpus_path(set_folder, key))
        with Locator(mirror, rev=first.base_commit, language=languages, cache=work / "cache") as loc:
            report = loc.update()
            if report.files != len(documents):
                progress(f"{key}: locate indexed {report.files} files, the prepared corpus holds {len(documents)}")
            lucene = {i.instance_id: [p for p, _ in loc.rank(instance_set.topics[i.instance_id], DEPTH, update=False)]
                      for i in instances}
        route = Bm25sRoute(documents)
        for i in instances:
            answers = set(i.answers)
            rows["locate"].append(scores_of(lucene[i.instance_id], answers))
            rows["bm25s"].append(scores_of([p for p, _ in route.rank(instance_set.topics[i.instance_id], DEPTH)],
                                           answers))
        progress(f"{key}: {len(instances)} instances")
    return rows


def issue_queries(set_folders: Sequence[Path], limit: int) -> list[str]:
    """Up to ``limit`` issue texts of the prepared sets (the speed benchmark's queries)."""
    from qlog_pyserini.formats.instances import read_instance_set

    texts: list[str] = []
    for folder in set_folders:
        texts += list(read_instance_set(folder).topics.values())
    return texts[:limit]
