package io.gstm.spark.exec;

import io.gstm.core.engine.EngineChoice;
import io.gstm.spark.conf.GstmConf;
import io.gstm.spark.conf.GstmSettings;
import org.apache.spark.SparkConf;
import org.apache.spark.SparkContext;

/**
 * The driver's view of the executors' engines, for work laid out one piece per engine (a graph
 * per GPU, a point set per GPU) rather than one per partition: a GPU finishes a partition's work
 * in milliseconds, so a piece per core only adds Spark jobs and exchange around it.
 */
public final class EngineCount {
  private EngineCount() {}

  /**
   * Whether the executors' tasks run on GPUs: in local mode the driver is the executor and asks
   * its own engines (the device is opened once per JVM, as the tasks would); on a cluster,
   * whether Spark's scheduler hands GPUs to executors ({@code spark.executor.resource.gpu.amount}).
   */
  public static boolean gpuExecutors(SparkContext sc, GstmSettings settings) {
    if (settings.executors().engine() == EngineChoice.JVM) {
      return false;
    }
    if (sc.isLocal()) {
      return ExecutorEngines.gpuUsable(settings);
    }
    return gpusPerExecutor(sc.getConf()) > 0;
  }

  /**
   * Executor engines: a GPU each (local mode: the {@code spark.gstm.devices} from
   * {@code spark.gstm.deviceOrdinal} on); an executor without GPUs counts one.
   */
  public static int engines(SparkContext sc, boolean gpus) {
    if (sc.isLocal()) {
      return gpus ? GstmConf.settings(sc.getConf()).executors().devices() : 1;
    }
    // Registered executors (the driver is listed too), else the ones asked for.
    int executors = sc.statusTracker().getExecutorInfos().length - 1;
    if (executors < 1) {
      executors = sc.getConf().getInt("spark.executor.instances", 1);
    }
    long each = gpus ? Math.max(1, gpusPerExecutor(sc.getConf())) : 1;
    return (int) Math.max(1, Math.min(100_000, executors * each));
  }

  private static long gpusPerExecutor(SparkConf conf) {
    String raw = conf.get("spark.executor.resource.gpu.amount", "0").trim();
    try {
      return Long.parseLong(raw);
    } catch (NumberFormatException e) {
      throw new IllegalArgumentException("spark.executor.resource.gpu.amount: expected a whole "
          + "number of GPUs, got '" + raw + "'", e);
    }
  }
}
