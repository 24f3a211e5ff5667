package io.qlog.search;

import java.io.IOException;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import org.apache.lucene.index.LeafReaderContext;
import org.apache.lucene.search.Collector;
import org.apache.lucene.search.CollectorManager;
import org.apache.lucene.search.LeafCollector;
import org.apache.lucene.search.Scorable;
import org.apache.lucene.search.ScoreDoc;
import org.apache.lucene.search.ScoreMode;

/**
 * Every document a query matches, with its score, in no particular order: {@link ScoreMode#COMPLETE} rules out
 * any skipping, so this is what a pruned top-k search is checked against.
 */
public final class EveryMatch implements CollectorManager<EveryMatch.Hits, List<ScoreDoc>> {

  /** One slice's matches. */
  public static final class Hits implements Collector {
    private final List<ScoreDoc> hits = new ArrayList<>();

    @Override
    public LeafCollector getLeafCollector(LeafReaderContext context) {
      return new LeafCollector() {
        private Scorable scorer;

        @Override
        public void setScorer(Scorable scorer) {
          this.scorer = scorer;
        }

        @Override
        public void collect(int doc) throws IOException {
          hits.add(new ScoreDoc(context.docBase + doc, scorer.score()));
        }
      };
    }

    @Override
    public ScoreMode scoreMode() {
      return ScoreMode.COMPLETE;
    }
  }

  @Override
  public Hits newCollector() {
    return new Hits();
  }

  @Override
  public List<ScoreDoc> reduce(Collection<Hits> collectors) {
    List<ScoreDoc> out = new ArrayList<>();
    collectors.forEach(c -> out.addAll(c.hits));
    return out;
  }
}
