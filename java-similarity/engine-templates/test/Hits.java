package io.qlog.${qlog.engine};

import io.qlog.testing.TopTen;
import org.${qlog.engine}.action.search.SearchResponse;
import org.${qlog.engine}.search.SearchHit;

/** A ${qlog.engine.name} search response as the engine-neutral top ten the comparisons of io.qlog.testing read. */
final class Hits {
  private Hits() {}

  /** The response's hits in the order returned, each its id and score. */
  static TopTen topTen(SearchResponse rsp) {
    TopTen top = new TopTen();
    for (SearchHit hit : rsp.getHits().getHits()) {
      top.add(hit.getId(), hit.getScore());
    }
    return top;
  }
}
