"""The configset writer and the query escaping, without Solr (pure Python)."""

from __future__ import annotations

import io
import xml.etree.ElementTree as ET
import zipfile

import pytest

from qlog_pyserini.errors import QLogError
from qlog_pyserini.solr import ConfigSet, escape_query, write_configset
from qlog_pyserini.solr.client import SolrClient


def test_schema_carries_the_similarity_parameters_exactly() -> None:
    schema = ET.fromstring(ConfigSet(q=0.7, k1=1.2, b=0.75, idf_form="RSJ").schema_xml().encode())
    sim = schema.find("./fieldType[@name='text_anserini']/similarity")
    assert sim.get("class") == "io.qlog.solr.QLogBM25SimilarityFactory"
    params = {e.get("name"): e.text for e in sim}
    # what Java's Double.parseDouble / Float.parseFloat read back is the same number Python holds
    assert params == {"q": "0.7", "k1": "1.2", "b": "0.75", "idf_form": "rsj"}
    chain = [e.get("name") for e in schema.find("./fieldType[@name='text_anserini']/analyzer")]
    assert chain == ["standard", "englishPossessive", "lowercase", "stop", "porterStem"]


def test_stats_cache_choice_reaches_solrconfig() -> None:
    exact = ET.fromstring(ConfigSet().solrconfig_xml().encode()).find("statsCache").get("class")
    local = ET.fromstring(ConfigSet(stats_cache="local").solrconfig_xml().encode()).find("statsCache").get("class")
    assert (exact, local) == ("org.apache.solr.search.stats.ExactStatsCache", "org.apache.solr.search.stats.LocalStatsCache")


@pytest.mark.parametrize("kwargs, message", [
    ({"q": float("nan")}, "illegal q value"),
    ({"q": 7}, "must be between -1.0 and 3.0"),
    ({"b": 1.5}, "illegal b value: 1.5, must be between 0 and 1"),
    ({"k1": -1}, "illegal k1 value"),
    ({"idf_form": "okapi"}, "illegal idf form"),
    ({"stats_cache": "global"}, "illegal stats cache: 'global', must be one of exact, local"),
])
def test_bad_parameters_are_one_clear_error(kwargs, message) -> None:
    with pytest.raises(QLogError, match=message):
        ConfigSet(**kwargs)


def test_written_folder_and_zip_hold_the_same_files(tmp_path) -> None:
    config = ConfigSet(q=0.5)
    out = write_configset(tmp_path / "cs", config)
    with zipfile.ZipFile(io.BytesIO(config.zip_bytes())) as z:
        assert sorted(z.namelist()) == ["qlog-pyserini.json", "schema.xml", "solrconfig.xml"]
        for name in z.namelist():
            assert z.read(name).decode() == (out / name).read_text()


def test_escape_query_matches_solrj_escapeQueryChars() -> None:
    # SolrJ's ClientUtils.escapeQueryChars escapes exactly these characters and whitespace
    special = '\\+-!():^[]"{}~*?|&;/'
    assert escape_query(special) == "".join("\\" + c for c in special)
    assert escape_query("a b\tc") == "a\\ b\\\tc"
    assert escape_query("parse_json.body#1 @x=%y'z") == "parse_json.body#1\\ @x=%y'z"


def test_bad_url_is_refused() -> None:
    with pytest.raises(QLogError, match="illegal Solr URL"):
        SolrClient("127.0.0.1:8983/solr")


def test_scores_are_written_as_anserini_writes_them() -> None:
    from qlog_pyserini.formats.trec import Hit
    from qlog_pyserini.solr.workflow import anserini_scores

    # float32 scores as Solr returns them, already ordered (score desc, id asc). Expected: AnseriniTies' loop
    # (round to 4 decimals, then 1e-6f per tie within 1e-4f of the line above) run in Java on these floats;
    # in float32, 19.6575 - 1e-6 and 19.6575 - 2e-6 land on the same float, as they do in Anserini; then, as
    # AnseriniTies.strictlyDecreasing does, a score not below the one above becomes the next float down
    # (float32 spacing at 19.66 is 2**-19, about 1.9e-6)
    hits = [Hit("a", 19.657528), Hit("b", 19.657528), Hit("c", 19.65751), Hit("d", 12.00004), Hit("e", 3.0)]
    out = anserini_scores(hits)
    assert [h.docid for h in out] == ["a", "b", "c", "d", "e"]
    assert [f"{h.score:.6f}" for h in out] == ["19.657499", "19.657497", "19.657495", "12.000000", "3.000000"]
    assert out[2].score == out[1].score - 2 ** -19
