"""``locate`` on small repositories built here: the index follows the work tree in place (changed, added and deleted
files only), commits of bare mirrors are read, budgets hold, a damaged cache is rebuilt, and Locator is shared by
threads."""

from __future__ import annotations

import json
import os
import subprocess
import threading
import time
from pathlib import Path

import pytest
from instances.gitrepos import new_repo

from qlog_pyserini.eval.budget import code_token_count
from qlog_pyserini.locate import Locator
from qlog_pyserini.locate.cache import MANIFEST, STAMP

pytestmark = pytest.mark.jvm

FILES = {
    "src/config.py": "def parse_config(path):\n    text = open(path).read()\n    return text\n\n\n"
                     "def write_config(path, text):\n    open(path, 'w').write(text)\n",
    "src/network.py": "import socket\n\n\nclass WebsocketUpgrade:\n    def upgrade(self, request):\n"
                      "        return request.headers['upgrade']\n\n\ndef proxy_headers(request):\n"
                      "    return request.headers\n",
    "src/render.py": "def render_template(name):\n    return name.title()\n",
    "lib/Storage.java": "public class Storage {\n  public void flushPages(int count) {\n    System.out.println(count);\n"
                        "  }\n}\n",
    "tests/test_config.py": "def test_parse_config():\n    assert parse_config\n",
    "vendor/websocket.py": "def upgrade():\n    pass\n",
    "src/blob.py": b"websocket\0binary\n",
}


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    return new_repo(tmp_path / "repo", FILES)


def paths(result) -> list[str]:
    return [f.path for f in result.files]


def test_the_first_call_indexes_every_file_and_the_second_none(repo: Path, tmp_path: Path) -> None:
    with Locator(repo, cache=tmp_path / "cache") as loc:
        first = loc.locate("websocket upgrade behind a proxy")
        assert first.index.files == 4 and first.index.updated == 4 and first.index.rebuilt
        assert first.index.skipped == {"binary": 1}
        assert first.index.excluded["test"] == 1 and first.index.excluded["vendored"] == 1
        assert set(first.index.languages) == {"python", "java"}
        assert paths(first)[0] == "src/network.py"
        second = loc.locate("websocket upgrade behind a proxy")
    assert (second.index.updated, second.index.removed, second.index.rebuilt) == (0, 0, False)
    assert [(f.path, f.score) for f in second.files] == [(f.path, f.score) for f in first.files]
    with Locator(repo, cache=tmp_path / "cache") as again:  # a new Locator (a new process) reuses the cache
        third = again.locate("websocket upgrade behind a proxy")
    assert (third.index.updated, third.index.rebuilt) == (0, False)
    assert [(f.path, f.score) for f in third.files] == [(f.path, f.score) for f in first.files]


def test_changed_added_and_deleted_files_are_all_that_is_updated(repo: Path, tmp_path: Path) -> None:
    with Locator(repo, cache=tmp_path / "cache") as loc:
        loc.locate("render template")
        (repo / "src/render.py").write_text("def render_template(name):\n    return kaleidoscope(name)\n")
        (repo / "lib/Storage.java").write_text("public class Storage {\n  void flushPages() { kaleidoscope(); }\n}\n")
        os.utime(repo / "src/config.py")  # touched, content unchanged: not indexed again
        after = loc.locate("kaleidoscope")
        assert (after.index.updated, after.index.removed, after.index.files) == (2, 0, 4)
        assert set(paths(after)) == {"src/render.py", "lib/Storage.java"}

        (repo / "src/untracked_zebra.py").write_text("def zebra_stripes():\n    return 'zebra'\n")
        (repo / "src/network.py").unlink()
        found = loc.locate("zebra stripes")
        assert (found.index.updated, found.index.removed, found.index.files) == (1, 1, 4)
        assert paths(found)[0] == "src/untracked_zebra.py"
        assert found.files[0].unit is not None and found.files[0].unit.name == "zebra_stripes"
        gone = loc.locate("websocket proxy headers")
        assert "src/network.py" not in paths(gone)
        assert loc.locate("zebra").index.updated == 0


def test_the_unit_that_made_a_file_rank_is_named_with_its_lines(repo: Path, tmp_path: Path) -> None:
    with Locator(repo, cache=tmp_path / "cache") as loc:
        result = loc.locate("write the config text")
    top = result.files[0]
    assert top.path == "src/config.py"
    assert (top.unit.name, top.unit.start, top.unit.end) == ("write_config", 6, 7)


@pytest.mark.parametrize("budget", [1, 20, 40, 60, 10_000])
def test_the_budget_is_never_exceeded(repo: Path, tmp_path: Path, budget: int) -> None:
    with Locator(repo, cache=tmp_path / "cache") as loc:
        result = loc.locate("websocket upgrade config render template flush pages", budget=budget, hits=10)
    whole = sum(code_token_count(f.text) for f in result.files if f.packed)
    units = sum(u.tokens for f in result.files for u in f.packed_units)
    assert result.packed_tokens == whole + units <= budget
    assert all(f.tokens == code_token_count(f.text) for f in result.files)
    if result.packed_tokens == 0:
        assert result.reason and str(budget) in result.reason
    else:
        assert "reason" not in result.to_json()
    if budget == 10_000:
        assert all(f.packed for f in result.files)


def test_a_file_too_large_is_not_packed_and_its_best_unit_is(repo: Path, tmp_path: Path) -> None:
    with Locator(repo, cache=tmp_path / "cache") as loc:
        whole = loc.locate("write config text", budget=10_000, hits=1).files[0]
        result = loc.locate("write config text", budget=whole.tokens - 1, hits=1)
    top = result.files[0]
    assert not top.packed and [u.name for u in top.packed_units][0] == "write_config"
    assert result.packed_tokens == sum(u.tokens for u in top.packed_units)


def test_a_commit_of_a_bare_mirror_is_read_from_git(repo: Path, tmp_path: Path) -> None:
    (repo / "src/untracked.py").write_text("def marmalade():\n    pass\n")
    mirror = tmp_path / "mirror.git"
    subprocess.run(["git", "clone", "-q", "--bare", str(repo), str(mirror)], check=True)
    with Locator(mirror, rev="HEAD", cache=tmp_path / "cache") as loc:
        result = loc.locate("websocket upgrade")
        assert paths(result)[0] == "src/network.py"
        assert loc.locate("marmalade").files == ()  # untracked in the work tree, not in the commit
        assert loc.locate("marmalade").reason.startswith("no file shares a term")


def test_a_damaged_cache_or_one_of_another_version_is_rebuilt(repo: Path, tmp_path: Path) -> None:
    cache = tmp_path / "cache"
    with Locator(repo, cache=cache) as loc:
        expected = [(f.path, f.score) for f in loc.locate("websocket upgrade").files]
    folder = next(cache.iterdir())
    damages = [lambda: (folder / MANIFEST).write_text("{not json"),
               lambda: (folder / STAMP).write_text(json.dumps({"format": 0})),
               lambda: [p.unlink() for p in (folder / "index").iterdir() if p.name.startswith("segments")],
               lambda: (folder / MANIFEST).unlink(),  # what a run killed while it changed the index leaves
               lambda: [p.write_bytes(b"torn") for p in (folder / "index").iterdir() if p.name.startswith("segments")]]
    for damage in damages:
        damage()
        with Locator(repo, cache=cache) as loc:
            result = loc.locate("websocket upgrade")
        assert result.index.rebuilt and result.index.updated == 4
        assert [(f.path, f.score) for f in result.files] == expected
    # the saved names each file defines are a convenience: unreadable, they are read again, not trusted
    (folder / "symbols.json").write_text("{not json")
    with Locator(repo, cache=cache) as loc:
        result = loc.locate("websocket upgrade")
    assert not result.index.rebuilt and [(f.path, f.score) for f in result.files] == expected
    indexed = json.loads((folder / MANIFEST).read_text())["files"]
    assert set(json.loads((folder / "symbols.json").read_text())) == set(indexed) == {"src/config.py", "src/network.py",
                                                                                     "src/render.py", "lib/Storage.java"}


def test_one_locator_serves_many_threads(repo: Path, tmp_path: Path) -> None:
    queries = ["websocket upgrade", "parse config", "render template", "flush pages"]
    with Locator(repo, cache=tmp_path / "cache") as loc:
        expected = {q: paths(loc.locate(q)) for q in queries}
        got: dict[str, list] = {q: [] for q in queries}

        def work(q: str) -> None:
            for _ in range(5):
                got[q].append(paths(loc.locate(q)))

        threads = [threading.Thread(target=work, args=(q,)) for q in queries for _ in range(2)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
    assert all(r == expected[q] for q, results in got.items() for r in results)
    assert all(len(results) == 10 for results in got.values())


OLD = time.time() - 3600


def _age(repo: Path, old: float = OLD) -> None:
    """Every folder, git's index and exclude file an hour old: the listing they vouch for is kept between calls."""
    for path in [repo, repo / ".git" / "index", repo / ".git" / "info" / "exclude", *(p for p in repo.rglob("*") if p.is_dir() and ".git" not in p.parts)]:
        os.utime(path, (old, old))


def test_a_listing_kept_between_calls_still_sees_files_added_and_removed(repo: Path, tmp_path: Path) -> None:
    _age(repo)
    with Locator(repo, cache=tmp_path / "cache") as loc:
        loc.locate("websocket upgrade")
        listed = loc.source.listing_generation
        assert loc.locate("websocket upgrade").index.updated == 0
        assert loc.source.listing_generation == listed  # nothing changed: git was not asked again
        (repo / "src/walnut.py").write_text("def walnut():\n    return 'walnut'\n")
        found = loc.locate("walnut")
        assert loc.source.listing_generation == listed + 1
        assert paths(found)[0] == "src/walnut.py" and found.index.updated == 1
        _age(repo)
        loc.locate("walnut")
        (repo / "src/render.py").unlink()
        gone = loc.locate("render template")
        assert "src/render.py" not in paths(gone) and gone.index.removed == 1
        (repo / ".gitignore").write_text("*.log\n")
        _age(repo)
        loc.locate("walnut")
        listed = loc.source.listing_generation
        (repo / ".gitignore").write_text("src/walnut.py\n")  # an edited ignore rule: no folder changes
        _age(repo)
        hidden = loc.locate("walnut")
        assert loc.source.listing_generation == listed + 1
        assert "src/walnut.py" not in paths(hidden) and hidden.index.removed == 1


def test_two_locators_in_two_threads_keep_their_own_repositories(repo: Path, tmp_path: Path) -> None:
    other = new_repo(tmp_path / "other", {"src/ledger.py": "def balance(entries):\n    # the ledger's sum\n    return sum(entries)\n",
                                          "src/audit.py": "def audit(entries):\n    # read the ledger\n    return entries\n"})
    with Locator(repo, cache=tmp_path / "cache") as a, Locator(other, cache=tmp_path / "cache") as b:
        expected = {a: paths(a.locate("websocket upgrade ledger")), b: paths(b.locate("websocket upgrade ledger"))}
        got: dict = {a: [], b: []}

        def work(loc: Locator) -> None:
            for _ in range(8):
                got[loc].append(paths(loc.locate("websocket upgrade ledger")))

        threads = [threading.Thread(target=work, args=(loc,)) for loc in (a, b, a, b)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
    assert expected[a][0] == "src/network.py" and set(expected[b]) == {"src/ledger.py", "src/audit.py"}
    assert all(r == expected[loc] for loc, results in got.items() for r in results)
    assert [len(results) for results in got.values()] == [16, 16]


MORE_LANGUAGES = {
    "lib/acme/config/loader.rb": "module Acme\n  class Loader\n    def fetch_logger(config)\n"
                                 "      config.fetch(:logger)\n    end\n  end\nend\n",
    "lib/acme/cli.rb": "module Acme\n  class CLI\n    def run(argv)\n      puts argv\n    end\n  end\nend\n",
    "spec/acme/loader_spec.rb": "describe Acme::Loader do\n  it 'fetches the logger' do\n  end\nend\n",
    "src/Routing/Router.php": "<?php\nclass Router {\n    public function dispatch($request) {\n"
                              "        return count($request->routes);\n    }\n}\n",
    "app/src/main/kotlin/acme/Cache.kt": "class Cache {\n    fun evict(key: String) = key\n}\n",
    "src/Acme/MemoryStore.cs": "namespace Acme {\n  class MemoryStore {\n    string Evict(string key) { return key; }\n"
                               "  }\n}\n",
    "src/Acme/Form1.Designer.cs": "// <auto-generated>\n// </auto-generated>\nnamespace Acme { class Form1 { } }\n",
    "Sources/Acme/Parser.swift": "struct Parser {\n    func parse(_ s: String) -> Int { s.count }\n}\n",
    "src/main/scala/acme/Codec.scala": "object Codec {\n  def encode(s: String): String = s.reverse\n}\n",
}


def test_ruby_php_kotlin_csharp_swift_and_scala_repositories_are_indexed_by_their_rules(tmp_path: Path) -> None:
    repo = new_repo(tmp_path / "poly", MORE_LANGUAGES)
    with Locator(repo, cache=tmp_path / "cache", language=("ruby", "php", "kotlin", "csharp", "swift", "scala")) \
            as loc:
        result = loc.locate("Acme::Loader#fetch_logger: undefined method `level' for nil\n"
                            "/app/lib/acme/config/loader.rb:4:in `fetch_logger'")
        assert paths(result)[0] == "lib/acme/config/loader.rb"
        assert result.index.files == 7
        assert result.index.excluded["test"] == 1 and result.index.excluded["generated-name"] == 1
        assert result.files[0].unit is not None and (result.files[0].unit.start, result.files[0].unit.end) == (3, 5)
        assert paths(loc.locate("MemoryStore Evict key"))[0] == "src/Acme/MemoryStore.cs"
    with Locator(new_repo(tmp_path / "ruby", {k: v for k, v in MORE_LANGUAGES.items() if k.endswith(".rb")}),
                 cache=tmp_path / "cache2") as detected:
        assert detected.locate("logger").index.languages == ("ruby",)
