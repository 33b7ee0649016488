package io.gstm.spark.state;

import static io.gstm.spark.state.TxStateTest.BANK;
import static io.gstm.spark.state.TxStateTest.LONGS;
import static io.gstm.spark.state.TxStateTest.accounts;
import static io.gstm.spark.state.TxStateTest.total;
import static io.gstm.spark.state.TxStateTest.transfers;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.RowFactory;
import org.apache.spark.sql.functions;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.StructType;
import org.junit.jupiter.api.Test;

/**
 * A state of one partition (one per engine: the layout for a GPU) gathers the routed
 * transactions from the cache instead of a shuffle: the same guarantees as with several
 * partitions, and nothing left cached after an apply, whether it succeeds or fails (its task
 * failures and speculative copies: {@link TxStateFaultsTest}).
 */
class OnePartitionStateTest extends StateSession {
  /** Transfers over input of several partitions, some naming unknown keys. */
  private static Dataset<Row> input(int n, long seed, long firstId) {
    return transfers(n, 48, 150, seed, firstId, true).repartition(4);
  }

  /** The routed transactions an apply cached and has not released. */
  private static long cached() {
    return scala.jdk.javaapi.CollectionConverters.asJava(
            TxStateTest.spark.sparkContext().getPersistentRDDs()).values().stream()
        .filter(r -> r.name() != null && r.name().startsWith(StateJobs.ROUTED)).count();
  }

  @Test
  void transfersConserveTheTotalMatchTheReplayAndLeaveNothingCached() {
    try (TxState bank = TxState.from(accounts(48, 100)).key("id").partitions(1).create()) {
      long total = total(bank);
      for (int epoch = 1; epoch <= 3; epoch++) {
        TreeMap<Long, long[]> before = StateReplay.snapshot(bank.toDF(), LONGS);
        Dataset<Row> txs = input(400, epoch, epoch * 10_000L);
        ApplyResult r = bank.transactions(txs, BANK).idColumn("id").recordOrder(true).run();
        assertThat(r.epoch()).isEqualTo(epoch);
        assertThat(r.transactions()).isEqualTo(400);
        assertThat(r.crossPartition()).isZero();
        Map<String, Long> c = r.outcomeCounts();
        assertThat(c.get("MISSING_KEY")).isEqualTo(8);
        assertThat(c.get("COMMITTED")).isGreaterThan(100);
        assertThat(r.outcomes().count()).isEqualTo(400);
        assertThat(total(bank)).isEqualTo(total);
        TxStateTest.assertReplays(BANK, List.of("balance"), LONGS, before,
            StateReplay.snapshot(bank.toDF(), LONGS), txs, r);
        assertThat(cached()).as("routed transactions left cached by apply %d", epoch).isZero();
      }
    }
  }

  /** Batches past one thread's share (keys looked up and outcomes written in parallel). */
  @Test
  void aLargeBatchWithUnknownKeysMatchesTheReplay() {
    try (TxState bank = TxState.from(accounts(48, 1_000)).key("id").partitions(1).create()) {
      TreeMap<Long, long[]> before = StateReplay.snapshot(bank.toDF(), LONGS);
      Dataset<Row> txs = input(150_000, 9, 0);
      ApplyResult r = bank.transactions(txs, BANK).idColumn("id").recordOrder(true).run();
      assertThat(r.transactions()).isEqualTo(150_000);
      assertThat(r.outcomeCounts().get("MISSING_KEY")).isEqualTo(3_000);
      assertThat(r.outcomes().where("outcome = 'MISSING_KEY' AND cause NOT LIKE '%1000003%'")
          .count()).isZero();
      TxStateTest.assertReplays(BANK, List.of("balance"), LONGS, before,
          StateReplay.snapshot(bank.toDF(), LONGS), txs, r);
    }
  }

  /**
   * Unknown keys in either key column or both, in a batch of many parallel ranges from several
   * input partitions: each such row ends MISSING_KEY, its cause naming the first key column the
   * store lacks, and every other row runs.
   */
  @Test
  void unknownKeysInEitherColumnNameTheFirstMissingOne() {
    try (TxState bank = TxState.from(accounts(48, 1_000)).key("id").partitions(1).create()) {
      List<Row> rows = new ArrayList<>();
      Random rnd = new Random(17);
      for (int i = 0; i < 200_000; i++) {
        long src = (long) rnd.nextInt(48) * 7 + 3;
        long dst = (long) rnd.nextInt(48) * 7 + 3;
        switch (i % 97) {
          case 5 -> src = 2_000_005L;
          case 6 -> dst = 3_000_006L;
          case 7 -> {
            src = 2_000_007L;
            dst = 3_000_007L;
          }
          default -> { }
        }
        rows.add(RowFactory.create((long) i, src, dst, 1L));
      }
      Dataset<Row> txs = TxStateTest.spark.createDataFrame(rows, new StructType()
          .add("id", DataTypes.LongType, false).add("src", DataTypes.LongType, false)
          .add("dst", DataTypes.LongType, false).add("amount", DataTypes.LongType, false))
          .repartition(5);
      TreeMap<Long, long[]> before = StateReplay.snapshot(bank.toDF(), LONGS);
      ApplyResult r = bank.transactions(txs, BANK).idColumn("id").recordOrder(true).run();
      long each = r.outcomes().where("txId % 97 = 5").count();
      assertThat(r.outcomeCounts().get("MISSING_KEY")).isEqualTo(3 * each);
      assertThat(r.outcomes().where("outcome = 'MISSING_KEY' AND txId % 97 = 5 AND cause LIKE "
          + "'key 2000005 (column ''src'')%'").count()).isEqualTo(each);
      assertThat(r.outcomes().where("outcome = 'MISSING_KEY' AND txId % 97 = 6 AND cause LIKE "
          + "'key 3000006 (column ''dst'')%'").count()).isEqualTo(each);
      assertThat(r.outcomes().where("outcome = 'MISSING_KEY' AND txId % 97 = 7 AND cause LIKE "
          + "'key 2000007 (column ''src'')%'").count()).isEqualTo(each);
      assertThat(r.outcomes().where("outcome = 'MISSING_KEY' AND txId % 97 NOT IN (5, 6, 7)")
          .count()).isZero();
      TxStateTest.assertReplays(BANK, List.of("balance"), LONGS, before,
          StateReplay.snapshot(bank.toDF(), LONGS), txs, r);
    }
  }

  @Test
  void aFailedApplyLeavesTheStateAtItsLastEpochAndNothingCached() {
    try (TxState bank = TxState.from(accounts(48, 200)).key("id").partitions(1).create()) {
      bank.apply(input(100, 5, 0), BANK);
      List<Row> committed = bank.toDF().orderBy("id").collectAsList();
      TxStateHooks.hook = (point, partition, epoch, attempt) -> {
        if (point.equals("local")) {
          throw new IllegalStateException("injected: the partition's task keeps failing");
        }
      };
      assertThatThrownBy(() -> bank.apply(input(300, 6, 1_000), BANK))
          .hasStackTraceContaining("keeps failing");
      TxStateHooks.hook = null;
      assertThat(bank.epoch()).isEqualTo(1);
      assertThat(cached()).isZero();
      assertThat(bank.toDF().orderBy("id").collectAsList()).isEqualTo(committed);
      // The routing job itself fails (the input's own expression throws): the same.
      Dataset<Row> failing = input(300, 8, 3_000).withColumn("amount", functions.when(
          functions.col("id").equalTo(3_007), functions.raise_error(functions.lit("boom")))
          .otherwise(functions.col("amount")));
      assertThatThrownBy(() -> bank.apply(failing, BANK)).hasStackTraceContaining("boom");
      assertThat(bank.epoch()).isEqualTo(1);
      assertThat(cached()).isZero();
      assertThat(bank.toDF().orderBy("id").collectAsList()).isEqualTo(committed);
      assertThat(bank.transactions(input(100, 7, 2_000), BANK).run().epoch()).isEqualTo(4);
    }
  }
}
