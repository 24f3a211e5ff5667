"""Build an instance set: per instance, the base tree's source files as a corpus, the issue as the query,
the source files the fix modifies as the answers.

    prepare_issue_set("multi-swe-bench", ["issues/java"], "cache/repos", "sets/java", FileRules(("java",)))
    prepare_history_set("my-clone", "sets/mine", FileRules(("python",)), max_instances=300)

Everything a user can get wrong (a record without its fields, a repository that is not under
``repos``, a base commit the repository lacks) fails before the first tree is read, unless
``skip_missing`` asks to drop such instances instead (reported). Trees and blobs are read from git
(:mod:`qlog_pyserini.instances.git`); which files are documents is :mod:`qlog_pyserini.instances.rules`;
the folder written is :mod:`qlog_pyserini.formats.instances`. A corpus is keyed by the base tree and the
rules, so instances on the same tree (or a tree that recurs) share one corpus file and one index.
"""

from __future__ import annotations

import calendar
import collections
import datetime as dt
import json
import os
import re
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, Iterator, Sequence

from qlog_pyserini.errors import QLogError
from qlog_pyserini.formats.instances import (
    CORPORA_DIR,
    INSTANCES_FILE,
    QRELS_FILE,
    REPORT_FILE,
    TOPICS_FILE,
    assembled_path,
    corpus_path,
)
from qlog_pyserini.formats.topics import write_topics_tsv
from qlog_pyserini.formats.trec import LONE_SURROGATE, write_qrels
from qlog_pyserini.instances.diffs import modified_files
from qlog_pyserini.instances.git import GitRepository, TreeEntry, find_repository
from qlog_pyserini.instances.rules import ASSEMBLED_REASONS, ASSEMBLY_MAX_BYTES, FileRules, content_reason, corpus_key
from qlog_pyserini.instances.sources import IssueRecord, history_record, read_records, repo_label
from qlog_pyserini.localize.activity import ACTIVITY_COMMITS
from qlog_pyserini.localize.assembly import assemble, line_owners
from qlog_pyserini.system.outputs import atomic_output, check_output_dir, disk_errors, staged_output, write_json
from qlog_pyserini.system.progress import progress_bar
from qlog_pyserini.system.provenance import git_commit

#: why a file whose name is not UTF-8 is no document: no docid, run or qrels line could name it as git does
NAME_NOT_UTF8 = "name-not-utf-8"


def escaped_name(path: str) -> str:
    """``path`` as git gave it (bytes that are not UTF-8 held as surrogates) with those bytes written ``\\xNN``:
    a name every report can write."""
    return path.encode("utf-8", "surrogateescape").decode("utf-8", "backslashreplace")


# Decoded blobs kept for the next trees of the same repository (successive base commits share most files).
BLOB_CACHE_CHARS = 256 * 2**20


@dataclass
class SetSummary:
    """What :func:`prepare_issue_set` / :func:`prepare_history_set` wrote."""

    out: Path
    read: int
    kept: int
    corpora: int
    documents: int
    dropped: dict[str, int] = field(default_factory=dict)

    def line(self) -> str:
        dropped = ", ".join(f"{n} {reason}" for reason, n in sorted(self.dropped.items())) or "none"
        return (f"{self.out}: {self.kept} of {self.read} instances kept, {self.corpora} corpora, "
                f"{self.documents:,} documents; dropped: {dropped} (see report.json)")


@dataclass
class _Tree:
    """A base tree under the rules: its corpus key, its entries and why each path is or is not a document."""

    key: str
    entries: dict[str, TreeEntry]
    reasons: dict[str, str | None]  # path -> rule that drops it (None: kept by its path)
    docids: set[str] | None = None  # set once the corpus is written (content rules applied)


class _SetWriter:
    """Accumulates the kept instances and the report, and writes corpora into the staging folder."""

    def __init__(self, staging: Path, rules: FileRules) -> None:
        self.staging, self.rules = staging, rules
        (staging / CORPORA_DIR).mkdir()
        self.instances: list[dict] = []
        self.dropped: dict[str, list[dict]] = collections.defaultdict(list)
        self.dropped_answers: collections.Counter = collections.Counter()
        self.other_changes: collections.Counter = collections.Counter()
        self.corpora: dict[str, dict] = {}
        self.corpus_users: collections.Counter = collections.Counter()
        self.trees: dict[tuple[str, str], _Tree] = {}
        self.blobs: dict[str, tuple[str | None, str]] = {}
        self.blob_chars = 0
        self.read = 0
        self.repaired: collections.Counter = collections.Counter()
        self.activities: dict[tuple[str, str], dict[str, int]] = {}

    def drop(self, record: IssueRecord, reason: str, **detail: Any) -> None:
        self.dropped[reason].append({"instance_id": record.instance_id, "repo": record.repo, **detail})

    def add(self, repo: GitRepository, record: IssueRecord, tree: str) -> bool:
        """Apply the rules to one resolved instance; True if it is kept."""
        for change in record.changes:
            if change.kind != "modified":
                self.other_changes[change.kind] += 1
        if not record.query.strip():
            self.drop(record, "empty-query")
            return False
        modified = [escaped_name(p) for p in modified_files(record.changes)]
        if not modified:
            self.drop(record, "no-modified-file", changes=sorted({c.kind for c in record.changes}))
            return False
        state = self._tree(repo, tree)
        why = {p: state.reasons.get(p, "not-in-base-tree") for p in modified}
        if all(why.values()):
            self._lost(record, why)
            return False
        docids = self._corpus(repo, state, record.repo, tree)
        for p in modified:
            if why[p] is None and p not in docids:
                why[p] = state.reasons[p]
        answers = [p for p in modified if why[p] is None]
        if not answers:
            self._lost(record, why)
            return False
        lost = {p: r for p, r in why.items() if r is not None}
        self.dropped_answers.update(lost.values())
        self.corpus_users[state.key] += 1
        self.instances.append({
            "instance_id": record.instance_id, "repo": record.repo, "language": self._language(answers),
            "base_commit": record.base_commit, "corpus": state.key, "answers": answers,
            "tree": tree, "dropped_answers": lost, "query": self._query(record.query),
            "activity": self._activity(repo, record.base_commit, docids)})
        return True

    def _activity(self, repo: GitRepository, base: str, docids: set[str]) -> dict[str, int]:
        """``{path: recent commits}`` of the corpus's files at ``base`` (:mod:`qlog_pyserini.localize.activity`),
        read once per base commit."""
        key = (str(repo.path), base)
        if key not in self.activities:
            counts = repo.activity(base, ACTIVITY_COMMITS)
            self.activities[key] = {p: n for p, n in sorted(counts.items()) if p in docids}
        return self.activities[key]

    def _query(self, text: str) -> str:
        # A lone surrogate (half of a pair, from a JSON escape) has no UTF-8 form: it becomes U+FFFD, counted.
        repaired, n = LONE_SURROGATE.subn("\ufffd", text)
        if n:
            self.repaired["query-lone-surrogate"] += 1
        return repaired

    def _lost(self, record: IssueRecord, why: dict[str, str | None]) -> None:
        self.dropped_answers.update(r for r in why.values() if r is not None)
        self.drop(record, "no-answer-after-rules", modified={p: r for p, r in why.items()})

    def _language(self, answers: Sequence[str]) -> str:
        # The language most answers are in; ties go to the language asked for first.
        counts = collections.Counter(self.rules.language_of(p).language for p in answers)  # type: ignore[union-attr]
        return max(self.rules.languages, key=lambda lang: (counts[lang], -self.rules.languages.index(lang)))

    def _tree(self, repo: GitRepository, tree: str) -> _Tree:
        cached = self.trees.get((str(repo.path), tree))
        if cached is None:
            entries = {escaped_name(e.path): e for e in repo.tree(tree)}
            reasons = {p: NAME_NOT_UTF8 if p != e.path else self.rules.path_reason(p, e.mode, e.size)
                       for p, e in entries.items()}
            cached = self.trees[(str(repo.path), tree)] = _Tree(corpus_key(tree, self.rules), entries, reasons)
        return cached

    def _corpus(self, repo: GitRepository, state: _Tree, label: str, tree: str) -> set[str]:
        """Write the corpus of ``state`` once (its key's file); the docids it holds."""
        if state.docids is not None:
            return state.docids
        if state.key in self.corpora:  # the same tree reached from another repository folder
            state.docids = set(self.corpora[state.key]["docids"])
            return state.docids
        kept = [p for p, r in state.reasons.items() if r is None]
        texts = self._texts(repo, [state.entries[p].sha for p in kept])
        dropped = collections.Counter(r for r in state.reasons.values() if r is not None)
        docids: list[str] = []
        with disk_errors(self.staging), atomic_output(corpus_path(self.staging, state.key)) as f:
            for path in kept:
                reason, text = texts[state.entries[path].sha]
                if reason is not None:
                    state.reasons[path] = reason
                    dropped[reason] += 1
                    continue
                docids.append(path)
                f.write(json.dumps({"id": path, "contents": f"{path}\n{text}"}, ensure_ascii=False) + "\n")
        state.docids = set(docids)
        self._assemblies(repo, state, ((p, texts[state.entries[p].sha][1]) for p in docids))
        self.corpora[state.key] = {"repo": label, "tree": tree, "documents": len(docids),
                                   "dropped_files": dict(sorted(dropped.items())), "docids": docids}
        return state.docids

    def _assemblies(self, repo: GitRepository, state: _Tree, documents: Iterator[tuple[str, str]]) -> None:
        """Write beside the corpus what each file of ``state`` left out as generated was assembled from, out of the
        corpus's ``documents`` ``(path, text)``."""
        generated = sorted(p for p, r in state.reasons.items() if r in ASSEMBLED_REASONS)
        if not generated:
            return
        readable = [p for p in generated if (size := state.entries[p].size) is not None and size <= ASSEMBLY_MAX_BYTES]
        blobs = dict(repo.read_objects(list(dict.fromkeys(state.entries[p].sha for p in readable))))
        texts = {p: blobs[state.entries[p].sha].decode("utf-8", "replace") for p in readable}
        owners = line_owners(documents, among=texts.values())
        assembled = {p: assemble(texts[p], owners) if p in texts else None for p in generated}
        write_json(assembled_path(self.staging, state.key),
                   {p: a.to_json() if a else None for p, a in assembled.items()})

    def _texts(self, repo: GitRepository, shas: Sequence[str]) -> dict[str, tuple[str | None, str]]:
        wanted = [s for s in dict.fromkeys(shas) if s not in self.blobs]
        if self.blob_chars > BLOB_CACHE_CHARS:
            self.blobs, self.blob_chars = {}, 0
            wanted = list(dict.fromkeys(shas))
        for sha, data in repo.read_objects(wanted):
            reason = content_reason(data)
            text = "" if reason else data.decode("utf-8", "replace")
            self.blobs[sha] = (reason, text)
            self.blob_chars += len(text)
        return {s: self.blobs[s] for s in shas}

    def finish(self, out: Path, description: dict[str, Any]) -> SetSummary:
        """Write instances, topics, qrels and the report into the staging folder (published as ``out``)."""
        for key in [k for k in self.corpora if not self.corpus_users[k]]:
            os.unlink(corpus_path(self.staging, key))  # every instance on it was dropped after reading
            assembled_path(self.staging, key).unlink(missing_ok=True)
            del self.corpora[key]
        if not self.instances:
            reasons = ", ".join(f"{len(v)} {k}" for k, v in self.dropped.items())
            raise QLogError(f"no instance left after the rules ({reasons}); nothing was written")
        with atomic_output(self.staging / INSTANCES_FILE) as f:
            for row in self.instances:
                f.write(json.dumps({k: v for k, v in row.items() if k != "query"}, ensure_ascii=False) + "\n")
        write_topics_tsv(self.staging / TOPICS_FILE, {r["instance_id"]: r["query"] for r in self.instances})
        write_qrels(self.staging / QRELS_FILE, {r["instance_id"]: {p: 1 for p in r["answers"]} for r in self.instances})
        documents = sum(c["documents"] for c in self.corpora.values())
        files = collections.Counter()
        for c in self.corpora.values():
            files.update(c["dropped_files"])
        report = {
            **description,
            "rules": self.rules.describe(), "rules_fingerprint": self.rules.fingerprint(),
            "counts": {"read": self.read, "kept": len(self.instances),
                       "dropped": sum(len(v) for v in self.dropped.values()),
                       "corpora": len(self.corpora), "documents": documents,
                       "answers": sum(len(r["answers"]) for r in self.instances)},
            "dropped_instances": {k: v for k, v in sorted(self.dropped.items())},
            "dropped_instance_counts": {k: len(v) for k, v in sorted(self.dropped.items())},
            "dropped_answers": dict(sorted(self.dropped_answers.items())),
            "changes_not_answers": dict(sorted(self.other_changes.items())),
            "dropped_files": dict(sorted(files.items())),
            "repaired_queries": dict(sorted(self.repaired.items())),
            "corpora": {k: {n: v for n, v in c.items() if n != "docids"} for k, c in sorted(self.corpora.items())},
        }
        write_json(self.staging / REPORT_FILE, report)
        return SetSummary(out, self.read, len(self.instances), len(self.corpora), documents,
                          {k: len(v) for k, v in self.dropped.items()})


def _description(fmt: str, sources: dict[str, Any], command: str | None) -> dict[str, Any]:
    return {"format": fmt, "sources": sources,
            "provenance": {"date": dt.datetime.now(dt.timezone.utc).strftime("%Y-%m-%d %H:%M UTC"),
                           "command": command, "qlog_pyserini": git_commit()}}


@dataclass
class _Repo:
    label: str
    path: Path | None
    git: GitRepository | None
    resolved: dict[str, tuple[str, str] | None]


def _open_repositories(records: Sequence[IssueRecord], repos: Path, skip_missing: bool) -> dict[str, _Repo]:
    """Find and open every repository the records name and resolve their base commits (a batch each)."""
    if not repos.is_dir():
        raise QLogError(f"--repos {str(repos)!r} is not a folder")
    by_repo: dict[str, list[IssueRecord]] = collections.defaultdict(list)
    for r in records:
        by_repo[r.repo].append(r)
    opened: dict[str, _Repo] = {}
    for label, group in by_repo.items():
        org, name = label.split("/")
        path = find_repository(repos, org, name)
        if path is None:
            if not skip_missing:
                raise QLogError(f"repository {label} ({len(group)} instances) is not under --repos {str(repos)!r} "
                                f"(looked for {org}/{name}, {org}__{name}, with or without .git); clone or mirror it "
                                "there, or pass --skip-missing to drop its instances")
            opened[label] = _Repo(label, None, None, {})
            continue
        git = GitRepository(path)
        resolved = _resolve_bases(git, group)
        missing = [r for r in group if resolved[r.base_commit] is None]
        if missing and not skip_missing:
            raise QLogError(f"base commit {missing[0].base_commit} of {missing[0].instance_id} is not in {str(path)!r}"
                            f" ({len(missing)} of {label}'s {len(group)} instances lack theirs); fetch it, or pass "
                            "--skip-missing to drop such instances")
        opened[label] = _Repo(label, path, git, resolved)
    return opened


_COMMIT_ID = re.compile(r"[0-9a-fA-F]{4,40}")


def _resolve_bases(git: GitRepository, group: Sequence[IssueRecord]) -> dict[str, tuple[str, str] | None]:
    """``{base commit: (full commit id, tree id)}`` of the records' base commits, None where the repository lacks
    it. A base commit is a commit id (abbreviated or not) or a tag; HEAD, a branch or any other revision names a
    tree that moves (it may already hold the fix) and is refused."""
    revs = sorted({r.base_commit for r in group})
    spaced = next((r for r in group if not r.base_commit or any(c.isspace() for c in r.base_commit)), None)
    if spaced is not None:
        raise QLogError(f"{spaced.where}: base commit {spaced.base_commit!r} of {spaced.instance_id} is not a "
                        "commit id or a tag")
    # a tag is looked up as refs/tags/<name> only, so a branch of the same name is never taken for it
    queries = {rev: rev if _COMMIT_ID.fullmatch(rev) else f"refs/tags/{rev}" for rev in revs}
    fixed = git.resolve(list(queries.values()))
    resolved = {rev: fixed[query] for rev, query in queries.items()}
    unknown = [rev for rev in revs if resolved[rev] is None and not _COMMIT_ID.fullmatch(rev)]
    moving = [rev for rev, found in git.resolve(unknown).items() if found is not None] if unknown else []
    if moving:
        record = next(r for r in group if r.base_commit == moving[0])
        raise QLogError(f"{record.where}: base commit {moving[0]!r} of {record.instance_id} is a branch or a "
                        "revision that moves, not a commit: its tree may already hold the fix; give the commit "
                        "id or a tag")
    return resolved


def prepare_issue_set(fmt: str, inputs: Sequence[str | os.PathLike], repos: str | os.PathLike,
                      out: str | os.PathLike, rules: FileRules, max_instances: int | None = None,
                      skip_missing: bool = False, overwrite: bool = False, progress: bool = True,
                      command: str | None = None) -> SetSummary:
    """An instance set from SWE-bench or Multi-SWE-bench records, their repositories under ``repos``."""
    out, repos = Path(out), Path(repos)
    check_output_dir(out, "prepare", inputs=[*inputs, repos], overwrite=overwrite)
    _check_max(max_instances)
    records = read_records(fmt, inputs)
    # GitHub names are case-insensitive: 'JQLANG/jq' and 'jqlang/jq' are one repository, named as first written
    spelling: dict[str, str] = {}
    records = [replace(r, repo=spelling.setdefault(r.repo.lower(), r.repo)) for r in records]
    opened = _open_repositories(records, repos, skip_missing)
    try:
        with staged_output(out, "prepare", "staging", overwrite=overwrite) as staging:
            writer = _SetWriter(staging, rules)
            bar = progress_bar(records, desc="instances", unit="inst", quiet=not progress)
            for record in bar:
                if max_instances is not None and len(writer.instances) >= max_instances:
                    break
                writer.read += 1
                repo = opened[record.repo]
                if repo.git is None:
                    writer.drop(record, "repository-missing")
                elif repo.resolved[record.base_commit] is None:
                    writer.drop(record, "commit-missing", base_commit=record.base_commit)
                else:
                    commit, tree = repo.resolved[record.base_commit]  # type: ignore[misc]
                    writer.add(repo.git, replace(record, base_commit=commit), tree)
            sources = {"inputs": [str(Path(p).resolve()) for p in inputs], "repos": str(repos.resolve()),
                       "repositories": {r.label: {"path": str(r.path.resolve()) if r.path else None,
                                                  "head": r.git.head() if r.git else None}
                                        for r in opened.values()},
                       "max_instances": max_instances}
            summary = writer.finish(out, _description(fmt, sources, command))
        return summary
    finally:
        for r in opened.values():
            if r.git is not None:
                r.git.close()


def prepare_history_set(repository: str | os.PathLike, out: str | os.PathLike, rules: FileRules,
                        name: str | None = None, revision: str = "HEAD", since: str | None = None,
                        max_instances: int | None = None, overwrite: bool = False, progress: bool = True,
                        command: str | None = None) -> SetSummary:
    """An instance set from a repository's own history: each non-merge commit (newest first) whose
    modified source files survive the rules, until ``max_instances`` are kept."""
    out, path = Path(out), Path(repository)
    check_output_dir(out, "prepare", inputs=[path], overwrite=overwrite)
    _check_max(max_instances)
    label = check_repo_name(name) if name else repo_label(path)
    since = check_since(since) if since is not None else None
    git = GitRepository(path)
    try:
        if git.resolve([revision])[revision] is None:
            raise QLogError(f"--rev {revision!r} is not a commit of {str(path)!r}")
        commits, renames = git.history(revision, since)
        if not commits:
            raise QLogError(f"{str(path)!r} has no non-merge commits" + (f" since {since}" if since else ""))
        with staged_output(out, "prepare", "staging", overwrite=overwrite) as staging:
            writer = _SetWriter(staging, rules)
            bar = progress_bar(total=len(commits), desc="commits", unit="commit", quiet=not progress)
            for record, tree in _history_records(git, commits, label, writer):
                if max_instances is not None and len(writer.instances) >= max_instances:
                    break
                writer.read += 1
                bar.update()
                if record is not None:
                    writer.add(git, record, tree)
            bar.close()
            sources = {"repository": str(path.resolve()), "repo": label, "revision": revision,
                       "head": git.resolve([revision])[revision][0], "since": since,  # type: ignore[index]
                       "max_instances": max_instances, "commits_scanned": writer.read, "renames_detected": renames}
            summary = writer.finish(out, _description("git-history", sources, command))
        return summary
    finally:
        git.close()


def _history_records(git: GitRepository, commits: Sequence, label: str,
                     writer: _SetWriter, batch: int = 64) -> Iterator[tuple[IssueRecord | None, str]]:
    """The commits as records with their parents' trees, messages read a batch at a time.

    A commit that modifies no file in place is dropped here, before its message or tree is read.
    """
    for start in range(0, len(commits), batch):
        chunk = commits[start:start + batch]
        useful = [c for c in chunk if c.parent is not None and any(ch.kind == "modified" for ch in c.changes)]
        messages = git.messages([c.sha for c in useful]) if useful else {}
        trees = git.resolve([c.parent for c in useful]) if useful else {}
        for commit in chunk:
            if commit.parent is None:
                writer.drop(_stub(commit, label), "root-commit")
                yield None, ""
            elif commit.sha not in messages:
                writer.drop(_stub(commit, label), "no-modified-file",
                            changes=sorted({c.kind for c in commit.changes}))
                yield None, ""
            else:
                yield history_record(commit, label, messages[commit.sha]), trees[commit.parent][1]  # type: ignore[index]


def _stub(commit, label: str) -> IssueRecord:
    org, name = label.split("/")
    return IssueRecord(f"{org}__{name}-{commit.sha[:12]}", label, commit.parent or "", "", (), commit.sha)


_AGO = re.compile(r"(\d+) (second|minute|hour|day|week|month|year)s? ago")
_EPOCH = dt.datetime(1970, 1, 1, tzinfo=dt.timezone.utc)
_UNIT_SECONDS = {"second": 1, "minute": 60, "hour": 3600, "day": 86400, "week": 7 * 86400}


def check_since(text: str) -> str:
    """``--since`` as git is given it, an ISO 8601 time with its offset: from an ISO 8601 date or time (UTC
    unless it names its offset) or ``N <unit>s ago`` (months and years by the calendar); anything else is
    refused, never left to git's guess (git takes 'notadate' as no date at all and '2023-13-45' as some other
    day)."""
    given = " ".join(text.split())
    now = dt.datetime.now(dt.timezone.utc).replace(microsecond=0)
    try:
        if (ago := _AGO.fullmatch(given)):
            n, unit = int(ago.group(1)), ago.group(2)
            if unit in _UNIT_SECONDS:
                when = now - dt.timedelta(seconds=n * _UNIT_SECONDS[unit])
            else:
                months = now.year * 12 + now.month - 1 - n * (12 if unit == "year" else 1)
                first = now.replace(year=max(months // 12, 1), month=months % 12 + 1, day=1)
                when = first.replace(day=min(now.day, calendar.monthrange(first.year, first.month)[1]))
        else:
            when = dt.datetime.fromisoformat(given)
    except (ValueError, OverflowError):
        raise QLogError(f"--since {text!r} is not a date: give an ISO 8601 date or time (2024-01-31, "
                        "2024-01-31T12:00:00+02:00) or 'N days ago' (seconds, minutes, hours, weeks, months, "
                        "years)") from None
    when = when if when.tzinfo else when.replace(tzinfo=dt.timezone.utc)
    # git reads a time before 1970 as some later one; every commit time is after 1970 anyway
    return max(when, _EPOCH).isoformat()


def check_repo_name(name: str) -> str:
    """``name`` if it reads ``org/name`` without whitespace, else :class:`QLogError`."""
    if name.count("/") != 1 or not all(name.split("/")) or any(c.isspace() for c in name):
        raise QLogError(f"--name {name!r} must read org/name (no whitespace)")
    return name


def _check_max(max_instances: int | None) -> None:
    if max_instances is not None and max_instances < 1:
        raise QLogError(f"--max-instances must be at least 1, got {max_instances}")
