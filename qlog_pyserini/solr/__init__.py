"""q-log BM25 in a running Solr (9.x, standalone or SolrCloud), over HTTP.

The similarity itself runs inside Solr (``io.qlog.solr.QLogBM25SimilarityFactory`` from
``java-similarity/qlog-solr``, dropped into every node's ``lib/``); this package writes a configset that
uses it, creates or RELOADs a collection, indexes a corpus the ``index`` verb accepts, and writes TREC
runs from a live Solr URL, so ``eval``, ``compare`` and ``sweep``-style q studies work on Solr runs.

Library: :mod:`.configset` (the schema and solrconfig), :mod:`.client` (the HTTP calls, with
``requests``), :mod:`.workflow` (index a corpus, search topics into a run, sweep q). The command line
is ``python -m qlog_pyserini.solr <subcommand>``.
"""

from qlog_pyserini.solr.client import SolrClient, escape_query
from qlog_pyserini.solr.configset import ConfigSet, write_configset
from qlog_pyserini.solr.workflow import index_corpus, search_topics, sweep_q

__all__ = ["ConfigSet", "SolrClient", "escape_query", "index_corpus", "search_topics", "sweep_q", "write_configset"]
