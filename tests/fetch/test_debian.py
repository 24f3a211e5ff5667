"""Fetching sources from Debian packages: selection, manifests, failures and the cache.

The packages are real .debs built with ``dpkg-deb --build`` from temporary folders; the apt
index and the downloader are fakes, so nothing touches the network.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import subprocess
from pathlib import Path

import pytest

from qlog_pyserini.corpus import build_benchmark
from qlog_pyserini.errors import QLogError
from qlog_pyserini.fetch import __main__ as fetch_cli
from qlog_pyserini.fetch import debian as sources
from qlog_pyserini.fetch.debian import PackageInfo, deb_name, fetch, find_roots, root_labels, source_roots

pytestmark = pytest.mark.skipif(shutil.which("dpkg-deb") is None, reason="needs dpkg-deb")

GOROOT = "usr/share/go-1.19/src"
GOCODE = "usr/share/gocode/src"


def go_function(name: str, body: str = "") -> str:
    return f"// {name} does the {name.lower()} step of the example.\nfunc {name}() int {{\n\treturn {len(name)}{body}\n}}\n"


def build_deb(tmp: Path, name: str, version: str, files: dict[str, str], symlinks: dict[str, str] | None = None) -> Path:
    """A real binary package holding ``files`` (path -> text) and ``symlinks`` (path -> target)."""
    root = tmp / "build" / f"{name}_{version}"
    (root / "DEBIAN").mkdir(parents=True)
    (root / "DEBIAN" / "control").write_text(
        f"Package: {name}\nVersion: {version}\nArchitecture: all\nMaintainer: Test <t@example.org>\n"
        f"Description: test package {name}\n")
    for rel, text in files.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text)
    for rel, target in (symlinks or {}).items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        os.symlink(target, root / rel)
    out = tmp / "pool" / f"{name}_{version.replace(':', '%3a')}_all.deb"
    out.parent.mkdir(exist_ok=True)
    subprocess.run(["dpkg-deb", "--root-owner-group", "-Zgzip", "--build", str(root), str(out)],
                   check=True, capture_output=True)
    return out


class FakeIndex:
    """apt's package lists for the packages in ``pool``, plus names that are not source packages."""

    def __init__(self, debs: dict[str, tuple[str, Path]], extra: tuple[str, ...] = ()):
        self.debs, self.extra = debs, extra

    def names(self) -> list[str]:
        return list(reversed(list(self.debs) + list(self.extra)))  # fetch must sort them itself

    def info(self, names):
        return {n: PackageInfo(n, v, "all", deb.stat().st_size, hashlib.sha256(deb.read_bytes()).hexdigest())
                for n, (v, deb) in self.debs.items() if n in names}


class FakeDownloader:
    """Copies .debs from the pool as apt-get download would name them; counts the packages asked for."""

    def __init__(self, debs: dict[str, tuple[str, Path]], fail: tuple[str, ...] = ()):
        self.debs, self.fail, self.calls, self.asked = debs, fail, 0, []

    def __call__(self, packages, dest: Path):
        self.calls += 1
        out = {}
        for pkg in packages:
            self.asked.append(pkg.name)
            if pkg.name in self.fail:
                out[pkg.name] = "E: Failed to fetch (simulated)"
            else:
                shutil.copy(self.debs[pkg.name][1], dest / deb_name(pkg))
                out[pkg.name] = dest / deb_name(pkg)
        return out


@pytest.fixture(scope="module")
def pool(tmp_path_factory) -> dict[str, tuple[str, Path]]:
    tmp = tmp_path_factory.mktemp("pool")
    outside = tmp / "outside.go"
    outside.write_text(go_function("Outside"))
    shared = go_function("Shared", " + 1")  # the same function in two packages: one document
    specs = {
        "golang-1.18-src": ("1.18.1-1", {f"{GOROOT.replace('1.19', '1.18')}/old/old.go":
                                         "package old\n\n" + go_function("Old")}),
        "golang-1.19-src": ("1.19.8-2", {f"{GOROOT}/fmt/print.go": "package fmt\n\n" + go_function("Print")
                                         + "\n" + go_function("Println"),
                                         f"{GOROOT}/fmt/print_test.go": "package fmt\n\n" + go_function("TestX")}),
        "golang-aaa-dev": ("1.0-1", {f"{GOCODE}/example.com/aaa/a.go": "package aaa\n\n" + go_function("A1")
                                     + "\n" + go_function("A2") + "\n" + shared}),
        "golang-bbb-dev": ("2:0.5-3", {f"{GOCODE}/example.com/bbb/b.go": "package bbb\n\n" + go_function("B1")
                                       + "\n" + go_function("B2") + "\n" + shared}),
        "golang-ccc-dev": ("3.0-1", {f"{GOCODE}/example.com/ccc/c.go": "package ccc\n\n" + go_function("C1")}),
    }
    debs = {}
    for name, (version, files) in specs.items():
        links = {f"{GOCODE}/example.com/ccc/escape.go": str(outside),
                 f"{GOCODE}/example.com/ccc/same.go": "c.go"} if name == "golang-ccc-dev" else None
        debs[name] = (version, build_deb(tmp, name, version, files, links))
    return debs


def run(pool, cache, target, fail=(), downloader=None, **kw):
    downloader = downloader or FakeDownloader(pool, fail)
    sel = fetch("go", cache, target, index=FakeIndex(pool, extra=("golang-zzz-doc", "python3-foo")),
                download=downloader, workers=1, batch_size=2, **kw)
    return sel, downloader


def test_selection_takes_newest_base_then_names_in_order_until_target(pool, tmp_path):
    # base: 2 functions (the _test.go file is skipped); aaa adds 3 -> 5 < 6; bbb adds 2 new -> 7
    sel, dl = run(pool, tmp_path / "cache", target=6)
    assert [s["package"] for s in sel["selected"]] == ["golang-1.19-src", "golang-aaa-dev", "golang-bbb-dev"]
    assert [(s["functions"], s["new"], s["cumulative"]) for s in sel["selected"]] == [(2, 2, 2), (3, 3, 5), (3, 2, 7)]
    assert sel["reached"] and sel["totals"]["unique_functions"] == 7 and sel["totals"]["documented_functions"] == 8
    assert sel["totals"]["packages"] == 3 and sel["failed"] == []
    assert "golang-1.18-src" not in dl.asked and "golang-zzz-doc" not in dl.asked
    assert json.loads((tmp_path / "cache" / "go.json").read_text()) == sel


def test_package_manifest_sits_next_to_the_unpacked_tree(pool, tmp_path):
    sel, _ = run(pool, tmp_path / "cache", target=6)
    bbb = sel["selected"][2]
    assert bbb["version"] == "2:0.5-3" and bbb["extracted"] == "src/golang-bbb-dev_2%3a0.5-3"
    assert bbb["sources"] == [{"root": GOCODE, "label": "golang-bbb-dev_2%3a0.5-3"}]
    tree = tmp_path / "cache" / bbb["extracted"]
    manifest = json.loads(Path(f"{tree}.json").read_text())
    deb = tmp_path / "cache" / manifest["deb"]["file"]
    assert manifest["package"] == "golang-bbb-dev" and manifest["version"] == "2:0.5-3"
    assert manifest["deb"]["size"] == deb.stat().st_size == pool["golang-bbb-dev"][1].stat().st_size
    assert manifest["deb"]["sha256"] == hashlib.sha256(deb.read_bytes()).hexdigest()
    assert manifest["files_per_extension"] == {".go": 1}
    assert manifest["functions"]["go"]["documented"] == 3 and manifest["functions"]["go"]["unique"] == 3
    assert (tree / GOCODE / "example.com/bbb/b.go").is_file()


def test_counted_functions_are_the_benchmark_documents(pool, tmp_path):
    sel, _ = run(pool, tmp_path / "cache", target=100)
    roots = source_roots("go", tmp_path / "cache")
    assert [label for _, label in roots] == ["golang-1.19-src_1.19.8-2", "golang-aaa-dev_1.0-1",
                                             "golang-bbb-dev_2%3a0.5-3", "golang-ccc-dev_3.0-1"]
    manifest = build_benchmark(roots, tmp_path / "bench", languages=["go"])
    assert manifest["counts"]["documents"] == sel["totals"]["unique_functions"] == 8
    assert not sel["reached"]  # all candidates taken, target not met
    ids = [json.loads(line)["_id"] for line in (tmp_path / "bench" / "corpus.jsonl").open()]
    assert "golang-1.19-src_1.19.8-2/fmt/print.go:Print" in ids


def test_symlinks_leaving_the_package_are_removed(pool, tmp_path):
    sel, _ = run(pool, tmp_path / "cache", target=100)
    ccc = sel["selected"][-1]
    tree = tmp_path / "cache" / ccc["extracted"] / GOCODE / "example.com" / "ccc"
    assert not os.path.lexists(tree / "escape.go")  # absolute: would read the host's file
    assert (tree / "same.go").is_symlink()  # inside the package: kept (its copy is a duplicate)
    assert json.loads(Path(f"{tmp_path / 'cache' / ccc['extracted']}.json").read_text())["symlinks_removed"] == 1
    assert ccc["functions"] == 2 and ccc["unique"] == 1  # Outside() was not read


def test_selection_is_deterministic(pool, tmp_path):
    a, _ = run(pool, tmp_path / "a", target=6)
    b, _ = run(pool, tmp_path / "b", target=6)
    assert a == b


def test_failed_download_is_logged_and_skipped(pool, tmp_path, capsys):
    sel, dl = run(pool, tmp_path / "cache", target=6, fail=("golang-aaa-dev",))
    assert [s["package"] for s in sel["selected"]] == ["golang-1.19-src", "golang-bbb-dev", "golang-ccc-dev"]
    assert sel["failed"] == [{"package": "golang-aaa-dev", "version": "1.0-1",
                              "error": "download failed: E: Failed to fetch (simulated)"}]
    assert sel["totals"]["unique_functions"] == 2 + 3 + 1
    assert "skipping golang-aaa-dev 1.0-1" in capsys.readouterr().err
    # the next run tries it again and now it comes through
    sel2, _ = run(pool, tmp_path / "cache", target=6)
    assert [s["package"] for s in sel2["selected"]] == ["golang-1.19-src", "golang-aaa-dev", "golang-bbb-dev"]


def test_checksum_mismatch_is_skipped(pool, tmp_path):
    class Tampered(FakeIndex):
        def info(self, names):
            out = super().info(names)
            out["golang-aaa-dev"] = PackageInfo("golang-aaa-dev", "1.0-1", "all", 1, "0" * 64)
            return out

    sel = fetch("go", tmp_path / "cache", 6, index=Tampered(pool), download=FakeDownloader(pool), workers=1)
    assert "golang-aaa-dev" not in [s["package"] for s in sel["selected"]]
    assert "differs from the package lists" in sel["failed"][0]["error"]


def test_second_run_uses_the_cache(pool, tmp_path, monkeypatch):
    first, dl = run(pool, tmp_path / "cache", target=6)
    assert dl.calls >= 1 and sorted(dl.asked) == sorted(set(dl.asked))

    def no_parsing(roots, language):
        raise AssertionError("counted again")

    monkeypatch.setattr(sources, "count_functions", no_parsing)
    monkeypatch.setattr(sources, "apt_download", FakeDownloader(pool))  # the default downloader
    second = fetch("go", tmp_path / "cache", 6, index=FakeIndex(pool), workers=1)
    assert second == first and sources.apt_download.calls == 0


def test_larger_target_downloads_only_the_new_packages(pool, tmp_path):
    _, dl = run(pool, tmp_path / "cache", target=6)
    sel, dl2 = run(pool, tmp_path / "cache", target=100)
    assert set(dl2.asked).isdisjoint(["golang-1.19-src", "golang-aaa-dev", "golang-bbb-dev"])
    assert len(sel["selected"]) == 4


def test_deleted_tree_is_unpacked_again_from_the_cached_deb(pool, tmp_path):
    run(pool, tmp_path / "cache", target=6)
    shutil.rmtree(tmp_path / "cache" / "src" / "golang-aaa-dev_1.0-1")
    sel, dl = run(pool, tmp_path / "cache", target=6)
    assert dl.calls == 0 and (tmp_path / "cache" / "src" / "golang-aaa-dev_1.0-1").is_dir()
    assert sel["totals"]["unique_functions"] == 7


def test_max_packages_caps_the_selection(pool, tmp_path):
    sel, _ = run(pool, tmp_path / "cache", target=100, max_packages=2)
    assert [s["package"] for s in sel["selected"]] == ["golang-1.19-src", "golang-aaa-dev"]


def test_roots_and_labels(tmp_path):
    for rel in ["usr/lib/ruby/3.1.0/set.rb", "usr/lib/ruby/gems/3.1.0/gems/rake-13.0.6/lib/rake.rb",
                "usr/lib/ruby/gems/3.1.0/gems/set-1.0.2/set.gemspec", "usr/share/doc/x/example.rb"]:
        (tmp_path / rel).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / rel).write_text("")
    roots = find_roots(tmp_path, "ruby")
    assert roots == ["usr/lib/ruby/3.1.0", "usr/lib/ruby/gems/3.1.0/gems/rake-13.0.6"]  # no .rb: no root
    assert root_labels("libruby3.1_3.1.2-1", roots) == ["libruby3.1_3.1.2-1@3.1.0", "libruby3.1_3.1.2-1@rake-13.0.6"]
    assert root_labels("p_1", ["a/x", "b/x"]) == ["p_1@x", "p_1@x-2"]
    assert find_roots(tmp_path, "go") == []


def test_bad_arguments_and_missing_selection(tmp_path):
    with pytest.raises(QLogError, match="unknown language 'cobol'"):
        fetch("cobol", tmp_path)
    with pytest.raises(QLogError, match="illegal target functions: -1"):
        fetch("go", tmp_path, -1)
    with pytest.raises(QLogError, match="fetch --language php"):
        source_roots("php", tmp_path)


def test_cli_prints_sources_for_the_corpus_builder(pool, tmp_path, monkeypatch, capsys):
    monkeypatch.setattr(sources, "AptIndex", lambda: FakeIndex(pool))
    monkeypatch.setattr(sources, "apt_download", FakeDownloader(pool))
    with pytest.raises(SystemExit) as e:
        fetch_cli.run_cli(fetch_cli.main, ["--language", "go", "--target-functions", "6", "--cache",
                                           str(tmp_path / "c"), "--workers", "1", "--quiet", "--print-sources"])
    assert e.value.code == 0
    out, err = capsys.readouterr()
    lines = out.splitlines()
    assert lines[0] == f"{tmp_path / 'c' / 'src' / 'golang-1.19-src_1.19.8-2' / GOROOT}=golang-1.19-src_1.19.8-2"
    assert len(lines) == 3 and "go: 3 packages" in err and "7 distinct documented functions" in err


def test_excluded_packages_are_never_taken(pool, tmp_path):
    sel, dl = run(pool, tmp_path / "cache", target=6, exclude=[r"golang-a+-dev"])
    assert [s["package"] for s in sel["selected"]] == ["golang-1.19-src", "golang-bbb-dev", "golang-ccc-dev"]
    assert "golang-aaa-dev" not in dl.asked and r"golang-a+-dev" in sel["exclude"]
    with pytest.raises(QLogError, match="illegal exclude pattern"):
        run(pool, tmp_path / "cache", target=6, exclude=["("])


def test_plans_leave_out_generated_code_packages():
    class Names:
        def names(self):
            return ["golang-github-azure-azure-sdk-for-go-dev", "golang-github-go-playground-locales-dev",
                    "golang-github-azure-go-autorest-dev", "golang-1.19-src", "golang-1.21-src"]

        def info(self, names):
            return {n: PackageInfo(n, "1", "all", 1, "x") for n in names}

    assert [p.name for p in sources.candidates("go", Names())] == ["golang-1.21-src", "golang-github-azure-go-autorest-dev"]


def test_apt_download_retries_a_failed_batch_one_package_at_a_time(tmp_path, monkeypatch):
    # apt-get on PATH is a script that logs each call and fails: a batch of two is tried once, then each
    # package alone (three calls); a batch of one was already that package's own attempt (one call).
    bin_dir, log = tmp_path / "bin", tmp_path / "calls.log"
    bin_dir.mkdir()
    (bin_dir / "apt-get").write_text(f'#!/bin/sh\necho "$*" >> {log}\necho "E: Unable to locate package" >&2\nexit 100\n')
    (bin_dir / "apt-get").chmod(0o755)
    monkeypatch.setenv("PATH", f"{bin_dir}{os.pathsep}{os.environ['PATH']}")
    a, b = (PackageInfo(name, "1.0", "all", 0, "0" * 64) for name in ("pkg-a", "pkg-b"))
    for batch, calls in (([a, b], ["download -q pkg-a=1.0 pkg-b=1.0", "download -q pkg-a=1.0",
                                   "download -q pkg-b=1.0"]), ([a], ["download -q pkg-a=1.0"])):
        log.unlink(missing_ok=True)
        dest = tmp_path / f"dest-{len(batch)}"
        dest.mkdir()
        result = sources.apt_download(batch, dest)
        assert result == {pkg.name: "E: Unable to locate package" for pkg in batch}
        assert log.read_text().splitlines() == calls
        assert list(dest.iterdir()) == []
