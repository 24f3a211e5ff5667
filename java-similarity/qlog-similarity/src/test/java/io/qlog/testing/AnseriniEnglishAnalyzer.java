package io.qlog.testing;

import org.apache.lucene.analysis.Analyzer;
import org.apache.lucene.analysis.LowerCaseFilter;
import org.apache.lucene.analysis.StopFilter;
import org.apache.lucene.analysis.TokenStream;
import org.apache.lucene.analysis.Tokenizer;
import org.apache.lucene.analysis.en.EnglishAnalyzer;
import org.apache.lucene.analysis.en.EnglishPossessiveFilter;
import org.apache.lucene.analysis.en.PorterStemFilter;
import org.apache.lucene.analysis.standard.StandardTokenizer;

/**
 * Anserini's DefaultEnglishAnalyzer chain (standard tokenizer, English possessive, lowercase, Lucene's
 * English stop set, Porter stemmer) from Lucene classes alone, so it builds on Lucene 10 and on 9 (which
 * Anserini itself cannot), for the engines' single-index reference runs. {@link AnalyzerFixture} pins it to
 * Anserini's real output, token for token.
 */
public final class AnseriniEnglishAnalyzer extends Analyzer {
  @Override
  protected TokenStreamComponents createComponents(String fieldName) {
    Tokenizer source = new StandardTokenizer();
    TokenStream result = new EnglishPossessiveFilter(source);
    result = new LowerCaseFilter(result);
    result = new StopFilter(result, EnglishAnalyzer.ENGLISH_STOP_WORDS_SET);
    result = new PorterStemFilter(result);
    return new TokenStreamComponents(source, result);
  }
}
