"""Our evaluation, pytrec_eval, ir_measures and ranx give the same NDCG@10, MRR and MAP on our runs, at every q.

The run file is what a user hands to any of them. trec_eval and pytrec_eval read each score as a
32-bit float and break ties by docid (descending); ranx keeps 64-bit scores and breaks ties its own
way. They agree only when the written scores strictly decrease as 32-bit floats within each query,
which the run writer guarantees at every q (at small q, scores above 16 are closer than a float's
step when written with 6 decimals). Each evaluator reads the same run file (searched once per session,
``csn_ruby_runs``); the in-process evaluation also scores it in its written order, the searcher's ranking.
"""

from __future__ import annotations

import contextlib
import sys
from types import ModuleType
from typing import Iterator

import pytest
from conftest import CSN_RUBY_QS

from qlog_pyserini.eval.metrics import evaluate
from qlog_pyserini.eval.trec_eval import trec_eval
from qlog_pyserini.formats.trec import read_qrels, read_run, to_dict

OURS = ("ndcg_cut.10", "recip_rank", "map")


def ranked_prefix(run: dict[str, dict[str, float]], qrels: dict[str, dict[str, int]]) -> dict[str, dict[str, float]]:
    """Each query's hits down to its last relevant one and one more, checked to score above every hit dropped.

    NDCG@10, MRR and MAP depend only on the ranks of relevant documents. Every hit dropped scores strictly
    below every hit kept (asserted here, not assumed), so any evaluator that sorts by score ranks the kept
    hits first and in the same order: the measures are those of the whole run, and ranx reads a tenth of it.
    """
    prefix = {}
    for qid, hits in run.items():
        items = list(hits.items())  # the file's order, the searcher's ranking
        relevant = {d for d, g in qrels.get(qid, {}).items() if g > 0}
        end = max((i for i, (d, _) in enumerate(items) if d in relevant), default=-1) + 2
        kept, dropped = items[:end], items[end:]
        assert not dropped or min(s for _, s in kept) > max(s for _, s in dropped), qid
        prefix[qid] = dict(kept)
    return prefix


_RANX_INTERPRETED: list[bool] = []  # set once: whether this process imported ranx here, interpreted


@contextlib.contextmanager
def ranx_interpreted() -> Iterator[ModuleType]:
    """ranx with its numba kernels left as the Python they are written in, for the calls made inside.

    The same code computes the same measures either way; compiled, it first spends about 70 s of one test
    worker compiling them wherever numba has no cache yet (every fresh environment, CI's included), where
    interpreted it evaluates the prefixes here in a second or two. numba reads the switch when ranx's
    modules are imported (its decorators) and again at each call (its typed containers become Python's),
    so it stays on for the calls too. A process that imported ranx compiled before keeps it compiled.
    """
    numba = pytest.importorskip("numba")
    if not _RANX_INTERPRETED:
        _RANX_INTERPRETED.append("ranx" not in sys.modules)
    jit_was_off = numba.config.DISABLE_JIT
    numba.config.DISABLE_JIT = _RANX_INTERPRETED[0] or jit_was_off
    try:
        yield pytest.importorskip("ranx")
    finally:
        numba.config.DISABLE_JIT = jit_was_off


def means_by_evaluator(qrels_path, run_path) -> dict[str, tuple[float, float, float]]:
    """(NDCG@10, MRR, MAP) over every qrels query (absent = 0), from each evaluator."""
    # imported by the test, not at collection: ranx brings numba and matplotlib (about a second)
    pytrec_eval = pytest.importorskip("pytrec_eval")
    ir_measures = pytest.importorskip("ir_measures")
    # the run file parsed once (1.26M lines of CSN-Ruby take seconds to read), given to every evaluator that takes hits
    qrels, hits = read_qrels(qrels_path), read_run(run_path)
    run = to_dict(hits)
    n = len(qrels)
    cli = trec_eval(qrels_path, run_path, metrics=OURS, per_query=False).aggregate
    out = {"trec_eval (our eval)": tuple(cli[m] for m in OURS)}
    # by the written scores, and in the written order (csn_ruby_runs checks it is the searcher's ranking)
    for label, order in (("in process, by score", "score"), ("in process, in ranking order", "rank")):
        agg = evaluate(hits, qrels, metrics=OURS, order=order).aggregate
        out[label] = tuple(agg[m] for m in OURS)
    per_query = pytrec_eval.RelevanceEvaluator(qrels, {"ndcg_cut.10", "recip_rank", "map"}).evaluate(run)
    out["pytrec_eval"] = tuple(sum(v[m] for v in per_query.values()) / n for m in ("ndcg_cut_10", "recip_rank", "map"))
    agg = ir_measures.calc_aggregate([ir_measures.nDCG @ 10, ir_measures.RR, ir_measures.AP], qrels, run)
    # ir_measures averages over the queries it scored; scale to all qrels queries as trec_eval -c does.
    scored = len([q for q in qrels if q in run])
    out["ir_measures"] = tuple(agg[m] * scored / n for m in (ir_measures.nDCG @ 10, ir_measures.RR, ir_measures.AP))
    # ranx converts and sorts a run in numba, about 25 s of CPU for CSN-Ruby's 1.26M hits: it reads the
    # prefix that decides these measures (ranked_prefix), a couple of seconds.
    # make_comparable would add the qrels queries the run lacks and drop the others, then sort the run again,
    # which ranx.Run already did (a third of ranx's time here): with the same queries on both sides it changes
    # nothing, and ranx.evaluate itself refuses a run whose queries differ from the qrels'
    assert set(run) == set(qrels), "every qrels query and no other is in the run"
    with ranx_interpreted() as ranx:
        scores = ranx.evaluate(ranx.Qrels(qrels), ranx.Run(ranked_prefix(run, qrels)), ["ndcg@10", "mrr", "map"],
                               make_comparable=False)
    out["ranx"] = tuple(float(scores[m]) for m in ("ndcg@10", "mrr", "map"))
    return out


@pytest.mark.jvm
@pytest.mark.parametrize("q", CSN_RUBY_QS)
def test_evaluators_agree_on_csn_ruby(csn_ruby, csn_ruby_runs, q):
    data, run = csn_ruby[0], csn_ruby_runs[q]
    means = means_by_evaluator(data / "qrels.txt", run)
    reference = means["trec_eval (our eval)"]
    disagree = {name: values for name, values in means.items()
                if any(f"{v:.4f}" != f"{r:.4f}" for v, r in zip(values, reference))}
    assert not disagree, f"q = {q}: trec_eval gives {reference}, others {disagree}"
