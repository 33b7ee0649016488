package io.gstm.spark.state;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.TreeMap;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.RowFactory;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.StructType;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * A state with inserts and deletes: accounts opened, closed, paid into (an upsert) and moved
 * between inside transactions. Concurrent inserts of one key, delete then read, insert after
 * delete, growth past the initial rows, checkpoint and restore after growth, a retried task, the
 * epoch log's rebuild, random epochs against a serial replay, and the limits.
 */
class TxStateInsertDeleteTest extends StateSession {
  /** Open, close and deposit name {@code exists}; transfer does not (it needs both rows). */
  static final String ACCOUNTS = """
      program open(acct: int32, amount: int64) regions balance: int64, exists: int32 {
        if (exists[acct] == 1) { abort(3); }  // the account is open already
        exists[acct] = 1;
        balance[acct] = amount;
      }
      program close(acct: int32) regions balance: int64, exists: int32
          outputs paidOut: int64 {
        if (exists[acct] == 0) { abort(4); }  // no such account
        paidOut = balance[acct];
        exists[acct] = 0;
      }
      program deposit(acct: int32, amount: int64) regions balance: int64, exists: int32 {
        exists[acct] = 1;                     // opens the account if it was not
        balance[acct] = balance[acct] + amount;
      }
      program transfer(src: int32, dst: int32, amount: int64) regions balance: int64
          outputs left: int64 {
        if (src == dst) { abort(1); }
        let have = balance[src];
        if (have < amount) { abort(2); }
        balance[src] = have - amount;
        balance[dst] = balance[dst] + amount;
        left = have - amount;
      }
      """;

  private static final StructType TXS = new StructType().add("id", DataTypes.LongType)
      .add("program", DataTypes.StringType).add("acct", DataTypes.LongType)
      .add("src", DataTypes.LongType).add("dst", DataTypes.LongType)
      .add("amount", DataTypes.LongType);

  /** One transaction: its program and its columns (unused keys are 0). */
  record Tx(long id, String program, long acct, long src, long dst, long amount) {
    Row row() {
      return RowFactory.create(id, program, acct, src, dst, amount);
    }
  }

  static Tx open(long id, long acct, long amount) {
    return new Tx(id, "open", acct, 0, 0, amount);
  }

  static Tx close(long id, long acct) {
    return new Tx(id, "close", acct, 0, 0, 0);
  }

  static Tx deposit(long id, long acct, long amount) {
    return new Tx(id, "deposit", acct, 0, 0, amount);
  }

  static Tx transfer(long id, long src, long dst, long amount) {
    return new Tx(id, "transfer", 0, src, dst, amount);
  }

  static Dataset<Row> frame(List<Tx> txs, int partitions) {
    return TxStateTest.spark.createDataFrame(txs.stream().map(Tx::row).toList(), TXS)
        .repartition(partitions);
  }

  /** Accounts 0 .. n-1, each holding {@code balance}. */
  static Dataset<Row> accounts(int n, long balance) {
    List<Row> rows = new ArrayList<>();
    for (long i = 0; i < n; i++) {
      rows.add(RowFactory.create(i, balance));
    }
    return TxStateTest.spark.createDataFrame(rows, new StructType()
        .add("id", DataTypes.LongType, false).add("balance", DataTypes.LongType, false));
  }

  static TxState.Builder accountsState(int n, long balance, int partitions) {
    return TxState.from(accounts(n, balance)).key("id").partitions(partitions)
        .insertsAndDeletes();
  }

  static ApplyResult run(TxState s, List<Tx> txs) {
    return s.transactions(frame(txs, 3), ACCOUNTS).idColumn("id").recordOrder(true).run();
  }

  /** The state's rows: id to balance. */
  static TreeMap<Long, Long> balances(TxState s) {
    TreeMap<Long, Long> m = new TreeMap<>();
    for (Row r : s.toDF().collectAsList()) {
      m.put(r.getLong(0), r.getLong(1));
    }
    return m;
  }

  static Map<Long, Row> outcomes(ApplyResult r) {
    Map<Long, Row> m = new HashMap<>();
    for (Row o : r.outcomes().collectAsList()) {
      m.put(o.getLong(o.fieldIndex("txId")), o);
    }
    return m;
  }

  @ParameterizedTest(name = "{0} partition(s)")
  @ValueSource(ints = {1, 3})
  void concurrentInsertsOfOneKeyLetOneWinAndTellTheOthersWhy(int partitions) {
    try (TxState s = accountsState(10, 100, partitions).create()) {
      List<Tx> txs = new ArrayList<>();
      for (int i = 0; i < 64; i++) {
        txs.add(open(i, 1_000, 10 + i));
      }
      ApplyResult r = run(s, txs);
      assertThat(r.outcomeCounts()).containsEntry("COMMITTED", 1L)
          .containsEntry("USER_ABORT", 63L);
      Map<Long, Row> out = outcomes(r);
      long winner = out.values().stream().filter(o -> o.getBoolean(o.fieldIndex("committed")))
          .findFirst().orElseThrow().getLong(0);
      assertThat(out.values().stream().filter(o -> !o.getBoolean(o.fieldIndex("committed"))))
          .allSatisfy(o -> assertThat(o.getInt(o.fieldIndex("abortCode"))).isEqualTo(3));
      TreeMap<Long, Long> b = balances(s);
      assertThat(b).hasSize(11).containsEntry(1_000L, 10 + winner);
    }
  }

  @Test
  void aDeletedRowIsMissingToProgramsThatNeedItAndZeroToAnInsert() {
    try (TxState s = accountsState(10, 100, 2).create()) {
      ApplyResult closed = run(s, List.of(close(0, 5), close(1, 77)));
      Map<Long, Row> out = outcomes(closed);
      assertThat(out.get(0L).getString(out.get(0L).fieldIndex("outcome"))).isEqualTo("COMMITTED");
      assertThat(out.get(0L).getLong(out.get(0L).fieldIndex("paidOut"))).isEqualTo(100);
      assertThat(out.get(1L).getInt(out.get(1L).fieldIndex("abortCode"))).isEqualTo(4);
      assertThat(balances(s)).hasSize(9).doesNotContainKey(5L).doesNotContainKey(77L);

      // Delete, then read: a transfer from or to the closed account names no row.
      ApplyResult r = run(s, List.of(transfer(10, 5, 6, 1), transfer(11, 6, 5, 1),
          transfer(12, 6, 7, 1)));
      out = outcomes(r);
      assertThat(out.get(10L).getString(out.get(10L).fieldIndex("outcome")))
          .isEqualTo("MISSING_KEY");
      assertThat(out.get(10L).getString(out.get(10L).fieldIndex("cause")))
          .contains("never inserted, or deleted");
      assertThat(out.get(11L).getString(out.get(11L).fieldIndex("outcome")))
          .isEqualTo("MISSING_KEY");
      assertThat(out.get(12L).getString(out.get(12L).fieldIndex("outcome")))
          .isEqualTo("COMMITTED");

      // Insert after delete: a deposit into the closed account starts from zero, not 100.
      run(s, List.of(deposit(20, 5, 7), deposit(21, 88, 9)));
      assertThat(balances(s)).containsEntry(5L, 7L).containsEntry(88L, 9L).hasSize(11);
      // Deleted and inserted again in one epoch, in one order or the other.
      ApplyResult again = run(s, List.of(close(30, 5), open(31, 5, 500)));
      assertThat(again.outcomeCounts()).containsKey("COMMITTED");
      long kept = balances(s).getOrDefault(5L, -1L);
      assertThat(kept).isIn(-1L, 500L);
    }
  }

  @Test
  void theStoreGrowsPastItsRowsAndACheckpointAfterGrowthRestoresEveryKey(@TempDir Path dir) {
    String path = dir.resolve("grown").toString();
    TreeMap<Long, Long> expected = new TreeMap<>();
    try (TxState s = accountsState(10, 100, 3).name("grown").create()) {
      for (long k = 0; k < 10; k++) {
        expected.put(k, 100L);
      }
      // Each partition starts with room for about 1,030 rows: 6,000 inserts in two epochs.
      for (int epoch = 0; epoch < 2; epoch++) {
        List<Tx> txs = new ArrayList<>();
        for (int i = 0; i < 3_000; i++) {
          long key = 1_000_000L + epoch * 3_000L + i;
          txs.add(open(epoch * 3_000L + i, key, key % 97));
          expected.put(key, key % 97);
        }
        assertThat(run(s, txs).outcomeCounts()).containsOnlyKeys("COMMITTED");
      }
      // Delete every other new key, so some rows can be given back and taken again.
      List<Tx> closes = new ArrayList<>();
      for (long i = 0; i < 6_000; i += 2) {
        closes.add(close(10_000 + i, 1_000_000L + i));
        expected.remove(1_000_000L + i);
      }
      int rows = 0;
      for (int p = 0; p < 3; p++) {
        rows += StateRegistry.get(s.id(), p, s.ref().incarnation(p), s.name()).capacity();
      }
      assertThat(rows).as("rows after growth").isGreaterThan(6_010).isLessThan(3 * 4_200);
      assertThat(run(s, closes).outcomeCounts()).containsOnlyKeys("COMMITTED");
      assertThat(balances(s)).isEqualTo(expected);
      s.checkpoint(path);
    }
    try (TxState back = TxState.restore(TxStateTest.spark, path)) {
      assertThat(balances(back)).isEqualTo(expected);
      // Still a state with inserts and deletes after the restore.
      run(back, List.of(open(1, 2_000_000L, 5), close(2, 1_000_001L)));
      expected.put(2_000_000L, 5L);
      expected.remove(1_000_001L);
      assertThat(balances(back)).isEqualTo(expected);
    }
  }

  /**
   * An epoch whose write-back grew a partition's store, then failed: the next apply puts the
   * rows back as they were (the undo copy, smaller than the grown store) and goes on.
   */
  @Test
  void aFailedEpochThatGrewAStoreIsUndone() {
    String pay = ACCOUNTS + """
        program pay(src: int32, dst: int32, amount: int64)
            regions balance: int64, exists: int32 {
          if (exists[src] == 0) { abort(5); }
          exists[dst] = 1;
          balance[src] = balance[src] - amount;
          balance[dst] = balance[dst] + amount;
        }
        """;
    try (TxState s = accountsState(4, 1_000_000, 2).create()) {
      TreeMap<Long, Long> before = balances(s);
      // Pays from the four accounts into 6,000 new ones, half in the other partition: the
      // write-backs need more rows than the local phases left.
      long undone = PartitionStore.UNDONE_INTO_GROWN.get();
      List<Row> rows = new ArrayList<>();
      for (long i = 0; i < 6_000; i++) {
        rows.add(RowFactory.create(i, "pay", 0L, i % 4, 10_000 + i, 1L));
      }
      Dataset<Row> txs = TxStateTest.spark.createDataFrame(rows, TXS).repartition(2);
      TxStateHooks.hook = (point, partition, epoch, attempt) -> {
        if (point.equals("writeBack")) {
          throw new IllegalStateException("injected: every write-back fails");
        }
      };
      assertThatThrownBy(() -> s.transactions(txs, pay).idColumn("id").run())
          .hasStackTraceContaining("injected");
      TxStateHooks.hook = null;
      assertThat(balances(s)).isEqualTo(before);
      assertThat(PartitionStore.UNDONE_INTO_GROWN.get()).isGreaterThan(undone);
      ApplyResult r = s.transactions(txs, pay).idColumn("id").run();
      assertThat(r.outcomeCounts()).containsOnlyKeys("COMMITTED");
      TreeMap<Long, Long> b = balances(s);
      assertThat(b).hasSize(6_004);
      assertThat(b.values().stream().mapToLong(Long::longValue).sum()).isEqualTo(4_000_000L);
    }
  }

  @Test
  void anEpochPastTheRowLimitFailsNamingItAndChangesNothing() {
    try (TxState s = accountsState(10, 100, 1).maxRowsPerPartition(100).create()) {
      List<Tx> txs = new ArrayList<>();
      for (int i = 0; i < 200; i++) {
        txs.add(open(i, 500 + i, 1));
      }
      TreeMap<Long, Long> before = balances(s);
      long epoch = s.epoch();
      assertThatThrownBy(() -> run(s, txs)).hasMessageContaining("maxRowsPerPartition is 100")
          .hasMessageContaining("Nothing was applied");
      assertThat(balances(s)).isEqualTo(before);
      assertThat(s.epoch()).isEqualTo(epoch);
      // Within the limit it goes on.
      assertThat(run(s, txs.subList(0, 80)).outcomeCounts()).containsOnlyKeys("COMMITTED");
      assertThat(balances(s)).hasSize(90);
    }
  }

  /** Rows of deleted keys are given back when rows run short, even to keys the epoch names. */
  @Test
  void rowsOfDeletedKeysAreReusedAndTheirKeysStayMissing() {
    try (TxState s = accountsState(20, 100, 1).maxRowsPerPartition(40).create()) {
      List<Tx> closes = new ArrayList<>();
      for (long k = 0; k < 10; k++) {
        closes.add(close(k, k));
      }
      assertThat(run(s, closes).outcomeCounts()).containsOnlyKeys("COMMITTED");
      // 25 new accounts need rows the closed ones hold; transfers name closed accounts too.
      List<Tx> txs = new ArrayList<>();
      for (long i = 0; i < 25; i++) {
        txs.add(open(100 + i, 1_000 + i, i));
      }
      for (long k = 0; k < 5; k++) {
        txs.add(transfer(200 + k, k, 10 + k, 1));   // from a closed account
        txs.add(transfer(300 + k, 15 + k, k, 1));   // to a closed account
        txs.add(transfer(400 + k, 10 + k, 15 + k, 7));
      }
      ApplyResult r = run(s, txs);
      assertThat(r.outcomeCounts()).containsEntry("MISSING_KEY", 10L)
          .containsEntry("COMMITTED", 30L);
      TreeMap<Long, Long> expected = new TreeMap<>();
      for (long k = 10; k < 20; k++) {
        expected.put(k, k < 15 ? 93L : k < 20 ? 107L : 100L);
      }
      for (long i = 0; i < 25; i++) {
        expected.put(1_000 + i, i);
      }
      assertThat(balances(s)).isEqualTo(expected);
      assertThat(StateRegistry.get(s.id(), 0, s.ref().incarnation(0), s.name()).capacity())
          .isEqualTo(40);
    }
  }

  @Test
  void programsThatMisuseExistsOrTheReservedCodeAreRefusedNamingThem() {
    try (TxState s = accountsState(4, 1, 1).create()) {
      assertThatThrownBy(() -> s.transactions(frame(List.of(open(0, 9, 1)), 1), """
          program open(acct: int32, amount: int64) regions exists: int64 {
            exists[acct] = 1;
          }
          """).idColumn("id").run())
          .hasMessageContaining("declares region 'exists' as int64")
          .hasMessageContaining("holds int32");
      assertThatThrownBy(() -> s.transactions(frame(List.of(open(0, 1, 1)), 1), """
          program open(acct: int32, amount: int64) regions balance: int64 {
            if (amount > 0) { abort(-2147483648); }
            balance[acct] = amount;
          }
          """).idColumn("id").run())
          .hasMessageContaining("reserves for MISSING_KEY");
    }
    assertThatThrownBy(() -> TxState.from(TxStateTest.spark.sql(
            "SELECT id, id AS exists FROM range(3)")).key("id").insertsAndDeletes().create())
        .hasMessageContaining("value column 'exists'");
    // Without inserts, 'exists' is no column of the state.
    try (TxState fixed = TxState.from(accounts(4, 1)).key("id").partitions(1).create()) {
      assertThatThrownBy(() -> fixed.transactions(frame(List.of(open(0, 1, 1)), 1), ACCOUNTS)
          .idColumn("id").run()).hasMessageContaining("region 'exists'");
    }
  }

  @ParameterizedTest(name = "{0} partition(s)")
  @ValueSource(ints = {1, 3})
  void aTaskRetriedAfterItInsertedInsertsOnce(int partitions) {
    try (TxState s = accountsState(10, 100, partitions).create()) {
      AtomicInteger failures = new AtomicInteger();
      TxStateHooks.hook = (point, partition, epoch, attempt) -> {
        if (point.equals("local") && partition == partitions / 2 && attempt == 0) {
          failures.incrementAndGet();
          throw new IllegalStateException("injected: executor died after applying");
        }
      };
      List<Tx> txs = new ArrayList<>();
      for (int i = 0; i < 30; i++) {
        txs.add(deposit(i, 500 + i % 10, 1)); // ten new accounts, three deposits each
      }
      run(s, txs);
      assertThat(failures.get()).isEqualTo(1);
      TreeMap<Long, Long> b = balances(s);
      for (long k = 500; k < 510; k++) {
        assertThat(b).containsEntry(k, 3L);
      }
    }
  }

  @Test
  void withTheEpochLogALostPartitionComesBackWithItsInsertsAndDeletes(@TempDir Path dir) {
    String path = dir.resolve("logged").toString();
    try (TxState s = accountsState(10, 100, 3).name("logged").create().logEpochs(true)) {
      s.checkpoint(path);
      run(s, List.of(open(0, 100, 1), open(1, 101, 2), close(2, 3), deposit(3, 102, 4)));
      run(s, List.of(close(4, 100), deposit(5, 4, 6), open(6, 3, 7)));
      TreeMap<Long, Long> expected = balances(s);
      for (int p = 0; p < 3; p++) {
        StateRegistry.remove(s.id(), p); // the executor is gone
      }
      run(s, List.of(deposit(7, 103, 8)));
      expected.put(103L, 8L);
      assertThat(balances(s)).isEqualTo(expected);
      assertThat(expected).containsKeys(101L, 102L, 3L).doesNotContainKey(100L);
    }
  }

  /** Under CSMV too: inserts, deletes and a guarded program over 32-bit stock counts. */
  @ParameterizedTest(name = "{0} partition(s)")
  @ValueSource(ints = {1, 3})
  void csmvStatesInsertAndDeleteAsPrStmOnes(int partitions) {
    String stock = """
        program restock(sku: int32, qty: int32) regions stock: int32, exists: int32 {
          exists[sku] = 1;
          stock[sku] = stock[sku] + qty;
        }
        program discontinue(sku: int32) regions stock: int32, exists: int32
            outputs left: int32 {
          if (exists[sku] == 0) { abort(4); }
          left = stock[sku];
          exists[sku] = 0;
        }
        program order(sku: int32, qty: int32) regions stock: int32 {
          let have = stock[sku];
          if (have < qty) { abort(2); }
          stock[sku] = have - qty;
        }
        """;
    List<Row> items = new ArrayList<>();
    for (int i = 0; i < 20; i++) {
      items.add(RowFactory.create(i, 10));
    }
    StructType itemSchema = new StructType().add("sku", DataTypes.IntegerType, false)
        .add("stock", DataTypes.IntegerType, false);
    StructType txSchema = new StructType().add("id", DataTypes.LongType)
        .add("program", DataTypes.StringType).add("sku", DataTypes.IntegerType)
        .add("qty", DataTypes.IntegerType);
    try (TxState s = TxState.from(TxStateTest.spark.createDataFrame(items, itemSchema))
        .key("sku").partitions(partitions).algorithm("csmv").insertsAndDeletes().create()) {
      List<Row> txs = new ArrayList<>();
      for (int i = 0; i < 40; i++) {
        txs.add(RowFactory.create((long) i, "restock", 100, 1)); // 40 upserts of one new sku
      }
      txs.add(RowFactory.create(40L, "discontinue", 5, 0));
      s.transactions(TxStateTest.spark.createDataFrame(txs, txSchema), stock).idColumn("id")
          .run();
      Map<Long, Row> out = outcomes(s.transactions(TxStateTest.spark.createDataFrame(List.of(
              RowFactory.create(50L, "order", 5, 1), RowFactory.create(51L, "order", 100, 40),
              RowFactory.create(52L, "order", 100, 41), RowFactory.create(53L, "order", 6, 3)),
          txSchema), stock).idColumn("id").run());
      assertThat(out.get(50L).getString(out.get(50L).fieldIndex("outcome")))
          .isEqualTo("MISSING_KEY");
      assertThat(out.get(51L).getString(out.get(51L).fieldIndex("outcome")))
          .isEqualTo("COMMITTED");
      assertThat(out.get(52L).getInt(out.get(52L).fieldIndex("abortCode"))).isEqualTo(2);
      TreeMap<Long, Long> rows = new TreeMap<>();
      for (Row r : s.toDF().collectAsList()) {
        rows.put((long) r.getInt(0), (long) r.getInt(1));
      }
      assertThat(rows).hasSize(20).doesNotContainKey(5L).containsEntry(100L, 0L)
          .containsEntry(6L, 7L).containsEntry(7L, 10L);
    }
  }

  /** Random epochs of every program over a key space half held, against a serial replay. */
  @ParameterizedTest(name = "{0} partition(s)")
  @ValueSource(ints = {1, 3})
  void randomEpochsEqualASerialReplay(int partitions) {
    randomEpochs(partitions, null);
  }

  /**
   * As {@link #randomEpochsEqualASerialReplay}, every array of the epochs' size recycled (the
   * bound lowered to these small epochs): the rows looked up for the keys, written over epoch
   * after epoch, change no outcome.
   */
  @Test
  void randomEpochsOnRecycledArraysEqualASerialReplay() {
    int bound = io.gstm.spark.exec.RecycledArrays.keepFrom(1);
    long reused = io.gstm.spark.exec.RecycledArrays.REUSED.get();
    try {
      randomEpochs(1, null);
    } finally {
      io.gstm.spark.exec.RecycledArrays.keepFrom(bound);
    }
    assertThat(io.gstm.spark.exec.RecycledArrays.REUSED.get()).as("arrays recycled")
        .isGreaterThan(reused);
  }

  /** As {@link #randomEpochsEqualASerialReplay}, with an exchange (null: the setting's). */
  static void randomEpochs(int partitions, String exchange) {
    SplittableRandom rnd = new SplittableRandom(partitions);
    int keys = 120;
    try (TxState s = accountsState(keys / 2, 50, partitions).create()) {
      TreeMap<Long, Long> state = balances(s);
      for (int epoch = 0; epoch < 4; epoch++) {
        List<Tx> txs = new ArrayList<>();
        for (int i = 0; i < 600; i++) {
          long id = epoch * 1_000L + i;
          long a = rnd.nextInt(keys);
          long b = rnd.nextInt(keys);
          txs.add(switch (rnd.nextInt(10)) {
            case 0 -> open(id, a, rnd.nextInt(100));
            case 1 -> close(id, a);
            case 2, 3 -> deposit(id, a, rnd.nextInt(20));
            default -> transfer(id, a, b, rnd.nextInt(60));
          });
        }
        TxApply apply = s.transactions(frame(txs, 3), ACCOUNTS).idColumn("id")
            .recordOrder(true);
        ApplyResult r = (exchange == null ? apply : apply.exchange(exchange)).run();
        Map<Long, Row> out = outcomes(r);
        // Replay the committed transactions in the recorded serial order.
        List<Tx> committed = txs.stream()
            .filter(t -> out.get(t.id()).getBoolean(out.get(t.id()).fieldIndex("committed")))
            .sorted(Comparator.comparingLong(t -> out.get(t.id()).getLong(
                out.get(t.id()).fieldIndex("serial")))).toList();
        assertThat(committed).hasSizeGreaterThan(100);
        for (Tx t : committed) {
          Row o = out.get(t.id());
          switch (t.program()) {
            case "open" -> {
              assertThat(state).as("open %s", t).doesNotContainKey(t.acct());
              state.put(t.acct(), t.amount());
            }
            case "close" -> {
              assertThat(state).as("close %s", t).containsKey(t.acct());
              assertThat(o.getLong(o.fieldIndex("paidOut"))).isEqualTo(state.remove(t.acct()));
            }
            case "deposit" -> state.merge(t.acct(), t.amount(), Long::sum);
            default -> {
              assertThat(state).as("transfer %s", t).containsKeys(t.src(), t.dst());
              long have = state.get(t.src());
              assertThat(t.src()).isNotEqualTo(t.dst());
              assertThat(have).as("transfer %s", t).isGreaterThanOrEqualTo(t.amount());
              state.put(t.src(), have - t.amount());
              state.merge(t.dst(), t.amount(), Long::sum);
              assertThat(o.getLong(o.fieldIndex("left"))).isEqualTo(have - t.amount());
            }
          }
        }
        assertThat(balances(s)).as("epoch %d", epoch).isEqualTo(state);
        // Whatever did not commit was refused for a reason the data gives.
        assertThat(r.outcomeCounts().keySet())
            .isSubsetOf("COMMITTED", "USER_ABORT", "MISSING_KEY");
      }
    }
  }
}
