package io.gstm.spark.state;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.gstm.core.program.ValueType;
import io.gstm.core.workload.Verdict;
import io.gstm.spark.SparkTestSession;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.RowFactory;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.StructType;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** TxState in Spark local mode on the engine the session picks (the JVM engine without a GPU). */
class TxStateTest {
  static final String BANK = """
      program transfer(src: int32, dst: int32, amount: int64)
          regions balance: int64
          outputs left: int64
      {
        if (src == dst) { abort(1); }     // a transfer to itself
        let have = balance[src];
        if (have < amount) { abort(2); }  // refused: it would overdraw
        balance[src] = have - amount;
        balance[dst] = balance[dst] + amount;
        left = have - amount;
      }
      """;

  static final String INVENTORY = """
      program order(item: int32, qty: int32)
          regions stock: int32
          outputs left: int32
      {
        let have = stock[item];
        if (have < qty) { retry; }        // wait for a restock
        stock[item] = have - qty;
        left = have - qty;
      }

      program restock(item: int32, qty: int32)
          regions stock: int32
          tag 1
      {
        stock[item] = stock[item] + qty;
      }

      program move(item: int32, to: int32, qty: int32)
          regions stock: int32
      {
        let have = stock[item];
        if (have < qty) { retry; }
        stock[item] = have - qty;
        stock[to] = stock[to] + qty;
      }
      """;

  static SparkSession spark;

  @BeforeAll
  static void start() {
    spark = session("spark.sql.catalog.gstm", TxStateCatalog.class.getName());
  }

  /**
   * A local session whose tasks may fail and be retried (local[2,4]); with
   * {@code -Dgstm.requireGpu=true} (the GPU bundle's test run) every engine must be a GPU.
   */
  static SparkSession session(String... settings) {
    List<String> conf = new ArrayList<>(List.of("spark.master", "local[2,4]"));
    if (Boolean.getBoolean("gstm.requireGpu")) {
      conf.addAll(List.of("spark.gstm.requireGpu", "true"));
    }
    conf.addAll(List.of(settings));
    return SparkTestSession.start(conf.toArray(new String[0]));
  }

  @AfterAll
  static void stop() {
    TxStateHooks.reset();
    spark.stop();
  }

  static Dataset<Row> accounts(int n, long balance) {
    List<Row> rows = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      rows.add(RowFactory.create((long) i * 7 + 3, balance + i % 5));
    }
    return spark.createDataFrame(rows, new StructType().add("id", DataTypes.LongType, false)
        .add("balance", DataTypes.LongType, false));
  }

  /** Transfers between the keys of {@link #accounts} (and a few unknown ones). */
  static Dataset<Row> transfers(int n, int accounts, long maxAmount, long seed, long firstId,
      boolean unknownKeys) {
    Random rnd = new Random(seed);
    List<Row> rows = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      long src = (long) rnd.nextInt(accounts) * 7 + 3;
      long dst = unknownKeys && i % 50 == 7 ? 1_000_003L : (long) rnd.nextInt(accounts) * 7 + 3;
      rows.add(RowFactory.create(firstId + i, src, dst, 1 + (long) rnd.nextInt((int) maxAmount)));
    }
    return spark.createDataFrame(rows, new StructType().add("id", DataTypes.LongType, false)
        .add("src", DataTypes.LongType, true).add("dst", DataTypes.LongType, true)
        .add("amount", DataTypes.LongType, false));
  }

  static long total(TxState s) {
    return s.toDF().agg(org.apache.spark.sql.functions.sum("balance")).first().getLong(0);
  }

  static final List<ValueType> LONGS = List.of(ValueType.INT64);

  static void assertReplays(String programs, List<String> names, List<ValueType> types,
      TreeMap<Long, long[]> before, TreeMap<Long, long[]> after, Dataset<Row> txs,
      ApplyResult r) {
    Verdict v = StateReplay.verify(programs, names, types, before, after, txs,
        r.outcomes());
    assertThat(v.ok()).as(v.toString()).isTrue();
  }

  /** Every job of an apply carries its name and the caller's line (JobCallSite). */
  @Test
  void anApplysJobsAreNamedAfterTheCallersLine() throws Exception {
    try (TxState bank = TxState.from(accounts(16, 100)).key("id").values("balance")
        .partitions(2).name("named").create()) {
      Dataset<Row> txs = transfers(40, 16, 50, 1, 0, false);
      List<String> sites = new java.util.concurrent.CopyOnWriteArrayList<>();
      org.apache.spark.scheduler.SparkListener listener =
          new org.apache.spark.scheduler.SparkListener() {
            @Override
            public void onJobStart(org.apache.spark.scheduler.SparkListenerJobStart start) {
              sites.add(start.properties().getProperty("callSite.short"));
            }
          };
      spark.sparkContext().addSparkListener(listener);
      try {
        bank.transactions(txs, BANK).idColumn("id").run();
        spark.sparkContext().listenerBus().waitUntilEmpty();
      } finally {
        spark.sparkContext().removeSparkListener(listener);
      }
      assertThat(sites).isNotEmpty().allSatisfy(site -> assertThat(site)
          .startsWith("TxState 'named' apply at TxStateTest.java:"));
      assertThat(spark.sparkContext().getLocalProperty("callSite.short")).isNull();
    }
  }

  @Test
  void transfersWithinAndAcrossPartitionsConserveTheTotalAndMatchTheSerialReplay() {
    try (TxState bank = TxState.from(accounts(64, 100)).key("id").values("balance")
        .partitions(4).name("bank").create()) {
      long total = total(bank);
      for (int epoch = 1; epoch <= 2; epoch++) {
        TreeMap<Long, long[]> before = StateReplay.snapshot(bank.toDF(), LONGS);
        Dataset<Row> txs = transfers(400, 64, 150, epoch, epoch * 10_000L, true);
        ApplyResult r = bank.transactions(txs, BANK).idColumn("id").recordOrder(true).run();
        assertThat(r.epoch()).isEqualTo(epoch);
        assertThat(r.transactions()).isEqualTo(400);
        assertThat(r.crossPartition()).isGreaterThan(50).isLessThan(400);
        Map<String, Long> c = r.outcomeCounts();
        assertThat(c.get("COMMITTED")).isGreaterThan(100);
        assertThat(c.get("MISSING_KEY")).isEqualTo(8);
        assertThat(c.get("USER_ABORT")).isPositive();
        assertThat(total(bank)).isEqualTo(total);
        TreeMap<Long, long[]> after = StateReplay.snapshot(bank.toDF(), LONGS);
        assertReplays(BANK, List.of("balance"), LONGS, before, after, txs, r);
        Row missing = r.outcomes().where("outcome = 'MISSING_KEY'").first();
        assertThat(missing.getString(missing.fieldIndex("cause")))
            .contains("key 1000003", "'dst'", "'bank'");
      }
      assertThat(bank.epoch()).isEqualTo(2);
    }
  }

  static Dataset<Row> stock(int items, int each) {
    List<Row> rows = new ArrayList<>();
    for (int i = 0; i < items; i++) {
      rows.add(RowFactory.create(i, i % 3 == 0 ? 0 : each));
    }
    return spark.createDataFrame(rows, new StructType().add("sku", DataTypes.IntegerType, false)
        .add("stock", DataTypes.IntegerType, false));
  }

  static Dataset<Row> inventoryTxs(int n, int items, long seed, long firstId) {
    Random rnd = new Random(seed);
    List<Row> rows = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      int kind = rnd.nextInt(10);
      String program = kind < 6 ? "order" : kind < 8 ? "restock" : "move";
      rows.add(RowFactory.create(firstId + i, program, rnd.nextInt(items), rnd.nextInt(items),
          1 + rnd.nextInt(kind < 6 ? 6 : 4)));
    }
    return spark.createDataFrame(rows, new StructType().add("id", DataTypes.LongType, false)
        .add("program", DataTypes.StringType, false).add("item", DataTypes.IntegerType, false)
        .add("to", DataTypes.IntegerType, false).add("qty", DataTypes.IntegerType, false));
  }

  /**
   * Each output lands on its own transaction's row, whatever order the batch ran in: presorted
   * (a program of a higher tag first: its transactions' rows no longer ascend), with rows a
   * missing key decided before the batch (the others packed), and outputs that depend on the
   * transaction alone (twice its amount).
   */
  @Test
  void outputsLandOnTheirOwnRowsWhenTheBatchIsPresorted() {
    String echo = """
        program later(src: int32, dst: int32, amount: int64)
            regions balance: int64
            outputs twice: int64
        {
          balance[src] = balance[src] - amount;
          balance[dst] = balance[dst] + amount;
          twice = amount * 2;
        }
        program first(dst: int32, amount: int64)
            regions balance: int64
            outputs twice: int64
            tag 1
        {
          balance[dst] = balance[dst] + amount;
          twice = amount * 2;
        }
        """;
    // Every third transaction a 'first' (tag 1): presorted, those run before the others.
    Dataset<Row> input = transfers(2_000, 40, 300, 41, 0, true).withColumn("program",
        org.apache.spark.sql.functions.when(org.apache.spark.sql.functions.col("id").mod(3)
            .equalTo(0), 1L).otherwise(0L));
    Map<Long, Long> amounts = new TreeMap<>();
    for (Row r : input.collectAsList()) {
      amounts.put(r.getLong(0), r.getLong(3));
    }
    for (boolean presort : new boolean[] {true, false}) {
      try (TxState bank = TxState.from(accounts(40, 1_000_000)).key("id").create()) {
        List<Row> rows = bank.transactions(input, echo).idColumn("id").presort(presort).run()
            .outcomes()
            .select("txId", "outcome", "twice").collectAsList();
        assertThat(rows).hasSize(2_000);
        int committed = 0;
        for (Row r : rows) {
          if (r.getString(1).equals("COMMITTED")) {
            committed++;
            assertThat(r.getLong(2)).as("presort %s, tx %d", presort, r.getLong(0))
                .isEqualTo(2 * amounts.get(r.getLong(0)));
          } else {
            assertThat(r.getString(1)).isEqualTo("MISSING_KEY");
            assertThat(r.isNullAt(2)).isTrue();
          }
        }
        assertThat(committed).isBetween(1_900, 1_999);
      }
    }
  }

  @Test
  void inventoryWithSemanticConflictsEndsAsTheReplaySays() {
    List<ValueType> ints = List.of(ValueType.INT32);
    try (TxState inv = TxState.from(stock(24, 5)).key("sku").partitions(3).name("inventory")
        .create()) {
      TreeMap<Long, long[]> before = StateReplay.snapshot(inv.toDF(), ints);
      Dataset<Row> txs = inventoryTxs(500, 24, 11, 0);
      ApplyResult r = inv.transactions(txs, INVENTORY).idColumn("id").recordOrder(true)
          .semanticLimit(200).run();
      TreeMap<Long, long[]> after = StateReplay.snapshot(inv.toDF(), ints);
      assertReplays(INVENTORY, List.of("stock"), ints, before, after, txs, r);
      Map<String, Long> c = r.outcomeCounts();
      assertThat(c.get("ABANDONED_SEMANTIC")).as(c.toString()).isPositive();
      assertThat(c.get("COMMITTED") + c.get("ABANDONED_SEMANTIC")).isEqualTo(500);
      // A committed order waited for stock. An abandoned transaction found too little when it
      // gave up, and nothing of its phase came later to help: its item has too little at the
      // end, unless a cross-partition move (the later phase of the epoch) brought stock in.
      assertThat(r.outcomes().where("committed AND postponements > 0").count()).isPositive();
      Dataset<Row> joined = r.outcomes().join(txs.withColumnRenamed("id", "txId")
          .drop("program"), "txId");
      java.util.Set<Integer> crossFed = new java.util.HashSet<>();
      for (Row m : joined.where("committed AND program = 'move' AND partition = -1")
          .collectAsList()) {
        crossFed.add(m.getInt(m.fieldIndex("to")));
      }
      int checked = 0;
      for (Row a : joined.where("outcome = 'ABANDONED_SEMANTIC'").collectAsList()) {
        int item = a.getInt(a.fieldIndex("item"));
        int qty = a.getInt(a.fieldIndex("qty"));
        boolean local = a.getInt(a.fieldIndex("partition")) >= 0;
        if (local && crossFed.contains(item)) {
          continue;
        }
        checked++;
        assertThat((int) after.get((long) item)[0]).as("stock of %d after an abandoned %s",
            item, a.getString(a.fieldIndex("program"))).isLessThan(qty);
      }
      assertThat(checked).isPositive();
    }
  }

  @Test
  void concurrentAppliesOnOneStateRunAsConsecutiveEpochs() throws Exception {
    try (TxState bank = TxState.from(accounts(40, 1_000)).key("id").partitions(2)
        .name("shared").create()) {
      long total = total(bank);
      ExecutorService pool = Executors.newFixedThreadPool(3);
      List<Future<ApplyResult>> runs = new ArrayList<>();
      for (int i = 0; i < 3; i++) {
        Dataset<Row> txs = transfers(200, 40, 50, 100 + i, i * 1_000L, false);
        runs.add(pool.submit(() -> bank.transactions(txs, BANK).idColumn("id").run()));
      }
      List<Long> epochs = new ArrayList<>();
      long committed = 0;
      for (Future<ApplyResult> f : runs) {
        ApplyResult r = f.get();
        epochs.add(r.epoch());
        committed += r.committed();
      }
      pool.shutdown();
      assertThat(epochs).containsExactlyInAnyOrder(1L, 2L, 3L);
      assertThat(committed).isGreaterThan(500);
      assertThat(total(bank)).isEqualTo(total);
      assertThat(bank.epoch()).isEqualTo(3);
    }
  }

  @Test
  void aReplayedBatchIdIsAppliedOnce() {
    try (TxState bank = TxState.from(accounts(30, 500)).key("id").partitions(2).create()) {
      Dataset<Row> txs = transfers(100, 30, 40, 5, 0, false);
      ApplyResult first = bank.apply(txs, BANK, 7);
      List<Row> state = bank.toDF().orderBy("id").collectAsList();
      ApplyResult again = bank.apply(txs, BANK, 7);
      assertThat(first.replayed()).isFalse();
      assertThat(again.replayed()).isTrue();
      assertThat(again.epoch()).isEqualTo(first.epoch());
      assertThat(again.outcomes().count()).isEqualTo(100);
      assertThat(bank.toDF().orderBy("id").collectAsList()).isEqualTo(state);
      assertThat(bank.epoch()).isEqualTo(1);
      assertThat(bank.apply(txs, BANK, 8).replayed()).isFalse();
      assertThat(txs.transform(bank.applying(BANK)).count()).isEqualTo(100);
      assertThat(bank.epoch()).isEqualTo(3);
      assertThat(bank.appliedBatchIds()).containsExactlyInAnyOrder(7L, 8L);
    }
  }

  @Test
  void checkpointRestoreContinueEqualsNeverStopping(@org.junit.jupiter.api.io.TempDir Path dir)
      throws Exception {
    Dataset<Row> b1 = transfers(150, 50, 20, 21, 0, false);
    Dataset<Row> b2 = transfers(150, 50, 20, 22, 1_000, false);
    String path = dir.resolve("bank").toString();
    List<Row> never;
    try (TxState a = TxState.from(accounts(50, 10_000)).key("id").partitions(3).name("a")
        .create()) {
      a.apply(b1, BANK, 1);
      a.checkpoint(path);
      a.apply(b2, BANK, 2);
      never = a.toDF().orderBy("id").collectAsList();
    }
    assertThat(Files.exists(dir.resolve("bank").resolve(Checkpoints.META))).isTrue();
    try (TxState b = TxState.restore(spark, path)) {
      assertThat(b.epoch()).isEqualTo(1);
      assertThat(b.partitions()).isEqualTo(3);
      assertThat(b.apply(b1, BANK, 1).replayed()).isTrue(); // the stream replays batch 1
      ApplyResult r = b.apply(b2, BANK, 2);
      assertThat(r.replayed()).isFalse();
      assertThat(r.epoch()).isEqualTo(2);
      assertThat(b.toDF().orderBy("id").collectAsList()).isEqualTo(never);
    }
  }

  @Test
  void rangePartitionedStateKeepsNeighbouringKeysTogether() {
    try (TxState s = TxState.from(accounts(60, 100)).key("id").rangePartitioned(100, 300)
        .create()) {
      assertThat(s.partitions()).isEqualTo(3);
      assertThat(s.partitionOf(3)).isEqualTo(0);
      assertThat(s.partitionOf(100)).isEqualTo(1);
      assertThat(s.partitionOf(400)).isEqualTo(2);
      long total = total(s);
      ApplyResult r = s.transactions(transfers(200, 60, 30, 3, 0, false), BANK).run();
      assertThat(r.crossPartition()).isPositive();
      assertThat(total(s)).isEqualTo(total);
    }
  }

  @Test
  void sqlCallsApplyToANamedState() {
    try (TxState bank = TxState.from(accounts(30, 500)).key("id").partitions(2).name("sqlbank")
        .create().register()) {
      long total = total(bank);
      transfers(80, 30, 40, 31, 0, false).createOrReplaceTempView("transfers");
      Row r = spark.sql("CALL gstm.apply(state => 'sqlbank', transactions => 'transfers', "
          + "programs => '" + BANK.replace("'", "''") + "', id_column => 'id', batch_id => 4, "
          + "outcomes_view => 'transfer_outcomes')").first();
      assertThat(r.getLong(0)).isEqualTo(1);
      assertThat(r.getBoolean(2)).isFalse();
      assertThat(r.getLong(3)).isEqualTo(80);
      assertThat(spark.sql("SELECT count(*) FROM transfer_outcomes WHERE committed").first()
          .getLong(0)).isEqualTo(r.getLong(4));
      Row again = spark.sql("CALL gstm.apply('sqlbank', 'transfers', '"
          + BANK.replace("'", "''") + "', NULL, 'id', 4)").first();
      assertThat(again.getBoolean(2)).isTrue();
      spark.sql("CALL gstm.snapshot('sqlbank', 'bank_now')");
      assertThat(spark.sql("SELECT sum(balance) FROM bank_now").first().getLong(0))
          .isEqualTo(total);
      assertThatThrownBy(() -> spark.sql("CALL gstm.snapshot('nope', 'v')").collect())
          .hasMessageContaining("no TxState named 'nope'");
    }
  }
}
