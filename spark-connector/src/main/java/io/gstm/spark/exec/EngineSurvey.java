package io.gstm.spark.exec;

import com.esotericsoftware.kryo.DefaultSerializer;
import com.esotericsoftware.kryo.serializers.JavaSerializer;
import io.gstm.spark.conf.GstmConf;
import io.gstm.spark.conf.GstmSettings;
import java.io.Serializable;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.apache.spark.api.java.JavaSparkContext;
import org.apache.spark.sql.SparkSession;

/**
 * Which engine each executor's tasks get, asked of the executors themselves by one small job:
 * how a deployment is checked (every executor on its own GPU, the one Spark's scheduler gave it)
 * before a long job starts.
 */
public final class EngineSurvey {
  private EngineSurvey() {}

  /**
   * One executor as its tasks saw it.
   *
   * @param executorId Spark's executor id ("driver" in local mode)
   * @param host the executor's host
   * @param pid the executor JVM's process id
   * @param gpu whether its tasks get a GPU engine
   * @param device the engine's device, e.g. "NVIDIA H200 (device 1)", or the JVM engine's
   * @param reason why that engine: "GPU 1 from TaskContext resources", or the fallback's cause
   * @param tasks how many of the survey's tasks ran there
   */
  @DefaultSerializer(JavaSerializer.class)
  public record Executor(String executorId, String host, long pid, boolean gpu, String device,
      String reason, int tasks) implements Serializable {}

  /**
   * Runs {@code tasksPerSlot} tasks per core Spark reports ({@code defaultParallelism}), each
   * leasing an engine as a gstm job's task does, and returns one row per executor they ran on,
   * ordered by executor id (as text). Engines opened here stay open for the executors' later jobs.
   */
  public static List<Executor> run(SparkSession spark, int tasksPerSlot) {
    if (tasksPerSlot < 1) {
      throw new IllegalArgumentException("tasksPerSlot must be at least 1, got " + tasksPerSlot);
    }
    GstmSettings settings = GstmConf.settings(spark.sparkContext().getConf());
    JavaSparkContext jsc = JavaSparkContext.fromSparkContext(spark.sparkContext());
    int n = Math.max(1, jsc.defaultParallelism() * tasksPerSlot);
    List<Integer> slots = new ArrayList<>(n);
    for (int i = 0; i < n; i++) {
      slots.add(i);
    }
    List<Executor> seen = jsc.parallelize(slots, n).map(i -> {
      try (TaskEngine lease = ExecutorEngines.acquire(settings)) {
        return new Executor(ThisExecutor.id(), ThisExecutor.host(),
            ProcessHandle.current().pid(), lease.gpu(),
            lease.engine().device(), lease.reason(), 1);
      }
    }).collect();
    Map<String, Executor> byId = new TreeMap<>();
    for (Executor e : seen) {
      byId.merge(e.executorId(), e, (a, b) -> new Executor(a.executorId(), a.host(), a.pid(),
          a.gpu(), a.device(), a.reason(), a.tasks() + b.tasks()));
    }
    return new ArrayList<>(byId.values());
  }
}
