"""The ``issues`` stage: issue -> files retrieval on every Multi-SWE-bench set of ``--shared/issues``.

Each language folder of ``--shared/issues`` (one ``<org>__<repo>_dataset.jsonl`` per repository) becomes an
instance set (``prepare --format multi-swe-bench``, or ``swebench`` when the folder's files are SWE-bench's:
:func:`~qlog_pyserini.instances.sources.record_format`; its repositories found under ``Config.repos``: clones or bare
mirrors, never fetched here), every corpus is indexed in one JVM (``index --instances``) and the set is swept
(``sweep --instances``: BM25, the engines' default, tuned BM25, q-log and the joint (b, q) choice, each chosen by
the same repository-grouped cross-validation, and the label-free q). ``issues.md`` holds each set's tables and
the commit of every repository read. Every step is cached under ``--work`` and reused while its inputs match.

The repositories of ``HISTORY_REPOSITORIES`` found under ``Config.repos`` add sets of another kind of query
(``prepare --format git-history`` at a pinned commit: a commit's message, the files it modified): they check the
files rule on languages the shared sets lack and on short queries, and are kept out of the fit ``--q auto-files`` ships.
"""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Mapping, Sequence

import pandas as pd

from qlog_pyserini.errors import QLogError
from qlog_pyserini.eval.budget import code_token_count
from qlog_pyserini.eval.grid import parse_grid
from qlog_pyserini.eval.report import markdown_table
from qlog_pyserini.eval.significance import compare_scores, format_p
from qlog_pyserini.formats.instances import REPORT_FILE, corpus_path, read_instance_set
from qlog_pyserini.instances.build import prepare_history_set, prepare_issue_set
from qlog_pyserini.instances.indexing import index_instance_set
from qlog_pyserini.instances.rules import FileRules
from qlog_pyserini.instances.sources import record_format, repo_label
from qlog_pyserini.localize.activity import ACTIVITY_COMMITS
from qlog_pyserini.localize.assembly import ASSEMBLY_VERSION
from qlog_pyserini.localize.ranking import LOCALIZE_VERSION
from qlog_pyserini.predict.files import (
    CAUTION,
    LENGTH_GRID,
    MIN_GROUP,
    Q_FLOOR,
    TOLERANCE,
    FilesRule,
    fit_files_rule,
    held_out_rules,
)
from qlog_pyserini.reproduce.cache import Config, PreparedCorpus, cached, stamp
from qlog_pyserini.reproduce.localization import CONFIGURATIONS, read_frames
from qlog_pyserini.reproduce.localization import section as localization_section
from qlog_pyserini.reproduce.report import footer, mode, shown_path
from qlog_pyserini.sweep.baselines import DEFAULT_B_GRID, DEFAULT_K1_GRID, TuningGrids
from qlog_pyserini.sweep.instances import InstanceSweepSettings, format_summary, group_table, run_instance_sweep
from qlog_pyserini.sweep.results import SUMMARY, per_point, scores_at
from qlog_pyserini.sweep.results import read as read_result
from qlog_pyserini.system.outputs import atomic_output
from qlog_pyserini.system.progress import info

FILES = ("issues.md", "issues.json", "localization.md", "localization.json")
# The languages each folder's instances are written in: the folders of Multi-SWE-bench's own split, then every
# other language the file rules know, under its own name (SWE-bench Multilingual's PHP and Ruby, ...). A JavaScript
# repository's TypeScript sources are part of what an agent may have to edit, and the reverse.
FOLDER_LANGUAGES = {"java": ("java",), "js": ("javascript", "typescript"), "ts": ("typescript", "javascript"),
                    "c": ("c",), "cpp": ("cpp", "c"), "go": ("go",), "rust": ("rust",), "python": ("python",),
                    "javascript": ("javascript", "typescript"), "typescript": ("typescript", "javascript"),
                    "php": ("php",), "ruby": ("ruby",), "kotlin": ("kotlin", "java"), "csharp": ("csharp",),
                    "swift": ("swift",), "scala": ("scala", "java")}
QUICK_INSTANCES = 6  # per set with --quick
# Public repositories (<org>__<repo> under Config.repos, never fetched here) and the commit whose history is read.
HISTORY_REPOSITORIES = {
    "python": (("pallets__flask", "2ac89889f4cc330eabd50f295dcef02828522c69"),
               ("psf__requests", "1f6589ec3a1ee910f9a65cc3ceac60b26677bc0e"),
               ("pydata__xarray", "b1c1dc549b62bdfc8de0bdded24f56464cf0db1a")),
    "go": (("spf13__cobra", "adbc8813901bba65827259daa8e22ff94ec1f30e"),
           ("gin-gonic__gin", "dcaa4296d111981ffb31ac3eba90bb63e1eb5ab9")),
    "rust": (("clap-rs__clap", "6982fb1c98c7247e38a6d4f04191b94e30497e7b"),
             ("BurntSushi__ripgrep", "3fce3b5bb0236da2df6d99672afb8a719642eca7")),
    "cpp": (("fmtlib__fmt", "60ccad511fd680cb91d8b60a315759f71c67bef9"),
            ("gabime__spdlog", "62302019babd8fdf63c1c6dc4c9faa48d441a7f0")),
}
ANALYZERS = ("default", "identifier")  # the generic English analyzer (SWE-bench's), then identifier-aware
HISTORY_COMMITS = 40  # the newest commits of each history that make an instance
HISTORY_PREFIX = "history-"


def issue_folders(cfg: Config) -> list[Path]:
    """The language folders of ``--shared/issues`` this stage knows, in name order."""
    root = cfg.shared / "issues"
    if not root.is_dir():
        return []
    return [p for p in sorted(root.iterdir()) if p.is_dir() and p.name in FOLDER_LANGUAGES and any(p.glob("*.jsonl"))]


def run(cfg: Config, corpora: Sequence[PreparedCorpus]) -> None:
    folders = issue_folders(cfg)
    histories = history_repositories(cfg)
    if not folders and not histories:
        info(f"issues: no issue sets under {cfg.shared / 'issues'} and no history repositories under {cfg.repos}; "
             "skipped")
        return None
    if folders and not cfg.repos.is_dir():
        info(f"issues: no repositories at {cfg.repos} (clones or mirrors of the sets' repositories); skipped")
        return None
    # the sets are prepared once (cached); each analyzer indexes and sweeps its own copy
    swept = {analyzer: sweep_sets(cfg, analyzer) for analyzer in ANALYZERS}
    summaries = swept["default"][:len(folders)]
    history = swept["default"][len(folders):]
    if not summaries and not history:
        return None
    _write_localization(swept, cfg)
    sections = [f"# Issue -> files retrieval ({mode(cfg)})\n"]
    if summaries:
        sections.append("Each set: Multi-SWE-bench instances of `--shared/issues/<folder>`, one index per base commit "
                        "(documents: every non-test source file of the asked languages, its path, a newline and its "
                        "text; query: the issue's title and body; answers: the source files the merged fix "
                        "modifies). Rules, measures and folds: docs/coding-agents.md and "
                        "docs/cli.md#sweeping-an-instance-set.\n")
    for summary in summaries:
        sections.append("#" + format_summary(summary).replace("\n# ", "\n## ").replace("\n## ", "\n### "))
        sections.append(_repositories(Path(summary["instance_set"]), cfg))
    if history:
        sections.append(_history_section(history))
    label_free_md, label_free = label_free_section(summaries + history, cfg)
    sections.append(label_free_md)
    with atomic_output(cfg.out / "issues.md") as f:
        f.write("\n".join(sections) + footer(cfg))
    with atomic_output(cfg.out / "issues.json") as f:
        keys = ("name", "instances", "repositories", "languages", "tables", "cv", "auto", "verdict")
        sets = [{k: s[k] for k in keys if k in s} for s in summaries + history]
        json.dump(sets + [{"label_free": label_free}], f, indent=1)
    return None


def sweep_sets(cfg: Config, analyzer: str = "default") -> list[dict]:
    """The summaries of this stage's sets under ``analyzer``: every shared set of :func:`issue_folders`, then every
    history of :func:`history_repositories` whose mirror has its revision; each step cached."""
    return [_sweep_set(folder, cfg, analyzer) for folder in issue_folders(cfg)] + [
        s for s in (sweep_history(language, repo, revision, cfg, analyzer)
                    for language, repo, revision in history_repositories(cfg)) if s is not None]


def history_repositories(cfg: Config) -> list[tuple[str, str, str]]:
    """(language, repository folder name, revision) of every ``HISTORY_REPOSITORIES`` entry under ``cfg.repos``."""
    return [(language, repo, revision) for language, entries in HISTORY_REPOSITORIES.items()
            for repo, revision in entries if (cfg.repos / repo).is_dir()]


def _group(summary: Mapping) -> str:
    """The set an instance counts in for the files rule: a shared set by its folder, a history by its language."""
    return summary.get("group", summary["name"])


def _write_localization(swept: Mapping[str, Sequence[dict]], cfg: Config) -> None:
    """results/localization.md and .json: the label-free configuration against the stronger baseline."""
    by_analyzer = {a: {s["name"]: _folder(cfg, analyzer_folder("issue-sweeps", a), s["name"]) for s in sums}
                   for a, sums in swept.items()}
    body, record = localization_section(read_frames(by_analyzer), cfg.resamples)
    with atomic_output(cfg.out / "localization.md") as f:
        f.write(f"# Issue -> files: the label-free configuration ({mode(cfg)})\n\n" + body + footer(cfg))
    with atomic_output(cfg.out / "localization.json") as f:
        json.dump(record, f, indent=1)


def analyzer_folder(kind: str, analyzer: str) -> str:
    """The work folder of an index or sweep kind under ``analyzer`` (the default analyzer's keeps its name)."""
    return kind if analyzer == "default" else f"{kind}-{analyzer}"


def _sweep_set(folder: Path, cfg: Config, analyzer: str = "default") -> dict:
    inputs = sorted(folder.glob("*.jsonl"))
    return sweep_issue_set(folder.name, inputs, record_format(inputs), FOLDER_LANGUAGES[folder.name], cfg, analyzer)


def sweep_issue_set(name: str, inputs: Sequence[Path], fmt: str, languages: Sequence[str], cfg: Config,
                    analyzer: str = "default") -> dict:
    """The issue files ``inputs`` (``prepare --format fmt``, their repositories under ``Config.repos``) made the set
    ``name``, indexed under ``analyzer`` and swept with folds dealt by repository; every step cached."""
    set_key = prepared_set_key(languages, inputs=[str(p) for p in inputs], sizes=[p.stat().st_size for p in inputs],
                       repos=str(cfg.repos), max_instances=_limit(cfg))
    if fmt != "multi-swe-bench":
        set_key["format"] = fmt
    sets = _folder(cfg, "issue-sets", name)
    if not cached(sets, set_key):
        prepare_issue_set(fmt, inputs, cfg.repos, sets, FileRules(tuple(languages)),
                          max_instances=_limit(cfg), skip_missing=True, overwrite=True, command=cfg.command)
        stamp(sets, set_key)
    return _index_and_sweep(name, set_key, "repository", cfg, analyzer)


def sweep_history(language: str, repo: str, revision: str, cfg: Config, analyzer: str = "default") -> dict | None:
    """A git-history set of one repository at its pinned revision, swept with folds dealt by instance (one
    repository); None, with one line, when the mirror lacks the revision."""
    name, languages = HISTORY_PREFIX + repo, FOLDER_LANGUAGES[language]
    limit = _limit(cfg) or HISTORY_COMMITS
    set_key = prepared_set_key(languages, repository=str(cfg.repos / repo), revision=revision, max_instances=limit)
    sets = _folder(cfg, "issue-sets", name)
    if not cached(sets, set_key):
        try:
            prepare_history_set(cfg.repos / repo, sets, FileRules(languages),
                                revision=revision, max_instances=limit, overwrite=True, progress=False,
                                command=cfg.command)
        except QLogError as e:
            info(f"issues: history of {repo} skipped: {e}")
            return None
        stamp(sets, set_key)
    summary = _index_and_sweep(name, set_key, "instance", cfg, analyzer)
    return {**summary, "group": HISTORY_PREFIX + language, "repo": repo_label(cfg.repos / repo),
            "revision": revision}


def prepared_set_key(languages: Sequence[str], **inputs) -> dict:
    """The cache key of a prepared instance set (here and in scripts/bench_locate.py): its inputs, its languages, the
    fingerprint of their file rules, the version of the assembled files' reading and the window of the recent
    history, so that a set prepared under other rules (another test folder, another generated-file marker) is
    prepared again."""
    return {**inputs, "languages": list(languages), "rules": FileRules(tuple(languages)).fingerprint(),
            "assembled": ASSEMBLY_VERSION, "activity": ACTIVITY_COMMITS}


def _limit(cfg: Config) -> int | None:
    return QUICK_INSTANCES if cfg.quick else None


def _folder(cfg: Config, kind: str, name: str) -> Path:
    folder = cfg.work / kind / name
    folder.parent.mkdir(parents=True, exist_ok=True)
    return folder


def _index_and_sweep(name: str, set_key: dict, cv_unit: str, cfg: Config, analyzer: str = "default") -> dict:
    """Index the set in one JVM under ``analyzer`` (every index whose corpus is unchanged reused) and sweep it with
    the issue -> files configurations, or read the cached sweep when its set and settings match."""
    sets = _folder(cfg, "issue-sets", name)
    indexes, sweeps = (_folder(cfg, analyzer_folder(kind, analyzer), name) for kind in ("issue-indexes", "issue-sweeps"))
    index_instance_set(sets, indexes, threads=cfg.threads, analyzer=analyzer)
    grid = tuple(g for g in cfg.grid if g <= 1.0)  # q > 1 saturates rare terms: never a candidate here
    grids = TuningGrids(q_grid=grid, k1_grid=tuple(parse_grid(DEFAULT_K1_GRID)), b_grid=tuple(parse_grid(DEFAULT_B_GRID)))
    sweep_key = {"set": set_key, "grid": list(grid), "resamples": cfg.resamples, "summary_version": 6,
                 "analyzer": analyzer, "localize": list(CONFIGURATIONS), "localize_version": LOCALIZE_VERSION}
    if cv_unit != "repository":
        sweep_key["cv_unit"] = cv_unit
    if cached(sweeps, sweep_key) and (sweeps / SUMMARY).is_file():
        return dict(read_result(sweeps))
    settings = InstanceSweepSettings(grids=grids, threads=cfg.threads, resamples=cfg.resamples, auto=FilesRule(),
                                     cv_unit=cv_unit, localize=CONFIGURATIONS)
    summary = run_instance_sweep(sets, indexes, sweeps, settings, name=name, overwrite=True)
    stamp(sweeps, sweep_key)
    return dict(summary)


def _history_section(history: Sequence[dict]) -> str:
    """One table for the git-history sets: each repository's whole set, at its pinned revision."""
    rows = [{**h["tables"]["all"][0], "group": f"{h['repo']} @ {h['revision'][:8]}"}
            for h in history]
    first = history[0]
    return ("## Commit -> files: repositories' own histories\n\n"
            f"Each row: the newest commits (at most {HISTORY_COMMITS}) of a public repository's history (read from its mirror "
            "under `--repos` at the revision shown) that modify a source file of its language, made a set with "
            "`prepare --format git-history` (query: the commit's message; answers: the source files it modifies; "
            "corpus: the parent's tree) and swept as above with folds dealt by instance. Commit messages are short "
            "queries (a few words) where issue reports are long: these sets check the files rule on another kind "
            "of query and on languages the shared sets lack, and are not part of the fit it ships.\n\n"
            + group_table("repository", rows, first))


def _pooled(summaries: Sequence[dict], cfg: Config) -> tuple[pd.DataFrame, pd.Series, pd.Series, pd.Series,
                                                               dict, dict]:
    """Every set's instances pooled: MRR at each q (at the sweep's k1, b), the cross-validated q-log's, tuned
    BM25's and the files rule's MRR, and each instance's repository and set."""
    frames, cv, tuned, auto, repo_of, set_of = [], [], [], [], {}, {}
    for summary in summaries:
        folder = cfg.work / "issue-sweeps" / summary["name"]
        per_query = pd.read_csv(folder / "per_query.csv", index_col="qid")
        frames.append(scores_at(per_point(folder), summary["k1"], summary["b"]))
        cv.append(per_query["qlog_cv:recip_rank"])
        tuned.append(per_query["bm25_cv:recip_rank"])
        auto.append(per_query["auto:recip_rank"])  # the files rule's q, a point of the grid or not
        repo_of.update(per_query["repo"].to_dict())
        set_of.update({q: _group(summary) for q in per_query.index})
    return pd.concat(frames), pd.concat(cv), pd.concat(tuned), pd.concat(auto), repo_of, set_of


def label_free_section(summaries: Sequence[dict], cfg: Config) -> tuple[str, dict]:
    """The files rule (``--q auto-files`` on an instance set) fitted on the pooled sets, and scored held out by
    repository and by language, from each set's per-instance MRR at every q (its sweep's ``per_point.csv``)."""
    scores, qlog_cv, bm25_cv, auto, repo_of, set_of = _pooled(summaries, cfg)
    features = pd.concat(_instance_features(cfg.work / "issue-sets" / s["name"], cfg.work / "issue-indexes" / s["name"])
                         for s in summaries).reindex(scores.index)
    lengths = features["mean_length"].to_dict()
    shipped = FilesRule()
    issue_ids = [q for q in scores.index if not set_of[q].startswith(HISTORY_PREFIX)]
    pooled = fit_files_rule(scores.loc[issue_ids], lengths, set_of)
    pooled_all = fit_files_rule(scores, lengths, set_of)
    # held out = fitted without the unit on the issue sets, as the shipped rule is; a history set, never fitted
    # on, is scored by the rule fitted on all the issue sets
    held = {unit: held_out_rules(scores.loc[issue_ids], lengths, of, set_of)
            for unit, of in (("repository", repo_of), ("language", set_of))}
    at = {unit: pd.Series({q: scores.at[q, held[unit].get(of[q], pooled).q_for(lengths[q])] for q in scores.index})
          for unit, of in (("repository", repo_of), ("language", set_of))}
    systems = {"`--q auto-files`": auto, "held out by repository": at["repository"],
               "held out by language": at["language"]}
    rows, record = [], {"rule": _rule_record(shipped), "fitted_on_all": _rule_record(pooled),
                        "fitted_with_histories": _rule_record(pooled_all),
                        "held_out": {u: {k: _rule_record(r) for k, r in rules.items()} for u, rules in held.items()},
                        "sets": {}}
    for name in dict.fromkeys(_group(s) for s in summaries):
        ids = [q for q in scores.index if set_of[q] == name]
        bm25, best = scores.loc[ids, 1.0], qlog_cv.loc[ids]
        moved = sum(1 for q in ids if lengths[q] >= shipped.min_length)
        cells, record["sets"][name] = [], {"instances": len(ids), "moved": moved, "bm25": bm25.mean(),
                                           "qlog_cv": best.mean()}
        for label, system in systems.items():
            c = compare_scores(bm25, system.loc[ids], resamples=cfg.resamples, seed=0)
            gain = best.mean() - bm25.mean()
            recovery = f"{c.diff / gain:.2f}" if gain > 0 else "n/a"
            cells.append(f"{c.mean_b:.4f} ({100 * (c.rel_diff or 0):+.1f}%, {format_p(c.p, c.resamples)}, {recovery})")
            record["sets"][name][label] = {"mrr": c.mean_b, "rel_diff": c.rel_diff, "p": c.p,
                                           "recovery": c.diff / gain if gain > 0 else None}
        against_tuned = compare_scores(bm25_cv.loc[ids], systems["`--q auto-files`"].loc[ids], resamples=cfg.resamples,
                                       seed=0)
        record["sets"][name]["bm25_cv"] = bm25_cv.loc[ids].mean()
        record["sets"][name]["auto_vs_bm25_cv"] = {"rel_diff": against_tuned.rel_diff, "p": against_tuned.p}
        rows.append([name, len(ids), moved, f"{bm25.mean():.4f}", f"{bm25_cv.loc[ids].mean():.4f}", f"{best.mean():.4f}",
                     *cells, f"{100 * (against_tuned.rel_diff or 0):+.1f}%, "
                     f"{format_p(against_tuned.p, against_tuned.resamples)}",
                     _rule_text(held["language"].get(name, pooled))])
    by_repo = "; ".join(f"{r}: {_rule_text(rule)}" for r, rule in held["repository"].items())
    q_near = min(scores.columns, key=lambda q: abs(q - shipped.q))
    gain = scores[q_near] - scores[1.0]
    predictors, record["predictors"] = _predictor_table(features.loc[issue_ids], gain.loc[issue_ids], repo_of)
    if len(issue_ids) < len(scores):
        pooled_md, record["predictors_with_histories"] = _predictor_table(features, gain, repo_of)
        predictors += "\nThe same with the history sets too (commit messages as queries):\n\n" + pooled_md
    md = ("## Label-free q on issue -> files (the files rule)\n\n"
          f"`--q auto-files` on an instance set: q = {shipped.q:g} for an index whose mean file length (BM25's avgdl) "
          f"reaches {shipped.min_length:g} tokens, BM25 (q = 1) below it (`qlog_pyserini/predict/files.py`). The pair "
          f"is fitted over q >= {Q_FLOOR:g} of the grid and lengths {', '.join(f'{x:g}' for x in LENGTH_GRID)}: "
          f"the best mean relative MRR change over BM25 across the sets of at least {MIN_GROUP} instances, among "
          f"the pairs that keep every such set within {100 * TOLERANCE:g}% of BM25, the most cautious (longest "
          f"length, then highest q) within {100 * CAUTION:g} points of the best. Fitted on all the issue sets below: "
          f"{_rule_text(pooled)}" + (f"; with the history sets too (`{HISTORY_PREFIX}<language>`, commit messages "
                                     f"as queries): {_rule_text(pooled_all)}" if len(issue_ids) < len(scores) else "")
          + ". Held out, each instance of an issue set is scored by the rule fitted on the issue sets without its "
          "repository, or without its set; an instance of a history set, in no fit, by the rule fitted on all the "
          "issue sets. Cells: MRR (change against BM25, two-sided randomization p against BM25, recovery = "
          "gain / the cross-validated q-log's gain); moved: instances whose index reaches the length.\n\n"
          + markdown_table(rows, ["set", "instances", "moved", "BM25", "tuned BM25 (CV)", "q-log (CV)", *systems,
                                  "`--q auto-files` vs tuned BM25", "rule held out by language"],
                           "lrrrrr" + "l" * len(systems) + "ll") + "\n"
          f"Rule held out by repository: {by_repo}.\n\n"
          "What could a rule read? Each statistic below, on the issue sets, per instance and per repository (its "
          "instances' mean "
          f"gain against the repository's median statistic), against the MRR gain at q = {q_near:g} over BM25 "
          "for every instance: Spearman's rho and its p.\n\n" + predictors)
    return md, record


def _rule_record(rule: FilesRule) -> dict:
    """The rule for JSON: ``min_length`` None when it moves nothing (BM25 everywhere)."""
    return {"q": rule.q, "min_length": None if math.isinf(rule.min_length) else rule.min_length}


def _rule_text(rule: FilesRule) -> str:
    return "BM25 everywhere" if math.isinf(rule.min_length) else f"q = {rule.q:g} from {rule.min_length:g} tokens"


FEATURE_LABELS = {"query_terms": "distinct query terms in the index", "rarest_df": "smallest df of a query term",
                  "rare_terms": "query terms of df <= 5", "documents": "files in the index",
                  "mean_length": "mean file length (tokens)", "length_spread": "file length, coefficient of variation",
                  "df_slope_h": "corpus rule's feature (sample-df-slope)", "corpus_q": "corpus rule's q, no shrinkage"}


def _instance_features(set_dir: Path, index_dir: Path) -> pd.DataFrame:
    """What a label-free rule could read for each instance: its query's term statistics in its index, and the
    index's own statistics (the corpus rule's feature and q without the small-corpus shrinkage)."""
    from qlog_pyserini.lucene.searcher import QLogSearcher
    from qlog_pyserini.predict.per_query import query_doc_freqs
    from qlog_pyserini.predict.rule import predict_q
    from qlog_pyserini.search.instances import corpus_indexes
    from qlog_pyserini.stats.statistics import corpus_stats, features

    instance_set = read_instance_set(set_dir)
    indexes = corpus_indexes(instance_set, index_dir)
    rows = {}
    for key, members in instance_set.by_corpus().items():
        stats = corpus_stats(indexes[key])
        unshrunk = predict_q(indexes[key], shrink_docs=0, step=0)
        with QLogSearcher(indexes[key]) as searcher:
            dfs = query_doc_freqs(searcher, [instance_set.topics[m.instance_id] for m in members])
            mean_length = searcher.mean_length()
        with open(corpus_path(set_dir, key), encoding="utf-8") as f:
            sizes = pd.Series([code_token_count(json.loads(line)["contents"]) for line in f if line.strip()])
        spread = float(sizes.std() / sizes.mean()) if len(sizes) > 1 and sizes.mean() > 0 else float("nan")
        for member, freqs in zip(members, dfs):
            found = [d for d in freqs if d > 0]
            rows[member.instance_id] = {
                "query_terms": len(found), "rarest_df": min(found, default=float("nan")),
                "rare_terms": sum(1 for d in found if d <= 5), "documents": stats["documents"],
                "mean_length": mean_length, "length_spread": spread,
                "df_slope_h": features(stats)["sample-df-slope"], "corpus_q": unshrunk.q}
    return pd.DataFrame.from_dict(rows, orient="index")


def _predictor_table(features: pd.DataFrame, gain: pd.Series, repo_of: dict) -> tuple[str, dict]:
    from scipy.stats import spearmanr

    repos = pd.Series(repo_of).reindex(gain.index)
    by_repo = features.groupby(repos).median()
    repo_gain = gain.groupby(repos).mean()
    rows, record = [], {}
    for name, label in FEATURE_LABELS.items():
        cells = []
        for x, y in ((features[name], gain), (by_repo[name], repo_gain.reindex(by_repo.index))):
            ok = x.notna() & y.notna()
            varied = ok.sum() >= 3 and x[ok].nunique() > 1 and y[ok].nunique() > 1
            rho, p = spearmanr(x[ok], y[ok]) if varied else (float("nan"), float("nan"))
            cells.append((float(rho), float(p)))
        record[name] = {unit: [None if math.isnan(v) else v for v in cell]  # JSON has no NaN
                        for unit, cell in zip(("instance", "repository"), cells)}
        rows.append([label, f"{cells[0][0]:+.2f}", f"{cells[0][1]:.3f}", f"{cells[1][0]:+.2f}", f"{cells[1][1]:.3f}"])
    return markdown_table(rows, ["statistic", "rho, per instance", "p", "rho, per repository", "p"],
                          ["left", "right", "right", "right", "right"]), record


def _repositories(instance_set: Path, cfg: Config) -> str:
    """The repositories a set read and the commit each mirror's HEAD stood at."""
    sources = json.loads((instance_set / REPORT_FILE).read_text())["sources"]["repositories"]
    rows = [[name, shown_path(r["path"], cfg) if r["path"] else "missing", r["head"] or "n/a"]
            for name, r in sorted(sources.items())]
    return ("Repositories read (instances missing from a mirror are dropped and counted in the set's report.json):\n\n"
            + markdown_table(rows, ["repository", "mirror", "HEAD"]))
