package io.qlog.elasticsearch;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertThrows;

import io.qlog.similarities.QLogBM25Similarity;
import org.elasticsearch.common.settings.Settings;
import org.elasticsearch.plugins.PluginDescriptor;
import org.junit.Test;

/**
 * The plugin's parameters as Elasticsearch hands them over (a settings group, JSON numbers as text, the
 * provider's {@code type} among them), and its descriptor as Elasticsearch's own PluginDescriptor reads it.
 */
public class TestQLogSimilarityPlugin {

  @Test
  public void settingsReachTheSimilarityAndBadOnesNameTheType() {
    // index settings store JSON numbers as text; the checks themselves are QLogBM25Parameters' (its own test)
    QLogBM25Similarity s = QLogSimilarityPlugin.similarity(Settings.builder().put("type", QLogSimilarityPlugin.TYPE)
        .put("q", 0.7).put("k1", 1.2).put("b", 0.75).put("idf_form", "rsj").build());
    assertEquals("QLogBM25(k1=1.2,b=0.75,q=0.7,form=rsj)", s.toString());
    assertEquals("similarity type [qlog_bm25]: illegal b value: 1.5, must be between 0 and 1",
        assertThrows(IllegalArgumentException.class, () -> QLogSimilarityPlugin.similarity(
            Settings.builder().put("type", QLogSimilarityPlugin.TYPE).put("b", "1.5").build())).getMessage());
  }

  @Test
  public void descriptorIsValidForThisElasticsearch() throws Exception {
    PluginDescriptor info = PluginDescriptor.readFromProperties(DescriptorCheck.METADATA);
    DescriptorCheck.assertNamesThePlugin(info.getName(), info.getClassname());
    // the version a node checks at install and start: this build of Elasticsearch, exactly
    assertEquals(org.elasticsearch.Build.current().version(), info.getElasticsearchVersion());
  }
}
