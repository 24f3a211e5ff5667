"""Scores from the real trec_eval: the C binary that ships inside Pyserini's Anserini fatjar.

Every number comes from the ``trec_eval`` binary inside the fatjar, the same program Pyserini's
``pyserini.eval.trec_eval`` runs, so our figures match the community's to the last printed digit.
Python only builds the command and reads the output. The binary is extracted once, atomically, into
a cache of our own (:func:`trec_eval_binary`, named by its hash) and run directly: Anserini's wrapper
would copy it into ``java.io.tmpdir`` on every call and leave it there when killed.

Metric names are trec_eval's ``-m`` arguments (``ndcg_cut.10``, ``recall.100``, ``P.5,10``), and the
results come back under the same names (``ndcg_cut.10``, not trec_eval's printed ``ndcg_cut_10``), one
entry per value of a request that expands (``P.5``, ``P.10``). What the wrapped program does that shapes
this module (errors on stdout with exit 0, qrels names looked up online, ``-c`` with ``-q``, a byte-order
mark): docs/evaluation.md.
"""

from __future__ import annotations

import contextlib
import functools
import hashlib
import os
import platform
import re
import shutil
import stat
import zipfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Iterable, Iterator, Sequence

import pandas as pd

from qlog_pyserini.errors import QLogError
from qlog_pyserini.formats.trec import read_qrels
from qlog_pyserini.jvm.toolchain import find_jdk, pyserini_jar
from qlog_pyserini.system import processes
from qlog_pyserini.system.outputs import atomic_output, disk_errors, staging_dir

DEFAULT_METRICS: tuple[str, ...] = ("ndcg_cut.10", "recip_rank", "recall.100", "map")

# A trec_eval measure: a name, then optionally '.' and parameters. Anything else (whitespace, a
# leading '-') could be read by trec_eval as another option, so it is refused before it gets there.
_METRIC_RE = re.compile(r"[A-Za-z][A-Za-z0-9_]*(?:\.[A-Za-z0-9_.,+-]+)?")
# The binary's messages sometimes run into each other without a newline
# ("duplicate docs d1trec_eval: Can't calculate ..."); split before each 'trec_eval:'/'trec_eval.'.
_MESSAGE_SPLIT = re.compile(r"(?<=\S)(?=trec_eval[:.])")
SUMMARY_QID = "all"


@dataclass(frozen=True)
class EvalResult:
    """What trec_eval said about one run.

    ``aggregate`` maps each metric (under the name it was asked for, e.g. ``ndcg_cut.10``) to its
    summary value; ``per_query`` has one row per query (index ``qid``) and one column per metric,
    in the order the metrics were requested. ``per_query`` is empty when it was not asked for.
    """

    aggregate: dict[str, float]
    per_query: pd.DataFrame = field(repr=False)

    def to_frame(self) -> pd.DataFrame:
        """The per-query values in long form, ``qid, measure, value``, as ir_measures and PyTerrier's
        ``pt.Experiment(perquery=True)`` give them (measures under the names they were asked by)."""
        long = self.per_query.reset_index().melt(id_vars="qid", var_name="measure", value_name="value")
        return long.astype({"qid": str, "measure": str, "value": "float64"})


def parse_metrics(text: str) -> list[str]:
    """Split a comma-separated metric list, keeping each measure's own parameters with it.

    A piece that does not start with a letter continues the previous measure's parameter list,
    so ``"ndcg_cut.10,P.5,10,map"`` gives ``["ndcg_cut.10", "P.5,10", "map"]``.
    """
    metrics: list[str] = []
    for piece in (p.strip() for p in text.split(",")):
        if not piece:
            continue
        if piece[0].isalpha() or not metrics:
            metrics.append(piece)
        else:
            if "." not in metrics[-1]:
                raise QLogError(f"metric parameter {piece!r} follows {metrics[-1]!r}, which has no '.params' part")
            metrics[-1] += "," + piece
    if not metrics:
        raise QLogError(f"no metric in {text!r}")
    return metrics


# trec_eval measures that give one value per cutoff; bare, they expand to their default cutoff list.
_CUTOFF_MEASURES = frozenset({"P", "relative_P", "recall", "Rprec_mult", "iprec_at_recall", "ndcg_cut", "map_cut",
                              "success", "set_P"})
#: trec_eval's default cutoffs of a cutoff measure named without parameters (its m_P.c, m_success.c, ...)
DEFAULT_CUTOFFS = {"P": (5, 10, 15, 20, 30, 100, 200, 500, 1000), "recall": (5, 10, 15, 20, 30, 100, 200, 500, 1000),
                   "ndcg_cut": (5, 10, 15, 20, 30, 100, 200, 500, 1000), "map_cut": (5, 10, 15, 20, 30, 100, 200, 500, 1000),
                   "relative_P": (5, 10, 15, 20, 30, 100, 200, 500, 1000), "success": (1, 5, 10)}


def measure_arguments(metrics: Sequence[str]) -> list[str]:
    """The ``-m`` arguments for ``metrics``: one per measure family, with every parameter asked for.

    trec_eval keeps the first ``-m`` of a family and drops the rest (``-m success.1 -m success.5`` gives
    success_1 only), so ``success.1,success.5`` goes as ``success.1,5``. A family asked for both bare and
    with parameters goes with its default cutoffs and the others.
    """
    params: dict[str, list[str]] = {}
    bare: set[str] = set()
    for metric in metrics:
        base, _, given = metric.partition(".")
        if not given:
            bare.add(base)
        wanted = given.split(",") if given else [str(k) for k in DEFAULT_CUTOFFS.get(base, ())]
        merged = params.setdefault(base, [])
        merged += [p for p in wanted if p not in merged]
    for base in bare:
        if params[base] and base not in DEFAULT_CUTOFFS:
            raise QLogError(f"metric {base!r} is asked for bare and with parameters; name all its parameters")
    return [f"{base}.{','.join(given)}" if given else base for base, given in params.items()]


def check_single_metric(metric: str) -> str:
    """``metric`` if it names exactly one value per query (``recall.100``, ``map``), else QLogError.

    Checked before any search, so ``--metric recall`` fails at once rather than after a sweep.
    """
    (name,) = check_metrics([metric])
    base, _, params = name.partition(".")
    if "," in params or (not params and base in _CUTOFF_MEASURES):
        raise QLogError(f"metric {metric!r} gives several values; name exactly one, e.g. '{base}.10'")
    return name


def check_metrics(metrics: str | Iterable[str]) -> list[str]:
    """The requested measures, each checked to be a trec_eval name, duplicates dropped, order kept."""
    names = parse_metrics(metrics) if isinstance(metrics, str) else list(metrics)
    if not names:
        raise QLogError("at least one metric is needed")
    unique: list[str] = []
    for m in names:
        if not isinstance(m, str) or not _METRIC_RE.fullmatch(m):
            raise QLogError(f"illegal metric name {m!r}: expected a trec_eval measure such as 'ndcg_cut.10' or 'map'")
        if m not in unique:
            unique.append(m)
    return unique


def _exposed_name(measure: str, requested: Sequence[str]) -> tuple[int, str]:
    """(index of the request that produced ``measure``, name to show it under).

    ``ndcg_cut_10`` from request ``ndcg_cut.10`` becomes ``ndcg_cut.10``. Without explicit
    params a request matches its own name or ``name_<digits...>`` (trec_eval's default cutoffs),
    so ``ndcg`` does not swallow ``ndcg_rel``. Unmatched measures (from nicknames such as
    ``official``) keep trec_eval's name and sort after everything requested.
    """
    best: tuple[int, int, str] | None = None  # (base length, request index, exposed name)
    for i, req in enumerate(requested):
        base, _, params = req.partition(".")
        name = None
        if measure == base and not params:
            name = base
        elif measure.startswith(base + "_"):
            suffix = measure[len(base) + 1:]
            if (suffix in params.split(",")) if params else suffix[:1].isdigit():
                name = f"{base}.{suffix}"
        # The longest matching base wins: 'ndcg_cut.10' beats 'ndcg' for 'ndcg_cut_10'.
        if name is not None and (best is None or len(base) > best[0]):
            best = (len(base), i, name)
    return (best[1], best[2]) if best else (len(requested), measure)


def parse_trec_eval_output(stdout: str, metrics: Sequence[str]) -> tuple[dict[str, float], dict[str, dict[str, float]]]:
    """Read trec_eval's ``measure <tab> qid <tab> value`` lines.

    Returns ``(aggregate, per_query)`` where ``aggregate`` is ``{metric: value}`` from the
    ``all`` rows and ``per_query`` is ``{metric: {qid: value}}``, both keyed by the names of
    ``metrics`` (see :func:`_exposed_name`) in request order. Rows whose value is not a number
    (``runid``, ``relstring``) are skipped. Any line that is not such a row is one of the
    binary's error messages and raises :class:`QLogError` quoting it.
    """
    rows: list[tuple[int, int, str, str, float]] = []  # (request index, line order, name, qid, value)
    for order, line in enumerate(stdout.splitlines()):
        parts = line.split()
        if not parts:
            continue
        if len(parts) != 3 or parts[0].startswith("trec_eval"):
            message = _MESSAGE_SPLIT.split(line.strip())[0]
            raise QLogError(f"trec_eval failed: {message}")
        measure, qid, value = parts
        try:
            number = float(value)
        except ValueError:
            continue
        index, name = _exposed_name(measure, metrics)
        rows.append((index, order, name, qid, number))
    rows.sort(key=lambda r: (r[0], r[1]))
    aggregate: dict[str, float] = {}
    per_query: dict[str, dict[str, float]] = {}
    for _, _, name, qid, number in rows:
        if qid == SUMMARY_QID:
            aggregate[name] = number
        else:
            per_query.setdefault(name, {})[qid] = number
    return aggregate, per_query


# trec_eval's message for a run and qrels without a query in common
_NO_JUDGED_ANSWER = "No queries with both results and relevance info"


def no_judged_query_answered(run: str | os.PathLike | None = None) -> QLogError:
    """The one error for a run that answers no query the qrels judge, from ``eval``, ``compare`` and ``evaluate()``
    alike: every measure would be 0 (trec_eval refuses such a run; zeros would hide a qid mismatch)."""
    which = f"run {str(run)!r}" if run is not None else "the run"
    return QLogError(f"{which} answers no query the qrels judge (trec_eval: {_NO_JUDGED_ANSWER}); "
                     "are the run and qrels of the same topics?")


def _check_file(path: str | os.PathLike, what: str) -> Path:
    p = Path(path)
    if not p.is_file():
        raise QLogError(f"{what} file {str(path)!r} not found")
    if p.stat().st_size == 0:
        raise QLogError(f"{what} file {str(path)!r} is empty; trec_eval cannot score it")
    # Absolute, so Anserini never mistakes it for the name of a qrels in its online registry.
    return p.resolve()


CACHE_ENV = "QLOG_CACHE"
_BOM = b"\xef\xbb\xbf"


def cache_dir() -> Path:
    """Our own cache folder: ``$QLOG_CACHE``, else ``$XDG_CACHE_HOME/qlog-pyserini`` (``~/.cache/qlog-pyserini``)."""
    if os.environ.get(CACHE_ENV):
        return Path(os.environ[CACHE_ENV])
    return Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "qlog-pyserini"


def _binary_name() -> str | None:
    system, machine = platform.system(), platform.machine().lower()
    if system == "Linux":
        return {"x86_64": "linux-amd64", "amd64": "linux-amd64", "i386": "linux-i386", "i686": "linux-i386"}.get(machine)
    if system == "Darwin":
        return {"arm64": "macosx-aarch64", "aarch64": "macosx-aarch64", "x86_64": "macosx-x86_64"}.get(machine)
    return None


@functools.cache
def trec_eval_binary() -> Path | None:
    """The fatjar's trec_eval binary for this platform, extracted once into :func:`cache_dir`; None if it has none.

    The file is named after the binary's SHA-256, so another Pyserini's binary never shadows it, and it is
    written atomically, so two processes extracting it at once both end with a whole file.
    """
    name = _binary_name()
    if name is None:
        return None
    with zipfile.ZipFile(pyserini_jar()) as jar:
        try:
            data = jar.read(f"trec_eval/trec_eval-{name}")
        except KeyError:
            return None
    folder = cache_dir() / "trec_eval"
    path = folder / f"trec_eval-{name}-{hashlib.sha256(data).hexdigest()[:16]}"
    if not (path.is_file() and path.stat().st_size == len(data)):
        with disk_errors(folder):
            folder.mkdir(parents=True, exist_ok=True)
        with atomic_output(path, "wb") as f:
            f.write(data)
            os.fchmod(f.fileno(), 0o755)
    if not os.access(path, os.X_OK):
        path.chmod(path.stat().st_mode | stat.S_IXUSR | stat.S_IXGRP | stat.S_IXOTH)
    return path


@contextlib.contextmanager
def _without_bom(paths: Sequence[Path]) -> Iterator[list[Path]]:
    """``paths``, each file that starts with a UTF-8 byte-order mark replaced by a copy without it."""
    marked = [p for p in paths if _starts_with_bom(p)]
    if not marked:
        yield list(paths)
        return
    with disk_errors(cache_dir()):
        cache_dir().mkdir(parents=True, exist_ok=True)
    # .inputs.copy-<pid>-X in the cache: a killed run's is swept by the next call.
    copies = staging_dir(cache_dir() / "inputs", "copy")
    try:
        out = []
        for i, p in enumerate(paths):
            if p in marked:
                copy = copies / f"{i}-{p.name}"
                with disk_errors(copy), open(p, "rb") as src, open(copy, "wb") as dst:
                    src.read(len(_BOM))
                    shutil.copyfileobj(src, dst)
                p = copy
            out.append(p)
        yield out
    finally:
        shutil.rmtree(copies, ignore_errors=True)


def _starts_with_bom(path: Path) -> bool:
    with open(path, "rb") as f:
        return f.read(len(_BOM)) == _BOM


def trec_eval_command(qrels_path: str | os.PathLike, run_path: str | os.PathLike, metrics: Sequence[str],
                      per_query: bool = True, complete: bool = True) -> list[str]:
    """The exact command :func:`trec_eval` runs (useful to reproduce a number by hand)."""
    binary = trec_eval_binary()
    cmd = [str(binary)] if binary else [str(find_jdk().java), "-cp", str(pyserini_jar()), "trec_eval"]
    if complete:
        cmd.append("-c")
    if per_query:
        cmd.append("-q")
    for m in measure_arguments(metrics):
        cmd += ["-m", m]
    return cmd + [str(qrels_path), str(run_path)]


def trec_eval(qrels_path: str | os.PathLike, run_path: str | os.PathLike,
              metrics: str | Sequence[str] = DEFAULT_METRICS, per_query: bool = True,
              complete: bool = True) -> EvalResult:
    """Score a TREC run against TREC qrels with trec_eval.

    ``metrics`` are trec_eval measures (a sequence, or one comma-separated string parsed by
    :func:`parse_metrics`); each family is passed as one ``-m`` (:func:`measure_arguments`). ``per_query`` adds ``-q``.
    ``complete`` adds ``-c``: queries in the qrels but not in the run score 0 and count in the
    average, and are filled in as 0.0 rows of ``per_query``. Without it, only queries the run
    answered are scored. Per-query rows follow the qrels' query order.

    Raises :class:`QLogError` for a missing or empty file, a bad metric name, and anything
    trec_eval refuses (its first message is quoted).
    """
    names = check_metrics(metrics)
    qrels_file = _check_file(qrels_path, "qrels")
    run_file = _check_file(run_path, "run")
    qrels_qids = list(read_qrels(qrels_file))
    if SUMMARY_QID in qrels_qids:
        raise QLogError(f"qrels file {str(qrels_path)!r} has a query named {SUMMARY_QID!r}, "
                        "which trec_eval uses for its summary rows")

    with _without_bom([qrels_file, run_file]) as (qrels_arg, run_arg):
        cmd = trec_eval_command(qrels_arg, run_arg, names, per_query=per_query, complete=complete)
        try:
            # processes.run: trec_eval dies with us, even after a kill -9 (PR_SET_PDEATHSIG).
            proc = processes.run(cmd, text=True, encoding="utf-8", errors="replace")
        except OSError as e:
            raise QLogError(f"cannot start trec_eval ({cmd[0]}): {e}") from None
    if proc.returncode != 0:
        first = next((ln.strip() for ln in proc.stderr.splitlines() if ln.strip()), f"exit code {proc.returncode}")
        if _NO_JUDGED_ANSWER in first:
            raise no_judged_query_answered(run_path)
        raise QLogError(f"trec_eval failed: {_MESSAGE_SPLIT.split(first)[0]}")
    aggregate, by_metric = parse_trec_eval_output(proc.stdout, names)
    if not aggregate:
        # No summary and no message on stdout: the JVM side failed (a Java exception on stderr).
        first = next((ln.strip() for ln in proc.stderr.splitlines() if ln.strip()), "it printed nothing")
        raise QLogError(f"trec_eval failed: {first}")

    columns = list(aggregate)
    if per_query:
        table = pd.DataFrame({name: pd.Series(by_metric.get(name, {}), dtype=float) for name in columns})
        seen = set(table.index)
        order = [q for q in qrels_qids if q in seen or complete]
        table = table.reindex(order)
        if complete:
            table = table.fillna(0.0)
    else:
        table = pd.DataFrame(columns=columns, dtype=float)
    table.index.name = "qid"
    return EvalResult(aggregate=aggregate, per_query=table)


def per_query_scores(qrels_path: str | os.PathLike, run_path: str | os.PathLike, metric: str) -> pd.Series:
    """One metric per query over every query in the qrels (absent ones score 0, as ``-c``).

    ``metric`` must name a single value (``ndcg_cut.10``, not ``P.5,10`` or bare ``recall``).
    The Series is indexed by qid and named after ``metric``.
    """
    result = trec_eval(qrels_path, run_path, metrics=(metric,), per_query=True, complete=True)
    if list(result.per_query.columns) != [metric]:
        raise QLogError(f"metric {metric!r} gives {len(result.per_query.columns)} values "
                        f"({', '.join(result.per_query.columns)}); name exactly one, e.g. 'recall.100'")
    return result.per_query[metric].rename(metric)
