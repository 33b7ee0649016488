package io.gstm.spark.conf;

import com.esotericsoftware.kryo.DefaultSerializer;
import com.esotericsoftware.kryo.serializers.JavaSerializer;
import io.gstm.core.engine.EngineChoice;
import java.io.Serializable;

/**
 * The parsed {@code spark.gstm.*} settings of one job, immutable and checked; they travel to the
 * executors inside the tasks. Grouped as the keys are, so that each reads with its name:
 * {@code settings.executors().engine()} is {@code spark.gstm.engine},
 * {@code settings.graph().maxSupersteps()} is {@code spark.gstm.graph.maxSupersteps}. Build them
 * with {@link GstmConf#settings}.
 *
 * @param executors which engine each task gets
 * @param transactions how the transactional kernels run
 * @param graph {@code spark.gstm.graph.*}, read by {@code GraphRelaxation}
 * @param kmeans {@code spark.gstm.kmeans.*}, read by {@code TxKMeans}
 */
@DefaultSerializer(JavaSerializer.class)
public record GstmSettings(Executors executors, Transactions transactions, Graph graph,
    KMeans kmeans) implements Serializable {

  /**
   * Which engine each task gets.
   *
   * @param engine {@code spark.gstm.engine}
   * @param requireGpu {@code spark.gstm.requireGpu}
   * @param deviceOrdinal {@code spark.gstm.deviceOrdinal}
   * @param devices {@code spark.gstm.devices}
   * @param concurrentGpuTasks {@code spark.gstm.concurrentGpuTasks}
   * @param jvmWorkers {@code spark.gstm.jvmWorkers}
   */
  @DefaultSerializer(JavaSerializer.class)
  public record Executors(EngineChoice engine, boolean requireGpu, int deviceOrdinal,
      int devices, int concurrentGpuTasks, int jvmWorkers) implements Serializable {}

  /**
   * How the transactional kernels run.
   *
   * @param lockCoverage {@code spark.gstm.lockCoverage}
   * @param threadsPerBlock {@code spark.gstm.threadsPerBlock}
   * @param retryLimit {@code spark.gstm.retryLimit}
   */
  @DefaultSerializer(JavaSerializer.class)
  public record Transactions(int lockCoverage, int threadsPerBlock, int retryLimit)
      implements Serializable {}

  /**
   * The graph relaxation's settings.
   *
   * @param maxSupersteps {@code spark.gstm.graph.maxSupersteps}
   * @param maxLocalRounds {@code spark.gstm.graph.maxLocalRounds}
   * @param partitions {@code spark.gstm.graph.partitions}
   * @param driverExchangeLimit {@code spark.gstm.graph.driverExchangeLimit}
   * @param threadsPerBlock {@code spark.gstm.graph.threadsPerBlock}
   * @param vertexOrder {@code spark.gstm.graph.vertexOrder}
   */
  @DefaultSerializer(JavaSerializer.class)
  public record Graph(int maxSupersteps, int maxLocalRounds, int partitions,
      int driverExchangeLimit, int threadsPerBlock, String vertexOrder) implements Serializable {}

  /**
   * The transactional k-means' settings.
   *
   * @param pointsPerTransaction {@code spark.gstm.kmeans.pointsPerTransaction}
   */
  @DefaultSerializer(JavaSerializer.class)
  public record KMeans(int pointsPerTransaction) implements Serializable {}

  /** These settings with another engine choice. */
  public GstmSettings withEngine(EngineChoice value) {
    Executors e = executors;
    return new GstmSettings(new Executors(value, e.requireGpu(), e.deviceOrdinal(),
        e.devices(), e.concurrentGpuTasks(), e.jvmWorkers()), transactions, graph, kmeans);
  }

  /** These settings with another {@code spark.gstm.graph.vertexOrder} (auto, degree, input). */
  public GstmSettings withVertexOrder(String value) {
    Graph g = graph;
    return new GstmSettings(executors, transactions, new Graph(g.maxSupersteps(),
        g.maxLocalRounds(), g.partitions(), g.driverExchangeLimit(), g.threadsPerBlock(),
        GstmConf.VERTEX_ORDER.parse(value)), kmeans);
  }
}
