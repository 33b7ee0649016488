package io.gstm.spark.exec;

import org.apache.spark.SparkEnv;

/** The executor the calling code runs in, as Spark names it ("driver" in local mode). */
public final class ThisExecutor {
  private ThisExecutor() {}

  /** Spark's executor id, or "driver" outside a Spark environment. */
  public static String id() {
    SparkEnv env = SparkEnv.get();
    return env == null ? "driver" : env.executorId();
  }

  /** The host its block manager registered, or "localhost" outside a Spark environment. */
  public static String host() {
    SparkEnv env = SparkEnv.get();
    return env == null || env.blockManager() == null ? "localhost"
        : env.blockManager().blockManagerId().host();
  }
}
