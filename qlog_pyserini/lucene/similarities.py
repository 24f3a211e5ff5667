"""Ranking models selectable by name: q-log BM25 and the baselines it must beat.

| name        | Lucene class                                            | swept parameter |
|-------------|---------------------------------------------------------|-----------------|
| `bm25`      | `BM25Similarity(k1, b)`                                 | -               |
| `qlog`      | `io.qlog.similarities.QLogBM25Similarity(k1, b, q, form)` | q             |
| `idf-gamma` | `io.qlog.similarities.IdfPowerBM25Similarity(k1, b, gamma)`: idf^gamma | gamma |
| `qld`       | `LMDirichletSimilarity(mu)`, mu = 1000 as Pyserini       | mu              |
| `dfr`       | `DFRSimilarity(BasicModelIn, AfterEffectL, NormalizationH2(c = 1))`: InL2, Terrier's classic DFR configuration | - |
| `dph`       | `io.qlog.similarities.DPHSimilarity`: Terrier's parameter-free DPH | -      |

Formulas are in each Java class's Javadoc; the Lucene DFR and LM ones are Lucene's own.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable

from qlog_pyserini.errors import QLogError
from qlog_pyserini.formula import DEFAULT_B, DEFAULT_K1, check_bm25, check_float_parameter, check_form, check_q
from qlog_pyserini.jvm.bridge import jclass

DEFAULT_MU = 1000.0
DFR_C = 1.0


@dataclass(frozen=True)
class Model:
    """A named ranking model: how to build its Lucene similarity, and which parameter a sweep varies."""

    name: str
    sweep_parameter: str | None
    build: Callable[..., Any]
    description: str
    parameters: tuple[str, ...]  # the keywords it takes; any other is refused, not ignored (`muu=500`)


def _positive(name: str, value: float) -> float:
    # A Java float: 1e39 would become infinity inside Lucene and fail there with a Java stack.
    return check_float_parameter(name, value, low=0.0, low_open=True)


def _bm25(k1: float = DEFAULT_K1, b: float = DEFAULT_B) -> Any:
    return jclass("org.apache.lucene.search.similarities.BM25Similarity")(float(k1), float(b))


def _qlog(k1: float = DEFAULT_K1, b: float = DEFAULT_B, q: float = 1.0, idf_form: str = "lucene") -> Any:
    return jclass("io.qlog.similarities.QLogBM25Similarity")(float(k1), float(b), check_q(q), check_form(idf_form))


def _idf_gamma(k1: float = DEFAULT_K1, b: float = DEFAULT_B, gamma: float = 1.0) -> Any:
    gamma = _positive("gamma", gamma)  # checked before the JVM is touched
    return jclass("io.qlog.similarities.IdfPowerBM25Similarity")(float(k1), float(b), gamma)


def _qld(mu: float = DEFAULT_MU) -> Any:
    mu = _positive("mu", mu)
    return jclass("org.apache.lucene.search.similarities.LMDirichletSimilarity")(mu)


def _dfr() -> Any:
    pkg = "org.apache.lucene.search.similarities."
    return jclass(pkg + "DFRSimilarity")(jclass(pkg + "BasicModelIn")(), jclass(pkg + "AfterEffectL")(),
                                         jclass(pkg + "NormalizationH2")(DFR_C))


def _dph() -> Any:
    return jclass("io.qlog.similarities.DPHSimilarity")()


MODELS: dict[str, Model] = {m.name: m for m in (
    Model("bm25", None, _bm25, "Lucene BM25 (k1, b)", ("k1", "b")),
    Model("qlog", "q", _qlog, "BM25 with the q-logarithm IDF (k1, b, q, idf form)", ("k1", "b", "q", "idf_form")),
    Model("idf-gamma", "gamma", _idf_gamma, "BM25 with IDF raised to the power gamma", ("k1", "b", "gamma")),
    Model("qld", "mu", _qld, "query likelihood, Dirichlet smoothing (mu)", ("mu",)),
    Model("dfr", None, _dfr, f"DFR InL2 (BasicModelIn, AfterEffectL, NormalizationH2 c={DFR_C:g})", ()),
    Model("dph", None, _dph, "DFR DPH, parameter-free (Terrier's formula)", ()),
)}

#: every model parameter -> the check of its value (the one contract the API, the CLI and PyTerrier call)
PARAMETER_CHECKS: dict[str, Callable[[Any], Any]] = {
    "k1": lambda v: check_bm25(v, DEFAULT_B)[0],
    "b": lambda v: check_bm25(DEFAULT_K1, v)[1],
    "q": check_q,
    "idf_form": check_form,
    "gamma": lambda v: _positive("gamma", v),
    "mu": lambda v: _positive("mu", v),
}


def model(name: str) -> Model:
    """The model called ``name``, or ValueError listing the known ones."""
    if name not in MODELS:
        raise QLogError(f"unknown similarity {name!r}, must be one of {', '.join(MODELS)}")
    return MODELS[name]


def check_parameters(name: str, params: dict[str, Any]) -> dict[str, Any]:
    """``params`` checked for model ``name``: a keyword it does not take, or a value out of range, is QLogError."""
    m = model(name)
    unknown = [k for k in params if k not in m.parameters]
    if unknown:
        takes = f"it takes {', '.join(m.parameters)}" if m.parameters else "it takes none"
        raise QLogError(f"similarity {name!r} has no parameter {unknown[0]!r}; {takes}")
    return {k: PARAMETER_CHECKS[k](v) for k, v in params.items()}


def own_parameters(name: str, **values: Any) -> dict[str, Any]:
    """Those of ``values`` that model ``name`` takes: for callers holding every model's settings at once."""
    return {k: v for k, v in values.items() if k in model(name).parameters}


def make_similarity(name: str, k1: float | None = None, b: float | None = None, **params: Any) -> Any:
    """A Lucene ``Similarity`` for model ``name``; ``params`` are q, idf_form, gamma or mu as it takes them
    (k1 and b default to Lucene's 0.9 and 0.4 where the model takes them)."""
    given = {**{k: v for k, v in (("k1", k1), ("b", b)) if v is not None}, **params}
    return model(name).build(**check_parameters(name, given))
