package io.qlog.elasticsearch;

import io.qlog.testing.AnseriniEnglishAnalyzer;
import java.util.Map;
import org.apache.lucene.analysis.Analyzer;
import org.elasticsearch.index.analysis.AnalyzerProvider;
import org.elasticsearch.index.analysis.AnalyzerScope;
import org.elasticsearch.index.analysis.PreBuiltAnalyzerProvider;
import org.elasticsearch.indices.analysis.AnalysisModule.AnalysisProvider;
import org.elasticsearch.plugins.AnalysisPlugin;
import org.elasticsearch.plugins.Plugin;

/**
 * Test-only: the analyzer "anserini" (Anserini's DefaultEnglishAnalyzer chain, {@link AnseriniEnglishAnalyzer}).
 * Elasticsearch's stemmer, stop and porter_stem filters live in its analysis-common module, which is not
 * published on Maven Central, so the test cluster gets the same chain from Lucene's classes through this plugin.
 */
public class AnseriniAnalysisPlugin extends Plugin implements AnalysisPlugin {
  @Override
  public Map<String, AnalysisProvider<AnalyzerProvider<? extends Analyzer>>> getAnalyzers() {
    return Map.of("anserini", (indexSettings, environment, name, settings) ->
        new PreBuiltAnalyzerProvider(name, AnalyzerScope.INDEX, new AnseriniEnglishAnalyzer()));
  }
}
