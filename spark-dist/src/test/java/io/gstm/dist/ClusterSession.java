package io.gstm.dist;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.Objects;
import java.util.stream.Stream;
import org.apache.spark.sql.SparkSession;
import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * A test class's application on the standalone cluster every cluster test class shares (two
 * workers of one core, 1 GiB and one GPU address each, as {@code scripts/spark-cluster.sh
 * --gpus-per-worker 1} sets up the GPU machine; started by the first class, stopped after the
 * last). The
 * application starts at the first {@link #spark()} (so that a class can run its local-mode
 * reference first: one SparkContext per JVM) and stops after the class's last test. Register it
 * as {@code @RegisterExtension static final ClusterSession cluster = new ClusterSession();}.
 */
final class ClusterSession implements BeforeAllCallback, AfterAllCallback {
  private static final ExtensionContext.Namespace SHARED =
      ExtensionContext.Namespace.create(ClusterSession.class);

  private final int executors;
  private final String[] settings;
  private StandaloneCluster cluster;
  private SparkSession spark;

  /** {@code settings}: the application's extra key, value pairs. */
  ClusterSession(String... settings) {
    this(Sessions.EXECUTORS, settings);
  }

  /** An application of {@code executors} executors (1: a cluster of one) on the cluster. */
  ClusterSession(int executors, String... settings) {
    this.executors = executors;
    this.settings = settings.clone();
  }

  @Override
  public void beforeAll(ExtensionContext context) {
    cluster = context.getRoot().getStore(SHARED).getOrComputeIfAbsent(StandaloneCluster.class,
        k -> {
          Path work = Path.of(System.getProperty("gstm.clusterWork", "target/cluster"));
          return StandaloneCluster.start(SparkHome.linked(work.resolve("spark-home")),
              emptied(work.resolve("run")), Sessions.EXECUTORS, 1, "1g", true);
        }, StandaloneCluster.class);
  }

  @Override
  public void afterAll(ExtensionContext context) {
    if (spark != null) {
      spark.stop();
      spark = null;
    }
  }

  /** {@code dir}, without what an earlier run left there (the logs of its applications). */
  private static Path emptied(Path dir) {
    if (Files.exists(dir)) {
      try (Stream<Path> all = Files.walk(dir)) {
        for (Path p : (Iterable<Path>) all.sorted(Comparator.reverseOrder())::iterator) {
          Files.delete(p);
        }
      } catch (IOException e) {
        throw new UncheckedIOException("emptying " + dir, e);
      }
    }
    return dir;
  }

  /** The application (started now if it is not yet). */
  SparkSession spark() {
    if (spark == null) {
      spark = Sessions.cluster(Objects.requireNonNull(cluster, "no cluster").masterUrl(),
          executors, settings);
    }
    return spark;
  }
}
