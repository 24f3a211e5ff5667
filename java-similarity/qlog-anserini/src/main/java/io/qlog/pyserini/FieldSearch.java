package io.qlog.pyserini;

import io.anserini.search.ScoredDoc;
import io.anserini.search.SimpleSearcher;
import java.util.List;
import java.util.Map;

/**
 * Weighted multi-field search through Anserini's own path, as Pyserini's {@code batch_search(fields=...)}
 * takes it: {@link SimpleSearcher#batch_search_fields} builds one bag-of-words query per field, boosts
 * it by the field's weight, scores each field with its own statistics under the installed similarity,
 * and runs the reranker cascade (RM3 or Rocchio if set, then Anserini's score-tie adjustment).
 *
 * <p>The hits come back as one string, {@code qid TAB docid TAB score TAB luceneDocid} a line, in
 * {@code qids} order, because crossing the JNI bridge once per hit is what makes large runs slow.
 */
public final class FieldSearch {

  private FieldSearch() {
  }

  /** {@code searcher.batch_search_fields(queries, qids, k, threads, fields)} as tab-separated lines. */
  public static String batch_search_fields_tsv(SimpleSearcher searcher, List<String> queries, List<String> qids,
      int k, int threads, Map<String, Float> fields) {
    if (queries.size() != qids.size()) {
      throw new IllegalArgumentException(queries.size() + " queries but " + qids.size() + " qids");
    }
    if (fields == null || fields.isEmpty()) {
      throw new IllegalArgumentException("fields must name at least one field");
    }
    Map<String, ScoredDoc[]> results = searcher.batch_search_fields(queries, qids, k, threads, fields);
    StringBuilder out = new StringBuilder();
    for (String qid : qids) {
      ScoredDoc[] hits = results.get(qid);
      if (hits == null) {
        continue;
      }
      for (ScoredDoc hit : hits) {
        // Float.toString is the shortest text that reads back to the same float.
        out.append(qid).append('\t').append(hit.docid).append('\t').append(Float.toString(hit.score))
            .append('\t').append(hit.lucene_docid).append('\n');
      }
    }
    return out.toString();
  }
}
