"""The two analyzers an index can be built with, and what they make of a text.

    >>> from qlog_pyserini.analysis.analyzers import analyze
    >>> analyze("handleWebSocketUpgrade", "identifier")  # doctest: +JVM
    ['handlewebsocketupgrad', 'handl', 'web', 'socket', 'upgrad']

``default`` is Anserini's ``DefaultEnglishAnalyzer`` (StandardTokenizer, possessive and lower-case
filters, English stopwords, Porter stemming): the frozen generic tokenization q-log BM25 targets.
``identifier`` is the same chain with Lucene's ``WordDelimiterGraphFilter`` splitting camelCase,
PascalCase (acronyms included), snake_case, dotted names and letter/digit runs while keeping the
original token; its exact chain is in the Javadoc of ``io.qlog.analysis.IdentifierAnalyzer``.

An index records its analyzer in its Lucene commit data (``qlog.analyzer``); an index without
the record (any index built by Anserini or Pyserini) was built with ``default``.
:class:`qlog_pyserini.lucene.searcher.QLogSearcher` reads the record and analyzes queries the same way.
"""

from __future__ import annotations

import contextlib
import functools
import os
from typing import Any, Iterator

from qlog_pyserini.errors import QLogError
from qlog_pyserini.jvm.bridge import jclass

ANALYZERS = ("default", "identifier")
ANALYZER_CLASS = "io.qlog.analysis.IdentifierAnalyzer"
INDEXER_CLASS = "io.qlog.index.AnalyzerIndexer"

#: the analyzers Anserini's own indexer builds with other flags (Pyserini's ``-stemmer``, ``-pretokenized``), which
#: a query of an index built that way must be analyzed with; name -> the Python of its Lucene ``Analyzer``
ANSERINI_ANALYZERS = {
    "krovetz": lambda: jclass("io.anserini.analysis.DefaultEnglishAnalyzer").newStemmingInstance("krovetz"),
    "nostem": lambda: jclass("io.anserini.analysis.DefaultEnglishAnalyzer").newNonStemmingInstance(),
    "whitespace": lambda: jclass("org.apache.lucene.analysis.core.WhitespaceAnalyzer")(),
}
QUERY_ANALYZERS = (*ANALYZERS, *ANSERINI_ANALYZERS)


def check_analyzer(name: str, choices: tuple[str, ...] = ANALYZERS) -> str:
    """``name`` if it is one of ``choices``, else :class:`QLogError` naming them."""
    if name not in choices:
        raise QLogError(f"unknown analyzer {name!r}; choose one of {', '.join(choices)}")
    return name


def analyzer_from_flags(stemmer: str | None = None, pretokenized: bool = False) -> str | None:
    """The query analyzer Pyserini's flags name (``--stemmer porter|krovetz|none``, ``--pretokenized``), None when
    neither is given."""
    if pretokenized:
        if stemmer not in (None, "none"):
            raise QLogError(f"--pretokenized and --stemmer {stemmer} contradict each other: pretokenized text is "
                            "not stemmed")
        return "whitespace"
    return {None: None, "porter": "default", "krovetz": "krovetz", "none": "nostem"}[stemmer]


def java_analyzer(name: str) -> Any:
    """The Lucene ``Analyzer`` called ``name`` (starts the JVM)."""
    if check_analyzer(name, QUERY_ANALYZERS) in ANSERINI_ANALYZERS:
        return ANSERINI_ANALYZERS[name]()
    return jclass(ANALYZER_CLASS).forName(name)


def analyze(text: str, analyzer: str = "default") -> list[str]:
    """The terms ``text`` is indexed as (and a query is searched as) under ``analyzer``, in order."""
    if check_analyzer(analyzer, QUERY_ANALYZERS) not in ANSERINI_ANALYZERS:
        return [str(t) for t in jclass(ANALYZER_CLASS).analyze(analyzer, text).toArray()]
    stream = java_analyzer(analyzer).tokenStream("contents", text)
    term = stream.getAttribute(jclass("org.apache.lucene.analysis.tokenattributes.CharTermAttribute"))
    terms = []
    stream.reset()
    while stream.incrementToken():
        terms.append(str(term.toString()))
    stream.end()
    stream.close()
    return terms


# What the terms of an index say of the analyzer that made them, for an index that does not record it (Anserini's
# and Pyserini's indexers record nothing). Under Anserini's default analyzer every term is lower case, no term is a
# stopword and Porter's stem of a stem is almost always itself; an index built with -stemmer none holds the words
# as written (a third or more of them change under Porter), one built -pretokenized keeps case and stopwords.
_SAMPLE_PREFIXES = "abcdefghijklmnopqrstuvwxyz"
_PER_PREFIX = 24
_MIN_EVIDENCE = 25  # alphabetic terms of 4 letters or more; fewer (a corpus of identifiers, numbers) says nothing
UNSTEMMED_SHARE = 0.2  # share of the sampled terms that Porter changes above which the index is not stemmed
STOPWORD_DOC_SHARE = 0.1  # share of the documents a kept stopword is in, at least, to count as kept
_STOPWORDS = ("the", "and", "of", "to", "is", "for", "with", "that")  # dropped by every Anserini English analyzer

#: what an index built with each analyzer is, and the flag (Pyserini's) that searches it so
_BUILT = {"default": ("built with Anserini's default analyzer (Porter stemming)", "--stemmer porter"),
          "nostem": ("built without stemming (Pyserini's -stemmer none)", "--stemmer none"),
          "whitespace": ("built pretokenized (Pyserini's -pretokenized: whitespace tokens, no stemming, stopwords "
                         "kept)", "--pretokenized")}
# the index an analyzer's queries match, as inferred_analyzer names it (krovetz stems are not told from Porter's)
_MATCHES = {"default": "default", "identifier": "default", "nostem": "nostem", "whitespace": "whitespace"}


def query_analyzer(index_dir: str | os.PathLike, asked: str | None = None) -> str:
    """The analyzer queries of ``index_dir`` are analyzed with: ``asked`` (Pyserini's flags, or ``analyzer=``),
    else the one the index records, else Anserini's default; :class:`QLogError` when the index's own terms show
    it was built otherwise (searched with Porter stemming, an index built -stemmer none lost a third of its
    NDCG@10 without a word)."""
    recorded = recorded_analyzer(index_dir)
    if asked is not None:
        check_analyzer(asked, QUERY_ANALYZERS)
    if recorded is not None:
        if recorded not in ANALYZERS:
            raise QLogError(f"index {str(index_dir)!r} was built with analyzer {recorded!r}, which this version "
                            f"does not know (it knows {', '.join(ANALYZERS)})")
        return recorded if asked is None else asked
    name = asked or "default"
    inferred, evidence = _inferred(str(index_dir), _commit_stamp(index_dir))
    if inferred is not None and _MATCHES.get(name, inferred) != inferred:
        built, flag = _BUILT[inferred]
        raise QLogError(f"index {str(index_dir)!r} looks {built}: {evidence}; its queries would be analyzed "
                        f"otherwise and miss its terms. Search it with {flag} (Pyserini's flag; "
                        f"analyzer={inferred!r} from Python)")
    return name


def _commit_stamp(index_dir: str | os.PathLike) -> tuple[str, ...]:
    return tuple(sorted(p for p in os.listdir(index_dir) if p.startswith("segments_")))


@functools.lru_cache(maxsize=64)
def _inferred(index_dir: str, stamp: tuple[str, ...]) -> tuple[str | None, str]:
    # once per index commit in a process (a sweep or a test suite opens one index many times)
    return inferred_analyzer(index_dir)


def inferred_analyzer(index_dir: str | os.PathLike, field: str = "contents") -> tuple[str | None, str]:
    """The analyzer the terms of ``index_dir`` look made by (``default``, ``nostem`` or ``whitespace``, None when
    they do not tell), and the evidence in words. Reads up to 632 terms of ``field``."""
    with open_reader(index_dir) as reader:
        terms = _sample_terms(reader, field)
        # A stopword kept by the analyzer is in a large share of the documents; under Porter a rare word can
        # stem to one ("ands" -> "and" in source code), which says nothing.
        term_class, docs = jclass("org.apache.lucene.index.Term"), max(int(reader.numDocs()), 1)
        stopwords = [w for w in _STOPWORDS if w in terms
                     and int(reader.docFreq(term_class(field, w))) >= STOPWORD_DOC_SHARE * docs]
    cased = [t for t in terms if t != t.lower()]
    if len(cased) > 0.05 * max(len(terms), 1) and len(cased) >= 3:
        return "whitespace", f"{len(cased)} of {len(terms)} sampled terms keep upper case ({cased[0]!r})"
    if len(stopwords) >= 2:
        return "whitespace", f"it holds stopwords ({', '.join(repr(w) for w in stopwords[:3])})"
    words = [t for t in terms if t.isalpha() and t.isascii() and len(t) >= 4]
    if len(words) < _MIN_EVIDENCE:
        return None, f"only {len(words)} sampled terms are words"
    changed = [t for t in words if analyze(t, "default") != [t]]
    evidence = f"{len(changed)} of {len(words)} sampled words change under Porter stemming"
    if len(changed) > UNSTEMMED_SHARE * len(words):
        return "nostem", f"{evidence} ({', '.join(repr(t) for t in changed[:3])})"
    return "default", evidence


def _sample_terms(reader: Any, field: str) -> list[str]:
    from jnius import cast  # only after jclass has started the JVM with our class path

    found = jclass("org.apache.lucene.index.MultiTerms").getTerms(cast("org.apache.lucene.index.IndexReader", reader),
                                                                  field)
    if found is None:
        return []
    terms, bytes_ref = [], jclass("org.apache.lucene.util.BytesRef")
    status = jclass("org.apache.lucene.index.TermsEnum$SeekStatus")
    probe = found.iterator()
    terms += [w for w in _STOPWORDS if probe.seekExact(bytes_ref(w.encode()))]
    for prefix in _SAMPLE_PREFIXES:
        walk = found.iterator()
        if walk.seekCeil(bytes_ref(prefix.encode())) == status.END:
            continue
        term = walk.term()
        for _ in range(_PER_PREFIX):
            if term is None:
                break
            terms.append(str(term.utf8ToString()))
            term = walk.next()
    return list(dict.fromkeys(terms))


def recorded_analyzer(index_dir: str | os.PathLike) -> str | None:
    """The analyzer ``index_dir`` records in its commit data (our ``index --analyzer``), None without a record."""
    with open_reader(index_dir) as reader:
        name = reader.getIndexCommit().getUserData().get("qlog.analyzer")
    return None if name is None else str(name)


@contextlib.contextmanager
def open_reader(index_dir: str | os.PathLike) -> Iterator[Any]:
    """A Lucene ``DirectoryReader`` of the index folder ``index_dir`` (which must exist: Lucene would create it),
    closed with its directory on the way out."""
    directory = jclass("org.apache.lucene.store.FSDirectory").open(jclass("java.io.File")(str(index_dir)).toPath())
    try:
        reader = jclass("org.apache.lucene.index.DirectoryReader").open(directory)
        try:
            yield reader
        finally:
            reader.close()
    finally:
        directory.close()


def index_analyzer(index_dir: str | os.PathLike) -> str:
    """The analyzer ``index_dir`` was built with: its commit record, else ``default`` (starts the JVM)."""
    name = str(jclass(INDEXER_CLASS).recordedAnalyzer(str(index_dir)))
    if name not in ANALYZERS:
        raise QLogError(f"index {str(index_dir)!r} was built with analyzer {name!r}, which this version "
                        f"does not know (it knows {', '.join(ANALYZERS)})")
    return name
