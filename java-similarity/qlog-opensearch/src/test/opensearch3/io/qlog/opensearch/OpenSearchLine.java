package io.qlog.opensearch;

import org.opensearch.analysis.common.CommonAnalysisModulePlugin;
import org.opensearch.painless.PainlessModulePlugin;
import org.opensearch.plugins.Plugin;
import org.opensearch.plugins.PluginInfo;
import org.opensearch.plugins.PluginsService;
import org.opensearch.transport.Netty4ModulePlugin;

/**
 * What the shared tests name differently on OpenSearch 3 and 2: the module plugins' classes, the descriptor check and
 * the built-in BM25's scale. This is OpenSearch 3's; qlog-opensearch2 compiles the same tests with its own.
 */
final class OpenSearchLine {
  private OpenSearchLine() {}

  /** The analysis-common module (stemmer, stop and porter_stem filters). */
  static final Class<? extends Plugin> ANALYSIS_COMMON = CommonAnalysisModulePlugin.class;
  /** Painless, for the scripted similarity. */
  static final Class<? extends Plugin> PAINLESS = PainlessModulePlugin.class;
  /** Real HTTP (and transport) over Netty. */
  static final Class<? extends Plugin> NETTY4 = Netty4ModulePlugin.class;

  /** OpenSearch's own check of a descriptor at install and node start (its version, the Java version). */
  static void verifyCompatibility(PluginInfo info) {
    PluginsService.verifyCompatibility(info);
  }

  /** The built-in {@code BM25} similarity's scores over Lucene's BM25Similarity's: OpenSearch 3's is that class. */
  static float builtInBm25Scale(float k1) {
    return 1;
  }
}
