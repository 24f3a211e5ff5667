"""Real source code for the code-search benchmarks, fetched from Debian packages and cached.

A language's sources are Debian packages taken in a fixed order until they hold a target
number of documented functions (as :func:`qlog_pyserini.corpus.extract_functions` finds
them, duplicates across packages counted once, exactly as ``build_benchmark`` keeps them):

    go          the newest ``golang-1.N-src`` (Go's standard library), then ``golang-*-dev``
    java        the newest ``openjdk-N-source`` (the JDK's ``src.zip``)
    ruby        the newest ``libruby3.N`` (Ruby's standard library and bundled gems), then ``ruby-*``
    php         ``php-*``
    javascript  ``node-*``
    python      the running Python's standard library, then ``python3-*``

Candidates after the first are sorted by name, so the same package lists always give the same
selection; a few packages that are nearly all generated code are never taken (``Plan.exclude``).
Each package is downloaded with ``apt-get download NAME=VERSION``, checked against the SHA-256 in
apt's package lists, unpacked with ``dpkg-deb -x`` under ``<cache>/src/`` and described beside it
(version, checksum, files, source roots, function counts); ``<cache>/<language>.json`` records the
selection. A re-run reads the counts back, and redoes them when ``corpus.EXTRACTOR_VERSION`` or a
tree-sitter grammar changes.

:func:`source_roots` turns a selection into the ``(path, label)`` pairs that
:func:`qlog_pyserini.corpus.build_benchmark` takes. A source root is the folder a language's
code lives under in the package (``usr/share/gocode/src``, ``usr/lib/python3/dist-packages``,
...), so ids read ``<package>_<version>/<import path>:<name>``; a package with several roots
(``libruby3.1``: the standard library and each bundled gem) gets one label per root,
``<package>_<version>@<root folder name>``.
"""

from __future__ import annotations

import concurrent.futures
import glob
import hashlib
import importlib.metadata
import json
import os
import platform
import re
import shutil
import subprocess
import sys
import sysconfig
from collections import Counter, deque
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable, Mapping, Sequence

from qlog_pyserini import corpus as codecorpus
from qlog_pyserini.corpus import EXTENSIONS, GRAMMAR_PACKAGES, LANGUAGES, extract_functions
from qlog_pyserini.errors import QLogError
from qlog_pyserini.system import processes
from qlog_pyserini.system.digests import file_sha256
from qlog_pyserini.system.outputs import atomic_output, staging_dir, write_json
from qlog_pyserini.system.processes import process_pool
from qlog_pyserini.system.progress import info, progress_bar
from qlog_pyserini.system.project import PROJECT_ROOT

DEFAULT_CACHE = PROJECT_ROOT / "cache" / "sources"

HASH_SIZE = 16  # bytes per code hash, codecorpus.normalised_hash's digest size


@dataclass(frozen=True)
class Plan:
    """Which packages hold one language's code, and where in them the code lives."""

    language: str
    base: str | None  # regex with one numeric group: the newest matching package goes first
    candidates: str | None  # regex of the packages taken after it, in name order
    roots: tuple[str, ...]  # globs, relative to an unpacked package, of source folders or zips
    target: int  # default number of documented functions to reach
    stdlib: bool = False  # the running Python's standard library goes first
    exclude: tuple[str, ...] = ()  # regexes of package names never taken


PLANS: dict[str, Plan] = {
    "go": Plan("go", r"golang-1\.(\d+)-src", r"golang-.+-dev",
               ("usr/share/go-*/src", "usr/lib/go-*/src", "usr/share/gocode/src"), 180_000,
               # Template-generated code without the "DO NOT EDIT" marker codecorpus looks for:
               # azure-sdk-for-go (15,000 AutoRest files, 205K distinct functions) would make 9 in
               # 10 documents generated API clients; go-playground-locales repeats 37 methods with
               # the same doc comment in 764 locales (28K functions, 16% of the queries, each with
               # 763 identical twins that no ranking can tell apart).
               exclude=(r"golang-github-azure-azure-sdk-for-go-dev", r"golang-github-go-playground-locales-dev")),
    "java": Plan("java", r"openjdk-(\d+)-source", None, ("usr/lib/jvm/*/lib/src.zip",), 0),
    "ruby": Plan("ruby", r"libruby3\.(\d+)", r"ruby-.+",
                 ("usr/lib/ruby/[0-9]*", "usr/lib/ruby/gems/*/gems/*", "usr/lib/ruby/vendor_ruby",
                  "usr/share/rubygems-integration/all/gems/*", "usr/lib/*/rubygems-integration/*/gems/*"),
                 50_000,
                 # its generated/ folder holds 26K functions with 5K distinct doc comments
                 # ("Update properties of this object" 17,597 times): a third of the corpus
                 exclude=(r"ruby-google-api-client",)),
    "php": Plan("php", None, r"php-.+", ("usr/share/php",), 50_000),
    "javascript": Plan("javascript", None, r"node-.+",
                       ("usr/share/nodejs", "usr/lib/nodejs", "usr/lib/*/nodejs"), 50_000),
    "python": Plan("python", None, r"python3-.+", ("usr/lib/python3/dist-packages",), 50_000, stdlib=True,
                   # the generated Azure SDK: 74K distinct functions, more than the whole target
                   exclude=(r"python3-azure",)),
}
assert set(PLANS) == set(LANGUAGES)


@dataclass(frozen=True)
class PackageInfo:
    """The candidate version of a package, as apt's package lists give it."""

    name: str
    version: str
    architecture: str
    size: int
    sha256: str

    @property
    def key(self) -> str:
        """``<package>_<version>``: folder name and id label (an epoch's ``:`` written ``%3a`` as apt does)."""
        return f"{self.name}_{self.version.replace(':', '%3a')}"


# --------------------------------------------------------------------------------------
# apt: package lists and downloads. Both are replaceable (tests pass fakes; no network).

class AptIndex:
    """Package names and candidate versions from the local apt lists (run ``apt-get update`` first)."""

    def names(self) -> list[str]:
        """Every package name the lists know."""
        return _run(["apt-cache", "pkgnames"]).split()

    def info(self, names: Sequence[str]) -> dict[str, PackageInfo]:
        """Candidate version, size and SHA-256 of ``names``; virtual packages are left out."""
        out: dict[str, PackageInfo] = {}
        for i in range(0, len(names), 500):
            # --no-all-versions: the candidate only, the version apt-get download would fetch
            text = _run(["apt-cache", "show", "--no-all-versions", *names[i:i + 500]], check=False)
            for block in text.split("\n\n"):
                fields = dict(re.findall(r"^([\w-]+): ?(.*)$", block, re.MULTILINE))
                if "Package" in fields and "SHA256" in fields:
                    out[fields["Package"]] = PackageInfo(fields["Package"], fields["Version"],
                                                         fields.get("Architecture", ""), int(fields["Size"]),
                                                         fields["SHA256"])
        return out


def _run(cmd: Sequence[str], check: bool = True, cwd: str | os.PathLike | None = None) -> str:
    try:
        p = subprocess.run(cmd, capture_output=True, text=True, cwd=cwd)
    except FileNotFoundError:
        raise QLogError(f"{cmd[0]} not found; this needs Debian's apt and dpkg tools") from None
    if check and p.returncode != 0:
        raise QLogError(f"{' '.join(cmd[:3])} ... failed: {_last_line(p.stderr)}")
    return p.stdout


def _last_line(text: str) -> str:
    lines = [ln for ln in text.strip().splitlines() if ln.startswith("E:")] or text.strip().splitlines()
    return lines[-1] if lines else "no message"


def apt_download(packages: Sequence[PackageInfo], dest: Path) -> dict[str, Path | str]:
    """Download ``packages`` (exact versions) into ``dest``: name -> .deb path, or an error message.

    One ``apt-get download`` call fetches the whole batch (apt pipelines the requests); a batch
    that fails is retried one package at a time, so one broken package costs only itself.
    """
    def attempt(batch: Sequence[PackageInfo]) -> str:
        # .download.partial-<pid>-X: named with our pid, so the next run removes a killed run's.
        tmp = staging_dir(dest / "download", "partial")
        try:
            p = processes.run(["apt-get", "download", "-q", *(f"{pkg.name}={pkg.version}" for pkg in batch)],
                              text=True, cwd=tmp)
            for deb in tmp.glob("*.deb"):
                os.replace(deb, dest / deb.name)
            return "" if p.returncode == 0 else _last_line(p.stderr)
        finally:
            shutil.rmtree(tmp, ignore_errors=True)

    def found(pkg: PackageInfo) -> Path | None:
        path = dest / deb_name(pkg)
        return path if path.is_file() else None

    errors = {pkg.name: "not downloaded" for pkg in packages}
    failed = attempt(packages)
    if failed and len(packages) == 1:  # a batch of one was that package's attempt: apt-get is not asked twice
        errors[packages[0].name] = failed
    elif failed:
        for pkg in packages:
            if found(pkg) is None:
                errors[pkg.name] = attempt([pkg]) or "not downloaded"
    return {pkg.name: found(pkg) or errors[pkg.name] for pkg in packages}


def deb_name(pkg: PackageInfo) -> str:
    """The file name apt-get download gives a package (``name_version_arch.deb``, epoch ``:`` as ``%3a``)."""
    return f"{pkg.key}_{pkg.architecture}.deb"


Downloader = Callable[[Sequence[PackageInfo], Path], Mapping[str, "Path | str"]]


# --------------------------------------------------------------------------------------
# One package in the cache: unpack, describe, count.

def _remove_escaping_symlinks(tree: Path) -> int:
    """Delete symlinks that are absolute or lead out of ``tree`` (or nowhere); return how many.

    They would make the parser read the host's files (``/usr/share/...``) or fail on a dangling
    link, and then the benchmark would depend on the machine, not on the package.
    """
    removed = 0
    top = os.path.realpath(tree)
    for root, dirs, files in os.walk(tree):
        for name in dirs + files:
            path = os.path.join(root, name)
            if not os.path.islink(path):
                continue
            target = os.readlink(path)
            real = os.path.realpath(path)
            if os.path.isabs(target) or os.path.commonpath([top, real]) != top or not os.path.exists(real):
                os.unlink(path)
                removed += 1
    return removed


def find_roots(tree: Path, language: str) -> list[str]:
    """Source roots of ``language`` in an unpacked package, relative and sorted.

    Nested roots are dropped, and so are folders without a file of the language (libruby's
    default gems hold only a gemspec; their code is in the standard library folder).
    """
    found = sorted({os.path.relpath(p, tree).replace(os.sep, "/")
                    for pattern in PLANS[language].roots for p in glob.glob(str(tree / pattern))
                    if os.path.isdir(p) and not os.path.islink(p) and _has_language_file(p, language)
                    or p.endswith(".zip") and os.path.isfile(p)})
    return [r for r in found if not any(r.startswith(o + "/") for o in found if o != r)]


def _has_language_file(folder: str, language: str) -> bool:
    for _, _, files in os.walk(folder):
        if any(EXTENSIONS.get(os.path.splitext(f)[1]) == language for f in files):
            return True
    return False


def root_labels(key: str, roots: Sequence[str]) -> list[str]:
    """Id labels of a package's roots: ``key`` alone, or ``key@<folder name>`` when there are several."""
    if len(roots) == 1:
        return [key]
    labels: list[str] = []
    for r in roots:
        label, n = f"{key}@{os.path.basename(r)}", 1
        while label in labels:
            n += 1
            label = f"{key}@{os.path.basename(r)}-{n}"
        labels.append(label)
    return labels


def _files_per_extension(tree: Path) -> dict[str, int]:
    counts: Counter = Counter()
    for _, _, files in os.walk(tree):
        for name in files:
            ext = os.path.splitext(name)[1]
            if ext in EXTENSIONS:
                counts[ext] += 1
    return dict(sorted(counts.items()))


def counter_version() -> str:
    """What the function counts depend on: the extraction rules' version and the grammar versions."""
    h = hashlib.sha256(f"extractor={codecorpus.EXTRACTOR_VERSION}".encode())
    for dist in ["tree-sitter", *sorted(GRAMMAR_PACKAGES.values())]:
        try:
            h.update(f"{dist}={importlib.metadata.version(dist)}".encode())
        except importlib.metadata.PackageNotFoundError:
            h.update(f"{dist}=none".encode())
    return h.hexdigest()[:16]


def count_functions(roots: Sequence[str], language: str) -> tuple[int, bytes]:
    """Documented functions under ``roots``: (how many, their sorted distinct code hashes, concatenated).

    The hashes are the key ``build_benchmark`` drops duplicates by, so the union over packages
    is the number of documents their benchmark will have.
    """
    n, hashes = 0, set()
    for root in roots:
        for f in extract_functions(root, language, label="x"):
            n += 1
            hashes.add(codecorpus.normalised_hash(f.code))
    return n, b"".join(sorted(hashes))


def _read_json(path: Path) -> dict | None:
    try:
        with open(path, encoding="utf-8") as f:
            return json.load(f)
    except (OSError, ValueError):
        return None


class Cache:
    """The cache folder: ``debs/``, ``src/<key>/`` with ``src/<key>.json``, ``local/``, ``<language>.json``."""

    def __init__(self, root: str | os.PathLike):
        self.root = Path(root).resolve()
        self.debs = self.root / "debs"
        self.src = self.root / "src"
        self.local = self.root / "local"

    def make(self) -> None:
        for d in (self.debs, self.src, self.local):
            d.mkdir(parents=True, exist_ok=True)

    def manifest_path(self, key: str) -> Path:
        return self.src / f"{key}.json"

    def hashes_path(self, key: str, language: str, local: bool = False) -> Path:
        return (self.local if local else self.src) / f"{key}.{language}.hashes"

    def package_manifest(self, pkg: PackageInfo) -> dict | None:
        """The manifest of an unpacked ``pkg`` of exactly this version and .deb, else None."""
        m = _read_json(self.manifest_path(pkg.key))
        if m is None or m.get("version") != pkg.version or m.get("deb", {}).get("sha256") != pkg.sha256 \
                or not (self.root / m["extracted"]).is_dir():
            return None
        return m

    def unpack(self, pkg: PackageInfo, deb: Path, language: str) -> dict:
        """Check ``deb`` against apt's SHA-256, unpack it into ``src/<key>/`` and write its manifest."""
        digest = file_sha256(deb)
        if digest != pkg.sha256:
            raise QLogError(f"{deb.name}: SHA-256 {digest} differs from the package lists' {pkg.sha256}")
        final = self.src / pkg.key
        tmp = staging_dir(self.src / pkg.key, "unpack")  # .<key>.unpack-<pid>-X, swept by the next run if killed
        try:
            p = subprocess.run(["dpkg-deb", "-x", str(deb), str(tmp)], capture_output=True, text=True)
            if p.returncode != 0:
                raise QLogError(f"dpkg-deb -x {deb.name} failed: {_last_line(p.stderr)}")
            removed = _remove_escaping_symlinks(tmp)
            os.chmod(tmp, 0o755)
            if final.exists():  # an older, unrecorded unpack (e.g. interrupted): replace it
                shutil.rmtree(final)
            os.replace(tmp, final)
        except BaseException:
            shutil.rmtree(tmp, ignore_errors=True)
            raise
        manifest = {
            "package": pkg.name,
            "version": pkg.version,
            "architecture": pkg.architecture,
            "fetched_for": language,
            "deb": {"file": f"debs/{deb.name}", "size": deb.stat().st_size, "sha256": digest},
            "extracted": f"src/{pkg.key}",
            "symlinks_removed": removed,
            "files_per_extension": _files_per_extension(final),
            "roots": {lang: roots for lang in LANGUAGES if (roots := find_roots(final, lang))},
            "functions": {},
        }
        write_json(self.manifest_path(pkg.key), manifest)
        return manifest

    def cached_count(self, manifest: dict, language: str, version: str, roots: Sequence[str],
                     local: bool = False) -> tuple[int, bytes] | None:
        """(functions, hashes) recorded for ``language`` and ``roots`` by the current extractor, else None."""
        rec = manifest.get("functions", {}).get(language)
        hashes = self.hashes_path(manifest["key"] if local else _key(manifest), language, local)
        if rec is None or rec.get("counted_with") != version or rec.get("roots") != list(roots) \
                or not hashes.is_file():
            return None
        data = hashes.read_bytes()
        if len(data) != rec["unique"] * HASH_SIZE:
            return None
        return rec["documented"], data

    def save_count(self, manifest: dict, language: str, version: str, roots: Sequence[str],
                   count: tuple[int, bytes], local: bool = False) -> None:
        """Record a package's (or local source's) count in its manifest and its hashes beside it."""
        key = manifest["key"] if local else _key(manifest)
        with atomic_output(self.hashes_path(key, language, local), "wb") as f:
            f.write(count[1])
        manifest.setdefault("functions", {})[language] = {
            "documented": count[0], "unique": len(count[1]) // HASH_SIZE, "counted_with": version,
            "roots": list(roots)}
        write_json(self.local / f"{key}.json" if local else self.manifest_path(key), manifest)


def _key(manifest: Mapping[str, Any]) -> str:
    return PackageInfo(manifest["package"], manifest["version"], "", 0, "").key


def python_stdlib() -> tuple[str, Path]:
    """Label (``cpython-3.12.1``) and folder of the running Python's standard library."""
    label = f"{platform.python_implementation().lower()}-{platform.python_version()}"
    return label, Path(sysconfig.get_paths()["stdlib"])


# --------------------------------------------------------------------------------------
# Selection.

def candidates(language: str, index: Any, exclude: Sequence[str] = ()) -> list[PackageInfo]:
    """The packages of ``language`` in selection order: the newest base package, then the rest by name.

    Names matching the plan's or ``exclude``'s regexes are left out.
    """
    plan = PLANS[language]
    patterns = [re.compile(x) for x in (*plan.exclude, *exclude)]
    names = {n for n in index.names() if not any(p.fullmatch(n) for p in patterns)}
    order: list[str] = []
    if plan.base:
        base = [(int(m.group(1)), n) for n in names if (m := re.fullmatch(plan.base, n))]
        if base:
            order.append(max(base)[1])
    if plan.candidates:
        order += sorted(n for n in names if re.fullmatch(plan.candidates, n) and n not in order)
    info = index.info(order)
    return [info[n] for n in order if n in info]


class _Counting:
    """Counts documented functions in worker processes (or inline with one worker)."""

    def __init__(self, workers: int):
        self.pool = process_pool(workers) if workers > 1 else None  # workers die with us

    def submit(self, roots: Sequence[str], language: str) -> concurrent.futures.Future:
        if self.pool is not None:
            return self.pool.submit(count_functions, list(roots), language)
        fut: concurrent.futures.Future = concurrent.futures.Future()
        try:
            fut.set_result(count_functions(roots, language))
        except Exception as e:  # reported like a worker's failure
            fut.set_exception(e)
        return fut

    def close(self) -> None:
        if self.pool is not None:
            self.pool.shutdown(cancel_futures=True)


@dataclass
class _Unit:
    """One source in selection order: a package or the local standard library."""

    name: str
    version: str
    labels: list[str]
    roots: list[str]  # absolute
    manifest: dict
    local: bool
    pkg: PackageInfo | None = None
    count: Any = None  # Future, or (n, hashes)
    error: str | None = None


def _rel_roots(unit: _Unit, language: str) -> list[str]:
    """A unit's roots as recorded: absolute for a local source, relative to the tree for a package."""
    return unit.roots if unit.local else unit.manifest["roots"].get(language, [])


def fetch(language: str, cache: str | os.PathLike = DEFAULT_CACHE, target_functions: int | None = None,
          max_packages: int | None = None, *, exclude: Sequence[str] = (), workers: int = 2, batch_size: int = 16,
          index: Any = None, download: Downloader | None = None, progress: bool = False) -> dict:
    """Fetch, unpack and count ``language``'s packages until ``target_functions`` is reached.

    A target of 0 takes every candidate (Java: the one JDK source package). Returns the
    selection manifest (also written to ``<cache>/<language>.json``). A package that
    fails to download, verify or unpack is logged, recorded under ``failed`` and skipped.
    ``max_packages`` caps the packages taken (the local standard library is not counted);
    ``exclude`` adds regexes of package names to skip to the plan's own.
    ``index`` and ``download`` default to :class:`AptIndex` and :func:`apt_download`.
    """
    plan, target = _check_fetch_args(language, target_functions, max_packages, workers, batch_size, exclude)
    index = AptIndex() if index is None else index
    download = apt_download if download is None else download  # looked up now: tests monkeypatch it
    store = Cache(cache)
    store.make()
    pkgs = candidates(language, index, exclude)
    if max_packages is not None:
        pkgs = pkgs[:max_packages]
    if not pkgs and not plan.stdlib:
        raise QLogError(f"apt knows no {language} source package; run 'apt-get update' first")

    bar = progress_bar(total=target or None, unit="fn", desc=f"{language} functions") if progress else None
    fetcher = _Fetcher(language, store, pkgs, download, _Counting(workers), batch_size)
    try:
        if plan.stdlib:
            fetcher.queue_stdlib()
        fetcher.select(target, bar)
        fetcher.save_finished_counts()
    finally:
        fetcher.counting.close()
        if bar is not None:
            bar.close()

    selected, failed, seen = fetcher.selected, fetcher.failed, fetcher.seen
    result = {
        "language": language,
        "target_functions": target,
        "max_packages": max_packages,
        "exclude": [*plan.exclude, *exclude],
        "counted_with": fetcher.version,
        "reached": len(seen) >= target,
        "totals": {
            "packages": sum(1 for s in selected if not s.get("local")),
            "documented_functions": fetcher.documented,
            "unique_functions": len(seen),
            "deb_bytes": sum(s["deb"]["size"] for s in selected if "deb" in s),
            "failed": len(failed),
        },
        "selected": selected,
        "failed": failed,
    }
    write_json(store.root / f"{language}.json", result)
    return result


def _check_fetch_args(language: str, target_functions: int | None, max_packages: int | None, workers: int,
                      batch_size: int, exclude: Sequence[str]) -> tuple[Plan, int]:
    """The language's plan and the target, or :class:`QLogError` for the first bad argument."""
    if language not in PLANS:
        raise QLogError(f"unknown language {language!r}, expected one of {', '.join(LANGUAGES)}")
    plan = PLANS[language]
    target = plan.target if target_functions is None else target_functions
    if target < 0:
        raise QLogError(f"illegal target functions: {target}, must be at least 0")
    if max_packages is not None and max_packages < 0:
        raise QLogError(f"illegal max packages: {max_packages}, must be at least 0")
    if workers < 1:
        raise QLogError(f"illegal number of workers: {workers}, must be at least 1")
    if batch_size < 1:
        raise QLogError(f"illegal batch size: {batch_size}, must be at least 1")
    for x in exclude:
        try:
            re.compile(x)
        except re.error as e:
            raise QLogError(f"illegal exclude pattern {x!r}: {e}") from None
    return plan, target


class _Fetcher:
    """One fetch in progress: packages are downloaded and unpacked in batches here while worker
    processes count their functions, and taken in candidate order until enough unique ones are seen."""

    def __init__(self, language: str, store: Cache, pkgs: Sequence[PackageInfo], download: Downloader,
                 counting: _Counting, batch_size: int) -> None:
        self.language, self.store, self.download, self.counting = language, store, download, counting
        self.batch_size = batch_size
        self.version = counter_version()
        self.todo = iter(pkgs)
        self.exhausted = False
        self.queue: deque[_Unit] = deque()
        self.selected: list[dict] = []
        self.failed: list[dict] = []
        self.seen: set[bytes] = set()
        self.documented = 0

    def refill(self) -> None:
        """Queue the next batch: download what is missing, unpack it, submit its counts."""
        batch = [p for _, p in zip(range(self.batch_size), self.todo)]
        self.exhausted = len(batch) < self.batch_size
        manifests = {p.name: self.store.package_manifest(p) for p in batch}
        debs: dict[str, Path | str] = {}
        for p in batch:  # a .deb already downloaded (its tree was removed) is not fetched again
            deb = self.store.debs / deb_name(p)
            if manifests[p.name] is None and deb.is_file() and file_sha256(deb) == p.sha256:
                debs[p.name] = deb
        missing = [p for p in batch if manifests[p.name] is None and p.name not in debs]
        if missing:
            debs.update(self.download(missing, self.store.debs))
        for p in batch:
            self.queue.append(self._unit(p, manifests[p.name], debs.get(p.name, "not downloaded")))

    def _unit(self, p: PackageInfo, manifest: dict | None, deb: Path | str) -> _Unit:
        unit = _Unit(p.name, p.version, [], [], manifest or {}, False, pkg=p)
        if manifest is None:
            try:
                if not isinstance(deb, Path):
                    raise QLogError(f"download failed: {deb}")
                unit.manifest = self.store.unpack(p, deb, self.language)
            except QLogError as e:
                unit.error = str(e)
        if unit.error is None:
            # found again rather than read back, so a change of PLANS applies to cached packages
            rel = find_roots(self.store.root / unit.manifest["extracted"], self.language)
            unit.manifest.setdefault("roots", {})[self.language] = rel
            unit.roots = [str(self.store.root / unit.manifest["extracted"] / r) for r in rel]
            unit.labels = root_labels(p.key, rel)
            unit.count = (0, b"") if not rel else \
                self.store.cached_count(unit.manifest, self.language, self.version, rel) \
                or self.counting.submit(unit.roots, self.language)
        return unit

    def queue_stdlib(self) -> None:
        """Queue this machine's Python standard library first (Python's plan has it)."""
        label, path = python_stdlib()
        local = _read_json(self.store.local / f"{label}.json") or {}
        if local.get("path") != str(path):
            local = {"key": label, "path": str(path), "python": sys.version.split()[0], "functions": {}}
        unit = _Unit(label, local["python"], [label], [str(path)], local, True)
        unit.count = self.store.cached_count(local, self.language, self.version, [str(path)], local=True) \
            or self.counting.submit([str(path)], self.language)
        self.queue.append(unit)

    def select(self, target: int, bar: Any) -> None:
        """Take units in order until ``target`` unique functions are seen (0: all of them)."""
        while len(self.seen) < target or target == 0:
            # keep two batches ahead: downloads run here while the workers parse
            while not self.exhausted and len(self.queue) < 2 * self.batch_size:
                self.refill()
            if not self.queue:
                break
            unit = self.queue.popleft()
            self._finish_count(unit)
            if unit.error is not None:
                msg = f"skipping {unit.name} {unit.version}: {unit.error}"
                bar.write(msg) if bar is not None and not bar.disable else info(msg)
                self.failed.append({"package": unit.name, "version": unit.version, "error": unit.error})
                continue
            new = self._take(unit)
            if bar is not None:
                bar.update(new)
                bar.set_postfix_str(f"{len(self.selected)} pkgs, {unit.name}", refresh=False)

    def _finish_count(self, unit: _Unit) -> None:
        if unit.error is None and isinstance(unit.count, concurrent.futures.Future):
            try:
                unit.count = unit.count.result()
                self.store.save_count(unit.manifest, self.language, self.version, _rel_roots(unit, self.language),
                                      unit.count, local=unit.local)
            except Exception as e:  # a package the extractor cannot read is skipped, not fatal
                unit.error = f"counting failed: {e}"

    def _take(self, unit: _Unit) -> int:
        """Record ``unit`` as selected; the number of functions it adds that were not seen before."""
        n, blob = unit.count
        hashes = {blob[i:i + HASH_SIZE] for i in range(0, len(blob), HASH_SIZE)}
        new = len(hashes - self.seen)
        self.seen |= hashes
        self.documented += n
        entry: dict[str, Any] = {"package": unit.name, "version": unit.version}
        if unit.local:
            entry.update(local=True, path=unit.roots[0])
        else:
            entry.update(deb=unit.manifest["deb"], extracted=unit.manifest["extracted"])
        entry.update(sources=[{"root": r, "label": lb} for r, lb in zip(_rel_roots(unit, self.language), unit.labels)],
                     functions=n, unique=len(hashes), new=new, cumulative=len(self.seen))
        self.selected.append(entry)
        return new

    def save_finished_counts(self) -> None:
        """Counts finished past the target are kept, so a later, larger target starts from them."""
        for unit in self.queue:
            if isinstance(unit.count, concurrent.futures.Future) and unit.count.done() \
                    and not unit.count.cancelled() and unit.count.exception() is None:
                self.store.save_count(unit.manifest, self.language, self.version, _rel_roots(unit, self.language),
                                      unit.count.result(), local=unit.local)


def load_selection(language: str, cache: str | os.PathLike = DEFAULT_CACHE) -> dict:
    """The selection manifest ``<cache>/<language>.json`` written by :func:`fetch`."""
    path = Path(cache) / f"{language}.json"
    data = _read_json(path)
    if data is None:
        raise QLogError(f"no {language} sources in {str(Path(cache))!r}; "
                        f"run 'python -m qlog_pyserini.fetch --language {language}' first")
    return data


def source_roots(language: str, cache: str | os.PathLike = DEFAULT_CACHE) -> list[tuple[str, str]]:
    """``(path, label)`` of every selected source root, for :func:`codecorpus.build_benchmark`."""
    root = Path(cache).resolve()
    out = []
    for s in load_selection(language, cache)["selected"]:
        for src in s["sources"]:
            path = Path(src["root"]) if s.get("local") else root / s["extracted"] / src["root"]
            if not path.exists():
                raise QLogError(f"{path} is missing from the cache; run the fetch again")
            out.append((str(path), src["label"]))
    return out

