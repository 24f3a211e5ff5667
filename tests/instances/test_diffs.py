"""Unified diffs: the files a fix touches and how, checked against git's own reading of the same diffs."""

from __future__ import annotations

from pathlib import Path

from instances.gitrepos import commit, git

from qlog_pyserini.instances.diffs import FileChange, modified_files, parse_diff, unquote

_GIT_KINDS = {"M": "modified", "A": "added", "D": "deleted", "R": "renamed", "C": "copied"}


def _git_changes(repo: Path, a: str, b: str) -> set[tuple[str | None, str | None, str]]:
    """What ``git diff --name-status -z -M`` says changed between ``a`` and ``b`` (the independent reference)."""
    tokens = git(repo, "diff", "--name-status", "-z", "-M", a, b).split("\0")
    found, i = set(), 0
    while i < len(tokens) - 1:
        status = tokens[i]
        kind = _GIT_KINDS[status[0]]
        if status[0] in "RC":
            found.add((tokens[i + 1], tokens[i + 2], kind))
            i += 3
            continue
        path = tokens[i + 1]
        found.add((None if kind == "added" else path, None if kind == "deleted" else path, kind))
        i += 2
    return found


def test_tricky_names_and_kinds_read_as_git_reads_them(tmp_path):
    repo = tmp_path / "r"
    repo.mkdir()
    git(repo, "init", "-q")
    odd = {"plain.py": "a\n", "with space.py": "b\n", "tab\there.py": "c\n", "café/naïve.py": "d\n",
           'quote"d.py': "e\n", "renamed.py": "line\n" * 20, "gone.py": "x\n", "bin.dat": b"\0\1\2"}
    a = commit(repo, "a", odd, "2020-01-01T00:00:00Z")
    b = commit(repo, "b", {
        # a removed line that reads like a header, and one that reads like a new file's header
        "plain.py": "a\n--- a/evil.py\n+++ b/evil.py\n",
        "with space.py": "b2\n", "tab\there.py": "c2\n", "café/naïve.py": "d2\n", 'quote"d.py': "e2\n",
        "renamed.py": None, "moved/renamed.py": "line\n" * 19 + "changed\n",
        "gone.py": None, "new.py": "n\n", "bin.dat": b"\0\1\3"}, "2020-01-02T00:00:00Z")
    text = git(repo, "diff", "-M", a, b)  # git quotes the tab, the quote and the non-ASCII names
    assert '"a/tab\\there.py"' in text and "caf\\303\\251" in text
    changes = parse_diff(text)
    assert {(c.old_path, c.new_path, c.kind) for c in changes} == _git_changes(repo, a, b)
    assert set(modified_files(changes)) == {"plain.py", "with space.py", "tab\there.py", "café/naïve.py",
                                            'quote"d.py', "bin.dat"}
    # the lines added inside plain.py's hunk are content, not a file
    assert "evil.py" not in {c.path for c in changes}


def test_a_removed_line_that_reads_like_a_header_is_content():
    # the hunk holds 3 old lines: ' keep', '--- a/y.py' (a removed '-- a/y.py'), '-+++ b/y.py'
    text = ("diff --git a/x.py b/x.py\nindex 1..2 100644\n--- a/x.py\n+++ b/x.py\n@@ -1,3 +1,2 @@\n keep\n"
            "--- a/y.py\n-+++ b/y.py\n+new\n+more\n")
    assert parse_diff(text) == [FileChange("x.py", "x.py", "modified")]


def test_plain_diff_u_and_dev_null():
    text = ("--- src/a.c\t2020-01-01 00:00:00\n+++ src/a.c\t2020-01-02 00:00:00\n@@ -1 +1 @@\n-a\n+b\n"
            "--- /dev/null\n+++ b/src/new.c\n@@ -0,0 +1 @@\n+x\n"
            "--- a/src/old.c\n+++ /dev/null\n@@ -1 +0,0 @@\n-x\n")
    assert parse_diff(text) == [FileChange("src/a.c", "src/a.c", "modified"), FileChange(None, "src/new.c", "added"),
                                FileChange("src/old.c", None, "deleted")]


def test_pure_rename_and_mode_change_have_no_hunks():
    text = ("diff --git a/old name.py b/new name.py\nsimilarity index 100%\nrename from old name.py\n"
            "rename to new name.py\ndiff --git a/run.sh b/run.sh\nold mode 100644\nnew mode 100755\n")
    assert parse_diff(text) == [FileChange("old name.py", "new name.py", "renamed"),
                                FileChange("run.sh", "run.sh", "mode-only")]
    assert modified_files(parse_diff(text)) == []


def test_unquote_reads_git_c_style_escapes():
    assert unquote('"a\\tb\\303\\251\\"\\\\"') == 'a\tbé"\\'
    assert unquote("plain name") == "plain name"
