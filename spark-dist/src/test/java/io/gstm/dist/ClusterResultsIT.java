package io.gstm.dist;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import io.gstm.spark.exec.EngineSurvey;
import io.gstm.spark.exec.ExecutorCoalescer;
import io.gstm.spark.exec.ExecutorSpread;
import io.gstm.spark.state.TxState;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.apache.spark.api.java.JavaRDD;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.storage.StorageLevel;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * Graph relaxation, TxKMeans and TxState on a standalone cluster (two workers, executors in
 * JVMs of their own that get gstm only from the one jar) give what they give in local mode.
 */
class ClusterResultsIT {
  /** GPUs by Spark's scheduling, as on a GPU cluster: each executor gets its worker's. */
  @RegisterExtension
  static final ClusterSession cluster = new ClusterSession(
      "spark.executor.resource.gpu.amount", "1", "spark.task.resource.gpu.amount", "1");

  @TempDir
  static Path dir;

  private static TreeMap<Long, Double> paths;
  private static TreeMap<Long, Double> components;
  private static List<double[]> centers;
  private static Workloads.StateRun state;
  private static TreeMap<Long, Double> widest;
  private static Map<String, Object> changes;

  /** The reference: every run in local mode, before the cluster application starts. */
  @BeforeAll
  static void runLocally() {
    SparkSession local = Sessions.local();
    try {
      paths = Workloads.shortestPaths(local);
      components = Workloads.components(local);
      centers = Workloads.kmeansCenters(local);
      state = Workloads.stateRun(local, dir.resolve("local-checkpoint").toString());
      widest = Workloads.widestPaths(local);
      changes = Workloads.insertRun(local);
    } finally {
      local.stop();
    }
  }

  @Test
  void executorsAreJvmsOfTheirOwnWithGstmOnlyFromTheOneJar() {
    SparkSession spark = cluster.spark();
    List<EngineSurvey.Executor> executors = EngineSurvey.run(spark, 2);
    assertThat(executors).hasSize(Sessions.EXECUTORS)
        .allSatisfy(e -> assertThat(e.pid()).isNotEqualTo(ProcessHandle.current().pid()))
        .extracting(EngineSurvey.Executor::pid).doesNotHaveDuplicates();
    // Each asked for the GPU its task was given (here none opens: no CUDA driver).
    assertThat(executors).extracting(e -> gpuNamed(e.reason()))
        .containsExactlyInAnyOrder("0", "1");
    // Each executor's own class path is Spark's jars: gstm came through spark.jars.
    List<Row> classPaths = spark.range(0, 8, 1, 8)
        .selectExpr("java_method('java.lang.System', 'getProperty', 'java.class.path') AS cp")
        .distinct().collectAsList();
    assertThat(classPaths).isNotEmpty().allSatisfy(r -> assertThat(r.getString(0))
        .contains("spark-core_2.13").doesNotContain("gstm"));
    // And the driver runs on the one jar too, not on the modules it was made of.
    assertThat(TxState.class.getProtectionDomain().getCodeSource().getLocation().getPath())
        .endsWith(DistJar.path().getFileName().toString());
  }

  /** The device a survey's reason names: "GPU 1 from TaskContext resources", "no usable GPU 1". */
  private static String gpuNamed(String reason) {
    Matcher m = Pattern.compile("GPU (\\d+)").matcher(reason);
    assertThat(m.find()).as("a GPU in '%s'", reason).isTrue();
    return m.group(1);
  }

  @Test
  void shortestPathsAndComponentsEqualLocalMode() {
    assertThat(paths).hasSize(Workloads.VERTICES).containsEntry(0L, 0.0)
        .containsValue(Double.POSITIVE_INFINITY);
    assertThat(components.values()).containsOnly(0.0, 100.0, 200.0);
    assertThat(Workloads.shortestPaths(cluster.spark())).isEqualTo(paths);
    assertThat(Workloads.components(cluster.spark())).isEqualTo(components);
  }

  /** Cached edges, decoded from Spark's cached bytes by each executor: the same values. */
  @Test
  void cachedEdgesEqualLocalMode() {
    List<TreeMap<Long, Double>> cached = Workloads.fromCachedEdges(cluster.spark());
    assertThat(cached.get(0)).isEqualTo(paths);
    assertThat(cached.get(1)).isEqualTo(components);
  }

  /**
   * A subgraph per executor (what GPU executors get): two subgraphs whose supersteps run in one
   * stage, trading boundary updates through the driver's hub.
   */
  @Test
  void aSubgraphPerExecutorExchangesThroughTheHubAndEqualsLocalMode() {
    Workloads.GraphRun sssp = Workloads.perExecutor(cluster.spark(), false);
    Workloads.GraphRun cc = Workloads.perExecutor(cluster.spark(), true);
    assertThat(sssp.subgraphs()).isEqualTo(Sessions.EXECUTORS);
    assertThat(sssp.exchange()).isEqualTo("hub");
    assertThat(cc.exchange()).isEqualTo("hub");
    // Block 1's vertices are split between the subgraphs: their labels cross.
    assertThat(cc.supersteps()).isGreaterThan(1);
    assertThat(sssp.values()).isEqualTo(paths);
    assertThat(cc.values()).isEqualTo(components);
  }

  @Test
  void txKMeansEqualsLocalModeWithinFloatTolerance() {
    List<double[]> onCluster = Workloads.kmeansCenters(cluster.spark());
    assertThat(onCluster).hasSize(3);
    for (int j = 0; j < 3; j++) {
      assertThat(onCluster.get(j)).containsExactly(centers.get(j), within(1e-9));
    }
  }

  /**
   * A point set per executor (what GPU executors get): the points stay on the executors that
   * read them, and every iteration runs in one stage, the sets trading partials for centroids
   * with the driver.
   */
  @Test
  void txKMeansWithAPointSetPerExecutorEqualsLocalModeWithinFloatTolerance() {
    Workloads.KMeansRun onCluster = Workloads.kmeans(cluster.spark(), "engines");
    assertThat(onCluster.pointSets()).isEqualTo(Sessions.EXECUTORS);
    for (int j = 0; j < 3; j++) {
      assertThat(onCluster.centers().get(j)).containsExactly(centers.get(j), within(1e-9));
    }
  }

  /**
   * Partitions cached on two executors of one host, merged as a subgraph per executor merges
   * its input's (Spark's own coalesce groups by host and would mix them): every merged
   * partition runs on the executor that cached its parts.
   */
  @Test
  void mergedPartitionsRunWhereTheirPartsAreCached() {
    SparkSession spark = cluster.spark();
    Dataset<Row> cached = spark.range(0, 64, 1, 16)
        .selectExpr("id", "java_method('io.gstm.spark.exec.ThisExecutor', 'id') AS cachedOn")
        .persist(StorageLevel.MEMORY_ONLY());
    try {
      assertThat(cached.count()).isEqualTo(64);
      JavaRDD<Row> merged = ExecutorCoalescer.coalesce(cached.javaRDD(), Sessions.EXECUTORS);
      List<Row> rows = spark.createDataFrame(merged, cached.schema())
          .selectExpr("id", "cachedOn",
              "java_method('io.gstm.spark.exec.ThisExecutor', 'id') AS ranOn")
          .collectAsList();
      assertThat(rows).hasSize(64)
          .allSatisfy(r -> assertThat(r.getString(2)).as("row %d", r.getLong(0))
              .isEqualTo(r.getString(1)));
    } finally {
      cached.unpersist(false);
    }
  }

  /**
   * A reading job spread over the executors (as TxKMeans reads its points and graphs their
   * edges) runs an equal share of its partitions on each, in turn, whichever asks first.
   */
  @Test
  void spreadReadingRunsAnEqualShareOnEachExecutor() {
    SparkSession spark = cluster.spark();
    List<ExecutorSpread.Executor> executors = ExecutorSpread.registered(spark.sparkContext());
    assertThat(executors).hasSize(Sessions.EXECUTORS);
    Dataset<Row> input = spark.range(0, 64, 1, 16).toDF();
    JavaRDD<Row> spread = ExecutorSpread.evenly(input.javaRDD());
    // Executor code from the jar only: the test's own classes are not on the executors.
    List<Row> rows = spark.createDataFrame(spread, input.schema())
        .selectExpr("spark_partition_id() AS part",
            "java_method('io.gstm.spark.exec.ThisExecutor', 'id') AS ranOn")
        .collectAsList();
    assertThat(rows).hasSize(64).allSatisfy(r -> assertThat(r.getString(1))
        .as("partition %d", r.getInt(0))
        .isEqualTo(executors.get(r.getInt(0) % executors.size()).id()));
  }

  @Test
  void txStateEqualsLocalModeAndItsCheckpointRestores() {
    Workloads.StateRun run = Workloads.stateRun(cluster.spark(),
        dir.resolve("cluster-checkpoint").toString());
    assertThat(state.replayed()).isTrue();
    assertThat(state.epoch()).isEqualTo(3);
    assertThat(state.balances()).isEqualTo(Workloads.balancesAfter(2));
    assertThat(run.balances()).isEqualTo(state.balances());
    assertThat(run.committed()).isEqualTo(state.committed());
    assertThat(run.epoch()).isEqualTo(state.epoch());
    assertThat(run.replayed()).isTrue();
    assertThat(run.restored()).isEqualTo(run.balances());
    assertThat(run.restoredEpoch()).isEqualTo(run.epoch());
  }

  @Test
  void aOnePartitionStateOverACachedInputGivesTheSerialBalances() {
    assertThat(Workloads.cachedOnePartitionRun(cluster.spark()))
        .isEqualTo(Workloads.balancesAfter(0));
  }

  @Test
  void aOnePartitionStateOverAParquetInputGivesTheSerialBalances() {
    assertThat(Workloads.parquetOnePartitionRun(cluster.spark(),
        dir.resolve("transfers-parquet").toString())).isEqualTo(Workloads.balancesAfter(0));
  }

  @Test
  void aProgramRelaxationEqualsLocalMode() {
    assertThat(widest).hasSize(Workloads.VERTICES)
        .containsEntry(0L, Double.POSITIVE_INFINITY);
    assertThat(widest.values().stream().filter(w -> w > 0).count()).isGreaterThan(50);
    assertThat(Workloads.widestPaths(cluster.spark())).isEqualTo(widest);
    // Taken widest first (the order built in the executor's task): the same values.
    assertThat(Workloads.widestPaths(cluster.spark(), true)).isEqualTo(widest);
    // Shortest paths with parent and hop count (three regions under one lock a vertex, laid out
    // in the executor's task): the built-in's distances in local mode.
    assertThat(Workloads.programPaths(cluster.spark())).isEqualTo(paths);
  }

  @Test
  void insertsAndDeletesEqualLocalMode() {
    @SuppressWarnings("unchecked")
    TreeMap<Long, Long> balances = (TreeMap<Long, Long>) changes.get("balances");
    // 60 accounts, 40 opened, 20 opened by deposits, 10 closed.
    assertThat(balances).hasSize(110).containsEntry(10_039L, 39L).containsEntry(20_000L, 5L)
        .doesNotContainKey(59 * 7L + 3);
    assertThat(changes.get("committed")).isEqualTo(90L);
    assertThat(changes.get("outcomes").toString()).contains("MISSING_KEY");
    assertThat(Workloads.insertRun(cluster.spark())).isEqualTo(changes);
  }
}
