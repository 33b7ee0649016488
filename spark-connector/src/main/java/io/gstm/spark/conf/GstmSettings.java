package io.gstm.spark.conf;

import io.gstm.core.engine.EngineChoice;
import java.io.Serializable;

/**
 * The parsed {@code spark.gstm.*} settings of one job, immutable and checked; they travel to the
 * executors inside the tasks. Build them with {@link GstmConf#settings}.
 */
public record GstmSettings(EngineChoice engine, boolean requireGpu, int deviceOrdinal,
    int concurrentGpuTasks, int jvmWorkers, int lockCoverage,
    int threadsPerBlock, int retryLimit, int maxSupersteps, int maxLocalRounds,
    int graphPartitions, int driverExchangeLimit, int graphThreadsPerBlock, String vertexOrder,
    int pointsPerTransaction) implements Serializable {

  /** These settings with another engine choice. */
  public GstmSettings withEngine(EngineChoice value) {
    return new GstmSettings(value, requireGpu, deviceOrdinal, concurrentGpuTasks, jvmWorkers,
        lockCoverage, threadsPerBlock, retryLimit, maxSupersteps, maxLocalRounds,
        graphPartitions, driverExchangeLimit, graphThreadsPerBlock, vertexOrder,
        pointsPerTransaction);
  }

  /** These settings with another {@code spark.gstm.graph.vertexOrder} (auto, degree, input). */
  public GstmSettings withVertexOrder(String value) {
    return new GstmSettings(engine, requireGpu, deviceOrdinal, concurrentGpuTasks, jvmWorkers,
        lockCoverage, threadsPerBlock, retryLimit, maxSupersteps, maxLocalRounds,
        graphPartitions, driverExchangeLimit, graphThreadsPerBlock,
        GstmConf.VERTEX_ORDER.parse(value), pointsPerTransaction);
  }

}
