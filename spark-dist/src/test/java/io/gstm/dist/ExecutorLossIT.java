package io.gstm.dist;

import static io.gstm.dist.Workloads.BANK;
import static io.gstm.dist.Workloads.transfers;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

import io.gstm.spark.exec.EngineSurvey;
import io.gstm.spark.state.ApplyResult;
import io.gstm.spark.state.StateLostException;
import io.gstm.spark.state.TxState;
import java.nio.file.Path;
import java.util.List;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.apache.spark.sql.SparkSession;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * An executor JVM killed (SIGKILL) while one of its tasks is in the middle of a TxState apply, a
 * relaxation superstep or a k-means iteration: the job ends with the result it has without the
 * loss, or, where the lost state cannot be rebuilt, fails naming it and its last checkpoint; no
 * committed epoch is lost and no batch is applied twice.
 */
class ExecutorLossIT {
  private static final ExecutorKill KILL = new ExecutorKill(
      Path.of(System.getProperty("gstm.clusterWork", "target/cluster"), "holds"));

  @RegisterExtension
  static final ClusterSession cluster = new ClusterSession(
      "spark.executor.extraJavaOptions", KILL.javaOption());

  @TempDir
  Path dir;

  /** Batch 2's apply, and the executor killed in it. */
  private record Killed(ApplyResult result, ExecutorKill.Killed killed) {}

  /**
   * Applies batches 0 and 1 (a checkpoint between them), then batch 2 while the executor of
   * {@code partition} is killed at {@code point}.
   */
  private static Killed batchTwoKilledAt(SparkSession spark, TxState bank, String checkpoint,
      String point, int partition) throws Exception {
    bank.apply(transfers(spark, 0), BANK, 0);
    bank.checkpoint(checkpoint);
    bank.apply(transfers(spark, 1), BANK, 1);
    KILL.arm(point, partition);
    CompletableFuture<ApplyResult> apply =
        CompletableFuture.supplyAsync(() -> bank.apply(transfers(spark, 2), BANK, 2));
    ExecutorKill.Killed killed = KILL.whenHeld(point, partition, apply);
    return new Killed(apply.get(3, TimeUnit.MINUTES), killed);
  }

  @Test
  void withTheEpochLogTheKilledExecutorsPartitionsAreRebuiltAndTheApplyGoesOn() throws Exception {
    SparkSession spark = cluster.spark();
    // What the batches give without failure (ClusterResultsIT: so does every run without one).
    TreeMap<Long, Long> never = Workloads.balancesAfter(3);
    String checkpoint = dir.resolve("logged").toString();
    try (TxState bank = Workloads.bank(spark, "logged").logEpochs(true)) {
      Killed k = batchTwoKilledAt(spark, bank, checkpoint, "state.local", 1);
      ExecutorKill.Killed killed = k.killed();
      ApplyResult r = k.result();

      assertThat(r.replayed()).isFalse();
      assertThat(r.epoch()).isEqualTo(4); // epoch 3 met the loss; 4 applied batch 2 again
      bank.apply(transfers(spark, 3), BANK, 3);
      TreeMap<Long, Long> balances = Workloads.balances(bank);
      assertThat(balances).isEqualTo(never);
      assertThat(Workloads.total(balances)).isEqualTo(Workloads.ACCOUNTS * Workloads.OPENING);
      assertThat(bank.appliedBatchIds()).containsExactlyInAnyOrder(0L, 1L, 2L, 3L);
      assertThat(bank.apply(transfers(spark, 2), BANK, 2).replayed()).isTrue();
      assertThat(Workloads.balances(bank)).isEqualTo(never);
      assertThat(EngineSurvey.run(spark, 2)).extracting(EngineSurvey.Executor::pid)
          .doesNotContain(killed.pid());
    }
  }

  /**
   * An executor killed in the cross-partition phase (the task that runs it, which fetched the
   * values asked from the owners; or an owner taking its writes from that task's result): the
   * epoch is rebuilt from the log and applied again, to the balances of a run without failure.
   */
  @ParameterizedTest(name = "{0} of partition {1}")
  @CsvSource({"state.cross, -1", "state.writeBack, 1"})
  void anExecutorKilledInTheCrossPartitionPhaseLosesNothing(String point, int partition)
      throws Exception {
    SparkSession spark = cluster.spark();
    TreeMap<Long, Long> never = Workloads.balancesAfter(3);
    String checkpoint = dir.resolve("cross").toString();
    try (TxState bank = Workloads.bank(spark, "cross").logEpochs(true)) {
      ApplyResult r = batchTwoKilledAt(spark, bank, checkpoint, point, partition).result();
      assertThat(r.crossPartition()).isPositive();
      bank.apply(transfers(spark, 3), BANK, 3);
      TreeMap<Long, Long> balances = Workloads.balances(bank);
      assertThat(balances).isEqualTo(never);
      assertThat(bank.appliedBatchIds()).containsExactlyInAnyOrder(0L, 1L, 2L, 3L);
    }
  }

  /**
   * An executor killed in an epoch run in one stage (a task per partition; the cross-partition
   * transactions as one batch on the epoch's coordinator), in its own transactions or in the
   * cross-partition phase: the epoch breaks off, every partition goes back to the last committed
   * epoch, the lost one is rebuilt from the log, and the epoch runs again, to the balances of a
   * run without failure.
   */
  @ParameterizedTest(name = "{0} of partition 1")
  @ValueSource(strings = {"state.local", "state.cross"})
  void anExecutorKilledInAnEpochInOneStageLosesNothing(String point) throws Exception {
    SparkSession spark = cluster.spark();
    TreeMap<Long, Long> never = Workloads.balancesAfter(3);
    String checkpoint = dir.resolve("mesh").toString();
    // Both executors (the one an earlier test killed is replaced), so that each holds one.
    Sessions.awaitBlockManagers(spark, Sessions.EXECUTORS);
    try (TxState bank = Workloads.bank(spark, "mesh", 2).logEpochs(true)) {
      ApplyResult first = bank.apply(transfers(spark, 0), BANK, 0);
      // One partition per executor, each with a task slot: the epoch runs in one stage.
      assertThat(first.exchange()).isEqualTo("mesh");
      assertThat(first.crossPartition()).isPositive();
      bank.checkpoint(checkpoint);
      bank.apply(transfers(spark, 1), BANK, 1);
      KILL.arm(point, 1);
      CompletableFuture<ApplyResult> apply =
          CompletableFuture.supplyAsync(() -> bank.apply(transfers(spark, 2), BANK, 2));
      KILL.whenHeld(point, 1, apply);
      ApplyResult r = apply.get(3, TimeUnit.MINUTES);
      assertThat(r.replayed()).isFalse();
      bank.apply(transfers(spark, 3), BANK, 3);
      assertThat(Workloads.balances(bank)).isEqualTo(never);
      assertThat(bank.appliedBatchIds()).containsExactlyInAnyOrder(0L, 1L, 2L, 3L);
    }
  }

  @Test
  void withoutTheLogALostPartitionFailsNamingTheStateAndItsLastCheckpoint() {
    SparkSession spark = cluster.spark();
    String checkpoint = dir.resolve("plain").toString();
    TxState bank = Workloads.bank(spark, "plain");
    try {
      bank.apply(transfers(spark, 0), BANK, 0);
      bank.checkpoint(checkpoint);
      bank.apply(transfers(spark, 1), BANK, 1);
      KILL.arm("state.local", 0);
      CompletableFuture<ApplyResult> apply =
          CompletableFuture.supplyAsync(() -> bank.apply(transfers(spark, 2), BANK, 2));
      KILL.whenHeld("state.local", 0, apply);

      assertThat(apply).failsWithin(3, TimeUnit.MINUTES).withThrowableThat()
          .havingCause().isInstanceOf(StateLostException.class)
          .withMessageContaining("'plain'").withMessageContaining("committed epoch 2")
          .withMessageContaining("epoch 1 at " + checkpoint)
          .withMessageContaining("epochs 2..2 are lost");
      assertThatThrownBy(bank::toDF).isInstanceOf(StateLostException.class);
    } finally {
      bank.close();
    }
    // The checkpoint holds epoch 1 and its batch; the batches after it apply again, once.
    try (TxState back = TxState.restore(spark, checkpoint)) {
      assertThat(back.epoch()).isEqualTo(1);
      assertThat(back.appliedBatchIds()).containsExactly(0L);
      assertThat(back.apply(transfers(spark, 0), BANK, 0).replayed()).isTrue();
      back.apply(transfers(spark, 1), BANK, 1);
      back.apply(transfers(spark, 2), BANK, 2);
      assertThat(Workloads.balances(back)).isEqualTo(Workloads.balancesAfter(2));
    }
  }

  @Test
  void aRelaxationWhoseExecutorIsKilledEndsWithTheSameValues() throws Exception {
    SparkSession spark = cluster.spark();
    TreeMap<Long, Double> expected = Workloads.shortestPaths(spark);
    KILL.arm("graph.laterStep", 2);
    CompletableFuture<TreeMap<Long, Double>> run =
        CompletableFuture.supplyAsync(() -> Workloads.shortestPaths(spark));
    KILL.whenHeld("graph.laterStep", 2, run);
    assertThat(run.get(3, TimeUnit.MINUTES)).isEqualTo(expected);
  }

  /**
   * A subgraph per executor, supersteps through the driver's hub: the killed executor's
   * subgraph is gone with it, the stage fails, and the run starts over with a job per superstep,
   * ending on the same values.
   */
  @Test
  void aRelaxationThroughTheHubWhoseExecutorIsKilledEndsWithTheSameValues() throws Exception {
    SparkSession spark = cluster.spark();
    // Components: shortest paths from 0 stay in one subgraph (block 0), labels cross.
    TreeMap<Long, Double> expected = Workloads.components(spark);
    // Both executors back (an earlier test may have killed one): a subgraph on each.
    Sessions.awaitBlockManagers(spark, Sessions.EXECUTORS);
    KILL.arm("graph.hubStep", 1);
    CompletableFuture<Workloads.GraphRun> run =
        CompletableFuture.supplyAsync(() -> Workloads.perExecutor(spark, true));
    KILL.whenHeld("graph.hubStep", 1, run);
    Workloads.GraphRun r = run.get(3, TimeUnit.MINUTES);
    assertThat(r.exchange()).isEqualTo("jobs");
    assertThat(r.values()).isEqualTo(expected);
  }

  @Test
  void aTxKMeansFitWhoseExecutorIsKilledEndsWithTheSameCenters() throws Exception {
    SparkSession spark = cluster.spark();
    List<double[]> expected = Workloads.kmeansCenters(spark);
    KILL.arm("kmeans.update", 1);
    CompletableFuture<List<double[]>> fit =
        CompletableFuture.supplyAsync(() -> Workloads.kmeansCenters(spark));
    KILL.whenHeld("kmeans.update", 1, fit);
    List<double[]> centers = fit.get(3, TimeUnit.MINUTES);
    for (int j = 0; j < expected.size(); j++) {
      assertThat(centers.get(j)).containsExactly(expected.get(j), within(1e-9));
    }
  }

  /**
   * A point set per executor: the killed executor's points are gone with it, the stage of
   * iterations fails, and the fit starts over from its input, ending where it would have.
   */
  @Test
  void aFitWithAPointSetPerExecutorWhoseExecutorIsKilledEndsWithTheSameCenters()
      throws Exception {
    SparkSession spark = cluster.spark();
    List<double[]> expected = Workloads.kmeans(spark, "engines").centers();
    // Set 0: there is one whichever executors ran the reading tasks.
    KILL.arm("kmeans.update", 0);
    CompletableFuture<Workloads.KMeansRun> fit =
        CompletableFuture.supplyAsync(() -> Workloads.kmeans(spark, "engines"));
    KILL.whenHeld("kmeans.update", 0, fit);
    Workloads.KMeansRun run = fit.get(3, TimeUnit.MINUTES);
    for (int j = 0; j < expected.size(); j++) {
      assertThat(run.centers().get(j)).containsExactly(expected.get(j), within(1e-9));
    }
  }
}
