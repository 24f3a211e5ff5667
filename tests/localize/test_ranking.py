"""File rankings from unit hits and reciprocal-rank fusion, checked by hand-computed values."""

from __future__ import annotations

import pytest

from qlog_pyserini.errors import QLogError
from qlog_pyserini.formats.trec import Hit
from qlog_pyserini.localize.lengths import verboseness_b
from qlog_pyserini.localize.ranking import (
    RRF_K,
    Localization,
    combine,
    evidence_vote,
    files_from_units,
    reciprocal_rank_fusion,
    weight_ranking,
)

UNITS = [Hit("a.py#1-9", 5.0), Hit("b.py#3-4", 4.0), Hit("b.py#8-9", 3.5), Hit("a.py#10-20", 1.0),
         Hit("c.py#1-2", 4.2)]


def test_files_from_units_best_and_two_best():
    assert files_from_units(UNITS, "max") == [Hit("a.py", 5.0), Hit("c.py", 4.2), Hit("b.py", 4.0)]
    assert files_from_units(UNITS, "sum2") == [Hit("b.py", 7.5), Hit("a.py", 6.0), Hit("c.py", 4.2)]


def _ranking(*ids: str) -> list[Hit]:
    return [Hit(d, float(len(ids) - i)) for i, d in enumerate(ids)]


def test_reciprocal_rank_fusion_sums_over_rankings_and_breaks_ties_by_id():
    fused = reciprocal_rank_fusion([_ranking("x", "y"), _ranking("y", "z")])
    assert [h.docid for h in fused] == ["y", "x", "z"]
    assert fused[0].score == pytest.approx(1 / (RRF_K + 2) + 1 / (RRF_K + 1))
    assert [h.docid for h in reciprocal_rank_fusion([_ranking("b"), _ranking("a")])] == ["a", "b"]


def test_ids_tied_on_score_share_their_positions_expected_contribution():
    fused = reciprocal_rank_fusion([[Hit("top", 3.0), Hit("c", 1.0), Hit("a", 1.0), Hit("b", 1.0), Hit("low", 0.5)]])
    share = (1 / (RRF_K + 2) + 1 / (RRF_K + 3) + 1 / (RRF_K + 4)) / 3
    assert {h.docid: h.score for h in fused} == pytest.approx(
        {"top": 1 / (RRF_K + 1), "a": share, "b": share, "c": share, "low": 1 / (RRF_K + 5)})
    # sums of shares that differ only in the last bits of a float still tie
    assert len({h.score for h in reciprocal_rank_fusion([[Hit("p", 0.1 + 0.2), Hit("q", 0.3)]])}) == 1


def test_a_tie_in_the_evidence_leaves_the_order_to_the_other_ranking_not_to_file_names():
    files = [Hit("z.py", 9.0), Hit("a.py", 8.0)]
    for name, other in (("z.py", "a.py"), ("a.py", "z.py")):
        fused = combine([Hit(name, 9.0), Hit(other, 8.0)], None, "file", {"a.py": 0.1, "z.py": 0.1})
        assert [h.docid for h in fused] == [name, other]
    assert [h.docid for h in combine(files, None, "file", {"a.py": 0.3, "z.py": 0.1})] == ["a.py", "z.py"]


def test_evidence_votes_in_proportion_to_its_weight_at_most_a_whole_vote():
    files = [Hit("top.c", 9.0), Hit("b.c", 8.0), Hit("c.c", 7.0)]
    # a sliver of an ambiguous mention (a name defined in 200 files) on b.c and c.c, a whole path on c.c
    fused = combine(files, None, "file", {"b.c": 0.005, "c.c": 1.7})
    expected = {"top.c": 1 / (RRF_K + 1),
                "b.c": 1 / (RRF_K + 2) + 0.005 / (RRF_K + 2),
                "c.c": 1 / (RRF_K + 3) + 1.0 / (RRF_K + 1)}
    assert {h.docid: h.score for h in fused} == pytest.approx(expected)
    # the file ranking's first file stays above the one holding a sliver (a rank-only vote put b.c first)
    assert [h.docid for h in fused] == ["c.c", "top.c", "b.c"]
    assert [h.docid for h in reciprocal_rank_fusion([files, [Hit("b.c", 0.005)]])][0] == "b.c"
    assert (evidence_vote(0.3), evidence_vote(1.0), evidence_vote(2.5)) == (0.3, 1.0, 1.0)


def test_a_vote_scales_a_tie_groups_shared_term():
    fused = reciprocal_rank_fusion([[Hit("a", 0.5), Hit("b", 0.5), Hit("c", 0.25)]], votes=(evidence_vote,))
    share = (1 / (RRF_K + 1) + 1 / (RRF_K + 2)) / 2
    assert {h.docid: h.score for h in fused} == pytest.approx({"a": 0.5 * share, "b": 0.5 * share,
                                                               "c": 0.25 / (RRF_K + 3)})


def test_combine_forms():
    files = [Hit("c.py", 9.0), Hit("b.py", 8.0), Hit("a.py", 1.0)]
    assert combine(files, None, "file") == files
    fused = combine(files, UNITS, "fuse")  # file ranks c b a, best-unit ranks a c b
    assert [h.docid for h in fused] == ["c.py", "a.py", "b.py"]
    with_evidence = combine(files, None, "file", {"a.py": 2.0, "z.py": 0.0})
    assert [h.docid for h in with_evidence] == ["a.py", "c.py", "b.py"]
    assert weight_ranking({"a": 1.0, "b": 3.0, "c": 1.0, "d": 0.0}) == [Hit("b", 3.0), Hit("a", 1.0), Hit("c", 1.0)]


def test_the_recent_history_is_one_more_ranking_with_a_whole_vote():
    files = [Hit("a.py", 3.0), Hit("b.py", 2.0), Hit("c.py", 1.0)]
    # c.py touched by five recent commits, b.py by one, d.py (no word of the issue) by three
    fused = combine(files, None, "file", None, {"c.py": 5, "b.py": 1, "d.py": 3})
    expected = {"a.py": 1 / (RRF_K + 1), "b.py": 1 / (RRF_K + 2) + 1 / (RRF_K + 3),
                "c.py": 1 / (RRF_K + 3) + 1 / (RRF_K + 1), "d.py": 1 / (RRF_K + 2)}
    assert {h.docid: h.score for h in fused} == pytest.approx(expected)
    assert [h.docid for h in fused] == ["c.py", "b.py", "a.py", "d.py"]
    # beside the evidence: one fusion of three rankings, the evidence's vote its weight's share
    both = combine(files, None, "file", {"a.py": 0.5}, {"c.py": 5, "b.py": 1})
    assert {h.docid: h.score for h in both} == pytest.approx(
        {"a.py": 1 / (RRF_K + 1) + 0.5 / (RRF_K + 1), "b.py": 1 / (RRF_K + 2) + 1 / (RRF_K + 2),
         "c.py": 1 / (RRF_K + 3) + 1 / (RRF_K + 1)})
    assert combine(files, None, "file", None, {}) == files


def test_localization_names_and_checks():
    assert Localization().plain and Localization().name() == "file"
    assert Localization("fuse", 1.0, True).name() == "fuse+path+evidence"
    assert Localization("fuse", 1.0, True, True).name() == "fuse+path+evidence+history"
    assert not Localization(history=True).plain
    with pytest.raises(QLogError, match="--units"):
        Localization("best")
    with pytest.raises(QLogError, match="--path-weight"):
        Localization(path_weight=-1)


def test_verboseness_b_is_bm25_va_at_the_mean_verboseness():
    # B_VA = m^-2 * avgtf_d + (1 - 1/m) * L_d/avgdl; at avgtf_d = m it is (1 - b) + b * L_d/avgdl
    m, ratio = 3.2, 1.7
    b = verboseness_b(m)
    assert m ** -2 * m + (1 - 1 / m) * ratio == pytest.approx((1 - b) + b * ratio)
    assert verboseness_b(1.0) == 0.0
    with pytest.raises(QLogError):
        verboseness_b(0.5)
