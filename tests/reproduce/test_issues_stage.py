"""The issues stage on a Multi-SWE-bench set made here: a small Java repository, six fixes, its own mirror."""

from __future__ import annotations

import dataclasses
import json
import subprocess

import pandas as pd
import pytest
from instances.gitrepos import commit, git
from markdown_tables import has_cells, markdown_rows

from qlog_pyserini.reproduce import issues
from qlog_pyserini.reproduce.cache import Config

pytestmark = pytest.mark.jvm

NAMES = ("Alpha", "Bravo", "Charlie", "Delta", "Echo", "Foxtrot", "Golf", "Hotel")


def _java(name: str, extra: str = "") -> str:
    return (f"package demo;\n\n/** Reads the configuration value and returns it. */\npublic class {name}Reader {{\n"
            f"  public String read{name}Setting(String value) {{\n    return value;{extra}\n  }}\n}}\n")


def _multi_swe_bench_set(tmp_path):
    repo = tmp_path / "repos" / "demo__readers"
    repo.mkdir(parents=True)
    git(repo, "init", "-q", "-b", "main")
    files = {f"src/main/java/demo/{n}Reader.java": _java(n) for n in NAMES}
    files["src/test/java/demo/AlphaReaderTest.java"] = "class AlphaReaderTest { void readAlphaSetting() {} }\n"
    head = commit(repo, "readers", files, "2020-01-01T00:00:00Z")
    rows = []
    for i, name in enumerate(NAMES[:6]):
        path = f"src/main/java/demo/{name}Reader.java"
        fix = commit(repo, f"read{name}Setting trims the value", {path: _java(name, f" // trimmed {i}")}, f"2020-02-0{i + 1}T00:00:00Z")
        patch = git(repo, "diff", head, fix)
        rows.append({"org": "demo", "repo": "readers", "number": i + 1, "instance_id": f"demo__readers-{i + 1}",
                     "base": {"sha": head}, "fix_patch": patch,
                     "resolved_issues": [{"number": 100 + i, "title": f"read{name}Setting returns the value untrimmed",
                                          "body": "The configuration value is returned as it was read."}]})
        head = fix
    folder = tmp_path / "shared" / "issues" / "java"
    folder.mkdir(parents=True)
    (folder / "demo__readers_dataset.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))
    return repo


def test_issues_stage_prepares_indexes_sweeps_and_records_the_mirror_and_a_pinned_history(tmp_path, monkeypatch,
                                                                                          capsys):
    repo = _multi_swe_bench_set(tmp_path)
    head = subprocess.run(["git", "-C", str(repo), "rev-parse", "HEAD"], capture_output=True, text=True).stdout.strip()
    mirror_head = commit(repo, "after the pinned revision", {"src/main/java/demo/Later.java": "class Later {}\n"},
                         "2021-01-01T00:00:00Z")  # not read by the history, which is pinned
    missing = "0" * 40
    # the same repository's own history (its fixes' messages name their method), pinned at the last fix; a
    # revision the mirror lacks and a repository absent from --repos are passed over
    monkeypatch.setattr(issues, "HISTORY_REPOSITORIES", {"java": (("demo__readers", head), ("demo__readers", missing),
                                                                  ("demo__absent", head))})
    cfg = Config(quick=True, work=tmp_path / "work", out=tmp_path / "out", cache=tmp_path / "cache",
                 shared=tmp_path / "shared", languages=(), queries=1, max_docs=None, grid=[0.5, 1.0, 1.5],
                 forms=("lucene",), scaling=(), ablation=(), threads=1, resamples=200, go_target=0,
                 repos=tmp_path / "repos", command="scripts/reproduce --quick --stages issues")
    (tmp_path / "out").mkdir()
    assert issues.run(cfg, []) is None
    assert f"history of demo__readers skipped: --rev '{missing}' is not a commit" in capsys.readouterr().err
    md = (tmp_path / "out" / "issues.md").read_text()
    assert "java: 6 instances" in md
    assert ["demo/readers", mirror_head] in [[r[0], r[-1]] for r in markdown_rows(md)]  # the mirror's HEAD when read
    [summary, history, label_free] = json.loads((tmp_path / "out" / "issues.json").read_text())
    # one set of 6 instances is too small to move the files rule off BM25, held out or not; the history set,
    # in no fit, leaves the issue sets' rule as it was
    never = {"q": 1.0, "min_length": None}
    assert label_free["label_free"]["fitted_on_all"] == never
    assert label_free["label_free"]["held_out"] == {"repository": {"demo/readers": never}, "language": {"java": never}}
    assert "## Label-free q on issue -> files" in md and has_cells(md, "java", "6", "0", "1.0000", "1.0000", "1.0000")
    means = summary["tables"]["all"][0]["means"]
    # each issue names its reader's one method, a term of that file alone (the test file is not a document)
    assert means["bm25"]["recip_rank"] == 1.0 and means["qlog_cv"]["recip_rank"] == 1.0
    sweep = tmp_path / "work" / "issue-sweeps" / "java" / "summary.json"
    assert json.loads(sweep.read_text())["grids"]["q"] == [0.5, 1.0]  # q > 1 is left out
    # the history: six fixes, each message naming its file's method, swept with folds by instance
    assert "## Commit -> files: repositories' own histories" in md
    assert has_cells(md, f"demo/readers @ {head[:8]}", "6", "1.0000")
    assert history["name"] == "history-demo__readers" and history["cv"]["unit"] == "instance"
    assert list(label_free["label_free"]["sets"]) == ["java", "history-java"]
    # the label-free configuration beside the stronger baseline, under both analyzers, read back from each sweep's
    # per-instance table: the pooled mean is every instance's own value averaged again here
    localization = json.loads((tmp_path / "out" / "localization.json").read_text())
    assert [a["analyzer"] for a in localization["analyzers"]] == ["default", "identifier"]
    for record in localization["analyzers"]:
        kind = "issue-sweeps" + ("" if record["analyzer"] == "default" else "-identifier")
        frames = [pd.read_csv(tmp_path / "work" / kind / name / "per_query.csv", index_col=0)
                  for name in ("java", "history-demo__readers")]
        values = pd.concat([f["localize:auto:recip_rank"].dropna() for f in frames])
        assert record["pooled"]["instances"] == len(values) == 12
        assert record["pooled"]["recip_rank"]["localize:auto"] == pytest.approx(values.mean())
        assert [r["set"] for r in record["sets"]] == ["java", "history-demo__readers"]
        assert all(r["baseline"] in ("engine", "bm25_cv") for r in record["sets"])
    assert "### Analyzer: identifier" in (tmp_path / "out" / "localization.md").read_text()
    before = sweep.stat().st_mtime_ns
    history_sweep = tmp_path / "work" / "issue-sweeps" / "history-demo__readers" / "summary.json"
    history_before = history_sweep.stat().st_mtime_ns
    # without the shared sets the history alone makes the file, from its cached sweep
    issues.run(dataclasses.replace(cfg, shared=tmp_path / "no-shared"), [])
    md = (tmp_path / "out" / "issues.md").read_text()
    assert "Multi-SWE-bench instances" not in md and has_cells(md, f"demo/readers @ {head[:8]}", "6", "1.0000")
    issues.run(cfg, [])
    assert sweep.stat().st_mtime_ns == before and history_sweep.stat().st_mtime_ns == history_before  # reused
    # a change of the file rules (here the bytes read for a generated-file marker) prepares and sweeps both again
    from qlog_pyserini.instances import rules

    stamp = tmp_path / "work" / "issue-sets" / "java" / ".qlog-reproduce.json"
    old_rules = json.loads(stamp.read_text())["rules"]
    monkeypatch.setattr(rules, "GENERATED_PROBE", rules.GENERATED_PROBE // 2)
    issues.run(cfg, [])
    assert json.loads(stamp.read_text())["rules"] != old_rules
    assert sweep.stat().st_mtime_ns != before and history_sweep.stat().st_mtime_ns != history_before


def test_issues_stage_skips_without_sets_or_repositories(tmp_path):
    cfg = Config(quick=True, work=tmp_path / "work", out=tmp_path / "out", cache=tmp_path / "cache",
                 shared=tmp_path / "none", languages=(), queries=1, max_docs=None, grid=[1.0], forms=("lucene",),
                 scaling=(), ablation=(), threads=1, resamples=1, go_target=0, repos=tmp_path / "none")
    assert issues.run(cfg, []) is None and not (tmp_path / "out").exists()
