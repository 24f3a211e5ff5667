"""Fixtures of the instance-set tests: a small repository with a fix, a rename, a deletion and a vendored folder."""

from __future__ import annotations

import pytest
from instances.gitrepos import BASE_FILES, SmallRepo, commit, git


@pytest.fixture(scope="module")
def small_repo(tmp_path_factory) -> SmallRepo:
    repo = tmp_path_factory.mktemp("repo") / "demo"
    repo.mkdir()
    git(repo, "init", "-q", "-b", "main")
    base = commit(repo, "initial import", BASE_FILES, "2020-01-01T00:00:00Z")
    (repo / "link.py").symlink_to("src/app.py")
    git(repo, "add", "link.py")
    base = commit(repo, "add a link", {}, "2020-01-02T00:00:00Z")
    fix = commit(repo, "Fix parse_config crash on an empty file\n\nparse_config raised on empty input.", {
        "src/app.py": "def parse_config(path):\n    text = open(path).read()\n    return text or None\n",
        "tests/test_app.py": "def test_parse():\n    assert parse_config('x') is None\n",
        "vendor/lib.py": "def vendored():\n    return 2\n",
        "README.md": "# demo\n\nfixed\n",
        "src/old_name.py": None, "src/new_name.py": "def legacy():\n    return 1\n" * 3 + "# moved\n",
        "src/gone.py": None, "src/added.py": "def fresh():\n    pass\n",
    }, "2021-01-01T00:00:00Z")
    util_fix = commit(repo, "util: helper accepts None", {"src/util.py": "def helper(value=None):\n    return value\n"},
                      "2022-01-01T00:00:00Z")
    tests_only = commit(repo, "more tests", {"tests/test_app.py": "def test_parse():\n    pass\n"},
                        "2023-01-01T00:00:00Z")
    git(repo, "commit", "-q", "--allow-empty", "-m", "empty commit: same tree")
    empty = git(repo, "rev-parse", "HEAD").strip()
    return SmallRepo(repo, base, fix, util_fix, tests_only, empty)
