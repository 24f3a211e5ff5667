package io.qlog.opensearch;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertThrows;
import static org.junit.Assert.assertTrue;

import io.qlog.similarities.QLogBM25Similarity;
import org.opensearch.Version;
import org.opensearch.common.settings.Settings;
import org.opensearch.plugins.PluginInfo;
import org.opensearch.plugins.PluginsService;
import org.junit.Test;

/**
 * The plugin's parameters as OpenSearch hands them over (a settings group, JSON numbers as text, the
 * provider's {@code type} among them), and its descriptor as OpenSearch's own PluginInfo reads it.
 */
public class TestQLogSimilarityPlugin {

  private static QLogBM25Similarity make(String... kv) {
    Settings.Builder settings = Settings.builder().put("type", QLogSimilarityPlugin.TYPE);
    for (int i = 0; i < kv.length; i += 2) {
      settings.put(kv[i], kv[i + 1]);
    }
    return QLogSimilarityPlugin.similarity(settings.build());
  }

  @Test
  public void settingsReachTheSimilarity() {
    // index settings store JSON numbers as text, as Settings.put(String, double) does here
    QLogBM25Similarity s = QLogSimilarityPlugin.similarity(Settings.builder().put("type", QLogSimilarityPlugin.TYPE)
        .put("q", 0.7).put("k1", 1.2).put("b", 0.75).put("idf_form", "rsj").build());
    assertEquals("QLogBM25(k1=1.2,b=0.75,q=0.7,form=rsj)", s.toString());
    assertEquals("QLogBM25(k1=0.9,b=0.4,q=1.0,form=lucene)", make().toString());
  }

  @Test
  public void badSettingsAreRefusedWithTheTypeName() {
    // the values are QLogBM25Parameters' (TestQLogBM25Parameters); here, the prefix OpenSearch users see
    assertEquals("similarity type [qlog_bm25]: illegal b value: 1.5, must be between 0 and 1",
        assertThrows(IllegalArgumentException.class, () -> make("b", "1.5")).getMessage());
    assertEquals("similarity type [qlog_bm25]: illegal q value: 5.0, must be between -1.0 and 3.0",
        assertThrows(IllegalArgumentException.class, () -> make("q", "5")).getMessage());
    assertEquals("similarity type [qlog_bm25]: unknown parameter 'idfForm', allowed: b, idf_form, k1, q",
        assertThrows(IllegalArgumentException.class, () -> make("idfForm", "rsj")).getMessage());
  }

  @Test
  public void descriptorIsValidForThisOpenSearch() throws Exception {
    PluginInfo info = PluginInfo.readFromProperties(DescriptorCheck.METADATA);
    DescriptorCheck.assertNamesThePlugin(info.getName(), info.getClassname());
    assertTrue("descriptor targets " + info.getOpenSearchVersionRangesString() + ", this OpenSearch is " + Version.CURRENT,
        PluginsService.isPluginVersionCompatible(info, Version.CURRENT));
    OpenSearchLine.verifyCompatibility(info); // OpenSearch's own check at install and node start (Java version too)
  }
}
