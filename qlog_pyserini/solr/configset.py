"""A Solr configset that scores one text field with q-log BM25.

The field type analyzes exactly as Anserini's ``DefaultEnglishAnalyzer`` (StandardTokenizer,
EnglishPossessiveFilter, LowerCaseFilter, StopFilter with Lucene's English stop set, PorterStemFilter;
tested token for token in java-similarity/qlog-solr), so a Solr collection built from a corpus ranks as
the Lucene index that ``python -m qlog_pyserini.index`` builds from it. ``schema.xml`` is the source of
truth (ClassicIndexSchemaFactory): changing q is a new schema.xml plus a collection RELOAD.
"""

from __future__ import annotations

import io
import json
import os
import zipfile
from dataclasses import dataclass
from pathlib import Path
from xml.sax.saxutils import escape

from qlog_pyserini.errors import QLogError
from qlog_pyserini.formula import DEFAULT_B, DEFAULT_K1, check_float_parameter, check_form, check_q
from qlog_pyserini.system.outputs import MARKER, OutputKind, check_output_dir, staged_output, write_text

STATS_CACHES = {
    # global document frequencies across shards: what q < 1 needs on a sharded collection
    "exact": "org.apache.solr.search.stats.ExactStatsCache",
    # Solr's default: each shard scores with its own statistics (rankings drift; see results/solr-drift.md)
    "local": "org.apache.solr.search.stats.LocalStatsCache",
}

FIELD = "contents"
FACTORY = "io.qlog.solr.QLogBM25SimilarityFactory"

# In every configset we write: Solr's configset UPLOAD with overwrite replaces a whole configset, which other
# collections may share (Solr's _default), so only one that carries this file is replaced without --force.
CONFIGSET_MARKER = "qlog-pyserini.json"


@dataclass(frozen=True)
class ConfigSet:
    """The parameters a configset fixes: the similarity's and the stats cache."""

    q: float = 1.0
    k1: float = DEFAULT_K1
    b: float = DEFAULT_B
    idf_form: str = "lucene"
    stats_cache: str = "exact"

    def __post_init__(self) -> None:
        object.__setattr__(self, "q", check_q(self.q))
        object.__setattr__(self, "k1", check_float_parameter("k1", self.k1))
        b = check_float_parameter("b", self.b)
        if b > 1:
            raise QLogError(f"illegal b value: {self.b!r}, must be between 0 and 1")
        object.__setattr__(self, "b", b)
        object.__setattr__(self, "idf_form", check_form(self.idf_form))
        if self.stats_cache not in STATS_CACHES:
            raise QLogError(f"illegal stats cache: {self.stats_cache!r}, must be one of {', '.join(STATS_CACHES)}")

    def with_q(self, q: float) -> "ConfigSet":
        return ConfigSet(q, self.k1, self.b, self.idf_form, self.stats_cache)

    def schema_xml(self) -> str:
        # repr() of a Python float is the shortest text that reads back as the same double, as Java's parser does
        return f"""<?xml version="1.0" encoding="UTF-8"?>
<!-- written by python -m qlog_pyserini.solr: q-log BM25 ({escape(str(self))}) -->
<schema name="qlog" version="1.7">
  <uniqueKey>id</uniqueKey>
  <field name="id" type="string" indexed="true" stored="true" required="true"/>
  <field name="_version_" type="plong" indexed="false" stored="false"/>
  <field name="{FIELD}" type="text_anserini" indexed="true" stored="false"/>

  <fieldType name="string" class="solr.StrField" sortMissingLast="true" docValues="true"/>
  <fieldType name="plong" class="solr.LongPointField" docValues="true"/>

  <!-- Anserini's DefaultEnglishAnalyzer; the stop filter without a words file is Lucene's English stop set -->
  <fieldType name="text_anserini" class="solr.TextField" autoGeneratePhraseQueries="false">
    <analyzer>
      <tokenizer name="standard"/>
      <filter name="englishPossessive"/>
      <filter name="lowercase"/>
      <filter name="stop"/>
      <filter name="porterStem"/>
    </analyzer>
    <similarity class="{FACTORY}">
      <double name="q">{self.q!r}</double>
      <float name="k1">{self.k1!r}</float>
      <float name="b">{self.b!r}</float>
      <str name="idf_form">{self.idf_form}</str>
    </similarity>
  </fieldType>

  <similarity class="solr.SchemaSimilarityFactory"/>
</schema>
"""

    def solrconfig_xml(self) -> str:
        return f"""<?xml version="1.0" encoding="UTF-8"?>
<!-- written by python -m qlog_pyserini.solr -->
<config>
  <luceneMatchVersion>9.12</luceneMatchVersion>
  <dataDir>${{solr.data.dir:}}</dataDir>
  <directoryFactory name="DirectoryFactory" class="${{solr.directoryFactory:solr.NRTCachingDirectoryFactory}}"/>
  <schemaFactory class="ClassicIndexSchemaFactory"/>
  <updateHandler class="solr.DirectUpdateHandler2">
    <updateLog><str name="dir">${{solr.ulog.dir:}}</str></updateLog>
  </updateHandler>
  <statsCache class="{STATS_CACHES[self.stats_cache]}"/>
  <requestHandler name="/select" class="solr.SearchHandler">
    <lst name="defaults">
      <str name="df">{FIELD}</str>
      <str name="q.op">OR</str>
    </lst>
  </requestHandler>
</config>
"""

    def files(self) -> dict[str, str]:
        """Every file of the configset, our marker included (what ``deploy`` and ``sweep`` may later replace)."""
        marker = json.dumps({"tool": "qlog-pyserini", "kind": "solr-configset", "similarity": str(self)}) + "\n"
        return {"schema.xml": self.schema_xml(), "solrconfig.xml": self.solrconfig_xml(), CONFIGSET_MARKER: marker}

    def zip_bytes(self) -> bytes:
        """The configset as the zip Solr's configset UPLOAD takes (files at the zip's root)."""
        buffer = io.BytesIO()
        with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as z:
            for name, text in self.files().items():
                z.writestr(name, text)
        return buffer.getvalue()

    def __str__(self) -> str:
        return f"q={self.q!r}, k1={self.k1!r}, b={self.b!r}, idf_form={self.idf_form}, statsCache={self.stats_cache}"


#: a configset folder the ``configset`` subcommand writes: replaced (``--overwrite``) only when this tool wrote it
CONFIGSET_OUTPUT = OutputKind("solr-configset")


def write_configset(out_dir: str | os.PathLike, config: ConfigSet, overwrite: bool = False) -> Path:
    """Write ``schema.xml`` and ``solrconfig.xml`` as the folder ``out_dir``; returns it. A non-empty
    ``out_dir`` is replaced only with ``overwrite`` and only if this tool wrote it (:func:`check_output_dir`)."""
    out = check_output_dir(out_dir, CONFIGSET_OUTPUT, overwrite=overwrite)
    with staged_output(out, CONFIGSET_OUTPUT, "configset", overwrite=overwrite) as stage:
        for name, text in config.files().items():
            write_text(stage / name, text)
    return out


def zip_folder(folder: str | os.PathLike) -> bytes:
    """A configset folder (``solrconfig.xml`` at its root, or in ``conf/``) as an UPLOAD zip."""
    root = Path(folder)
    if (root / "conf" / "solrconfig.xml").is_file():
        root = root / "conf"
    if not (root / "solrconfig.xml").is_file():
        raise QLogError(f"{str(folder)!r} is not a configset: no solrconfig.xml in it or in its conf/")
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as z:
        # the output folder's own marker (which files this tool wrote there) is not part of the configset
        for path in sorted(p for p in root.rglob("*") if p.is_file() and p.name != MARKER):
            z.write(path, path.relative_to(root).as_posix())
        if not (root / CONFIGSET_MARKER).is_file():
            # uploaded by us under the collection's name: ours to replace later
            z.writestr(CONFIGSET_MARKER, json.dumps({"tool": "qlog-pyserini", "kind": "solr-configset"}) + "\n")
    return buffer.getvalue()
