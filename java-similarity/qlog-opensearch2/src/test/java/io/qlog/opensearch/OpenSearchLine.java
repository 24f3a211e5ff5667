package io.qlog.opensearch;

import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import org.opensearch.analysis.common.CommonAnalysisPlugin;
import org.opensearch.painless.PainlessPlugin;
import org.opensearch.plugins.Plugin;
import org.opensearch.plugins.PluginInfo;
import org.opensearch.plugins.PluginsService;
import org.opensearch.transport.Netty4Plugin;

/**
 * What the shared tests (../qlog-opensearch/src/test/java) name differently on OpenSearch 2 and 3: the module
 * plugins' classes, the descriptor check and the built-in BM25's scale. This is OpenSearch 2's; qlog-opensearch has
 * OpenSearch 3's.
 */
final class OpenSearchLine {
  private OpenSearchLine() {}

  /** The analysis-common module (stemmer, stop and porter_stem filters). */
  static final Class<? extends Plugin> ANALYSIS_COMMON = CommonAnalysisPlugin.class;
  /** Painless, for the scripted similarity. */
  static final Class<? extends Plugin> PAINLESS = PainlessPlugin.class;
  /** Real HTTP (and transport) over Netty. */
  static final Class<? extends Plugin> NETTY4 = Netty4Plugin.class;

  /**
   * OpenSearch's own check of a descriptor at install and node start (its version, the Java version); package-private
   * in OpenSearch 2, so called through reflection.
   */
  static void verifyCompatibility(PluginInfo info) throws ReflectiveOperationException {
    Method check = PluginsService.class.getDeclaredMethod("verifyCompatibility", PluginInfo.class);
    check.setAccessible(true);
    try {
      check.invoke(null, info);
    } catch (InvocationTargetException e) {
      if (e.getCause() instanceof RuntimeException) {
        throw (RuntimeException) e.getCause();
      }
      throw e;
    }
  }

  /**
   * The built-in {@code BM25} similarity's scores over Lucene's BM25Similarity's: OpenSearch 2's is
   * LegacyBM25Similarity, which keeps BM25's (k1 + 1) numerator (as Elasticsearch's does); the ranking is the same.
   */
  static float builtInBm25Scale(float k1) {
    return 1 + k1;
  }
}
