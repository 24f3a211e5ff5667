"""Matching an issue's mentions to a repository's files: suffixes, modules, names, frames and the fixed scale."""

from __future__ import annotations

import itertools
import json
import os
import random
import subprocess
import sys

import pytest
from conftest import ROOT
from instances.gitrepos import commit, git

from qlog_pyserini.errors import QLogError
from qlog_pyserini.localize.evidence import WEIGHTS, FileIndex, file_evidence, ranked
from qlog_pyserini.localize.issue_text import Mention, parse_issue

JAVA_REPO = [
    "core/src/main/java/com/alibaba/fastjson2/JSONReader.java",
    "core/src/main/java/com/alibaba/fastjson2/JSONReaderUTF8.java",
    "core/src/main/java/com/alibaba/fastjson2/util/TypeUtils.java",
    "core/src/test/java/com/alibaba/fastjson2/JSONReaderTest.java",
    "extension/src/main/java/com/alibaba/fastjson2/support/TypeUtils.java",
    "README.md",
]
PY_REPO = ["astropy/io/fits/__init__.py", "astropy/io/fits/connect.py", "astropy/io/fits/convenience.py",
           "astropy/table/table.py", "astropy/utils/misc.py", "docs/conf.py"]
JS_REPO = ["lib/core/Axios.js", "lib/adapters/http.js", "lib/utils.js", "lib/helpers/utils.js", "index.js",
           "packages/core/src/render/text-layout.ts",
           "packages/core/src/render/layout.ts", "packages/core/src/index.ts", "src/x.py"]

W = {name: weight.value for name, weight in WEIGHTS.items()}


def _evidence(text, paths, symbols=None):
    return file_evidence(parse_issue(text), paths, symbols)


def test_the_longest_suffix_wins():
    ev = _evidence("Crash in /home/u/checkout/astropy/io/fits/connect.py:10", PY_REPO + ["tests/connect.py"])
    assert ev == {"astropy/io/fits/connect.py": W["path"]}


def test_an_ambiguous_basename_splits_its_weight():
    ev = _evidence("The bug is in utils.js", JS_REPO)
    assert ev == {"lib/utils.js": W["basename"] / 2, "lib/helpers/utils.js": W["basename"] / 2}


def test_a_path_whose_directories_are_not_the_repositorys_is_basename_evidence():
    ev = _evidence("see old/place/http.js", JS_REPO)
    assert ev == {"lib/adapters/http.js": W["basename"]}


def test_module_names_find_their_source_root_by_suffix():
    ev = _evidence("`com.alibaba.fastjson2.JSONReader` misreads", JAVA_REPO)
    # the module names the file; its last name is an identifier equal to the same file's stem
    assert ev == {"core/src/main/java/com/alibaba/fastjson2/JSONReader.java": W["module"] + W["stem"]}
    assert _evidence("import of astropy.io.fits fails", PY_REPO) == {"astropy/io/fits/__init__.py": W["module"]}
    # a monorepo's packages/*/src root is found the same way, by suffix
    assert _evidence("`render.layout` wraps badly", JS_REPO) == {"packages/core/src/render/layout.ts": W["module"]}
    assert _evidence("`paint.layout` wraps badly", JS_REPO) == {}


def test_a_module_longer_than_any_file_matches_by_its_longest_prefix():
    ev = _evidence("calling `astropy.io.fits.connect.read_table_fits` fails", PY_REPO)
    assert ev["astropy/io/fits/connect.py"] == W["module"]


def test_a_name_a_package_exports_matches_the_package_files_that_hold_it():
    repo = ["astropy/io/fits/__init__.py", "astropy/io/fits/card.py", "astropy/io/fits/hdu/__init__.py",
            "astropy/io/fits/hdu/base.py", "astropy/table/table.py", "sklearn/linear_model/__init__.py",
            "sklearn/linear_model/_logistic.py", "sklearn/linear_model/_ridge.py", "sklearn/svm/_classes.py"]
    symbols = {"sklearn/linear_model/_logistic.py": {"LogisticRegression", "LogisticRegressionCV"},
               "sklearn/linear_model/_ridge.py": {"Ridge"}, "sklearn/svm/_classes.py": {"LogisticRegression"},
               "astropy/io/fits/hdu/base.py": {"ExtensionHDU", "setval"}, "astropy/io/fits/__init__.py": {"setval"}}
    # named after the member (the stem), or defining it (the symbol table, only under the package's own folder)
    assert _evidence("`astropy.io.fits.Card` rounds floats", repo) == {"astropy/io/fits/card.py": W["module"]}
    ev = _evidence("`sklearn.linear_model.LogisticRegressionCV` ignores refit", repo, symbols)
    # the package file keeps what its folder's name, `linear_model`, says as an identifier: no more
    assert ev == {"sklearn/linear_model/_logistic.py": W["module"] + W["defines"],
                  "sklearn/linear_model/__init__.py": W["stem"]}
    ev = _evidence("`sklearn.linear_model.LogisticRegression` warns", repo, symbols)
    assert ev["sklearn/linear_model/_logistic.py"] == W["module"] + W["defines"] / 2
    assert ev["sklearn/linear_model/__init__.py"] == W["stem"] and ev["sklearn/svm/_classes.py"] == W["defines"] / 2
    # a member of a subpackage, and one the package file defines itself beside another of its files
    assert _evidence("`astropy.io.fits.ExtensionHDU` breaks", repo, symbols)["astropy/io/fits/hdu/base.py"] == \
        W["module"] + W["defines"]
    assert _evidence("`astropy.io.fits.setval` is read late", repo, symbols) == \
        {"astropy/io/fits/__init__.py": W["module"] / 2, "astropy/io/fits/hdu/base.py": W["module"] / 2}
    # a member no file of the package holds leaves the package's own file; the package alone names it
    assert _evidence("`astropy.io.fits.nothing_here` fails", repo) == {"astropy/io/fits/__init__.py": W["module"]}
    assert _evidence("import of astropy.io.fits fails", repo) == {"astropy/io/fits/__init__.py": W["module"]}


def test_a_dotted_module_that_ends_like_a_file_extension_is_read_as_the_module():
    repo = ["django/conf/__init__.py", "django/db/models/sql/__init__.py", "django/db/models/sql/query.py",
            "sphinx/builders/html/__init__.py", "docs/settings.conf"]
    ev = _evidence("from django.conf import settings fails, and so does django.db.models.sql", repo)
    assert ev == {"django/conf/__init__.py": W["module"], "django/db/models/sql/__init__.py": W["module"]}
    assert _evidence("`sphinx.builders.html` drops the footer", repo) == {"sphinx/builders/html/__init__.py": W["module"]}
    # a real file of that name is still the file; a name that is neither stays unmatched
    assert _evidence("settings.conf is ignored", repo) == {"docs/settings.conf": W["basename"]}
    assert _evidence("nginx.conf is ignored", repo) == {}


def test_identifiers_match_stems_case_blind_and_definers_from_the_symbol_table():
    symbols = {"lib/core/Axios.js": {"request", "getUri"}, "lib/helpers/utils.js": {"getUri"}}
    ev = _evidence("`getUri` breaks, see `Axios`", JS_REPO, symbols)
    assert ev == {"lib/core/Axios.js": W["stem"] + W["defines"] / 2, "lib/helpers/utils.js": W["defines"] / 2}
    assert _evidence("`text_layout` too", JS_REPO) == {"packages/core/src/render/text-layout.ts": W["stem"]}


def test_frames_decay_along_the_repository_frames_of_a_trace():
    trace = ("Traceback (most recent call last):\n"
             '  File "/venv/lib/python3.11/site-packages/astropy/table/table.py", line 3, in write\n'
             '  File "/home/ana/astropy/astropy/io/fits/connect.py", line 4, in write_table_fits\n'
             '  File "/usr/lib/python3.11/json/decoder.py", line 5, in decode\n'
             '  File "/home/ana/astropy/astropy/io/fits/convenience.py", line 6, in table_to_hdu\n')
    ev = _evidence(trace, PY_REPO)
    # depth 0 is the last frame; the library's decoder.py matches nothing (a lone file name is not enough)
    assert ev == {"astropy/io/fits/convenience.py": W["frame"], "astropy/io/fits/connect.py": W["frame"] / 2,
                  "astropy/table/table.py": W["frame"] / 3}


def test_library_frames_of_an_installed_copy_match_and_lone_names_do_not():
    text = ("TypeError\n    at dispatchHttpRequest (/app/node_modules/axios/lib/adapters/http.js:231:19)\n"
            "    at run (/app/node_modules/lodash/index.js:1:1)\n")
    assert _evidence(text, JS_REPO) == {"lib/adapters/http.js": W["frame"]}


def test_urls_map_when_they_address_a_repository_file():
    assert _evidence("https://github.com/o/r/blob/abc1234/src/x.py#L10", JS_REPO) == {"src/x.py": W["path"]}
    assert _evidence("https://example.com/src/x.py", JS_REPO) == {}


def test_windows_paths():
    ev = _evidence(r"Error in C:\work\repo\lib\core\Axios.js", JS_REPO)
    assert ev == {"lib/core/Axios.js": W["path"]}


def test_a_package_file_answers_to_its_directory_and_a_built_copy_to_its_source():
    repo = ["src/plugin/objectSupport/index.js", "src/plugin/utc/index.js", "src/index.js", "pkg/__init__.py"]
    assert _evidence("`objectSupport` breaks", repo) == {"src/plugin/objectSupport/index.js": W["stem"]}
    assert _evidence("dayjs/plugin/utc.js throws", repo) == {"src/plugin/utc/index.js": W["module"]}
    assert _evidence("see `pkg`", repo) == {"pkg/__init__.py": W["stem"]}


def test_a_capitalised_head_of_a_qualified_name_is_a_type():
    repo = ["src/main/java/com/acme/JSON.java", "src/main/java/com/acme/Util.java"]
    assert _evidence("JSON.parseObject(text) fails", repo) == {"src/main/java/com/acme/JSON.java": W["stem"]}
    assert _evidence("json.parseObject(text) fails", repo) == {}  # a lower-case head is a variable or a package


def test_a_path_a_trace_named_is_not_counted_again():
    text = ("==1==ERROR: AddressSanitizer: heap-use-after-free\n"
            "    #0 0x4c in jv_free /work/jq/src/jv.c:120:3\n\n"
            "SUMMARY: AddressSanitizer: heap-use-after-free /work/jq/src/jv.c:120:3 in jv_free\n")
    assert _evidence(text, ["src/jv.c", "src/main.c"]) == {"src/jv.c": W["frame"]}


def test_distinct_mentions_add_up_and_repeats_do_not():
    once = _evidence("lib/core/Axios.js", JS_REPO)
    twice = _evidence("lib/core/Axios.js and again `lib/core/Axios.js`", JS_REPO)
    both = _evidence("lib/core/Axios.js and Axios.js", JS_REPO)
    assert once == twice == {"lib/core/Axios.js": W["path"]}
    assert both == {"lib/core/Axios.js": W["path"] + W["basename"]}


def test_nothing_named_is_no_evidence():
    assert _evidence("", JS_REPO) == {}
    assert _evidence("It crashes when I click the button.", JS_REPO) == {}
    assert _evidence("lib/core/Axios.js", []) == {}


def test_a_built_index_gives_the_same_evidence():
    text = "`getUri` in lib/core/Axios.js and utils.js"
    symbols = {"lib/core/Axios.js": {"getUri"}}
    assert file_evidence(parse_issue(text), FileIndex(JS_REPO, symbols)) == _evidence(text, JS_REPO, symbols)
    with pytest.raises(QLogError, match="symbols"):
        file_evidence(parse_issue(text), FileIndex(JS_REPO), symbols)


def test_ranked_orders_by_score_then_path():
    assert ranked({"b": 1.0, "a": 1.0, "c": 2.0}) == [("c", 2.0), ("a", 1.0), ("b", 1.0)]


def _brute_suffix(parts, paths):
    """The reference: try every suffix length from the longest, keep the files equal to or ending in it."""
    for k in range(len(parts), 0, -1):
        suffix = "/".join(parts[-k:])
        found = [p for p in paths if p == suffix or p.endswith("/" + suffix)]
        if found:
            return sorted(found), k
    return [], 0


def test_suffix_matching_equals_a_brute_force_search():
    rng = random.Random(7)
    names = ["src", "lib", "core", "util", "a", "b"]
    files = ["x.py", "y.py", "index.js"]
    paths = sorted({"/".join([*rng.choices(names, k=rng.randint(0, 3)), rng.choice(files)]) for _ in range(60)})
    index = FileIndex(paths)
    for depth in range(1, 5):
        for dirs in itertools.product(names + ["home"], repeat=depth - 1):
            for name in files + ["z.py"]:
                parts = (*dirs, name)
                found, k = index.path_matches(parts)
                assert (sorted(found), k) == _brute_suffix(parts, paths)


def test_a_frame_mention_needs_two_components_when_it_has_them():
    frame = Mention("path", "node_modules/other/index.js", "frame", 1, 0, 0)
    lone = Mention("basename", "index.js", "frame", 1, 1, 0)
    from qlog_pyserini.localize.issue_text import IssueMentions
    assert file_evidence(IssueMentions((frame,), (), (), ()), JS_REPO) == {}
    assert file_evidence(IssueMentions((), (lone,), (), ()), JS_REPO) == {"index.js": W["frame"]}


def _script(*args: str, cwd) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, str(ROOT / "scripts" / "issue_evidence.py"), *args], cwd=cwd,
                          capture_output=True, text=True, timeout=120, env={**os.environ, "PYTHONPATH": str(ROOT)})


def test_the_measurement_script_reads_records_and_mirrors(tmp_path):
    repo = tmp_path / "repos" / "acme__tool"
    repo.mkdir(parents=True)
    git(repo, "init", "-q")
    base = commit(repo, "base", {"src/reader.py": "def read():\n    pass\n", "src/writer.py": "def write():\n    pass\n",
                                 "tests/test_reader.py": "def test_read():\n    pass\n"}, "2024-01-01T00:00:00")
    commit(repo, "fix", {"src/reader.py": "def read():\n    return 1\n"}, "2024-01-02T00:00:00")
    patch = git(repo, "diff", base, "HEAD")
    records = [{"org": "acme", "repo": "tool", "number": n, "base": {"sha": base}, "fix_patch": patch,
                "resolved_issues": [{"title": title, "body": body}]}
               for n, title, body in [(1, "read fails", "Traceback (most recent call last):\n"
                                                        '  File "/home/u/tool/src/reader.py", line 2, in read\n'),
                                      (2, "it is slow", "Everything is slow since the upgrade.")]]
    (tmp_path / "set.jsonl").write_text("".join(json.dumps(r) + "\n" for r in records))
    out = _script("--repos", "repos", "set.jsonl", "--language", "python", cwd=tmp_path)
    assert out.returncode == 0, out.stderr
    pooled = out.stdout.strip().splitlines()[-1].split()
    # two instances, one with evidence, and its top file is the modified one
    assert pooled[:5] == ["pooled", "2", "0.500", "0.500", "1.000"]
    # the same instances in SWE-bench's format measure the same
    (tmp_path / "swe.jsonl").write_text("".join(
        json.dumps({"instance_id": f"acme__tool-{r['number']}", "repo": "acme/tool", "base_commit": base,
                    "patch": patch, "problem_statement": r["resolved_issues"][0]["title"] + "\n"
                    + r["resolved_issues"][0]["body"]}) + "\n" for r in records))
    swe = _script("--repos", "repos", "swe.jsonl", "--language", "python", "--format", "swebench", cwd=tmp_path)
    assert swe.returncode == 0, swe.stderr
    assert swe.stdout.strip().splitlines()[-1].split()[:5] == pooled[:5]
    missing = _script("--repos", "nowhere", "set.jsonl", cwd=tmp_path)
    assert missing.returncode == 2 and missing.stderr.startswith("error: --repos 'nowhere' holds no mirror")
