"""Dataset adapters: turn a published collection into one index-ready folder.

Every adapter writes the same layout, so indexing, search and evaluation never need to know
where the data came from::

    out/corpus/docs00.jsonl ...  Anserini JsonCollection, {"id": ..., "contents": ...} a line
    out/topics.tsv               qid<TAB>query text
    out/qrels.txt                TREC qrels, qid 0 docid grade
    out/manifest.json            format, source paths, counts, and what the adapter decided

The folder is built beside ``out`` under a temporary name and renamed into place only when
complete, so an interrupted run never leaves a half-written dataset that looks finished.

Adapters: :func:`prepare_beir` (BEIR and CoIR folders), :func:`prepare_csn` (CodeSearchNet /
CodeXGLUE jsonl), :func:`prepare_cosqa` (CoSQA retrieval test set), :func:`prepare_trec`
(an Anserini corpus with TREC or TSV topics and TREC qrels), :func:`prepare_irds` (any
``ir_datasets`` dataset already in the local ir_datasets cache).
"""

from __future__ import annotations

import contextlib
import io
import json
import os
import re
import tokenize
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Iterable, Iterator, Mapping, Sequence

from qlog_pyserini.errors import QLogError
from qlog_pyserini.formats.documents import iter_documents, json_lines, write_json_collection
from qlog_pyserini.formats.topics import read_topics, write_topics_tsv
from qlog_pyserini.formats.trec import check_id, read_qrels, write_qrels
from qlog_pyserini.system.outputs import check_output_dir, staged_output, write_json
from qlog_pyserini.system.progress import warn

CORPUS_DIR = "corpus"
TOPICS_FILE = "topics.tsv"
QRELS_FILE = "qrels.txt"
MANIFEST_FILE = "manifest.json"

CSN_QUERY_FIELDS = ("docstring_tokens", "docstring")
COSQA_QUERIES_FILE = "cosqa-retrieval-test-500.json"
COSQA_CODE_FILE = "code_idx_map.txt"

PathLike = str | os.PathLike


@dataclass(frozen=True)
class PreparedDataset:
    """What an adapter wrote: the folder and its counts (``qrels`` counts judgment lines)."""

    format: str
    out: Path
    documents: int
    queries: int
    judged_queries: int
    qrels: int
    notes: dict[str, Any] = field(default_factory=dict)

    @property
    def corpus_dir(self) -> Path:
        return self.out / CORPUS_DIR

    @property
    def topics_path(self) -> Path:
        return self.out / TOPICS_FILE

    @property
    def qrels_path(self) -> Path:
        return self.out / QRELS_FILE


# --- BEIR / CoIR -------------------------------------------------------------------------------

def prepare_beir(folder: PathLike, out: PathLike, split: str = "test", overwrite: bool = False) -> PreparedDataset:
    """Prepare a BEIR or CoIR folder: ``corpus.jsonl``, ``queries.jsonl``, ``qrels/<split>.tsv``.

    The qrels file is tab-separated ``query-id corpus-id score`` with a header line; grades are
    kept as given (graded relevance). As in BEIR's own loader, only queries that appear in the
    split's qrels are kept. A qrels query missing from ``queries.jsonl`` is an error; judged
    docids missing from the corpus are counted in the manifest and logged.
    """
    folder = Path(folder)
    corpus = _first_existing(folder, ("corpus.jsonl", "corpus.jsonl.gz"), "BEIR corpus")
    queries_path = _first_existing(folder, ("queries.jsonl",), "BEIR queries")
    qrels_path = folder / "qrels" / f"{split}.tsv"
    if not qrels_path.is_file():
        splits = sorted(p.stem for p in (folder / "qrels").glob("*.tsv"))
        raise QLogError(f"BEIR qrels {str(qrels_path)!r} not found (splits present: {', '.join(splits) or 'none'})")

    qrels = read_beir_qrels(qrels_path)
    queries = read_topics(queries_path, fmt="jsonl")
    missing = [qid for qid in qrels if qid not in queries]
    if missing:
        raise QLogError(f"{qrels_path}: {len(missing)} judged queries are not in {queries_path.name} "
                        f"(first: {missing[0]!r})")
    topics = {qid: text for qid, text in queries.items() if qid in qrels}
    qrels = {qid: qrels[qid] for qid in topics}  # the topics' order, so both files read alike
    sources = {"corpus": corpus, "queries": queries_path, "qrels": qrels_path}
    with _staged(out, overwrite) as tmp:
        documents, notes = _write_corpus(iter_documents(corpus), tmp, qrels)
        notes["split"] = split
        notes["queries_without_qrels_dropped"] = len(queries) - len(topics)
        return _finish(tmp, out, "beir", sources, documents, topics, qrels, notes)


def read_beir_qrels(path: PathLike) -> dict[str, dict[str, int]]:
    """Read BEIR qrels (``query-id<TAB>corpus-id<TAB>score``, header optional) as ``{qid: {docid: grade}}``."""
    qrels: dict[str, dict[str, int]] = {}
    first_line: dict[tuple[str, str], int] = {}
    try:
        with open(path, encoding="utf-8-sig") as f:
            lines = f.read().splitlines()
    except FileNotFoundError:
        raise QLogError(f"qrels file {str(path)!r} not found") from None
    except (OSError, UnicodeDecodeError) as e:
        raise QLogError(f"cannot read qrels file {str(path)!r}: {e}") from None
    for lineno, line in enumerate(lines, start=1):
        if not line.strip() or (lineno == 1 and line.lower().startswith("query-id")):
            continue
        parts = line.split("\t")
        if len(parts) != 3:
            raise QLogError(f"{path}:{lineno}: a BEIR qrels line needs 3 tab-separated columns "
                            f"(query-id corpus-id score), got {len(parts)}")
        qid, docid, score = parts
        where = f" at {path}:{lineno}"
        check_id(qid, "qid", where)
        check_id(docid, "docid", where)
        try:
            grade = int(score)
        except ValueError:
            raise QLogError(f"{path}:{lineno}: score {score!r} is not an integer") from None
        judged = qrels.setdefault(qid, {})
        if docid in judged and judged[docid] != grade:
            raise QLogError(f"{path}:{lineno}: ({qid}, {docid}) judged {grade} here but "
                            f"{judged[docid]} at line {first_line[(qid, docid)]}")
        first_line.setdefault((qid, docid), lineno)
        judged[docid] = grade
    return qrels


# --- CodeSearchNet / CodeXGLUE -----------------------------------------------------------------

_GITHUB_BLOB = re.compile(r"^https?://github\.com/(?P<repo>[^/]+/[^/]+)/blob/[^/]+/(?P<rest>.+)$")


def prepare_csn(files: Sequence[PathLike], out: PathLike, query_files: Sequence[PathLike] | None = None,
                query_field: str = "docstring_tokens", overwrite: bool = False) -> PreparedDataset:
    """Prepare CodeSearchNet / CodeXGLUE jsonl files as a docstring-to-code retrieval task.

    - Corpus: every function of every file in ``files``; the document is the ``code`` field.
      In CodeXGLUE Ruby (and Go, Java, JavaScript, PHP) ``code`` does not contain the
      docstring, which was the comment block above the function; nothing is removed. In Python
      ``code`` does contain it, as the first string literal of the body; that literal is
      removed (:func:`remove_python_docstring`), otherwise the query would be in its answer.
      Comments inside the body are code and are kept.
    - Queries: one per function of ``query_files`` (default: the first of ``files``, which must
      be among ``files``). ``query_field="docstring_tokens"`` (default) joins the tokens with
      spaces: the first paragraph of the docstring, as CodeSearchNet truncates it and as the
      CodeXGLUE / GraphCodeBERT / UniXcoder code-search scripts build the query;
      ``"docstring"`` is the whole docstring, ``@param``/``@return`` blocks included, which
      name the code's own identifiers. Functions whose query text is empty are skipped (counted).
    - Relevance: exactly one relevant document per query, its own function (grade 1).
    - Ids: from the GitHub ``url``, ``owner/repo/path#Lstart-Lend`` (the commit hash dropped,
      since the repo, path and line span already identify the function); without a GitHub url,
      ``repo/path:func_name``. Whitespace becomes ``_``; a repeated id gets ``~2``, ``~3``, ...
      in input order. A query's qid is its function's docid.
    """
    if query_field not in CSN_QUERY_FIELDS:
        raise QLogError(f"illegal query_field: {query_field!r}, must be one of {', '.join(CSN_QUERY_FIELDS)}")
    files, query_files = _csn_inputs(files, query_files)
    docs, topics, qrels, counts = _read_csn(files, query_files, query_field)
    removed, in_code, skipped = counts["removed"], counts["in_code"], counts["skipped"]
    if skipped:
        warn(f"skipped {skipped} functions whose {query_field} is empty")
    if in_code:
        warn(f"{in_code} functions still contain their docstring text in the code (e.g. as an inline "
             "comment); kept as code")
    notes = {
        "query_field": query_field,
        "query_files": [str(q.resolve()) for q in query_files],
        "docid_scheme": "owner/repo/path#Lstart-Lend from the GitHub url, else repo/path:func_name",
        "python_docstrings_removed": removed,
        "docstring_text_still_in_code": in_code,
        "queries_skipped_empty": skipped,
    }
    sources = {f"corpus_{i}": f for i, f in enumerate(files)}
    with _staged(out, overwrite) as tmp:
        documents, corpus_notes = _write_corpus(docs, tmp, qrels)
        return _finish(tmp, out, "csn", sources, documents, topics, qrels, {**notes, **corpus_notes})


def _csn_inputs(files: Sequence[PathLike], query_files: Sequence[PathLike] | None) -> tuple[list[Path], list[Path]]:
    """The corpus files and the query files among them, or :class:`QLogError` for a bad combination."""
    if not files:
        raise QLogError("prepare_csn needs at least one input file")
    files = [Path(f) for f in files]
    resolved = [f.resolve() for f in files]
    twice = sorted({str(f) for f, r in zip(files, resolved) if resolved.count(r) > 1})
    if twice:
        # Every function would be in the corpus twice, and each query's twin judged non-relevant.
        raise QLogError(f"input file {twice[0]!r} is given more than once")
    query_files = [Path(f) for f in (query_files if query_files else files[:1])]
    for q in query_files:
        if q.resolve() not in resolved:
            raise QLogError(f"query file {str(q)!r} is not one of the corpus files: its functions "
                            f"would have no relevant document")
    return files, query_files


def _read_csn(files: list[Path], query_files: list[Path], query_field: str
              ) -> tuple[list[tuple[str, str]], dict[str, str], dict[str, dict[str, int]], dict[str, int]]:
    """Documents, topics and qrels from CodeSearchNet rows, with counts of what was changed or skipped."""
    query_set = {q.resolve() for q in query_files}
    docs: list[tuple[str, str]] = []
    topics: dict[str, str] = {}
    qrels: dict[str, dict[str, int]] = {}
    used: set[str] = set()
    counts = {"removed": 0, "in_code": 0, "skipped": 0}
    for file in files:
        wants_queries = file.resolve() in query_set
        for lineno, row in json_lines(file, "CodeSearchNet"):
            where = f"{file}:{lineno}"
            code = row.get("code")
            if not isinstance(code, str):
                raise QLogError(f"{where}: a CodeSearchNet row needs a string \"code\" field")
            docid = _unique(csn_docid(row, where), used)
            docstring = _norm(row["docstring"]) if isinstance(row.get("docstring"), str) else ""
            if str(row.get("language", "")).lower() == "python":
                stripped = remove_python_docstring(code)
                counts["removed"] += stripped != code
                code = stripped
            elif docstring and docstring in _norm(code):
                counts["in_code"] += 1
            docs.append((docid, code))
            if wants_queries:
                text = _csn_query(row, query_field, where)
                if not text:
                    counts["skipped"] += 1
                    continue
                topics[docid] = text
                qrels[docid] = {docid: 1}
    return docs, topics, qrels, counts


def csn_docid(row: Mapping[str, Any], where: str = "") -> str:
    """A readable docid for a CodeSearchNet row: ``owner/repo/path#Lstart-Lend`` or ``repo/path:func_name``."""
    url = row.get("url")
    m = _GITHUB_BLOB.match(url) if isinstance(url, str) else None
    if m:
        base = f"{m['repo']}/{m['rest']}"
    else:
        parts = [row.get(k) for k in ("repo", "path", "func_name")]
        if not all(isinstance(p, str) and p for p in parts):
            raise QLogError(f"{where}: a CodeSearchNet row needs a GitHub \"url\" or \"repo\", \"path\" "
                            f"and \"func_name\" to name it")
        base = f"{parts[0]}/{parts[1]}:{parts[2]}"
    return re.sub(r"\s+", "_", base.strip())


def remove_python_docstring(code: str) -> str:
    """``code`` without the docstring of its first ``def``/``class`` (the first statement if a string).

    Uses the tokenizer, so a string assigned or returned later in the body is never touched.
    Code the tokenizer rejects (some Python 2) is returned unchanged.
    """
    span = _python_docstring_span(code)
    if span is None:
        return code
    start, end = span
    # Take the whole line when the literal stands alone on it, so no blank line is left behind.
    line_start = code.rfind("\n", 0, start) + 1
    if not code[line_start:start].strip():
        start = line_start
    line_end = code.find("\n", end)
    line_end = len(code) if line_end < 0 else line_end + 1
    if not code[end:line_end].strip():
        end = line_end
    return code[:start] + code[end:]


def _python_docstring_span(code: str) -> tuple[int, int] | None:
    line_starts = [0]
    for line in code.splitlines(keepends=True):
        line_starts.append(line_starts[-1] + len(line))
    state, depth = "start", 0
    try:
        for tok in tokenize.generate_tokens(io.StringIO(code).readline):
            if state == "start":
                if tok.type == tokenize.NAME and tok.string in ("def", "class"):
                    state = "header"
            elif state == "header":
                # The ':' that ends the header is the first one outside brackets
                # (annotations, defaults and lambdas in the signature have their own).
                if tok.type == tokenize.OP and tok.string in "([{":
                    depth += 1
                elif tok.type == tokenize.OP and tok.string in ")]}":
                    depth -= 1
                elif tok.type == tokenize.OP and tok.string == ":" and depth == 0:
                    state = "body"
            elif tok.type in (tokenize.NEWLINE, tokenize.NL, tokenize.INDENT, tokenize.COMMENT):
                continue
            elif tok.type == tokenize.STRING:
                (r0, c0), (r1, c1) = tok.start, tok.end
                return line_starts[r0 - 1] + c0, line_starts[r1 - 1] + c1
            else:
                return None
    except (tokenize.TokenError, SyntaxError):
        return None
    return None


def _csn_query(row: Mapping[str, Any], query_field: str, where: str) -> str:
    value = row.get(query_field)
    if query_field == "docstring_tokens":
        if not isinstance(value, list) or not all(isinstance(t, str) for t in value):
            raise QLogError(f"{where}: \"docstring_tokens\" must be a list of strings")
        value = " ".join(value)
    elif not isinstance(value, str):
        raise QLogError(f"{where}: \"docstring\" must be a string")
    return " ".join(value.split())


def _norm(text: str) -> str:
    return " ".join(text.split())


def _unique(base: str, used: set[str]) -> str:
    docid, n = base, 1
    while docid in used:
        n += 1
        docid = f"{base}~{n}"
    used.add(docid)
    return docid


# --- CoSQA -------------------------------------------------------------------------------------

def prepare_cosqa(folder: PathLike, out: PathLike, overwrite: bool = False) -> PreparedDataset:
    """Prepare CoSQA: 500 web queries over its 6,267-function code base.

    Reads ``cosqa-retrieval-test-500.json`` (items ``idx, doc, code, retrieval_idx``: the qid,
    the query, the relevant function and its id) and ``code_idx_map.txt`` (``{code: id}``).
    Docids are ``code-<id>`` with the integer id of the map, so they line up with the original
    ``retrieval_idx``. Code is kept as published, docstrings included: CoSQA queries are web
    searches, not docstrings, and the original benchmark searches this exact text. Items with
    ``label`` 0 (not relevant) are skipped and counted.
    """
    folder = Path(folder)
    if folder.is_file():
        return _prepare_cosqa_records(folder, out, overwrite)
    if not folder.is_dir():
        raise QLogError(f"CoSQA input {str(folder)!r} not found (a folder with {COSQA_QUERIES_FILE} and "
                        f"{COSQA_CODE_FILE}, or one JSON file of records that carry their code)")
    queries_path, code_path = folder / COSQA_QUERIES_FILE, folder / COSQA_CODE_FILE
    code_ids = _read_cosqa_code_map(code_path)
    known = set(code_ids.values())
    items = _load_json(queries_path, "CoSQA queries")
    if not isinstance(items, list):
        raise QLogError(f"{queries_path}: expected a JSON array of query items")
    topics: dict[str, str] = {}
    qrels: dict[str, dict[str, int]] = {}
    not_relevant = mismatched = 0
    asked: set[str] = set()
    for n, item in enumerate(items, start=1):
        where = f"{queries_path}: entry {n} of its JSON array"
        if not isinstance(item, dict) or not all(k in item for k in ("idx", "doc", "retrieval_idx")):
            raise QLogError(f"{where} needs \"idx\", \"doc\" and \"retrieval_idx\"")
        qid, text, target = item["idx"], item["doc"], item["retrieval_idx"]
        check_id(qid, "qid", f" at {where}")
        if not isinstance(text, str):
            raise QLogError(f"{where}: \"doc\" must be a string")
        if not isinstance(target, int) or isinstance(target, bool) or target not in known:
            raise QLogError(f"{where}: retrieval_idx {target!r} is not an id of {code_path.name}")
        asked.add(qid)
        if item.get("label", 1) != 1:
            not_relevant += 1
            continue
        if isinstance(item.get("code"), str) and code_ids.get(item["code"], target) != target:
            mismatched += 1
        if qid in topics and topics[qid] != text:
            raise QLogError(f"{where}: qid {qid!r} appears earlier with a different query")
        topics[qid] = text
        qrels.setdefault(qid, {})[_cosqa_docid(target)] = 1
    if mismatched:
        warn(f"{mismatched} CoSQA items carry code that code_idx_map gives another id; retrieval_idx was used")
    docs = ((_cosqa_docid(i), code) for code, i in sorted(code_ids.items(), key=lambda kv: kv[1]))
    notes = {"docid_scheme": "code-<id> from code_idx_map", "items_label_0_skipped": not_relevant,
             "items_code_id_mismatch": mismatched, "queries_without_qrels_dropped": len(asked - set(topics))}
    sources = {"queries": queries_path, "code": code_path}
    with _staged(out, overwrite) as tmp:
        documents, corpus_notes = _write_corpus(docs, tmp, qrels)
        return _finish(tmp, out, "cosqa", sources, documents, topics, qrels, {**notes, **corpus_notes})


def _prepare_cosqa_records(path: Path, out: PathLike, overwrite: bool) -> PreparedDataset:
    """CoSQA as one JSON file of records that carry their code (the dev/test layout, no code map).

    Each record has ``idx`` (the qid), ``doc`` (the query), ``code`` and ``label`` (1 relevant, 0
    not). Every distinct code (exact text) is a document, ``code-<n>`` numbered by first appearance;
    a record with label 1 makes its code relevant to its query. Records with label 0 still bring
    their code into the corpus (as distractors); a query with no label-1 record has no judgment and
    is dropped, and counted.
    """
    items = _load_json(path, "CoSQA records")
    if not isinstance(items, list):
        raise QLogError(f"{path}: expected a JSON array of CoSQA records")
    code_ids: dict[str, int] = {}
    topics: dict[str, str] = {}
    qrels: dict[str, dict[str, int]] = {}
    asked: set[str] = set()
    not_relevant = 0
    for n, item in enumerate(items, start=1):
        where = f"{path}: record {n}"
        if not isinstance(item, dict) or not all(k in item for k in ("idx", "doc", "code")):
            raise QLogError(f"{where} needs \"idx\", \"doc\" and \"code\" (a folder with {COSQA_CODE_FILE} "
                            "is read when the records name their code by retrieval_idx)")
        qid, text, code = item["idx"], item["doc"], item["code"]
        qid = str(qid) if isinstance(qid, int) and not isinstance(qid, bool) else qid
        check_id(qid, "qid", f" at {where}")
        if not isinstance(text, str) or not isinstance(code, str):
            raise QLogError(f"{where}: \"doc\" and \"code\" must be strings")
        docid = _cosqa_docid(code_ids.setdefault(code, len(code_ids)))
        asked.add(qid)
        if item.get("label", 1) != 1:
            not_relevant += 1
            continue
        if qid in topics and topics[qid] != text:
            raise QLogError(f"{where}: qid {qid!r} appears earlier with a different query")
        topics[qid] = text
        qrels.setdefault(qid, {})[docid] = 1
    dropped = len(asked - set(topics))
    docs = ((_cosqa_docid(i), code) for code, i in code_ids.items())
    notes = {"docid_scheme": "code-<n>, distinct code numbered by first appearance", "items_label_0": not_relevant,
             "queries_without_qrels_dropped": dropped}
    with _staged(out, overwrite) as tmp:
        documents, corpus_notes = _write_corpus(docs, tmp, qrels)
        return _finish(tmp, out, "cosqa", {"records": path}, documents, topics, qrels, {**notes, **corpus_notes})


def _cosqa_docid(code_id: int) -> str:
    return f"code-{code_id}"


def _read_cosqa_code_map(path: Path) -> dict[str, int]:
    def pairs(items: list[tuple[str, Any]]) -> list[tuple[str, Any]]:
        return items  # keep duplicates visible; json's dict would silently keep the last

    raw = _load_json(path, "CoSQA code map", object_pairs_hook=pairs)
    if not isinstance(raw, list):
        raise QLogError(f"{path}: expected a JSON object mapping code to an integer id")
    code_ids: dict[str, int] = {}
    owner: dict[int, str] = {}
    for code, i in raw:
        if not isinstance(i, int) or isinstance(i, bool):
            raise QLogError(f"{path}: id {i!r} is not an integer")
        if code_ids.get(code, i) != i:
            raise QLogError(f"{path}: the same code is mapped to ids {code_ids[code]} and {i}")
        if owner.get(i, code) != code:
            raise QLogError(f"{path}: id {i} is given to two different functions")
        code_ids[code], owner[i] = i, code
    return code_ids


def _load_json(path: Path, what: str, **kwargs: Any) -> Any:
    try:
        with open(path, encoding="utf-8") as f:
            return json.load(f, **kwargs)
    except FileNotFoundError:
        raise QLogError(f"{what} file {str(path)!r} not found") from None
    except json.JSONDecodeError as e:
        raise QLogError(f"{path}:{e.lineno}: bad JSON: {e.msg} (column {e.colno})") from None
    except (OSError, UnicodeDecodeError) as e:
        raise QLogError(f"cannot read {what} file {str(path)!r}: {e}") from None


# --- TREC / Anserini ---------------------------------------------------------------------------

def prepare_trec(corpus: PathLike, topics: PathLike, qrels: PathLike, out: PathLike,
                 overwrite: bool = False) -> PreparedDataset:
    """Prepare an Anserini-style collection: a JSON corpus, topics (TREC, TSV or jsonl), TREC qrels.

    The corpus is re-written through :func:`~qlog_pyserini.formats.documents.iter_documents`, so bad or
    duplicate docids are caught here, not mid-indexing. All topics are kept, judged or not
    (trec_eval averages over the judged ones). Judged docids missing from the corpus and judged
    qids missing from the topics are kept in the qrels, counted in the manifest and logged:
    they usually mean the qrels and corpus spell ids differently.
    """
    topic_map = read_topics(topics)
    judgments = read_qrels(qrels)
    if not judgments:
        raise QLogError(f"qrels file {str(qrels)!r} holds no judgments")
    unknown = [qid for qid in judgments if qid not in topic_map]
    if unknown:
        warn(f"{len(unknown)} judged topics are not in {topics} (first: {unknown[0]})")
    ordered = {qid: judgments[qid] for qid in [*topic_map, *unknown] if qid in judgments}
    sources = {"corpus": corpus, "topics": topics, "qrels": qrels}
    with _staged(out, overwrite) as tmp:
        documents, notes = _write_corpus(iter_documents(corpus), tmp, ordered)
        notes["judged_qids_not_in_topics"] = len(unknown)
        return _finish(tmp, out, "trec", sources, documents, topic_map, ordered, notes)


# --- ir_datasets -------------------------------------------------------------------------------

def prepare_irds(dataset_id: str, out: PathLike, overwrite: bool = False) -> PreparedDataset:
    """Prepare an ``ir_datasets`` dataset (``beir/scifact/test``, ``codesearchnet/test``, ``cacm``, ...)
    from the local ir_datasets cache (``$IR_DATASETS_HOME``, default ``~/.ir_datasets``).

    Nothing is downloaded: a dataset whose files are not in the cache is an error naming the command
    that fetches them. A document is its ``default_text()`` (for BEIR: title and text), a query its
    ``default_text()``. As with BEIR, only queries with judgments are kept (the manifest counts the
    others); grades are kept as given. Needs ``pip install ir_datasets`` (the ``irds`` extra).
    """
    irds = _import_ir_datasets()
    try:
        dataset = irds.load(dataset_id)
    except KeyError:
        raise QLogError(f"ir_datasets has no dataset {dataset_id!r} (see https://ir-datasets.com)") from None
    lacking = [what for what, has in (("documents", dataset.has_docs()), ("queries", dataset.has_queries()),
                                      ("qrels", dataset.has_qrels())) if not has]
    if lacking:
        raise QLogError(f"ir_datasets dataset {dataset_id!r} has no {' or '.join(lacking)}; pick a dataset "
                        "with all three (often a split such as beir/scifact/test)")
    with _no_downloads(irds, dataset_id):
        qrels: dict[str, dict[str, int]] = {}
        for qrel in dataset.qrels_iter():
            qrels.setdefault(check_id(str(qrel.query_id), "qid", f" in {dataset_id} qrels"), {})[
                check_id(str(qrel.doc_id), "docid", f" in {dataset_id} qrels")] = int(qrel.relevance)
        queries = {check_id(str(q.query_id), "qid", f" in {dataset_id} queries"): " ".join(q.default_text().split())
                   for q in dataset.queries_iter()}
        topics = {qid: text for qid, text in queries.items() if qid in qrels}
        ordered = {qid: qrels[qid] for qid in topics}
        with _staged(out, overwrite) as tmp:
            docs = ((str(d.doc_id), d.default_text()) for d in dataset.docs_iter())
            documents, notes = _write_corpus(docs, tmp, ordered)
            notes.update(dataset=dataset_id, ir_datasets_version=getattr(irds, "__version__", "?"),
                         queries_without_qrels_dropped=len(queries) - len(topics),
                         judged_qids_not_in_queries=sum(1 for q in qrels if q not in queries))
            return _finish(tmp, out, "irds", {"ir_datasets_home": irds.util.home_path()}, documents, topics,
                           ordered, notes)


def _import_ir_datasets() -> Any:
    try:
        import ir_datasets
    except ImportError:
        raise QLogError("--format irds needs ir_datasets: pip install ir_datasets (or the irds extra: "
                        "pip install 'qlog-pyserini[irds]')") from None
    return ir_datasets


@contextlib.contextmanager
def _no_downloads(irds: Any, dataset_id: str) -> Iterator[None]:
    """Make every ir_datasets network download fail with one clear error while the block runs."""
    download = irds.util.download.RequestsDownload
    original = download.__iter__

    def refuse(self: Any) -> Iterator[bytes]:
        raise QLogError(f"ir_datasets dataset {dataset_id!r} is not in the local ir_datasets cache "
                        f"({irds.util.home_path()}): it would download {self.url}. Fetch it first "
                        f"(e.g. ir_datasets export {dataset_id} docs > /dev/null), then prepare again")

    download.__iter__ = refuse
    try:
        yield
    finally:
        download.__iter__ = original


# --- shared ------------------------------------------------------------------------------------

def _first_existing(folder: Path, names: Sequence[str], what: str) -> Path:
    if folder.is_file():
        raise QLogError(f"{str(folder)!r} is a file; a folder holding the {what} file {names[0]!r} is expected")
    for name in names:
        if (folder / name).is_file():
            return folder / name
    if not folder.is_dir():
        raise QLogError(f"folder {str(folder)!r} not found")
    raise QLogError(f"{what} file {names[0]!r} not found in {str(folder)!r}")


def _write_corpus(docs: Iterable[tuple[str, str]], tmp: Path,
                  qrels: Mapping[str, Mapping[str, int]]) -> tuple[int, dict[str, Any]]:
    """Write the corpus shards; count judged docids the corpus lacks (a sign of mismatched ids)."""
    judged = {docid for docs_ in qrels.values() for docid in docs_}
    found: set[str] = set()

    def watch(it: Iterable[tuple[str, str]]) -> Iterator[tuple[str, str]]:
        for docid, contents in it:
            if docid in judged:
                found.add(docid)
            yield docid, contents

    documents = write_json_collection(watch(docs), tmp / CORPUS_DIR)
    if documents == 0:
        raise QLogError("the corpus holds no documents")
    missing_lines = sum(1 for d in qrels.values() for docid in d if docid not in found)
    if missing_lines:
        warn(f"{missing_lines} qrels lines ({len(judged - found)} distinct docids) name documents that are not "
             "in the corpus")
    return documents, {"qrels_lines_docid_not_in_corpus": missing_lines,
                       "qrels_docids_not_in_corpus": len(judged - found)}


def _finish(tmp: Path, out: PathLike, fmt: str, sources: Mapping[str, PathLike], documents: int,
            topics: Mapping[str, str], qrels: Mapping[str, Mapping[str, int]],
            notes: dict[str, Any]) -> PreparedDataset:
    if not topics:
        raise QLogError("no queries to write")
    write_topics_tsv(tmp / TOPICS_FILE, topics)
    write_qrels(tmp / QRELS_FILE, qrels)
    result = PreparedDataset(format=fmt, out=Path(out), documents=documents, queries=len(topics),
                             judged_queries=sum(1 for q in qrels if qrels[q]),
                             qrels=sum(len(d) for d in qrels.values()), notes=notes)
    manifest = {
        "format": fmt,
        "sources": {k: str(Path(v).resolve()) for k, v in sources.items()},
        "files": {"corpus": CORPUS_DIR, "topics": TOPICS_FILE, "qrels": QRELS_FILE},
        "counts": {"documents": result.documents, "queries": result.queries,
                   "judged_queries": result.judged_queries, "qrels": result.qrels},
        "notes": notes,
    }
    write_json(tmp / MANIFEST_FILE, manifest)
    return result


def check_output_folder(out: PathLike, overwrite: bool, inputs: Iterable[PathLike] = ()) -> None:
    """Raise :class:`QLogError` unless ``out`` may receive a prepared dataset.

    A missing or empty folder is fine. A non-empty one needs ``overwrite``, and even then must
    hold a ``manifest.json`` (or our marker): replacing means deleting, and only a folder this
    module wrote is deleted, never one a mistyped path happens to name; nor ``.``, a parent of an
    input, or home (:func:`qlog_pyserini.system.outputs.check_output_dir`).
    """
    check_output_dir(out, "prepare", inputs=inputs, overwrite=overwrite)


def _staged(out: PathLike, overwrite: bool) -> contextlib.AbstractContextManager[Path]:
    """``out`` checked, then a fresh folder beside it, published as ``out`` when the block succeeds."""
    check_output_folder(out, overwrite)
    return staged_output(out, "prepare", "staging", overwrite=overwrite)
