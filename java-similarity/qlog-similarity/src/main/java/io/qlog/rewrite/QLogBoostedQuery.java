package io.qlog.rewrite;

import io.qlog.similarities.QLogBM25Similarity;
import java.io.IOException;
import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandles;
import org.apache.lucene.index.IndexReader;
import org.apache.lucene.index.Term;
import org.apache.lucene.search.BooleanClause;
import org.apache.lucene.search.BooleanQuery;
import org.apache.lucene.search.BoostQuery;
import org.apache.lucene.search.CollectionStatistics;
import org.apache.lucene.search.IndexSearcher;
import org.apache.lucene.search.Query;
import org.apache.lucene.search.TermQuery;
import org.apache.lucene.search.TermStatistics;
import org.apache.lucene.search.similarities.BM25Similarity;

/**
 * q-log BM25 as a plain BM25 query: every term query of a bag-of-words query boosted by
 *
 * <pre>
 *   w_t = idf_q(t) / idf(t)
 * </pre>
 *
 * where idf_q is {@link QLogBM25Similarity}'s IDF and idf {@link BM25Similarity}'s, both from the statistics the
 * searcher reports (N = the field's docCount, n = the term's docFreq). Only the IDF differs between the two
 * models, and Lucene's BM25 scorer multiplies the boost into the term weight (weight = boost * idf), so the
 * rewritten query searched under {@code BM25Similarity(k1, b)} scores what the original query scores under
 * {@code QLogBM25Similarity(k1, b, q, form)}, up to the float rounding of one multiplication per term, and it
 * keeps block-max pruning: nothing but the boosts changes.
 *
 * <p>Boosts of zero are kept: under the {@code rsj} odds a term in more than half the documents has idf_q = 0,
 * and its clause still matches (with score 0) as it does under the q-log similarity. A term no document has is
 * left unboosted: it matches nothing. A searcher whose statistics are global across shards (Elasticsearch's and
 * OpenSearch's dfs phase) gives global boosts.
 */
public final class QLogBoostedQuery {
  private QLogBoostedQuery() {}

  // A clause's query and occur are getQuery()/getOccur() in Lucene 9 and query()/occur() in Lucene 10 (a record),
  // with no accessor in common; this source tree is built against both, so the one that exists is looked up once.
  private static final MethodHandle CLAUSE_QUERY = accessor("query", "getQuery");
  private static final MethodHandle CLAUSE_OCCUR = accessor("occur", "getOccur");

  private static MethodHandle accessor(String... names) {
    for (String name : names) {
      try {
        return MethodHandles.publicLookup().unreflect(BooleanClause.class.getMethod(name));
      } catch (NoSuchMethodException | IllegalAccessException e) {
        // try the other Lucene's name
      }
    }
    throw new IllegalStateException("BooleanClause has none of " + String.join(", ", names));
  }

  private static <T> T part(MethodHandle accessor, BooleanClause clause, Class<T> type) {
    try {
      return type.cast(accessor.invoke(clause));
    } catch (Throwable e) {
      throw new IllegalStateException(e);
    }
  }

  /**
   * {@code query} with every term query boosted by w_t; boolean queries and boosts are rebuilt around them.
   *
   * @param query term queries, boosted queries and boolean queries of them (what a bag-of-words parser makes)
   * @param searcher where the statistics come from; the result must be searched under BM25 with qlog's k1 and b
   * @param qlog the q-log similarity the result stands in for
   * @throws IllegalArgumentException for any other kind of query (its scores do not come from one term's IDF)
   */
  public static Query rewrite(Query query, IndexSearcher searcher, QLogBM25Similarity qlog) throws IOException {
    BM25Similarity bm25 = new BM25Similarity(qlog.getK1(), qlog.getB());
    return rewrite(query, searcher, qlog, bm25);
  }

  private static Query rewrite(Query query, IndexSearcher searcher, QLogBM25Similarity qlog, BM25Similarity bm25)
      throws IOException {
    if (query instanceof TermQuery) {
      Term term = ((TermQuery) query).getTerm();
      Float w = boost(searcher, term, qlog, bm25);
      return w == null ? query : new BoostQuery(query, w);
    }
    if (query instanceof BoostQuery) {
      BoostQuery boosted = (BoostQuery) query;
      Query inner = rewrite(boosted.getQuery(), searcher, qlog, bm25);
      // BoostQuery(BoostQuery(q, a), b) scores as q with a * b: fold the two into one boost
      if (inner instanceof BoostQuery) {
        BoostQuery w = (BoostQuery) inner;
        return new BoostQuery(w.getQuery(), w.getBoost() * boosted.getBoost());
      }
      return new BoostQuery(inner, boosted.getBoost());
    }
    if (query instanceof BooleanQuery) {
      BooleanQuery bool = (BooleanQuery) query;
      BooleanQuery.Builder out = new BooleanQuery.Builder().setMinimumNumberShouldMatch(bool.getMinimumNumberShouldMatch());
      for (BooleanClause clause : bool.clauses()) {
        out.add(rewrite(part(CLAUSE_QUERY, clause, Query.class), searcher, qlog, bm25),
            part(CLAUSE_OCCUR, clause, BooleanClause.Occur.class));
      }
      return out.build();
    }
    throw new IllegalArgumentException("cannot rewrite " + query.getClass().getSimpleName() + " (" + query
        + "): only term, boost and boolean queries score through one term's IDF");
  }

  /**
   * The query of one clause of a rewritten boolean query, on Lucene 9 and 10 alike; what a caller needs to walk the
   * result into an engine's query DSL (a should clause per boosted term).
   */
  public static Query clauseQuery(BooleanClause clause) {
    return part(CLAUSE_QUERY, clause, Query.class);
  }

  /**
   * w_t = idf_q / idf for {@code term} under the searcher's statistics, or null when no document has the term.
   */
  public static Float boost(IndexSearcher searcher, Term term, QLogBM25Similarity qlog) throws IOException {
    return boost(searcher, term, qlog, new BM25Similarity(qlog.getK1(), qlog.getB()));
  }

  private static Float boost(IndexSearcher searcher, Term term, QLogBM25Similarity qlog, BM25Similarity bm25)
      throws IOException {
    IndexReader reader = searcher.getIndexReader();
    int docFreq = reader.docFreq(term);
    CollectionStatistics field = searcher.collectionStatistics(term.field());
    // a searcher with global statistics (a dfs phase) overrides termStatistics; the local counts are its input
    TermStatistics stats = docFreq == 0 ? null : searcher.termStatistics(term, docFreq, reader.totalTermFreq(term));
    if (field == null || stats == null) {
      return null;
    }
    double idfQ = qlog.idfExplain(field, stats).getValue().doubleValue();
    double idf = bm25.idfExplain(field, stats).getValue().doubleValue();
    return (float) (idfQ / idf);
  }
}
