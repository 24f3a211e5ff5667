package io.qlog.elasticsearch;

import static org.elasticsearch.test.hamcrest.ElasticsearchAssertions.assertResponse;

import io.qlog.rewrite.QLogBoostedQuery;
import io.qlog.similarities.QLogBM25Similarity;
import io.qlog.testing.Benchmarks;
import io.qlog.testing.InterleavedRounds;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import org.apache.lucene.search.Query;
import org.elasticsearch.action.search.SearchType;
import org.elasticsearch.common.settings.Settings;
import org.elasticsearch.index.query.QueryBuilder;
import org.elasticsearch.index.query.QueryBuilders;
import org.junit.Test;

/**
 * The Elasticsearch benchmarks, a program ({@code java ... io.qlog.elasticsearch.ElasticsearchBench {drift|cost}
 * OUT.md}) run in the cluster of {@link TestElasticsearchCsnRuby} (Elasticsearch's test framework starts it, so the
 * program runs one method of this suite through JUnit; the suite's own tests are not run). {@code drift}: the table
 * of results/elasticsearch-drift.md at -Dqlog.drift.qs; {@code cost}: results/elasticsearch-bench.md. The corpus is
 * -Dqlog.csn=DIR (prepared CSN-Ruby).
 */
public class ElasticsearchBench extends ClusterBench {
  public static void main(String[] args) throws Exception {
    Benchmarks.main(ElasticsearchBench.class, args, () -> table);
  }

  /**
   * Queries per second with dfs_query_then_fetch on two fields of one index,
   * q-log by the plugin (q = 0.7) and Elasticsearch's built-in BM25, and the rewrite (boosted term queries, q = 0.7)
   * on the BM25 field, its boosts computed beforehand (from the single index, whose statistics are the cluster's
   * global ones: same documents, none deleted). Each query goes to the three sides back to back, the order rotating
   * from query to query; a side's time is the sum of its request latencies. One client thread, 10 hits, 300 warm-up
   * queries per side.
   */
  @Test
  public void queryCost() throws Exception {
    requireCorpus();
    suite.restartClock();
    Settings settings = Settings.builder().put(indexSettings(0.7))
        .put("index.similarity.bm25.type", "BM25").put("index.similarity.bm25.k1", 0.9).put("index.similarity.bm25.b", 0.4)
        .build();
    String mapping = "{\"properties\": {\"id\": {\"type\": \"keyword\"},"
        + " \"contents\": {\"type\": \"text\", \"analyzer\": \"anserini\", \"similarity\": \"qlog\", \"copy_to\": [\"contents_bm25\"]},"
        + " \"contents_bm25\": {\"type\": \"text\", \"analyzer\": \"anserini\", \"similarity\": \"bm25\"}}}";
    createIndex("bench", settings, mapping, data.docs);
    ensureGreen("bench");
    QLogBM25Similarity qlog = new QLogBM25Similarity(0.9f, 0.4f, 0.7, QLogBM25Similarity.IdfForm.LUCENE);
    List<QueryBuilder[]> queries = new ArrayList<>();
    for (String text : data.topics.values()) {
      Query query = reference.query(text);
      if (query != null) {
        queries.add(new QueryBuilder[] {QueryBuilders.matchQuery("contents_bm25", text), QueryBuilders.matchQuery("contents", text),
            boosted(QLogBoostedQuery.rewrite(query, reference.searcher(), qlog), "contents_bm25")});
      }
    }
    InterleavedRounds.Request request = (side, i) -> search("bench", queries.get(i)[side]);
    InterleavedRounds.warmUp(3, Math.min(300, queries.size()), request);
    int rounds = Integer.getInteger("qlog.bench.rounds", 5);
    StringBuilder md = new StringBuilder("| round | BM25 queries/s | q-log plugin queries/s | rewrite queries/s "
        + "| plugin / BM25 | rewrite / BM25 |\n|---:|---:|---:|---:|---:|---:|\n");
    long[][] nanos = InterleavedRounds.run(3, queries.size(), 0, rounds, request, (r, n) -> {
      md.append(InterleavedRounds.row(r, queries.size(), n));
      suite.log(String.format(Locale.ROOT, "round %d: plugin / BM25 %.3f, rewrite / BM25 %.3f", r + 1, n[0] / (double) n[1],
          n[0] / (double) n[2]));
    });
    md.append(String.format(Locale.ROOT, "%nCSN-Ruby: %d documents, 2 shards, %d queries per side and round. Median throughput "
        + "ratio over %d rounds: %s.%n", data.docs.size(), queries.size(), rounds,
        InterleavedRounds.medians(nanos, new String[] {"BM25", "plugin", "rewrite"}, ", ")));
    table = md.toString();
  }

  /** One dfs_query_then_fetch search of the top 10, its response released. */
  static void search(String index, QueryBuilder query) {
    assertResponse(client().prepareSearch(index).setSearchType(SearchType.DFS_QUERY_THEN_FETCH).setQuery(query).setSize(10),
        rsp -> assertNotNull(rsp.getHits()));
  }
}
