package io.gstm.dist;

import java.util.concurrent.TimeUnit;
import org.apache.spark.sql.SparkSession;

/**
 * The Spark sessions of the cluster tests: local mode (the reference), and an application on a
 * standalone cluster whose executors load gstm from the one jar alone ({@code spark.jars}).
 */
final class Sessions {
  /** Executors (one per worker, one core each) the cluster tests expect. */
  static final int EXECUTORS = 2;

  private Sessions() {}

  /** local[2], with the cluster session's shuffle and parallelism settings. */
  static SparkSession local() {
    return common(SparkSession.builder().master("local[2]").appName("gstm-local-reference"))
        .getOrCreate();
  }

  /**
   * An application on {@code masterUrl} that waits for both executors before its first job;
   * {@code settings} are extra key, value pairs.
   */
  static SparkSession cluster(String masterUrl, String... settings) {
    return cluster(masterUrl, EXECUTORS, settings);
  }

  /** As {@link #cluster(String, String...)}, of {@code executors} executors (at most 2). */
  static SparkSession cluster(String masterUrl, int executors, String... settings) {
    SparkSession.Builder b = common(SparkSession.builder().master(masterUrl)
        .appName("gstm-cluster-test"))
        .config("spark.jars", DistJar.path().toString())
        .config("spark.executor.cores", "1")
        .config("spark.executor.memory", "768m")
        .config("spark.cores.max", String.valueOf(executors))
        .config("spark.scheduler.minRegisteredResourcesRatio", "1.0")
        .config("spark.scheduler.maxRegisteredResourcesWaitingTime", "120s");
    for (int i = 0; i + 1 < settings.length; i += 2) {
      b.config(settings[i], settings[i + 1]);
    }
    SparkSession spark = b.getOrCreate();
    try {
      awaitBlockManagers(spark, executors);
    } catch (RuntimeException e) {
      spark.stop();
      throw e;
    }
    return spark;
  }

  /**
   * Waits until {@code executors} executors' block managers have registered too: the scheduler
   * waited for their cores, and a state placed before them would not know where it lives.
   */
  static void awaitBlockManagers(SparkSession spark, int executors) {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
    int seen;
    while ((seen = spark.sparkContext().getExecutorMemoryStatus().size() - 1) < executors) {
      if (System.nanoTime() > deadline) {
        throw new IllegalStateException(executors + " executors expected, " + seen
            + " registered within 60 s");
      }
      try {
        Thread.sleep(50);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new IllegalStateException("interrupted while waiting for executors", e);
      }
    }
  }

  private static SparkSession.Builder common(SparkSession.Builder b) {
    return b.config("spark.ui.enabled", "false")
        .config("spark.driver.host", "127.0.0.1")
        .config("spark.driver.bindAddress", "127.0.0.1")
        .config("spark.sql.shuffle.partitions", "4")
        .config("spark.default.parallelism", "4")
        .config("spark.sql.adaptive.enabled", "false");
  }
}
