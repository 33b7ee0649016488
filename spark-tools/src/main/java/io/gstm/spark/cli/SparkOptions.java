package io.gstm.spark.cli;

import org.apache.spark.sql.SparkSession;
import picocli.CommandLine.Option;

/** Options every Spark job of the CLI shares. */
public final class SparkOptions {
  @Option(names = "--master", description = "Spark master (default: ${DEFAULT-VALUE})")
  public String master = "local[2]";

  @Option(names = "--partitions", description = "partitions of the data and the vertex set "
      + "(default: ${DEFAULT-VALUE})")
  public int partitions = 2;

  @Option(names = "--engine", description = "spark.gstm.engine: auto, gpu or jvm "
      + "(default: ${DEFAULT-VALUE})")
  public String engine = "auto";

  @Option(names = "--conf", description = "extra Spark setting KEY=VALUE (repeatable)")
  public java.util.List<String> conf = new java.util.ArrayList<>();

  /**
   * Stops {@code spark} once no task runs: a job cancelled at a time limit (a GraphX baseline cut
   * short) still has tasks running, and stopping under them makes Spark's scheduler print
   * RejectedExecutionException stack traces. Waits at most 60 s for them.
   */
  public static void stop(SparkSession spark) {
    org.apache.spark.SparkContext sc = spark.sparkContext();
    if (!sc.isStopped()) {
      sc.cancelAllJobs();
      long deadline = System.nanoTime() + 60_000_000_000L;
      while (sc.statusTracker().getActiveStageIds().length > 0 && System.nanoTime() < deadline) {
        try {
          Thread.sleep(50);
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
          break;
        }
      }
    }
    spark.stop();
  }

  /** A session with these options; the caller stops it ({@link #stop}). */
  public SparkSession session(String app) {
    SparkSession.Builder b = SparkSession.builder().master(master).appName(app)
        .config("spark.ui.enabled", "false")
        .config("spark.sql.shuffle.partitions", String.valueOf(partitions))
        .config("spark.default.parallelism", String.valueOf(partitions))
        .config("spark.gstm.engine", engine);
    if (master.startsWith("local")) {  // a cluster's executors must reach the driver's address
      b.config("spark.driver.host", "127.0.0.1").config("spark.driver.bindAddress", "127.0.0.1");
    }
    for (String kv : conf) {
      int eq = kv.indexOf('=');
      if (eq < 1) {
        throw new IllegalArgumentException("--conf: expected KEY=VALUE, got '" + kv + "'");
      }
      b.config(kv.substring(0, eq), kv.substring(eq + 1));
    }
    SparkSession spark = b.getOrCreate();
    spark.sparkContext().setLogLevel("WARN");
    return spark;
  }
}
