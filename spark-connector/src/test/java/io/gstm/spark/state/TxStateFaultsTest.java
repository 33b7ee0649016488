package io.gstm.spark.state;

import static io.gstm.spark.state.TxStateTest.BANK;
import static io.gstm.spark.state.TxStateTest.LONGS;
import static io.gstm.spark.state.TxStateTest.accounts;
import static io.gstm.spark.state.TxStateTest.total;
import static io.gstm.spark.state.TxStateTest.transfers;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.gstm.spark.exec.LostDevices;
import java.nio.file.Path;
import java.util.List;
import java.util.TreeMap;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.functions;
import org.apache.spark.sql.types.DataTypes;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Task failures, speculative copies, failed jobs, lost partitions and bad input; the first two
 * also with a state of one partition (its transactions gathered from the cache, no shuffle).
 */
class TxStateFaultsTest extends StateSession {
  @ParameterizedTest(name = "{0} partition(s)")
  @ValueSource(ints = {1, 3})
  void aTaskFailingAfterItAppliedIsRetriedWithoutApplyingTwice(int partitions) {
    try (TxState bank = TxState.from(accounts(48, 200)).key("id").partitions(partitions)
        .create()) {
      TreeMap<Long, long[]> before = StateReplay.snapshot(bank.toDF(), LONGS);
      long replayed = TxStateHooks.REPLAYED.get();
      AtomicInteger failures = new AtomicInteger();
      TxStateHooks.hook = (point, partition, epoch, attempt) -> {
        if (point.equals("local") && partition == partitions / 2 && attempt == 0) {
          failures.incrementAndGet();
          throw new IllegalStateException("injected: executor died after applying");
        }
      };
      Dataset<Row> txs = transfers(300, 48, 120, 3, 0, false);
      ApplyResult r = bank.transactions(txs, BANK).idColumn("id").recordOrder(true).run();
      assertThat(failures.get()).isEqualTo(1);
      assertThat(TxStateHooks.REPLAYED.get()).isGreaterThan(replayed);
      TreeMap<Long, long[]> after = StateReplay.snapshot(bank.toDF(), LONGS);
      TxStateTest.assertReplays(BANK, List.of("balance"), LONGS, before, after, txs, r);
    }
  }

  @ParameterizedTest(name = "{0} partition(s)")
  @ValueSource(ints = {1, 3})
  void aSpeculativeCopyOfEveryTaskAppliesNothingTwice(int partitions) {
    try (TxState bank = TxState.from(accounts(48, 200)).key("id").partitions(partitions)
        .create()) {
      TreeMap<Long, long[]> before = StateReplay.snapshot(bank.toDF(), LONGS);
      long replayed = TxStateHooks.REPLAYED.get();
      TxStateHooks.duplicateLocal = true;
      Dataset<Row> txs = transfers(300, 48, 120, 4, 0, false);
      ApplyResult r = bank.transactions(txs, BANK).idColumn("id").recordOrder(true).run();
      TxStateHooks.duplicateLocal = false;
      assertThat(TxStateHooks.REPLAYED.get() - replayed).isEqualTo(partitions);
      TreeMap<Long, long[]> after = StateReplay.snapshot(bank.toDF(), LONGS);
      TxStateTest.assertReplays(BANK, List.of("balance"), LONGS, before, after, txs, r);
    }
  }

  @Test
  void aFailedJobLeavesEveryPartitionAtItsLastCommittedEpoch() {
    try (TxState bank = TxState.from(accounts(48, 200)).key("id").partitions(3).create()) {
      bank.apply(transfers(100, 48, 50, 5, 0, false), BANK);
      List<Row> committed = bank.toDF().orderBy("id").collectAsList();
      TxStateHooks.hook = (point, partition, epoch, attempt) -> {
        if (point.equals("writeBack") && partition == 2) {
          throw new IllegalStateException("injected: write-back keeps failing");
        }
      };
      assertThatThrownBy(() -> bank.apply(transfers(300, 48, 50, 6, 0, false), BANK))
          .hasStackTraceContaining("write-back keeps failing");
      TxStateHooks.hook = null;
      assertThat(bank.epoch()).isEqualTo(1);
      assertThat(bank.toDF().orderBy("id").collectAsList()).isEqualTo(committed);
      ApplyResult next = bank.transactions(transfers(100, 48, 50, 7, 0, false), BANK).run();
      assertThat(next.epoch()).isEqualTo(3); // epoch 2 failed; numbers are never reused
      assertThat(bank.epoch()).isEqualTo(3);
    }
  }

  /**
   * A task that loses its GPU's context (a sticky CUDA error, here injected) fails the apply with
   * that error and message, leaving this state at its last committed epoch and another state
   * untouched and usable. On a GPU executor every later task on that GPU fails too, naming the
   * lost context, until the executor restarts (played here by forgetting the lost device).
   */
  @Test
  void aLostGpuContextFailsTheApplyWithItsMessageAndCorruptsNoOtherState() {
    try (TxState bank = TxState.from(accounts(48, 200)).key("id").partitions(3).create();
        TxState other = TxState.from(accounts(32, 100)).key("id").partitions(2).create()) {
      boolean onGpu = bank.transactions(transfers(100, 48, 50, 8, 0, false), BANK).run().engines()
          .stream().anyMatch(e -> e.startsWith("cuda"));
      List<Row> committed = bank.toDF().orderBy("id").collectAsList();
      List<Row> otherBefore = other.toDF().orderBy("id").collectAsList();
      TxStateHooks.hook = (point, partition, epoch, attempt) -> {
        if (point.equals("local") && partition == 1) {
          throw new io.gstm.core.cuda.CudaFatalException("launching the program kernel: "
              + "CUDA_ERROR_ILLEGAL_ADDRESS (sticky error: the CUDA context is lost; restart "
              + "the process)", null);
        }
      };
      assertThatThrownBy(() -> bank.apply(transfers(300, 48, 50, 9, 0, false), BANK))
          .isInstanceOf(io.gstm.core.cuda.CudaFatalException.class)
          .hasMessageContaining("CUDA_ERROR_ILLEGAL_ADDRESS")
          .hasMessageContaining("restart the process");
      TxStateHooks.hook = null;
      if (onGpu) {
        assertThatThrownBy(() -> other.apply(transfers(50, 32, 60, 11, 0, false), BANK))
            .hasStackTraceContaining("CUDA context was lost by an earlier task");
        LostDevices.forget();
      }
      assertThat(bank.epoch()).isEqualTo(1);
      assertThat(bank.toDF().orderBy("id").collectAsList()).isEqualTo(committed);
      assertThat(other.toDF().orderBy("id").collectAsList()).isEqualTo(otherBefore);
      TreeMap<Long, long[]> before = StateReplay.snapshot(other.toDF(), LONGS);
      Dataset<Row> txs = transfers(200, 32, 60, 10, 0, false);
      ApplyResult r = other.transactions(txs, BANK).idColumn("id").recordOrder(true).run();
      TreeMap<Long, long[]> after = StateReplay.snapshot(other.toDF(), LONGS);
      TxStateTest.assertReplays(BANK, List.of("balance"), LONGS, before, after, txs, r);
    } finally {
      LostDevices.forget(); // the next test's executor is a fresh one
    }
  }

  @Test
  void aLostPartitionFailsClearlyNamingTheCheckpoint(@TempDir Path dir) {
    TxState bank = TxState.from(accounts(30, 200)).key("id").partitions(3).name("ledger")
        .create();
    String path = dir.resolve("ledger").toString();
    bank.apply(transfers(50, 30, 50, 8, 0, false), BANK);
    bank.checkpoint(path);
    bank.apply(transfers(50, 30, 50, 9, 0, false), BANK);
    StateRegistry.remove(bank.id(), 2); // its executor is gone
    assertThatThrownBy(() -> bank.apply(transfers(50, 30, 50, 10, 0, false), BANK))
        .isInstanceOf(StateLostException.class)
        .hasMessageContaining("'ledger'").hasMessageContaining("partition 2")
        .hasMessageContaining("committed epoch 2").hasMessageContaining("epoch 1 at " + path)
        .hasMessageContaining("epochs 2..2 are lost");
    assertThatThrownBy(bank::toDF).isInstanceOf(StateLostException.class);
    bank.close();
    try (TxState back = TxState.restore(TxStateTest.spark, path)) {
      assertThat(back.epoch()).isEqualTo(1);
      assertThat(back.toDF().count()).isEqualTo(30);
    }
  }

  @Test
  void withTheEpochLogALostPartitionIsRebuiltAndTheApplyGoesOn(@TempDir Path dir) {
    String path = dir.resolve("logged").toString();
    List<Dataset<Row>> batches = List.of(transfers(80, 30, 20, 41, 0, false),
        transfers(80, 30, 20, 42, 100, false), transfers(80, 30, 20, 43, 200, false),
        transfers(80, 30, 20, 44, 300, false));
    List<Row> never = neverLost(batches);
    long recoveries = TxState.RECOVERIES.get();
    try (TxState bank = TxState.from(accounts(30, 10_000)).key("id").partitions(3)
        .name("logged").create().logEpochs(true)) {
      bank.apply(batches.get(0), BANK, 0);
      bank.checkpoint(path);
      bank.apply(batches.get(1), BANK, 1);
      bank.apply(batches.get(2), BANK, 2);
      StateRegistry.remove(bank.id(), 1); // its executor is gone
      ApplyResult r = bank.apply(batches.get(3), BANK, 3);
      assertThat(r.replayed()).isFalse();
      assertThat(TxState.RECOVERIES.get()).isEqualTo(recoveries + 1);
      assertThat(bank.toDF().orderBy("id").collectAsList()).isEqualTo(never);
      assertThat(bank.epoch()).isEqualTo(5); // epoch 4 met the loss, 5 ran it again
    }
    // A restart of the driver: the checkpoint plus the logged epochs, batch ids included.
    try (TxState back = TxState.restore(TxStateTest.spark, path)) {
      assertThat(back.epoch()).isEqualTo(5);
      assertThat(back.appliedBatchIds()).containsExactlyInAnyOrder(0L, 1L, 2L, 3L);
      assertThat(back.toDF().orderBy("id").collectAsList()).isEqualTo(never);
      assertThat(back.apply(batches.get(3), BANK, 3).replayed()).isTrue();
    }
  }

  /** The balances, by id, after {@code batches} on a state of 30 accounts that loses nothing. */
  private static List<Row> neverLost(List<Dataset<Row>> batches) {
    try (TxState twin = TxState.from(accounts(30, 10_000)).key("id").partitions(3).create()) {
      for (int b = 0; b < batches.size(); b++) {
        twin.apply(batches.get(b), BANK, b);
      }
      return twin.toDF().orderBy("id").collectAsList();
    }
  }

  /** A lost executor takes every partition it held: each is rebuilt, and the apply goes on. */
  @Test
  void withTheEpochLogPartitionsLostTogetherAreAllRebuilt(@TempDir Path dir) {
    String path = dir.resolve("two").toString();
    List<Dataset<Row>> batches = List.of(transfers(80, 30, 20, 51, 0, false),
        transfers(80, 30, 20, 52, 100, false), transfers(80, 30, 20, 53, 200, false));
    List<Row> never = neverLost(batches);
    long recoveries = TxState.RECOVERIES.get();
    try (TxState bank = TxState.from(accounts(30, 10_000)).key("id").partitions(3)
        .name("two").create().logEpochs(true)) {
      bank.apply(batches.get(0), BANK, 0);
      bank.checkpoint(path);
      bank.apply(batches.get(1), BANK, 1);
      StateRegistry.remove(bank.id(), 0); // their executor is gone
      StateRegistry.remove(bank.id(), 2);
      ApplyResult r = bank.apply(batches.get(2), BANK, 2);
      assertThat(r.replayed()).isFalse();
      assertThat(TxState.RECOVERIES.get()).isEqualTo(recoveries + 2);
      assertThat(bank.toDF().orderBy("id").collectAsList()).isEqualTo(never);
      assertThat(bank.appliedBatchIds()).containsExactlyInAnyOrder(0L, 1L, 2L);
    }
  }

  @Test
  void badInputIsRefusedBeforeAnyTaskNamingWhatIsWrong() {
    try (TxState bank = TxState.from(accounts(20, 100)).key("id").partitions(2).name("b")
        .create()) {
      Dataset<Row> txs = transfers(10, 20, 10, 1, 0, false);
      assertThatThrownBy(() -> bank.apply(txs.drop("amount"), BANK))
          .hasMessageContaining("column 'amount' is missing")
          .hasMessageContaining("program 'transfer'");
      assertThatThrownBy(() -> bank.apply(txs.withColumn("amount",
          functions.col("amount").cast(DataTypes.StringType)), BANK))
          .hasMessageContaining("column 'amount' holds string")
          .hasMessageContaining("int64");
      assertThatThrownBy(() -> bank.apply(txs, """
          program fee(src: int32, amount: int64)
              regions balance: int64, fees: int64
          { balance[src] = balance[src] - amount; fees[src] = fees[src] + amount; }
          """)).hasMessageContaining("program 'fee'")
          .hasMessageContaining("region 'fees', which is not a column of state 'b'");
      assertThatThrownBy(() -> bank.apply(txs, """
          program next(src: int32, amount: int64)
              regions balance: int64
          { balance[src + 1] = amount; }
          """)).hasMessageContaining("program 'next'").hasMessageContaining("computed index");
      assertThatThrownBy(() -> bank.apply(txs, """
          program wide(src: int64, amount: int64)
              regions balance: int64
          { balance[int32(src)] = amount; }
          """)).hasMessageContaining("program 'wide'");
      assertThatThrownBy(() -> bank.apply(txs, BANK + """
          program audit(src: int32)
              regions balance: int64
              outputs seen: int64
          { seen = balance[src]; }
          """).count()).hasMessageContaining("typeColumn");
      assertThatThrownBy(() -> bank.transactions(txs, BANK).crossPartition("reject").run())
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessageContaining("spans partitions of state 'b'")
          .hasMessageContaining("src=").hasMessageContaining("dst=");
      assertThat(bank.epoch()).isZero(); // nothing above ran
      Dataset<Row> nulls = txs.withColumn("dst", functions.when(functions.col("id")
          .equalTo(3), functions.lit(null)).otherwise(functions.col("dst")));
      Row nullKey = bank.transactions(nulls, BANK).idColumn("id").run().outcomes()
          .where("txId = 3").first();
      assertThat(nullKey.getString(nullKey.fieldIndex("outcome"))).isEqualTo("NULL_KEY");
    }
    TxState closed = TxState.from(accounts(5, 1)).key("id").partitions(1).create();
    closed.close();
    assertThatThrownBy(() -> closed.apply(transfers(3, 5, 1, 1, 0, false), BANK))
        .hasMessageContaining("is closed");
    assertThatThrownBy(() -> TxState.from(accounts(5, 1).union(accounts(5, 1))).key("id")
        .partitions(2).create()).isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("appears more than once");
    assertThatThrownBy(() -> TxState.from(accounts(5, 1)).key("nope").create())
        .hasMessageContaining("column 'nope' (key) not found");
  }

  @Test
  void foreachBatchOfAStreamAppliesAReplayedBatchOnce(@TempDir Path dir) throws Exception {
    org.apache.spark.sql.SparkSession spark = TxStateTest.spark;
    try (TxState bank = TxState.from(accounts(20, 1_000)).key("id").partitions(2).create()) {
      long total = total(bank);
      Path in = java.nio.file.Files.createDirectories(dir.resolve("in"));
      transfers(60, 20, 30, 12, 0, false).write().mode("overwrite").json(in.resolve("a")
          .toString());
      org.apache.spark.sql.types.StructType schema = transfers(1, 20, 1, 1, 0, false).schema();
      String checkpoint = dir.resolve("chk").toString();
      AtomicInteger calls = new AtomicInteger();
      for (int run = 0; run < 2; run++) {
        boolean failFirst = run == 0;
        org.apache.spark.sql.streaming.StreamingQuery q = spark.readStream().schema(schema)
            .json(in.resolve("a").toString()).writeStream()
            .option("checkpointLocation", checkpoint)
            .trigger(org.apache.spark.sql.streaming.Trigger.AvailableNow())
            .foreachBatch((org.apache.spark.api.java.function.VoidFunction2<Dataset<Row>, Long>)
                (batch, id) -> {
                  calls.incrementAndGet();
                  bank.apply(batch, BANK, id);
                  if (failFirst) {
                    throw new IllegalStateException("injected: the query dies after the apply");
                  }
                }).start();
        try {
          q.awaitTermination();
        } catch (Exception e) {
          assertThat(failFirst).isTrue();
        }
      }
      assertThat(calls.get()).isEqualTo(2); // batch 0, then batch 0 again after the restart
      assertThat(bank.epoch()).isEqualTo(1);
      assertThat(bank.appliedBatchIds()).containsExactly(0L);
      assertThat(total(bank)).isEqualTo(total);
    }
  }
}
