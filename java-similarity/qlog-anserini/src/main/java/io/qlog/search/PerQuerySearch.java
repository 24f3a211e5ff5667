package io.qlog.search;

import java.io.IOException;
import java.util.List;
import java.util.TreeSet;
import org.apache.lucene.index.IndexReader;
import org.apache.lucene.index.Term;
import org.apache.lucene.search.QueryVisitor;

/**
 * The term statistics a per-query q is chosen from: the document frequency of every term of each query,
 * as the searcher parses it. (A batch with a q per query runs through {@link QLogSearcher#search_batch_q}.)
 *
 * <p>Static, taking the searcher as an argument: pyjnius keeps a call's Java instance on a class's shared
 * method object, so a static call cannot reach another thread's instance.
 */
public final class PerQuerySearch {

  private PerQuerySearch() {}

  /**
   * The document frequency of every distinct term of each query, as the searcher parses it: one line per
   * query, the frequencies separated by spaces in the terms' order (empty for a query with no term).
   */
  public static String termDocFreqs(QLogSearcher searcher, List<String> queries) throws IOException {
    IndexReader reader = QLogSearcher.reader_of(searcher);
    StringBuilder out = new StringBuilder();
    for (String query : queries) {
      TreeSet<Term> terms = new TreeSet<>();
      searcher.parse(query).visit(QueryVisitor.termCollector(terms));
      boolean first = true;
      for (Term term : terms) {
        if (!first) {
          out.append(' ');
        }
        out.append(reader.docFreq(term));
        first = false;
      }
      out.append('\n');
    }
    return out.toString();
  }
}
