package io.gstm.spark.exec;

import java.util.ArrayList;
import java.util.List;
import java.util.TreeMap;
import org.apache.spark.SparkContext;
import org.apache.spark.SparkEnv;
import org.apache.spark.api.java.JavaRDD;
import org.apache.spark.storage.BlockManagerId;
import scala.jdk.javaapi.CollectionConverters;

/**
 * Spreads the partitions of a job that reads input evenly over the registered executors, each
 * pinned to one in turn. Spark places reading tasks by host, and with several executors on one
 * host it hands them to whichever asks first: on the two-GPU node one executor read two thirds
 * of 64 Parquet files, and the points or edges that stay where they were read (a k-means point
 * set, a subgraph) were as uneven, so the slower half set the pace.
 */
public final class ExecutorSpread {
  private ExecutorSpread() {}

  /** An executor registered with the driver. */
  public record Executor(String id, String host) {
    /** The location that pins a task here. */
    public String location() {
      return PinnedRDD.location(host, id);
    }
  }

  /** The executors registered now, the driver left out, by id. */
  public static List<Executor> registered(SparkContext sc) {
    SparkEnv env = SparkEnv.get();
    if (sc.isLocal() || env == null || env.blockManager() == null) {
      return List.of();
    }
    TreeMap<String, Executor> byId = new TreeMap<>();
    for (BlockManagerId id : CollectionConverters.asJava(
        env.blockManager().master().getMemoryStatus().keySet())) {
      if (!id.isDriver()) {
        byId.put(id.executorId(), new Executor(id.executorId(), id.host()));
      }
    }
    return new ArrayList<>(byId.values());
  }

  /**
   * {@code rdd} with partition {@code i} pinned to executor {@code i mod E} of the {@code E}
   * registered now; {@code rdd} itself in local mode or with fewer than two executors. A pinned
   * task still runs elsewhere when its executor stays busy past {@code spark.locality.wait}.
   */
  public static <T> JavaRDD<T> evenly(JavaRDD<T> rdd) {
    List<Executor> executors = registered(rdd.context());
    if (executors.size() < 2) {
      return rdd;
    }
    int n = rdd.getNumPartitions();
    int[] index = new int[n];
    String[] at = new String[n];
    for (int i = 0; i < n; i++) {
      index[i] = i;
      at[i] = executors.get(i % executors.size()).location();
    }
    return new JavaRDD<>(new PinnedRDD<>(rdd.rdd(), index, at, rdd.classTag()), rdd.classTag());
  }
}
