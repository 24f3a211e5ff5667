package io.qlog.analysis;

import io.anserini.analysis.AnalyzerUtils;
import io.anserini.analysis.DefaultEnglishAnalyzer;
import java.io.IOException;
import java.util.List;
import org.apache.lucene.analysis.Analyzer;
import org.apache.lucene.analysis.LowerCaseFilter;
import org.apache.lucene.analysis.StopFilter;
import org.apache.lucene.analysis.StopwordAnalyzerBase;
import org.apache.lucene.analysis.TokenFilter;
import org.apache.lucene.analysis.TokenStream;
import org.apache.lucene.analysis.core.FlattenGraphFilter;
import org.apache.lucene.analysis.en.EnglishAnalyzer;
import org.apache.lucene.analysis.en.EnglishPossessiveFilter;
import org.apache.lucene.analysis.en.PorterStemFilter;
import org.apache.lucene.analysis.miscellaneous.WordDelimiterGraphFilter;
import org.apache.lucene.analysis.standard.StandardTokenizer;
import org.apache.lucene.analysis.tokenattributes.CharTermAttribute;

/**
 * Anserini's default English analyzer with identifier splitting: the tokenizer ablation's
 * identifier-aware analyzer. The chain is exactly
 *
 * <pre>
 * StandardTokenizer
 *   &gt; EnglishPossessiveFilter
 *   &gt; AcronymCaseFilter (below: HTTPServer -&gt; HttpServer)
 *   &gt; WordDelimiterGraphFilter(PRESERVE_ORIGINAL | GENERATE_WORD_PARTS | GENERATE_NUMBER_PARTS
 *                              | SPLIT_ON_CASE_CHANGE | SPLIT_ON_NUMERICS)
 *   &gt; FlattenGraphFilter
 *   &gt; LowerCaseFilter
 *   &gt; StopFilter(EnglishAnalyzer.ENGLISH_STOP_WORDS_SET)
 *   &gt; PorterStemFilter
 * </pre>
 *
 * <p>that is, {@code DefaultEnglishAnalyzer.newDefaultInstance()} (the same chain without the three
 * middle filters) plus word-delimiter splitting. {@code handleWebSocketUpgrade} gives
 * {@code handlewebsocketupgrad, handl, web, socket, upgrad}; {@code HTTPServer2} gives
 * {@code httpserver2, http, server, 2}; {@code XMLHttpRequest} gives
 * {@code xmlhttprequest, xml, http, request}; {@code parse_json_value} gives
 * {@code parse_json_valu, pars, json, valu}; {@code os.path.join} (one StandardTokenizer token)
 * gives {@code os.path.join, os, path, join}. Tokens without a case change, a letter/digit boundary
 * or inner punctuation pass through unchanged, so plain English text is analyzed as by the default
 * analyzer, except that contractions and decimals ({@code can't}, {@code 3.14}) also index their parts.
 *
 * <p>Choices, and why:
 * <ul>
 *   <li>The original token is kept, so an exact identifier query still matches exactly; its parts
 *       start at its position (position increment 0 for the first part), and BM25's length norm
 *       discounts that overlap: a split identifier of k parts counts as k tokens in the document
 *       length (1 under the default analyzer).
 *   <li>No CATENATE_* flags: for camelCase the catenation equals the lower-cased original, and for
 *       snake_case ({@code parsejsonvalue}) it is a term that neither code nor queries use; either
 *       way it would only lengthen documents.
 *   <li>The splitter runs after the possessive filter so {@code John's} is still {@code john} (it
 *       would otherwise also emit a stray {@code s}), and before lower-casing, which would erase
 *       the case changes it splits on.
 *   <li>WordDelimiterGraphFilter never splits after an upper-case letter, so it keeps acronyms
 *       glued to the next word ({@code HTTPServer}, {@code IOError}). AcronymCaseFilter therefore
 *       lower-cases the inner letters of each upper-case run, except a last one that starts a
 *       capitalised word, before the splitter: {@code HTTPServer} -&gt; {@code HttpServer}, which
 *       splits as {@code Http|Server}. Nothing downstream can tell, because the chain lower-cases
 *       every token right after. As in regex splitters, a plural acronym ({@code URLs}) splits as
 *       {@code ur|ls}.
 *   <li>FlattenGraphFilter follows the splitter because the index cannot store a token graph (position
 *       lengths are dropped); Lucene's Javadoc for the filter asks for this at index time. The same
 *       chain serves queries: Anserini's bag-of-words queries use the terms, not their positions.
 * </ul>
 */
public final class IdentifierAnalyzer extends StopwordAnalyzerBase {

  /** The name {@code qlog_pyserini.index --analyzer} and the index's commit data use. */
  public static final String NAME = "identifier";

  /** The name of Anserini's default English analyzer (Porter stemming, English stopwords). */
  public static final String DEFAULT_NAME = "default";

  /** The word-delimiter flags: split camelCase, snake_case and letter/digit runs, keep the original. */
  public static final int WORD_DELIMITER_FLAGS =
      WordDelimiterGraphFilter.PRESERVE_ORIGINAL
          | WordDelimiterGraphFilter.GENERATE_WORD_PARTS
          | WordDelimiterGraphFilter.GENERATE_NUMBER_PARTS
          | WordDelimiterGraphFilter.SPLIT_ON_CASE_CHANGE
          | WordDelimiterGraphFilter.SPLIT_ON_NUMERICS;

  public IdentifierAnalyzer() {
    super(EnglishAnalyzer.ENGLISH_STOP_WORDS_SET);
  }

  @Override
  protected TokenStreamComponents createComponents(String fieldName) {
    StandardTokenizer source = new StandardTokenizer();
    TokenStream result = new EnglishPossessiveFilter(source);
    result = new AcronymCaseFilter(result);
    result = new WordDelimiterGraphFilter(result, WORD_DELIMITER_FLAGS, null);
    result = new FlattenGraphFilter(result);
    result = new LowerCaseFilter(result);
    result = new StopFilter(result, stopwords);
    result = new PorterStemFilter(result);
    return new TokenStreamComponents(source, result);
  }

  @Override
  protected TokenStream normalize(String fieldName, TokenStream in) {
    return new LowerCaseFilter(in);
  }

  /**
   * The analyzer called {@code name}: {@value #DEFAULT_NAME} (Anserini's
   * {@code DefaultEnglishAnalyzer}, what {@code IndexCollection} and {@code SimpleSearcher} use by
   * default) or {@value #NAME} (this class).
   */
  public static Analyzer forName(String name) {
    if (DEFAULT_NAME.equals(name)) {
      return DefaultEnglishAnalyzer.newDefaultInstance();
    }
    if (NAME.equals(name)) {
      return new IdentifierAnalyzer();
    }
    throw new IllegalArgumentException(
        "illegal analyzer: " + name + ", must be " + DEFAULT_NAME + " or " + NAME);
  }

  /** The terms {@code text} is indexed as under the analyzer called {@code name}, in stream order. */
  public static List<String> analyze(String name, String text) {
    Analyzer analyzer = forName(name);
    try {
      return AnalyzerUtils.analyze(analyzer, text);
    } finally {
      analyzer.close();
    }
  }

  @Override
  public String toString() {
    return "IdentifierAnalyzer(StandardTokenizer > EnglishPossessive > AcronymCase > WordDelimiterGraph("
        + WordDelimiterGraphFilter.flagsToString(WORD_DELIMITER_FLAGS)
        + ") > FlattenGraph > LowerCase > Stop(english) > PorterStem)";
  }

  /**
   * Lower-cases each upper-case letter that follows an upper-case letter, unless a lower-case letter
   * follows it (then it starts a capitalised word): {@code HTTPServer2} -&gt; {@code HttpServer2},
   * {@code IOError} -&gt; {@code IoError}, {@code getHTTPResponse} -&gt; {@code getHttpResponse}.
   * Lengths, positions and offsets are unchanged.
   */
  static final class AcronymCaseFilter extends TokenFilter {
    private final CharTermAttribute termAtt = addAttribute(CharTermAttribute.class);

    AcronymCaseFilter(TokenStream in) {
      super(in);
    }

    @Override
    public boolean incrementToken() throws IOException {
      if (!input.incrementToken()) {
        return false;
      }
      char[] term = termAtt.buffer();
      int length = termAtt.length();
      // Decisions read the original letters: the previous one may already have been lower-cased.
      boolean previousUpper = false;
      for (int i = 0; i < length; i++) {
        boolean upper = Character.isUpperCase(term[i]);
        if (upper && previousUpper && !(i + 1 < length && Character.isLowerCase(term[i + 1]))) {
          term[i] = Character.toLowerCase(term[i]);
        }
        previousUpper = upper;
      }
      return true;
    }
  }
}
