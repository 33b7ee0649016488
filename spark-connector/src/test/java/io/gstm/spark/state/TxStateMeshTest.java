package io.gstm.spark.state;

import static io.gstm.spark.state.TxStateTest.BANK;
import static io.gstm.spark.state.TxStateTest.INVENTORY;
import static io.gstm.spark.state.TxStateTest.LONGS;
import static io.gstm.spark.state.TxStateTest.accounts;
import static io.gstm.spark.state.TxStateTest.assertReplays;
import static io.gstm.spark.state.TxStateTest.total;
import static io.gstm.spark.state.TxStateTest.transfers;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.gstm.core.program.ValueType;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.spark.SparkContext;
import org.apache.spark.scheduler.SparkListener;
import org.apache.spark.scheduler.SparkListenerTaskEnd;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Epochs in one stage ({@code exchange("mesh")}): every partition's task runs its own
 * transactions, then the epoch's coordinator runs the cross-partition ones as one batch over the
 * rows the owners send it. Random transfers over two to four partitions, a few hot keys (long
 * chains of conflicts in the batch), unknown keys, semantic conflicts, inserts and deletes, each
 * against a serial replay of the recorded order; a task failing in the cross-partition phase
 * (the epoch runs again with jobs, nothing applied twice); the setting's values.
 */
class TxStateMeshTest {
  @BeforeAll
  static void start() {
    // Four task slots: a mesh of up to four partitions runs all its tasks at once.
    TxStateTest.spark = TxStateTest.session("spark.master", "local[4,4]");
  }

  @AfterAll
  static void stop() {
    TxStateTest.spark.stop();
  }

  @AfterEach
  void noHooks() {
    TxStateHooks.reset();
  }

  @ParameterizedTest(name = "{0} partitions")
  @ValueSource(ints = {2, 3, 4})
  void randomTransfersAcrossPartitionsEqualTheSerialReplay(int partitions) {
    try (TxState bank = TxState.from(accounts(64, 100)).key("id").partitions(partitions)
        .name("bank").create()) {
      long total = total(bank);
      for (int epoch = 1; epoch <= 2; epoch++) {
        TreeMap<Long, long[]> before = StateReplay.snapshot(bank.toDF(), LONGS);
        Dataset<Row> txs = transfers(500, 64, 150, partitions * 10 + epoch, epoch * 10_000L, true);
        long meshed = EpochMesh.EPOCHS.get();
        ApplyResult r = bank.transactions(txs, BANK).idColumn("id").recordOrder(true)
            .exchange("mesh").run();
        assertThat(EpochMesh.EPOCHS.get()).isEqualTo(meshed + 1);
        assertThat(r.epoch()).isEqualTo(epoch);
        assertThat(r.transactions()).isEqualTo(500);
        assertThat(r.crossPartition()).isGreaterThan(100);
        Map<String, Long> c = r.outcomeCounts();
        assertThat(c.get("MISSING_KEY")).isEqualTo(10);
        // Amounts up to 150 on balances of 100: many abort, as the order decides.
        assertThat(c.get("COMMITTED")).isGreaterThan(100);
        assertThat(total(bank)).isEqualTo(total);
        TreeMap<Long, long[]> after = StateReplay.snapshot(bank.toDF(), LONGS);
        assertReplays(BANK, List.of("balance"), LONGS, before, after, txs, r);
        assertThat(r.outcomes().where("partition = -1").count()).isEqualTo(r.crossPartition());
      }
    }
  }

  /**
   * An epoch in one stage routes into the cache and trades the chunks between the partitions'
   * tasks: its jobs write no shuffle (the jobs exchange shuffles the routed rows).
   */
  @Test
  void anEpochInOneStageWritesNoShuffle() throws Exception {
    AtomicLong shuffled = new AtomicLong();
    SparkListener counter = new SparkListener() {
      @Override
      public void onTaskEnd(SparkListenerTaskEnd end) {
        if (end.taskMetrics() != null) {
          shuffled.addAndGet(end.taskMetrics().shuffleWriteMetrics().bytesWritten());
        }
      }
    };
    SparkContext sc = TxStateTest.spark.sparkContext();
    try (TxState bank = TxState.from(accounts(64, 100)).key("id").partitions(3).create()) {
      Dataset<Row> txs = transfers(400, 64, 150, 7, 0, true).cache();
      txs.count();
      sc.listenerBus().waitUntilEmpty();
      sc.addSparkListener(counter);
      try {
        ApplyResult r = bank.transactions(txs, BANK).idColumn("id").exchange("mesh").run();
        assertThat(r.exchange()).isEqualTo("mesh");
        assertThat(r.crossPartition()).isGreaterThan(100);
        sc.listenerBus().waitUntilEmpty();
        assertThat(shuffled.get()).isZero();
        ApplyResult j = bank.transactions(txs, BANK).idColumn("id").exchange("jobs").run();
        assertThat(j.exchange()).isEqualTo("jobs");
        sc.listenerBus().waitUntilEmpty();
        assertThat(shuffled.get()).isPositive();
      } finally {
        sc.removeSparkListener(counter);
        txs.unpersist();
      }
    }
  }

  /**
   * A cached input is routed a column batch at a time (each row's target found for the whole
   * batch, the columns scattered): it gives what its rows give. Balances are large, so no
   * transfer overdraws and the result does not depend on the order the batches commit in.
   */
  @ParameterizedTest(name = "{0} partitions")
  @ValueSource(ints = {2, 3})
  void aCachedInputRoutedByColumnsGivesWhatItsRowsGive(int partitions) {
    Dataset<Row> rows = transfers(3_000, 40, 300, 13, 0, false).repartition(4);
    Dataset<Row> cached = rows.cache();
    try {
      cached.count();
      long bulk = Routing.BULK_BATCHES.get();
      List<List<Row>> fromBatches = inOneStage(cached, partitions);
      assertThat(Routing.BULK_BATCHES.get()).as("batches taken whole").isGreaterThan(bulk);
      assertThat(inOneStage(rows.localCheckpoint(), partitions)).isEqualTo(fromBatches);
    } finally {
      cached.unpersist(true);
    }
  }

  /** The outcome rows by transaction id and the state's rows after one epoch in one stage. */
  private static List<List<Row>> inOneStage(Dataset<Row> input, int partitions) {
    try (TxState bank = TxState.from(accounts(40, 1_000_000)).key("id").partitions(partitions)
        .create()) {
      ApplyResult r = bank.transactions(input, BANK).idColumn("id").exchange("mesh").run();
      assertThat(r.exchange()).isEqualTo("mesh");
      assertThat(r.crossPartition()).isGreaterThan(1_000);
      return List.of(r.outcomes().select("txId", "program", "outcome", "abortCode", "cause")
          .orderBy("txId").collectAsList(), bank.toDF().orderBy("id").collectAsList());
    }
  }

  @Test
  void aFewHotKeysInOneCrossPartitionBatchStillEqualTheReplay() {
    try (TxState bank = TxState.from(accounts(6, 1_000)).key("id").partitions(3).create()) {
      TreeMap<Long, long[]> before = StateReplay.snapshot(bank.toDF(), LONGS);
      Dataset<Row> txs = transfers(300, 6, 400, 5, 0, false);
      ApplyResult r = bank.transactions(txs, BANK).idColumn("id").recordOrder(true)
          .exchange("mesh").run();
      assertThat(EpochMesh.LAST_CROSS_BATCHES.get()).isEqualTo(1);
      assertThat(r.crossPartition()).isGreaterThan(100);
      TreeMap<Long, long[]> after = StateReplay.snapshot(bank.toDF(), LONGS);
      assertReplays(BANK, List.of("balance"), LONGS, before, after, txs, r);
      assertThat(r.outcomeCounts().get("COMMITTED")).isGreaterThan(100);
    }
  }

  @Test
  void semanticConflictsAcrossPartitionsEndAsTheReplaySays() {
    List<ValueType> ints = List.of(ValueType.INT32);
    try (TxState inv = TxState.from(TxStateTest.stock(24, 5)).key("sku").partitions(3)
        .name("inventory").create()) {
      TreeMap<Long, long[]> before = StateReplay.snapshot(inv.toDF(), ints);
      Dataset<Row> txs = TxStateTest.inventoryTxs(500, 24, 11, 0);
      ApplyResult r = inv.transactions(txs, INVENTORY).idColumn("id").recordOrder(true)
          .semanticLimit(50).exchange("mesh").run();
      assertThat(r.crossPartition()).isPositive();
      TreeMap<Long, long[]> after = StateReplay.snapshot(inv.toDF(), ints);
      assertReplays(INVENTORY, List.of("stock"), ints, before, after, txs, r);
    }
  }

  /** Inserts, deletes, upserts and transfers across partitions, against a serial replay. */
  @Test
  void insertsAndDeletesAcrossPartitionsEqualTheReplay() {
    TxStateInsertDeleteTest.randomEpochs(3, "mesh");
  }

  @Test
  void aTaskFailingInTheCrossPartitionPhaseRunsTheEpochAgainWithJobsAndAppliesOnce() {
    try (TxState bank = TxState.from(accounts(48, 200)).key("id").partitions(3).create()) {
      TreeMap<Long, long[]> before = StateReplay.snapshot(bank.toDF(), LONGS);
      AtomicInteger failures = new AtomicInteger();
      TxStateHooks.hook = (point, partition, epoch, attempt) -> {
        if (point.equals("cross") && partition == 1 && failures.get() == 0) {
          failures.incrementAndGet();
          throw new IllegalStateException("injected: a task lost in the cross-partition phase");
        }
      };
      Dataset<Row> txs = transfers(300, 48, 120, 3, 0, false);
      ApplyResult r = bank.transactions(txs, BANK).idColumn("id").recordOrder(true)
          .exchange("mesh").run();
      assertThat(failures.get()).isEqualTo(1);
      assertThat(r.epoch()).isEqualTo(2); // epoch 1 broke off and was undone
      assertThat(r.crossPartition()).isPositive();
      TreeMap<Long, long[]> after = StateReplay.snapshot(bank.toDF(), LONGS);
      assertReplays(BANK, List.of("balance"), LONGS, before, after, txs, r);
    }
  }

  @Test
  void badInputInTheCrossPartitionPhaseFailsTheApplyNamingItAndChangesNothing() {
    try (TxState bank = TxState.from(accounts(48, 200)).key("id").partitions(2).create()) {
      List<Row> committed = bank.toDF().orderBy("id").collectAsList();
      TxStateHooks.hook = (point, partition, epoch, attempt) -> {
        if (point.equals("writeBack") && partition == 0) {
          throw new IllegalArgumentException("injected: bad input found by partition 0");
        }
      };
      assertThatThrownBy(() -> bank.transactions(transfers(200, 48, 50, 4, 0, false), BANK)
          .exchange("mesh").run()).isInstanceOf(IllegalArgumentException.class)
          .hasMessageContaining("bad input found by partition 0");
      TxStateHooks.hook = null;
      assertThat(bank.toDF().orderBy("id").collectAsList()).isEqualTo(committed);
      ApplyResult next = bank.transactions(transfers(100, 48, 50, 5, 0, false), BANK)
          .exchange("mesh").run();
      assertThat(next.epoch()).isEqualTo(2);
    }
  }

  @Test
  void autoMeshesWhenEveryPartitionHasASlotAndAnUnknownExchangeIsRefused() {
    try (TxState bank = TxState.from(accounts(48, 200)).key("id").partitions(4).create()) {
      long meshed = EpochMesh.EPOCHS.get();
      bank.apply(transfers(100, 48, 50, 6, 0, false), BANK);
      assertThat(EpochMesh.EPOCHS.get()).isEqualTo(meshed + 1);
      bank.transactions(transfers(100, 48, 50, 7, 0, false), BANK).exchange("jobs").run();
      assertThat(EpochMesh.EPOCHS.get()).isEqualTo(meshed + 1);
      assertThatThrownBy(() -> bank.transactions(transfers(10, 48, 50, 8, 0, false), BANK)
          .exchange("hub")).isInstanceOf(IllegalArgumentException.class)
          .hasMessageContaining("spark.gstm.state.exchange").hasMessageContaining("mesh");
    }
  }
}
