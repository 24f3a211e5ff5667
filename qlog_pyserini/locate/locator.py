"""``Locator``: from an issue's text to the files of a repository that answer it, packed into a token budget.

    >>> from qlog_pyserini.locate import Locator                              # doctest: +SKIP
    >>> loc = Locator("path/to/repo")                                         # doctest: +SKIP
    >>> result = loc.locate("websocket upgrade fails behind a proxy", budget=8000)   # doctest: +SKIP
    >>> [(f.path, f.unit.name if f.unit else None) for f in result.files]    # doctest: +SKIP
    >>> result.to_json()                                                      # doctest: +SKIP

Each call first brings the repository's indexes up to date (:mod:`qlog_pyserini.locate.cache`): files added,
changed or deleted since the last call are indexed or removed, with their units, the rest is untouched. Then the
issue is ranked against the indexes (:mod:`qlog_pyserini.locate.model`: by default the issue -> files label-free
configuration, files and units fused, the path field, the files the issue names), each of the top ``hits`` files
names the unit that ranked best for it (a function or a span of lines, from the units index; a file no unit hit
reached names its best unit by :mod:`qlog_pyserini.locate.units`), and the files are packed into ``budget`` tokens:

- in rank order, a file is packed whole while the running total stays within the budget;
- a file that does not fit is ``packed: false``; its best-scoring units (units that share a term with the
  query, best first) are packed instead while they fit, listed in ``packed_units``; the walk goes on to the
  next file, so a smaller file ranked lower may still be packed;
- when nothing is packed, ``reason`` says why.

Tokens are the project's code-token count (:func:`qlog_pyserini.eval.budget.code_token_count`): one token per
identifier, per number and per other non-space character; whitespace is free. It is an estimate of an LLM's
tokens (close to a BPE count for code, usually a little above it), the same count Recall@K-tokens uses.

A ``Locator`` is reusable and thread-safe: one lock serialises index updates and searches, and it keeps its
searchers and the file list the issue's mentions are matched to open across calls (reopened only when the index
changed).
"""

from __future__ import annotations

import json
import os
import threading
import time
from collections import Counter
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any, Mapping

from qlog_pyserini.errors import QLogError
from qlog_pyserini.eval.budget import code_token_count
from qlog_pyserini.formats.instances import file_text
from qlog_pyserini.formats.trec import Hit
from qlog_pyserini.instances.rules import (
    ASSEMBLED_REASONS,
    ASSEMBLY_MAX_BYTES,
    LANGUAGE_RULES,
    FileRules,
    check_languages,
    content_reason,
)
from qlog_pyserini.jvm.bridge import detach_when_thread_ends, is_java_exception, java_error, jclass, start_jvm
from qlog_pyserini.localize.activity import ACTIVITY_COMMITS
from qlog_pyserini.localize.assembly import LazyAssemblies
from qlog_pyserini.localize.evidence import FileIndex
from qlog_pyserini.localize.paths import PATH_FIELD, path_document
from qlog_pyserini.localize.ranking import Localizer
from qlog_pyserini.localize.run import files_evidence
from qlog_pyserini.localize.symbols import SymbolTable
from qlog_pyserini.localize.units import UNIT_SEPARATOR, unit_documents, unit_path
from qlog_pyserini.locate.cache import IndexCache, Manifest, cache_key, default_cache_root
from qlog_pyserini.locate.model import AUTO_MODEL, LocateModel
from qlog_pyserini.locate.sources import (
    RACY_NS,
    Candidate,
    KeptFiles,
    Revision,
    WorkTree,
    content_sha,
    detect_languages,
    open_source,
)
from qlog_pyserini.locate.units import TOP, Unit, bm25_idf, score_units, split_units
from qlog_pyserini.lucene.searcher import QLogSearcher, check_hits

UPDATER = "io.qlog.index.IndexUpdater"
TEXT_TERMS = "io.qlog.analysis.TextTerms"
DEFAULT_BUDGET = 8192
DEFAULT_HITS = 10
UPDATE_BATCH = 2048  # documents per call into Java: bounds the memory of one crossing
ID_FIELD, FILE_FIELD = "id", "file"  # the units index's keyword field: the file a unit is of
PARALLEL_FROM = 64  # a change of this many documents is analyzed on every core (MAX_THREADS at most)
MAX_THREADS = 4


@dataclass(frozen=True)
class UnitHit:
    """A function, class or type of a ranked file: its name, lines (1-based, inclusive), score and tokens."""

    name: str
    start: int
    end: int
    score: float
    tokens: int


@dataclass(frozen=True)
class LocatedFile:
    """One ranked file: its rank (1 = best), score, size in tokens, whether it was packed whole, the unit that
    made it rank, and the units packed instead when the whole file did not fit. ``text`` is the file as
    indexed (left out of the JSON)."""

    path: str
    rank: int
    score: float
    tokens: int
    packed: bool
    unit: UnitHit | None
    packed_units: tuple[UnitHit, ...] = ()
    text: str = field(default="", repr=False)

    def to_json(self) -> dict[str, Any]:
        data = asdict(self)
        del data["text"]
        data["packed_units"] = list(data["packed_units"])
        return data


@dataclass(frozen=True)
class IndexReport:
    """What bringing the index up to date did: files indexed in all, files (re)indexed and removed by this
    call, whether it rebuilt the index, seconds taken, and files left out by reason (content rules: binary,
    unreadable, generated; path rules: tests, vendored, other languages ...)."""

    files: int
    updated: int
    removed: int
    seconds: float
    skipped: dict[str, int]
    excluded: dict[str, int]
    rebuilt: bool
    languages: tuple[str, ...]
    folder: str


@dataclass(frozen=True)
class LocateResult:
    """The answer to one issue: the ranked files, the budget and tokens packed, why nothing was packed (if so),
    the model's settings and what the index update did. :meth:`to_json` is the ``--json`` object."""

    files: tuple[LocatedFile, ...]
    budget: int
    packed_tokens: int
    reason: str | None
    model: dict[str, Any]
    index: IndexReport

    def to_json(self) -> dict[str, Any]:
        data: dict[str, Any] = {"files": [f.to_json() for f in self.files], "budget": self.budget,
                                "packed_tokens": self.packed_tokens}
        if self.reason is not None:
            data["reason"] = self.reason
        index = asdict(self.index)
        index["languages"] = list(self.index.languages)
        return {**data, "model": self.model, "index": index}

    def dumps(self) -> str:
        return json.dumps(self.to_json(), ensure_ascii=False)


def check_issue(issue: object) -> str:
    if not isinstance(issue, str) or not issue.strip():
        raise QLogError("the issue is empty: give its text (--query or --query-file)")
    return issue


def check_budget(budget: object) -> int:
    if isinstance(budget, bool) or not isinstance(budget, int) or budget < 1:
        raise QLogError(f"illegal budget: {budget!r}, must be an integer of at least 1 token")
    return budget


class Locator:
    """Ranks a repository's files for issues, with an index kept in a cache folder and updated in place.

    Args:
        repo: a repository folder: its work tree is read (uncommitted and untracked files included), or,
            with ``rev``, that commit (bare mirrors too).
        rev: a commit (any revision git resolves) to read instead of the work tree.
        language: the languages whose files are indexed (prepare's rules); detected when None.
        cache: the cache root (one folder per repository under it); default :func:`default_cache_root`.
        model: the ranking configuration (:data:`~qlog_pyserini.locate.model.AUTO_MODEL` by default).

    Every argument is checked here, before any index work: a folder that is not a repository, a ``rev`` it
    lacks and an unknown language are :class:`QLogError`.
    """

    def __init__(self, repo: str | os.PathLike, rev: str | None = None,
                 language: str | tuple[str, ...] | list[str] | None = None,
                 cache: str | os.PathLike | None = None, model: LocateModel | None = None) -> None:
        languages = (language,) if isinstance(language, str) else tuple(language) if language else None
        self.languages = check_languages(languages) if languages is not None else None
        self.source: WorkTree | Revision = open_source(repo, rev)
        self.model: LocateModel = model or AUTO_MODEL
        root = Path(cache) if cache is not None else default_cache_root()
        if root.exists() and not root.is_dir():
            raise QLogError(f"--cache {str(root)!r} is not a folder")
        self.cache = IndexCache(root / cache_key(self.source.identity, self.languages))
        self._lock = threading.Lock()
        self._searcher: QLogSearcher | None = None
        self._units: QLogSearcher | None = None
        self._localizer: Localizer | None = None
        self._files_b = 0.0  # the files index's b, which the packed units are scored with
        # the indexed files and the names they define, matched to mentions; rebuilt when the index changes
        self._evidence: tuple[tuple[int, tuple[str, ...]], FileIndex] | None = None
        self._generated: tuple[str, ...] = ()  # the files left out as generated that may be assemblies
        self._activity: tuple[tuple[str | None, int], dict[str, int]] | None = None  # per (commit, index generation)
        self._symbols = SymbolTable()
        self._generation = -1
        self._settings: dict[str, Any] = {}
        self._manifest: Manifest | None = None
        self._kept: dict[tuple[str, ...], KeptFiles] = {}  # the rules of each language set, with their answers
        self._detection: tuple[int, tuple[str, ...]] = (0, ())  # (listing generation, languages detected in it)

    # -- the index ---------------------------------------------------------------------------------

    def update(self) -> IndexReport:
        """Bring the index up to date with the repository (what :meth:`locate` does first)."""
        with self._lock, self.cache.locked():
            return self._update()

    def _update(self) -> IndexReport:
        started = time.monotonic()
        listed_ns = time.time_ns()
        candidates = self.source.candidates(self._rules(self.languages or tuple(LANGUAGE_RULES)).wanted)
        languages = self.languages or self._detected(candidates)
        kept, excluded, left_out = self._rules(languages).split(candidates)
        fingerprint = self._rules(languages).fingerprint
        manifest = self.cache.load()
        rebuilt = manifest is None or manifest.rules != fingerprint or manifest.languages != languages
        if rebuilt:
            manifest = Manifest(languages, fingerprint)
        assert manifest is not None
        stale = self._stale(manifest, kept)
        new = Manifest(languages, fingerprint, generation=manifest.generation, scanned_ns=listed_ns)
        kept_paths = {c.path for c in kept}
        new.files = {p: v for p, v in manifest.files.items() if p in kept_paths and p not in stale}
        new.skipped = {p: v for p, v in manifest.skipped.items() if p in kept_paths and p not in stale}
        changed = self._read(stale, manifest, new)
        removed = [p for p in manifest.files if p not in new.files]
        if rebuilt or changed or removed:
            new.generation = manifest.generation + 1
            self._apply(new, changed, removed, create=rebuilt)
        elif stale:
            self.cache.commit(new)  # versions refreshed (touched or racy files), nothing to index
        self._manifest = new
        # the files an issue may name though they are not indexed: by path (amalgamations) or content (markers)
        self._generated = tuple(sorted({*left_out, *(p for p, (_, why) in new.skipped.items()
                                                    if why in ASSEMBLED_REASONS)}))
        skipped = Counter(reason for _, reason in new.skipped.values())
        return IndexReport(len(new.files), len(changed), 0 if rebuilt else len(removed),
                           round(time.monotonic() - started, 3), dict(sorted(skipped.items())),
                           dict(sorted(excluded.items())), rebuilt, languages, str(self.cache.folder))

    def _rules(self, languages: tuple[str, ...]) -> KeptFiles:
        if languages not in self._kept:
            self._kept[languages] = KeptFiles(FileRules(languages))
        return self._kept[languages]

    def _detected(self, candidates: list[Candidate]) -> tuple[str, ...]:
        generation = self.source.listing_generation
        if self._detection[0] != generation:
            kept, _, _ = self._rules(tuple(LANGUAGE_RULES)).split(candidates)
            self._detection = (generation, detect_languages([c.path for c in kept]))
        return self._detection[1]

    def _stale(self, manifest: Manifest, kept: list[Candidate]) -> dict[str, Candidate]:
        """The kept files whose version differs from the manifest's (or that are racy: see :data:`RACY_NS`)."""
        stale = {}
        for c in kept:
            old = manifest.files.get(c.path) or manifest.skipped.get(c.path)
            if old is None or old[0] != c.version or self._racy(c, manifest):
                stale[c.path] = c
        return stale

    def _racy(self, c: Candidate, manifest: Manifest) -> bool:
        if not isinstance(self.source, WorkTree):
            return False
        mtime_ns = int(c.version.split(":", 1)[0])
        return mtime_ns >= manifest.scanned_ns - RACY_NS

    def _read(self, stale: dict[str, Candidate], old: Manifest, new: Manifest) -> dict[str, str]:
        """Read the stale files into ``new``; ``{path: text}`` of those whose content changed."""
        changed = {}
        for path, data in self.source.read(list(stale)):
            version = stale[path].version
            if data is None:
                new.skipped[path] = [version, "unreadable"]
                continue
            reason = content_reason(data)
            if reason is not None:
                new.skipped[path] = [version, reason]
                continue
            sha = content_sha(data)
            new.files[path] = [version, sha]
            previous = old.files.get(path)
            if previous is None or previous[1] != sha:
                changed[path] = data.decode("utf-8", "replace")
        return changed

    def _apply(self, manifest: Manifest, changed: dict[str, str], removed: list[str], create: bool) -> None:
        """Index the ``changed`` files (``{path: text}``) and their units, and delete the ``removed`` ones and the
        units of both: the file documents replace theirs by id, a file's units are deleted by their ``file`` term
        (however the file's lines moved) and added again."""
        # a file's document is its path, a newline and its text, as index --instances builds it
        documents = [path_document(path, f"{path}\n{text}", path) for path, text in changed.items()]
        units = [path_document(docid, contents, path, **{FILE_FIELD: path})
                 for path, text in changed.items() for docid, contents in unit_documents(path, text)]
        self._write(manifest, [(self.cache.index_dir, documents, removed, ID_FIELD),
                               (self.cache.units_dir, units, [*changed, *removed], FILE_FIELD)], create)

    def _write(self, manifest: Manifest, changes: list[tuple[Path, list[str], list[str], str]], create: bool) -> None:
        """Apply ``changes`` (per index: its folder, JSON documents, deleted keys and the key field) and commit
        ``manifest``."""
        start_jvm()
        detach_when_thread_ends()
        if create:
            self.cache.clear()
        self.cache.begin()
        self._close_searcher()
        updater = jclass(UPDATER)
        try:
            for folder, documents, deleted, key in changes:
                batches = [documents[i:i + UPDATE_BATCH] for i in range(0, len(documents), UPDATE_BATCH)] or [[]]
                threads = min(os.cpu_count() or 1, MAX_THREADS) if len(documents) >= PARALLEL_FROM else 1
                for i, batch in enumerate(batches):
                    updater.apply(str(folder), self.model.analyzer, create and i == 0, batch,
                                  deleted if i == 0 else [], [PATH_FIELD], key, threads)
        except Exception as e:
            if not is_java_exception(e):
                raise
            raise QLogError(f"cannot update the index in {str(self.cache.folder)!r}: {java_error(e)}") from None
        self.cache.commit(manifest)

    # -- searching ---------------------------------------------------------------------------------

    def locate(self, issue: str, budget: int = DEFAULT_BUDGET, hits: int = DEFAULT_HITS) -> LocateResult:
        """The top ``hits`` files for ``issue``, packed into ``budget`` tokens (see the module docstring)."""
        issue, budget, hits = check_issue(issue), check_budget(budget), check_hits(hits, "hits")
        with self._lock, self.cache.locked():
            report = self._update()
            assert self._manifest is not None
            if not self._manifest.files:
                return LocateResult((), budget, 0, f"the repository has no {'/'.join(report.languages)} source file "
                                    "to search (after the test, vendored and generated rules)", {}, report)
            localizer, report = self._ready_localizer(report)
            ranked, unit_hits = self.model.rank(localizer, issue, hits, self._issue_evidence, self._recent)
            files = self._files(localizer.files, issue, ranked, unit_hits, report.languages)
        return _packed(files, budget, self._settings, report)

    def indexed_paths(self) -> list[str]:
        """The paths the index holds, as of the last update."""
        with self._lock:
            return sorted(self._manifest.files) if self._manifest is not None else []

    def rank(self, issue: str, hits: int = DEFAULT_HITS, update: bool = True) -> list[tuple[str, float]]:
        """The top ``hits`` ``(path, score)`` for ``issue``, without units or packing; ``update=False`` searches
        the index as the last update left it (no look at the repository)."""
        issue, hits = check_issue(issue), check_hits(hits, "hits")
        with self._lock, self.cache.locked():
            if update or self._manifest is None:
                self._update()
            assert self._manifest is not None
            if not self._manifest.files:
                return []
            localizer, _ = self._ready_localizer(None)
            ranked, _ = self.model.rank(localizer, issue, hits, self._issue_evidence, self._recent)
            return [(hit.docid, hit.score) for hit in ranked]

    def _recent(self) -> Mapping[str, int]:
        """The indexed files' recent commits at the checked-out commit (:mod:`qlog_pyserini.localize.activity`;
        none before the first commit), kept until the commit or the index changes."""
        assert self._manifest is not None
        state = (self.source.head(), self._manifest.generation)
        if self._activity is None or self._activity[0] != state:
            counts = self.source.repo.activity(state[0], ACTIVITY_COMMITS) if state[0] else {}
            self._activity = (state, {p: n for p, n in counts.items() if p in self._manifest.files})
        return self._activity[1]

    def _issue_evidence(self, topics: Mapping[str, str]) -> Mapping[str, Mapping[str, float]]:
        """The files each issue names, matched to the indexed files and the names they define (kept until the
        index changes; a changed file's names are read again from the index)."""
        assert self._manifest is not None and self._searcher is not None
        manifest, searcher = self._manifest, self._searcher
        state = (manifest.generation, self._generated)
        if self._evidence is None or self._evidence[0] != state:
            rules = self._rules(manifest.languages).rules
            if self._evidence is None:
                self._symbols.load(self.cache.load_symbols())
            symbols = self._symbols.update(
                {path: version[1] for path, version in sorted(manifest.files.items())},
                lambda path: file_text(searcher.doc_text(path)),
                lambda path: language.language if (language := rules.language_of(path)) else None)
            if self._symbols.changed:
                self.cache.save_symbols(self._symbols.to_json())
            indexed = sorted(manifest.files)
            assembled = LazyAssemblies(
                self._generated, lambda path: dict(self.source.read([path])).get(path),
                lambda: ((path, file_text(searcher.doc_text(path))) for path in indexed), ASSEMBLY_MAX_BYTES)
            self._evidence = (state, FileIndex(symbols, symbols, assembled))
        return files_evidence(self._evidence[1])(topics)

    def _ready_localizer(self, report: IndexReport | None) -> tuple[Localizer, IndexReport | None]:
        """The localizer over the indexes as updated, and the update's report; an index that cannot be opened (torn
        by a crash, damaged) is rebuilt once, and the report is the rebuild's."""
        assert self._manifest is not None
        try:
            return self._open(self._manifest.generation), report
        except QLogError:
            self._close_searcher()
            self.cache.clear()
            report = self._update()
            return self._open(self._manifest.generation), report

    def _open(self, generation: int) -> Localizer:
        if self._localizer is None or generation != self._generation:
            self._close_searcher()
            self._searcher = QLogSearcher(self.cache.index_dir, analyzer=self.model.analyzer)
            self._units = QLogSearcher(self.cache.units_dir, analyzer=self.model.analyzer)
            self._localizer, self._settings = self.model.configure(self._searcher, self._units)
            self._files_b = self._settings["files_index"]["b"]
            self._generation = generation
        return self._localizer

    def _files(self, searcher: QLogSearcher, issue: str, ranked: list[Hit], unit_hits: list[Hit],
               languages: tuple[str, ...]) -> list[tuple]:
        """``(path, score, text, [(unit, score, tokens)], the unit hit named)`` of each ranked file."""
        if not ranked:
            return []
        rules = self._rules(languages).rules
        texts = [file_text(searcher.doc_text(hit.docid)) for hit in ranked]
        lines = [t.splitlines(keepends=True) for t in texts]
        splits = []
        for hit, text in zip(ranked, texts):
            language = rules.language_of(hit.docid)
            splits.append(split_units(text, language.language if language else ""))
        unit_texts = [u.text(ls) for units, ls in zip(splits, lines) for u in units]
        # the query and every unit analyzed in one crossing, as the index analyzed them
        query_terms, *analyzed = [str(t).split() for t in searcher.call_java(
            jclass(TEXT_TERMS).analyzeAll, self.model.analyzer, [issue, *unit_texts])]
        idf = self._query_idf(searcher, issue, query_terms)
        best: dict[str, Hit] = {}
        for hit in unit_hits:  # in rank order: a file's first unit hit is its best
            best.setdefault(unit_path(hit.docid), hit)
        out, at = [], 0
        for hit, text, units, ls in zip(ranked, texts, splits, lines):
            terms = analyzed[at:at + len(units)]
            scores = score_units(terms, idf, self.model.k1, self._files_b)
            named = _named_unit(best[hit.docid], units, ls) if hit.docid in best else None
            out.append((hit.docid, hit.score, text, [(u, sc, code_token_count(unit_texts[at + i]))
                                                     for i, (u, sc) in enumerate(zip(units, scores))], named))
            at += len(units)
        return out

    def _query_idf(self, searcher: QLogSearcher, issue: str, query_terms: list[str]) -> dict[str, float]:
        """Each distinct query term's BM25 IDF on the index (the terms as the searcher parses the query)."""
        from qlog_pyserini.predict.per_query import query_doc_freqs

        terms = sorted(set(query_terms), key=lambda t: t.encode())  # the order of Lucene's term bytes
        (dfs,) = query_doc_freqs(searcher, [issue])
        if len(dfs) != len(terms):  # the parser saw other terms than the analyzer: weigh them alike
            return {t: 1.0 for t in terms}
        return {t: bm25_idf(df, searcher.num_docs) for t, df in zip(terms, dfs)}

    def _close_searcher(self) -> None:
        self._localizer = None
        for searcher in (self._searcher, self._units):
            if searcher is not None:
                searcher.close()
        self._searcher = self._units = None

    def close(self) -> None:
        """Close the searchers and the repository reader; the cache folder stays for the next Locator."""
        with self._lock:
            self._close_searcher()
            self.source.repo.close()

    def __enter__(self) -> "Locator":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def _unit_hit(unit: Unit, score: float, tokens: int) -> UnitHit:
    return UnitHit(unit.name, unit.start, unit.end, round(float(score), 4), tokens)


def _named_unit(hit: Hit, units: list[Unit], lines: list[str]) -> UnitHit:
    """The unit hit ``hit`` (docid ``path#start-end``) as a :class:`UnitHit`, named after the first definition
    that starts in it (else the one it lies in)."""
    start, _, end = hit.docid.rpartition(UNIT_SEPARATOR)[2].partition("-")
    first, last = int(start), int(end)
    inside = [u for u in units if first <= u.start <= last and u.name != TOP]
    around = [u for u in units if u.start <= first]
    name = inside[0].name if inside else around[-1].name if around else TOP
    return UnitHit(name, first, last, round(float(hit.score), 4), code_token_count("".join(lines[first - 1:last])))


def _packed(files: list[tuple], budget: int, settings: dict[str, Any], report: IndexReport) -> LocateResult:
    """Pack ``files`` (in rank order) into ``budget`` tokens (see the module docstring)."""
    used, out, too_large = 0, [], []
    for rank, (path, score, text, units, named) in enumerate(files, 1):
        tokens = sum(n for _, _, n in units)  # units cover every line, and no token spans a line
        best = max(units, key=lambda u: u[1]) if units else None
        unit = named if named is not None else _unit_hit(*best) if best is not None and best[1] > 0 else None
        packed_units: list[UnitHit] = []
        whole = used + tokens <= budget
        if whole:
            used += tokens
        else:
            too_large.append((path, tokens))
            for u, s, n in sorted(units, key=lambda u: -u[1]):
                if s > 0 and used + n <= budget:
                    used += n
                    packed_units.append(_unit_hit(u, s, n))
        out.append(LocatedFile(path, rank, round(float(score), 4), tokens, whole, unit, tuple(packed_units), text))
    reason = None
    if used == 0:
        if not files:
            reason = "no file shares a term with the issue (after stopwords and stemming)"
        else:
            path, tokens = too_large[0]
            reason = (f"no ranked file fits in {budget} tokens (the best, {path}, has {tokens}), and no unit of one "
                      "that matches the issue fits either")
    return LocateResult(tuple(out), budget, used, reason, dict(settings), report)
