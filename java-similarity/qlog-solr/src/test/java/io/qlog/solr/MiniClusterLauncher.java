package io.qlog.solr;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import org.apache.solr.cloud.MiniSolrCloudCluster;
import org.apache.solr.embedded.JettyConfig;

/**
 * Starts a MiniSolrCloudCluster on 127.0.0.1 for the Python end-to-end test (tests/solr/), from the
 * Maven test classpath, so the similarity classes are on Solr's classpath as a lib/ jar would put them.
 *
 * <p>Usage: {@code java -cp ... io.qlog.solr.MiniClusterLauncher BASE_DIR [NODES]}. Prints
 * {@code SOLR_URL http://127.0.0.1:PORT/solr} once every node is up, then runs until its standard input
 * closes: the parent holds the pipe, so the cluster cannot outlive it even when the parent is killed.
 */
public final class MiniClusterLauncher {
  private MiniClusterLauncher() {}

  public static void main(String[] args) throws Exception {
    if (args.length < 1) {
      System.err.println("usage: MiniClusterLauncher BASE_DIR [NODES]");
      System.exit(2);
    }
    Path base = Paths.get(args[0]);
    Files.createDirectories(base);
    int nodes = args.length > 1 ? Integer.parseInt(args[1]) : 2;
    MiniSolrCloudCluster cluster = new MiniSolrCloudCluster(nodes, base, JettyConfig.builder().build());
    try {
      System.out.println("SOLR_URL " + cluster.getJettySolrRunner(0).getBaseUrl());
      System.out.flush();
      while (System.in.read() != -1) {
        // wait for EOF
      }
    } finally {
      cluster.shutdown();
    }
    System.exit(0);
  }
}
