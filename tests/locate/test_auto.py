"""``locate`` ranks with the issue -> files label-free configuration: its indexes carry the path field and the
files' units (updated in place), its ranking is what ``index --instances`` and localize's own code give on the
same files, and the issue's mentions move a file its traceback names to the top."""

from __future__ import annotations

import ast
import json
import shutil
from dataclasses import replace
from pathlib import Path

import pytest
from conftest import run_verb
from instances.gitrepos import commit, git, new_repo

from qlog_pyserini.formats.instances import read_instance_set
from qlog_pyserini.localize.paths import PATH_FIELD
from qlog_pyserini.localize.ranking import Localization
from qlog_pyserini.localize.run import AUTO, corpus_symbols, localize_corpus
from qlog_pyserini.localize.units import unit_documents
from qlog_pyserini.locate import AUTO_MODEL, LocateModel, Locator
from qlog_pyserini.lucene.fields import index_fields
from qlog_pyserini.lucene.searcher import QLogSearcher
from qlog_pyserini.sweep.results import read as read_result

pytestmark = pytest.mark.jvm

FILES = {
    "src/config.py": "def parse_config(path):\n    text = open(path).read()\n    return text\n\n\n"
                     "def write_config(path, text):\n    open(path, 'w').write(text)\n",
    "src/network.py": "import socket\n\n\nclass WebsocketUpgrade:\n    def upgrade(self, request):\n"
                      "        return request.headers['upgrade']\n\n\ndef proxy_headers(request):\n"
                      "    return request.headers['proxy']\n",
    "src/render.py": "def render_template(name):\n    return name.title()\n\n\ndef render_page(request):\n"
                     "    return render_template(request.path)\n",
    "src/storage.py": "class Storage:\n    def flush_pages(self, count):\n        return count\n",
}


def live_ids(index: Path) -> list[str]:
    """The ids of the live documents of ``index``, read with Lucene."""
    with QLogSearcher(index) as s:
        reader = s.java.reader
        live = {d for d in range(reader.maxDoc())}
        from qlog_pyserini.jvm.bridge import jclass

        bits = jclass("org.apache.lucene.index.MultiBits").getLiveDocs(reader)
        if bits is not None:
            live = {d for d in live if bits.get(d)}
        stored = reader.storedFields()
        return sorted(str(stored.document(d).get("id")) for d in live)


def test_the_path_field_and_the_units_are_indexed_and_updated_in_place(tmp_path: Path) -> None:
    repo = new_repo(tmp_path / "repo", FILES)
    with Locator(repo, cache=tmp_path / "cache") as loc:
        loc.update()
        folder = loc.cache
        units = sorted(d for p, t in FILES.items() for d, _ in unit_documents(p, t))
        assert live_ids(folder.units_dir) == units
        for index in (folder.index_dir, folder.units_dir):
            with QLogSearcher(index) as s:
                assert PATH_FIELD in index_fields(s)
        # the path field alone finds a file by a word of its name only
        with QLogSearcher(folder.index_dir) as s:
            from qlog_pyserini.lucene.fields import batch_search_fields

            hits = batch_search_fields(s, ["storage"], ["q"], {PATH_FIELD: 1.0}, k=5)["q"]
            assert [h.docid for h in hits] == ["src/storage.py"]

        # a function added at the top moves every line of the file: its old units must all go
        new = "def zebra_stripes():\n    return 'zebra'\n\n\n" + FILES["src/render.py"]
        (repo / "src/render.py").write_text(new)
        (repo / "src/config.py").unlink()
        report = loc.update()
        assert (report.updated, report.removed) == (1, 1)
        now = {**FILES, "src/render.py": new}
        del now["src/config.py"]
        expected = sorted(d for p, t in now.items() for d, _ in unit_documents(p, t))
        assert live_ids(folder.units_dir) == expected
        assert not any(i.startswith("src/config.py#") for i in live_ids(folder.units_dir))
        assert live_ids(folder.index_dir) == sorted(now)
        located = loc.locate("zebra stripes")
        assert located.files[0].path == "src/render.py"
        unit = located.files[0].unit
        assert unit is not None and (unit.name, unit.start, unit.end) == ("zebra_stripes", 1, 2)


def test_an_updated_index_has_the_b_of_a_fresh_build_of_the_same_files(tmp_path: Path) -> None:
    # thirty modules, each repeating its words a different number of times; one changes, so its old documents stay
    # in the index as deletions (too few for the merge policy to rewrite the segment)
    files = {f"src/m{i:02d}.py": "".join(f"def f{i}_{j}(x):\n    return x\n" * (1 + (i + j) % 3) for j in range(3))
             for i in range(30)}
    repo = new_repo(tmp_path / "repo", files)
    with Locator(repo, cache=tmp_path / "cache") as loc:
        loc.update()
        (repo / "src/m07.py").write_text("def seven(x):\n    return x * 7\n")
        assert loc.update().updated == 1
        for index in (loc.cache.index_dir, loc.cache.units_dir):
            with QLogSearcher(index) as s:
                assert s.java.reader.numDeletedDocs() > 0
        updated = loc.locate("seven").model
    with Locator(repo, cache=tmp_path / "fresh") as fresh:
        built = fresh.locate("seven").model
    for index in ("files_index", "units_index"):
        assert updated[index]["b"] == built[index]["b"]


def test_the_model_names_the_configuration(tmp_path: Path) -> None:
    repo = new_repo(tmp_path / "repo", FILES)
    with Locator(repo, cache=tmp_path / "cache") as loc:
        model = loc.locate("websocket upgrade").model
    assert (model["name"], model["units"], model["path_weight"], model["evidence"], model["k1"]) == \
        ("auto", "fuse", 1.0, True, 0.9)
    for index in ("files_index", "units_index"):
        assert 0 <= model[index]["b"] < 1 and model[index]["b_source"].startswith("label-free")
        assert model[index]["q_source"].startswith("corpus rule")
        assert model[index]["q"] == 1.0  # a repository this small keeps BM25 under the corpus rule's shrinkage


def test_a_file_a_traceback_names_ranks_first(tmp_path: Path) -> None:
    repo = new_repo(tmp_path / "repo", FILES)
    issue = ("websocket upgrade request fails behind a proxy: the headers come back empty\n\n```\n"
             "Traceback (most recent call last):\n  File \"/home/me/app/src/render.py\", line 6, in render_page\n"
             "KeyError: 'proxy'\n```\n")
    with Locator(repo, cache=tmp_path / "cache") as loc:
        ranked = [p for p, _ in loc.rank(issue, hits=4)]
    # without the evidence, the issue's words point at the network module
    how, model = AUTO
    without = LocateModel(Localization(how.units, how.path_weight, evidence=False), model, name="no-evidence")
    with Locator(repo, cache=tmp_path / "cache", model=without) as loc:
        plain = [p for p, _ in loc.rank(issue, hits=4)]
    assert plain[0] == "src/network.py"
    assert ranked[0] == "src/render.py"


@pytest.fixture(scope="module")
def small_set(tmp_path_factory) -> tuple[Path, Path, str]:
    """A repository, a one-instance set prepared from it and its indexes (``index --instances``)."""
    work = tmp_path_factory.mktemp("auto-set")
    repo = work / "repos" / "me__small"
    repo.mkdir(parents=True)
    git(repo, "init", "-q")
    base = commit(repo, "import", FILES, "2020-01-01T00:00:00Z")
    fix = commit(repo, "fix", {"src/network.py": FILES["src/network.py"] + "\n# fixed\n"}, "2020-02-01T00:00:00Z")
    issue = ("websocket upgrade behind a proxy loses headers; see src/network.py and `proxy_headers`\n"
             "render pages too")
    row = {"instance_id": "me__small-1", "repo": "me/small", "base_commit": base, "problem_statement": issue,
           "patch": git(repo, "diff", base, fix)}
    second = commit(repo, "title", {"src/render.py": FILES["src/render.py"] + "\n# titled\n"}, "2020-03-01T00:00:00Z")
    row2 = {"instance_id": "me__small-2", "repo": "me/small", "base_commit": base,
            "problem_statement": "the page title is not capitalised by `render_template`",
            "patch": git(repo, "diff", fix, second)}
    (work / "records.jsonl").write_text(json.dumps(row) + "\n" + json.dumps(row2) + "\n")
    result = run_verb("prepare", "--format", "swebench", "--input", work / "records.jsonl", "--repos",
                      work / "repos", "--language", "python", "--output", work / "set", "--quiet")
    assert result.returncode == 0, result.stderr
    result = run_verb("index", "--instances", work / "set", "--index", work / "indexes", "--quiet")
    assert result.returncode == 0, result.stderr
    return work / "set", work / "indexes", base


def test_the_ranking_is_localize_auto_on_an_index_instances_index(small_set, tmp_path: Path) -> None:
    set_folder, indexes, base = small_set
    instance_set = read_instance_set(set_folder)
    (key, members), = instance_set.by_corpus().items()
    runs, used = localize_corpus(instance_set, members, indexes / key, *AUTO, hits=10)
    expected = runs[members[0].instance_id]
    repo = set_folder.parent / "repos" / "me__small"
    with Locator(repo, rev=base, language="python", cache=tmp_path / "cache") as loc:
        located = loc.locate(instance_set.topics[members[0].instance_id], hits=10)
    assert [f.path for f in located.files] == [h.docid for h in expected]
    assert [f.score for f in located.files] == pytest.approx([round(h.score, 4) for h in expected], abs=1e-4)
    settings = located.model
    assert settings["files_index"]["b"] == pytest.approx(used["b"], abs=1e-9)
    assert settings["units_index"]["b"] == pytest.approx(used["unit_b"], abs=1e-9)
    assert (settings["files_index"]["q"], settings["units_index"]["q"]) == (used["q"], used["unit_q"])
    assert AUTO_MODEL.how == AUTO[0] and AUTO_MODEL.model == AUTO[1]


def test_the_evidence_reads_the_names_each_corpus_file_defines(small_set) -> None:
    set_folder, _, _ = small_set
    instance_set = read_instance_set(set_folder)
    (key, members), = instance_set.by_corpus().items()
    reference = {path: {n.name for n in ast.walk(ast.parse(text))
                        if isinstance(n, (ast.FunctionDef, ast.ClassDef))} for path, text in FILES.items()}
    assert corpus_symbols(instance_set, key, members[0].language) == reference


def test_without_its_corpus_file_the_names_are_read_from_the_index(small_set, tmp_path: Path) -> None:
    set_folder, indexes, _ = small_set
    copy = tmp_path / "set"
    shutil.copytree(set_folder, copy)
    instance_set = read_instance_set(copy)
    (key, members), = instance_set.by_corpus().items()
    expected = corpus_symbols(instance_set, key, members[0].language)
    (copy / "corpora" / f"{key}.jsonl").unlink()
    with QLogSearcher(indexes / key) as index:
        assert corpus_symbols(instance_set, key, members[0].language, index) == expected


def test_the_names_each_file_defines_are_kept_in_the_cache_by_content(tmp_path: Path) -> None:
    repo = new_repo(tmp_path / "repo", FILES)
    issue = "`zebra_magic` returns the wrong pages"
    with Locator(repo, cache=tmp_path / "cache") as loc:
        assert [p for p, _ in loc.rank(issue, hits=4)][0] == "src/render.py"
        saved = loc.cache.folder / "symbols.json"
        table = json.loads(saved.read_text(encoding="utf-8"))
    assert table["src/storage.py"][1] == ["Storage", "flush_pages"]
    # a new process takes a file's names from the cache while its content is unchanged: here, a name planted
    # in the saved table is what sends the issue to the file
    table["src/storage.py"][1].append("zebra_magic")
    saved.write_text(json.dumps(table), encoding="utf-8")
    with Locator(repo, cache=tmp_path / "cache") as loc:
        assert [p for p, _ in loc.rank(issue, hits=4)][0] == "src/storage.py"
    # once the file changes, its names are read again from the index
    (repo / "src/storage.py").write_text(FILES["src/storage.py"] + "\n\ndef flush_all():\n    return 0\n")
    with Locator(repo, cache=tmp_path / "cache") as loc:
        assert [p for p, _ in loc.rank(issue, hits=4)][0] == "src/render.py"
    assert json.loads(saved.read_text(encoding="utf-8"))["src/storage.py"][1] == ["Storage", "flush_all", "flush_pages"]


def test_a_sweep_of_an_index_instances_set_reports_the_label_free_configuration(small_set, tmp_path: Path) -> None:
    set_folder, indexes, _ = small_set
    instance_set = read_instance_set(set_folder)
    (key, members), = instance_set.by_corpus().items()
    assert len(members) == 2
    runs, _ = localize_corpus(instance_set, members, indexes / key, *AUTO, hits=1000)
    reciprocal = []
    for member in members:
        gold = set(instance_set.qrels[member.instance_id])
        reciprocal.append(1 / next(r for r, hit in enumerate(runs[member.instance_id], 1) if hit.docid in gold))
    for extra, reported in (((), True), (("--no-auto",), False)):
        out = tmp_path / f"sweep{len(extra)}"
        result = run_verb("sweep", "--instances", set_folder, "--index", indexes, "--out", out, "--quiet",
                          "--cv-by", "instance", "--folds", "2", *extra)
        assert result.returncode == 0, result.stderr
        summary = read_result(out)
        assert ("auto" in summary["systems"]) is reported
        if reported:
            assert summary["tables"]["all"][0]["means"]["auto"]["recip_rank"] == pytest.approx(sum(reciprocal) / 2)


def test_history_reads_the_checked_out_commits_recent_files_as_prepare_does(tmp_path: Path) -> None:
    work = tmp_path / "work"
    repo = work / "repos" / "me__busy"
    repo.mkdir(parents=True)
    git(repo, "init", "-q")
    commit(repo, "import", FILES, "2020-01-01T00:00:00Z")
    for i in range(3):  # the storage module is where the work has been
        commit(repo, f"storage {i}", {"src/storage.py": FILES["src/storage.py"] + f"\n# {i}\n"},
               f"2020-02-0{i + 1}T00:00:00Z")
    base = git(repo, "rev-parse", "HEAD").strip()
    fix = commit(repo, "fix", {"src/render.py": FILES["src/render.py"] + "\n# fixed\n"}, "2020-03-01T00:00:00Z")
    issue = "the page title is not capitalised when pages are flushed"
    row = {"instance_id": "me__busy-1", "repo": "me/busy", "base_commit": base, "problem_statement": issue,
           "patch": git(repo, "diff", base, fix)}
    (work / "records.jsonl").write_text(json.dumps(row) + "\n")
    assert run_verb("prepare", "--format", "swebench", "--input", work / "records.jsonl", "--repos", work / "repos",
                    "--language", "python", "--output", work / "set", "--quiet").returncode == 0
    assert run_verb("index", "--instances", work / "set", "--index", work / "indexes", "--quiet").returncode == 0
    instance_set = read_instance_set(work / "set")
    (key, members), = instance_set.by_corpus().items()
    assert members[0].activity == {"src/config.py": 1, "src/network.py": 1, "src/render.py": 1, "src/storage.py": 4}
    how, model = AUTO
    history = LocateModel(replace(how, history=True), model, name="auto+history")
    runs, _ = localize_corpus(instance_set, members, work / "indexes" / key, history.how, model, hits=10)
    with Locator(repo, rev=base, language="python", cache=tmp_path / "cache", model=history) as loc:
        located = loc.locate(issue, hits=10)
    assert [f.path for f in located.files] == [h.docid for h in runs[members[0].instance_id]]
    assert located.model["history"] and located.model["history_commits"] == 200
    with Locator(repo, rev=base, language="python", cache=tmp_path / "plain") as loc:
        plain = [p for p, _ in loc.rank(issue, hits=4)]
    # no word of the issue is in the storage module: only its recent commits bring it in
    assert "src/storage.py" not in plain and "src/storage.py" in [f.path for f in located.files]
    # on a work tree the history is the checked-out commit's, read again when the commit moves
    with Locator(repo, language="python", cache=tmp_path / "tree", model=history) as loc:
        before = loc.rank(issue, hits=4)
        for i in range(6):
            commit(repo, f"render {i}", {"src/render.py": FILES["src/render.py"] + f"\n# r{i}\n"},
                   f"2020-04-0{i + 1}T00:00:00Z")
        after = loc.rank(issue, hits=4)
    assert before != after and after[0][0] == "src/render.py"
