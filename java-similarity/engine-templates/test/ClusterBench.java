package io.qlog.${qlog.engine};

import io.qlog.testing.DistributedComparison;
import org.apache.lucene.search.BooleanClause;
import org.apache.lucene.search.BooleanQuery;
import org.apache.lucene.search.BoostQuery;
import org.apache.lucene.search.Query;
import org.apache.lucene.search.TermQuery;
import org.${qlog.engine}.index.query.BoolQueryBuilder;
import org.${qlog.engine}.index.query.QueryBuilder;
import org.${qlog.engine}.index.query.QueryBuilders;
import org.junit.Test;

/**
 * The ${qlog.engine.name} benchmark program's suite: the cluster of {@link Test${qlog.engine.name}CsnRuby}, one
 * method run through JUnit by {@link io.qlog.testing.Benchmarks#main}, which writes the table that method leaves.
 * Benchmarks run on the default line only (Lucene 10: {@code BooleanClause} is a record), as the poms say.
 */
public abstract class ClusterBench extends Test${qlog.engine.name}CsnRuby {
  static String table;

  /** dfs_query_then_fetch and query_then_fetch against the single index at each q of -Dqlog.drift.qs. */
  @Test
  public void drift() throws Exception {
    table = compareDrift(DistributedComparison.QS).checkedReport();
  }

  /**
   * The boosted-query rewrite (QLogBoostedQuery's Lucene query: boosted term queries under a boolean of should
   * clauses) as the ${qlog.engine.name} query a client sends, on {@code field}.
   */
  static QueryBuilder boosted(Query query, String field) {
    if (query instanceof BoostQuery boost) {
      return boosted(boost.getQuery(), field).boost(boost.getBoost());
    }
    if (query instanceof TermQuery term) {
      return QueryBuilders.termQuery(field, term.getTerm().text());
    }
    BoolQueryBuilder bool = QueryBuilders.boolQuery();
    for (BooleanClause clause : ((BooleanQuery) query).clauses()) {
      bool.should(boosted(clause.query(), field));
    }
    return bool;
  }
}
