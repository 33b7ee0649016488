package io.gstm.spark.state;

import static io.gstm.spark.state.TxStateTest.BANK;
import static io.gstm.spark.state.TxStateTest.accounts;
import static io.gstm.spark.state.TxStateTest.transfers;
import static org.assertj.core.api.Assertions.assertThat;

import io.gstm.spark.exec.CachedColumns;
import io.gstm.spark.exec.RecycledArrays;
import java.nio.file.Path;
import java.util.List;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.functions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * A cached or Parquet input is routed from its column batches (no row object per transaction,
 * the columns picked from the batches when the selection drops others, such as a partitioned
 * directory's partition column); the same
 * transactions read as rows give the same outcomes and state, with one or several partitions, a
 * program column (taken a column at a time too, when it has no nulls) and null keys (a batch
 * that holds them goes row by row).
 * Balances are large, so no transfer overdraws and the result does not depend on the order a
 * GPU commits in (the outputs, balances seen at commit, do: they are not compared).
 */
class TxStateColumnarInputTest extends StateSession {
  /** The outcome rows by transaction id and the state's rows after the apply. */
  private record Run(List<Row> outcomes, List<Row> state) {}

  /** {@code what} with system property {@code key} set to {@code value}, then cleared. */
  private static Run withProperty(String key, String value, java.util.function.Supplier<Run> what) {
    System.setProperty(key, value);
    try {
      return what.get();
    } finally {
      System.clearProperty(key);
    }
  }

  private static Run run(Dataset<Row> input, int partitions, String programs) {
    try (TxState bank = TxState.from(accounts(40, 1_000_000)).key("id").partitions(partitions)
        .create()) {
      List<Row> outcomes = bank.transactions(input, programs).crossPartition("allow").run()
          .outcomes().select("txId", "program", "outcome", "abortCode", "cause")
          .orderBy("txId").collectAsList();
      return new Run(outcomes, bank.toDF().orderBy("id").collectAsList());
    }
  }

  @ParameterizedTest(name = "{0} partition(s)")
  @ValueSource(ints = {1, 3})
  void aCachedInputGivesWhatItsRowsGive(int partitions) {
    Dataset<Row> rows = transfers(3_000, 40, 300, 5, 0, false).repartition(4);
    Dataset<Row> cached = rows.cache();
    try {
      cached.count();
      long before = Routing.COLUMNAR_ROUTES.get();
      Run fromBatches = run(cached, partitions, BANK);
      assertThat(Routing.COLUMNAR_ROUTES.get()).as("routed from column batches")
          .isEqualTo(before + 1);
      Run fromRows = run(rows.localCheckpoint(), partitions, BANK);
      assertThat(Routing.COLUMNAR_ROUTES.get()).isEqualTo(before + 1);
      assertThat(fromBatches).isEqualTo(fromRows);
    } finally {
      cached.unpersist(true);
    }
  }

  /** An input of exactly the programs' columns is read as it is, with no selection analysed. */
  @ParameterizedTest(name = "{0} partition(s)")
  @ValueSource(ints = {1, 3})
  void anInputOfExactlyTheProgramsColumnsIsReadAsItIs(int partitions) {
    Dataset<Row> rows = transfers(3_000, 40, 300, 43, 0, false).repartition(4).localCheckpoint();
    long whole = Routing.INPUTS_TAKEN_WHOLE.get();
    Run asItIs = run(rows.select("src", "dst", "amount"), partitions, BANK);
    assertThat(Routing.INPUTS_TAKEN_WHOLE.get()).as("read as it is").isEqualTo(whole + 1);
    Run selected = run(rows, partitions, BANK);
    Run reordered = run(rows.select("dst", "src", "amount"), partitions, BANK);
    assertThat(Routing.INPUTS_TAKEN_WHOLE.get()).as("selected").isEqualTo(whole + 1);
    assertThat(asItIs).isEqualTo(selected).isEqualTo(reordered);
  }

  /**
   * A cached input as a whole is found in Spark's cache, with no query planned for it; one whose
   * column has another type than the programs read (an int amount, cast) or a filter above the
   * cached relation is planned as before. The same outcomes and state each way, and as with
   * the lookup off ({@code -Dgstm.state.cacheLookup=false}), whose planned query is routed from
   * the same batches.
   */
  @ParameterizedTest(name = "{0} partition(s)")
  @ValueSource(ints = {1, 3})
  void aCachedInputIsFoundInSparksCacheWithoutAQueryPlanned(int partitions) {
    Dataset<Row> rows = transfers(3_000, 40, 300, 41, 0, false).repartition(4);
    Dataset<Row> cached = rows.cache();
    Dataset<Row> narrow = rows.withColumn("amount", functions.col("amount").cast("int")).cache();
    try {
      cached.count();
      narrow.count();
      long lookups = Routing.CACHE_LOOKUPS.get();
      Run found = run(cached, partitions, BANK);
      assertThat(Routing.CACHE_LOOKUPS.get()).as("found in the cache").isEqualTo(lookups + 1);
      Run cast = run(narrow, partitions, BANK);
      Run filtered = run(cached.where("id >= 0"), partitions, BANK);
      assertThat(Routing.CACHE_LOOKUPS.get()).as("planned").isEqualTo(lookups + 1);
      long columnar = Routing.COLUMNAR_ROUTES.get();
      String was = System.setProperty("gstm.state.cacheLookup", "false");
      Run planned;
      try {
        planned = run(cached, partitions, BANK);
      } finally {
        if (was == null) {
          System.clearProperty("gstm.state.cacheLookup");
        } else {
          System.setProperty("gstm.state.cacheLookup", was);
        }
      }
      assertThat(Routing.CACHE_LOOKUPS.get()).isEqualTo(lookups + 1);
      assertThat(Routing.COLUMNAR_ROUTES.get()).as("planned, from the batches")
          .isEqualTo(columnar + 1);
      assertThat(found).isEqualTo(planned).isEqualTo(cast).isEqualTo(filtered);
      assertThat(found.outcomes()).hasSize(3_000);
    } finally {
      cached.unpersist(true);
      narrow.unpersist(true);
    }
  }

  /**
   * A one-partition state over a cached input decodes each cached batch into its one chunk;
   * from a batch with a null key on (cached batches of 100 rows, a few nulls), a partition goes
   * on with Spark's batches. Same outcomes and state as the rows give.
   */
  @Test
  void aOnePartitionStateDecodesTheCachedBatchesIntoItsChunk() {
    Dataset<Row> rows = transfers(3_000, 40, 300, 23, 0, false)
        .withColumn("dst", functions.when(functions.col("id").mod(997).equalTo(500),
            functions.lit(null)).otherwise(functions.col("dst"))).repartition(3);
    inBatchesOf100(rows, cached -> {
      long direct = Routing.DIRECT_BATCHES.get();
      long bulk = Routing.BULK_BATCHES.get();
      long inTask = Routing.IN_TASK_ROUTES.get();
      Run fromBatches = run(cached, 1, BANK);
      assertThat(Routing.DIRECT_BATCHES.get()).as("cached batches decoded into the chunk")
          .isGreaterThan(direct);
      assertThat(Routing.IN_TASK_ROUTES.get()).as("decoded by the state's task")
          .isGreaterThan(inTask);
      assertThat(Routing.BULK_BATCHES.get()).as("Spark's batches after a null")
          .isGreaterThan(bulk);
      Run fromRows = run(rows.localCheckpoint(), 1, BANK);
      assertThat(fromBatches).isEqualTo(fromRows);
      assertThat(fromBatches.outcomes()).hasSize(3_000);
      assertThat(fromBatches.outcomes().toString()).contains("NULL_KEY");
    });
  }

  /**
   * The state's one task decodes every input partition; a null key only in the last partition
   * (ids in ranges) sends that partition on with Spark's batches, read past the earlier
   * partitions' whole ones. Same outcomes and state as the rows give, and as the routing job
   * gives (-Dgstm.state.directRouting=false).
   */
  @Test
  void aNullOnlyInTheLastPartitionIsReadPastTheOthersBatches() {
    Dataset<Row> rows = transfers(3_000, 40, 300, 29, 0, false)
        // In a middle batch of the last partition (whose bounds the range partitioner samples):
        // batches without a null follow it.
        .withColumn("src", functions.when(functions.col("id").equalTo(2_500),
            functions.lit(null)).otherwise(functions.col("src")))
        .repartitionByRange(3, functions.col("id"));
    inBatchesOf100(rows, cached -> {
      long bulk = Routing.BULK_BATCHES.get();
      long inTask = Routing.IN_TASK_ROUTES.get();
      long oneChunk = Routing.ONE_CHUNK_ROUTES.get();
      Run fromBatches = run(cached, 1, BANK);
      assertThat(Routing.IN_TASK_ROUTES.get()).isGreaterThan(inTask);
      assertThat(Routing.ONE_CHUNK_ROUTES.get()).as("a partition left to Spark: a chunk each")
          .isEqualTo(oneChunk);
      assertThat(Routing.BULK_BATCHES.get()).as("Spark's batches after the null")
          .isGreaterThan(bulk);
      Run fromRows = run(rows.localCheckpoint(), 1, BANK);
      Run routedApart = withProperty("gstm.state.directRouting", "false",
          () -> run(cached, 1, BANK));
      assertThat(fromBatches).isEqualTo(fromRows).isEqualTo(routedApart);
      assertThat(fromBatches.outcomes().toString()).contains("NULL_KEY");
    });
  }

  /**
   * A one-partition state's input partition of more rows than a routed chunk holds, read row by
   * row: its rows go in several chunks, joined by the state's task; the same outcomes and state
   * as the cached input decoded into one chunk, and as a second apply that routes into the
   * first one's segments.
   */
  @Test
  void aLargeInputPartitionReadRowByRowIsRoutedInSeveralChunks() {
    int n = Routing.SEGMENT + 40_000;
    Dataset<Row> rows = transfers(n, 40, 300, 31, 0, false).coalesce(1);
    long segments = Routing.SEGMENTS.get();
    Run fromRows = run(rows, 1, BANK);
    assertThat(Routing.SEGMENTS.get()).as("chunks set aside whole").isGreaterThan(segments);
    // Routed in the state's task: its full segments go back to be kept, and the next apply's
    // rows are routed into them, written over.
    long reused = RecycledArrays.REUSED.get();
    assertThat(run(rows, 1, BANK)).isEqualTo(fromRows);
    assertThat(RecycledArrays.REUSED.get()).as("segments kept and taken again")
        .isGreaterThan(reused);
    Dataset<Row> cached = rows.cache();
    try {
      cached.count();
      assertThat(run(cached, 1, BANK)).isEqualTo(fromRows);
    } finally {
      cached.unpersist(true);
    }
    assertThat(fromRows.outcomes()).hasSize(n);
  }

  /**
   * Input partitions below a segment's rows, applied twice: the second apply reads each into
   * one chunk the size of the partitions before (none set aside full, as chunks doubling from
   * 64 rows would be), with the same outcomes and state.
   */
  @Test
  void anInputPartitionGoesIntoOneChunkSizedByTheOnesBefore() {
    Dataset<Row> rows = transfers(20_000, 40, 300, 47, 0, false).repartition(4); // 5,000 each
    Run first = run(rows, 1, BANK);
    long segments = Routing.SEGMENTS.get();
    Run second = run(rows, 1, BANK);
    assertThat(Routing.SEGMENTS.get()).as("chunks set aside full in the second apply")
        .isEqualTo(segments);
    assertThat(Routing.firstInTaskCapacity()).isEqualTo(8192);
    assertThat(second).isEqualTo(first);
  }

  /**
   * A one-partition state over rows that are neither cached nor columnar (a shuffle's output,
   * one partition of it empty, null keys among them) reads every input partition in its own
   * task: the same outcomes and state as the routing job gives ({@code
   * -Dgstm.state.routeInTask=false}), and as the joins of large epochs into recycled columns
   * give (the recycling bound lowered).
   */
  @Test
  void aOnePartitionStateRoutesRowsInsideItsTask() {
    Dataset<Row> rows = transfers(5_000, 40, 300, 41, 0, false)
        .withColumn("dst", functions.when(functions.col("id").mod(997).equalTo(500),
            functions.lit(null)).otherwise(functions.col("dst")))
        .repartition(6, functions.col("src").mod(5)); // five keys over six partitions
    long inTask = Routing.INPUT_IN_TASK_ROUTES.get();
    Run inOne = run(rows, 1, BANK);
    assertThat(Routing.INPUT_IN_TASK_ROUTES.get()).as("rows routed by the state's task")
        .isGreaterThan(inTask);
    Run apart = withProperty("gstm.state.routeInTask", "false", () -> run(rows, 1, BANK));
    int bound = RecycledArrays.keepFrom(1);
    Run recycled;
    try {
      run(rows, 1, BANK); // the join's columns given back...
      recycled = run(rows, 1, BANK); // ...and written over
    } finally {
      RecycledArrays.keepFrom(bound);
    }
    assertThat(inOne).isEqualTo(apart).isEqualTo(recycled);
    assertThat(inOne.outcomes()).hasSize(5_000);
    assertThat(inOne.outcomes().toString()).contains("NULL_KEY");
  }

  /**
   * A one-partition state of one program writes each row's fields straight into its chunks in a
   * loop of its own; a row with a null (a key, an amount) goes the checked way. Across the
   * chunks' growth, the same outcomes and state as the checked routing of three partitions
   * gives (balances large enough that no order aborts a transfer).
   */
  @Test
  void aOneProgramStateReadsRowsAsTheCheckedRoutingDoes() {
    Dataset<Row> rows = transfers(20_000, 40, 300, 43, 0, false)
        .withColumn("dst", functions.when(functions.col("id").mod(997).equalTo(500),
            functions.lit(null)).otherwise(functions.col("dst")))
        .withColumn("amount", functions.when(functions.col("id").mod(1_009).equalTo(7),
            functions.lit(null)).otherwise(functions.col("amount")))
        .repartition(5, functions.col("src").mod(4)); // one input partition empty
    Run direct = run(rows, 1, BANK);
    assertThat(direct).isEqualTo(run(rows, 3, BANK));
    assertThat(direct.outcomes()).hasSize(20_000);
    assertThat(direct.outcomes().toString()).contains("NULL_KEY").contains("NULL_VALUE");
  }

  /**
   * A one-partition state's epochs over a cached input decode into recycled columns (the
   * recycling bound lowered to these small epochs): each epoch's columns are the last one's,
   * written over, and the slots of a program a batch lacks are zeros again (batches of deposits
   * alone, which have no source). The same outcomes and state, epoch by epoch, as fresh columns.
   */
  @Test
  void epochsOfAOneChunkStateDecodeIntoTheColumnsOfTheEpochBefore() {
    String programs = BANK + DEPOSIT;
    Dataset<Row> rows = transfers(3_000, 40, 300, 37, 0, false)
        .withColumn("program", functions.when(functions.col("id").mod(1_000).lt(400),
            functions.lit(1L)).otherwise(functions.lit(0L)))
        .repartitionByRange(3, functions.col("id")).sortWithinPartitions("id");
    inBatchesOf100(rows, cached -> {
      int bound = RecycledArrays.keepFrom(1);
      List<List<Row>> recycled;
      long reused = RecycledArrays.REUSED.get();
      try {
        recycled = epochs(cached, programs, 3);
      } finally {
        RecycledArrays.keepFrom(bound);
      }
      assertThat(RecycledArrays.REUSED.get()).as("columns recycled").isGreaterThan(reused);
      assertThat(epochs(cached, programs, 3)).isEqualTo(recycled);
      assertThat(recycled.get(0).toString()).contains("deposit", "transfer");
    });
  }

  /** Each epoch's outcomes, {@code n} applies of {@code input} to one state, then its rows. */
  private static List<List<Row>> epochs(Dataset<Row> input, String programs, int n) {
    List<List<Row>> out = new java.util.ArrayList<>();
    try (TxState bank = TxState.from(accounts(40, 1_000_000)).key("id").create()) {
      for (int e = 0; e < n; e++) {
        out.add(bank.transactions(input, programs).run().outcomes()
            .select("txId", "program", "outcome", "abortCode").orderBy("txId").collectAsList());
      }
      out.add(bank.toDF().orderBy("id").collectAsList());
    }
    return out;
  }

  /** {@code rows} cached in batches of 100 rows (several a partition) while {@code body} runs. */
  private static void inBatchesOf100(Dataset<Row> rows,
      java.util.function.Consumer<Dataset<Row>> body) {
    String key = "spark.sql.inMemoryColumnarStorage.batchSize";
    String size = TxStateTest.spark.conf().get(key);
    TxStateTest.spark.conf().set(key, "100");
    Dataset<Row> cached = rows.cache();
    try {
      cached.count();
      body.accept(cached);
    } finally {
      cached.unpersist(true);
      TxStateTest.spark.conf().set(key, size);
    }
  }

  @ParameterizedTest(name = "{0} partition(s)")
  @ValueSource(ints = {1, 3})
  void aProgramColumnWithoutNullsIsTakenAColumnAtATime(int partitions) {
    String programs = BANK + DEPOSIT;
    Dataset<Row> rows = transfers(3_000, 40, 300, 11, 0, false)
        .withColumn("program", functions.when(functions.col("id").mod(3).equalTo(0),
            functions.lit(1L)).otherwise(functions.lit(0L))).repartition(3);
    Dataset<Row> cached = rows.cache();
    try {
      cached.count();
      long bulk = Routing.BULK_BATCHES.get();
      long decoded = CachedColumns.DECODED_BATCHES.get();
      long direct = Routing.DIRECT_BATCHES.get();
      long oneChunk = Routing.ONE_CHUNK_ROUTES.get();
      Run fromBatches = run(cached, partitions, programs);
      if (partitions == 1) {
        assertThat(Routing.DIRECT_BATCHES.get()).as("cached batches decoded into the chunk")
            .isGreaterThan(direct);
        assertThat(Routing.ONE_CHUNK_ROUTES.get()).as("every partition into one chunk")
            .isEqualTo(oneChunk + 1);
      } else {
        assertThat(Routing.BULK_BATCHES.get()).as("batches taken whole").isGreaterThan(bulk);
        assertThat(CachedColumns.DECODED_BATCHES.get())
            .as("batches decoded from the cached bytes").isGreaterThan(decoded);
      }
      Run fromRows = run(rows.localCheckpoint(), partitions, programs);
      assertThat(fromBatches).isEqualTo(fromRows);
      assertThat(fromBatches.outcomes().toString()).contains("deposit", "transfer");
    } finally {
      cached.unpersist(true);
    }
  }

  /**
   * One batch of a directory written by partition (as gen transfers --batches writes it): the
   * scan adds the partition column to every batch, the selection drops it, and the transactions
   * are still taken from the batches' columns.
   */
  @ParameterizedTest(name = "{0} partition(s)")
  @ValueSource(ints = {1, 3})
  void aBatchOfAPartitionedParquetDirectoryIsRoutedFromItsColumns(int partitions,
      @TempDir Path dir) {
    String out = dir.resolve("t").toString();
    transfers(3_000, 40, 300, 17, 0, false)
        .withColumn("batch", functions.col("id").mod(2).cast("int")).repartition(3)
        .write().partitionBy("batch").parquet(out);
    Dataset<Row> batch = TxStateTest.spark.read().parquet(out)
        .where(functions.col("batch").equalTo(1)).select("id", "src", "dst", "amount");
    long before = Routing.COLUMNAR_ROUTES.get();
    long bulk = Routing.BULK_BATCHES.get();
    long inTask = Routing.INPUT_IN_TASK_ROUTES.get();
    Run fromBatches = run(batch, partitions, BANK);
    assertThat(Routing.COLUMNAR_ROUTES.get()).as("routed from column batches")
        .isEqualTo(before + 1);
    assertThat(Routing.BULK_BATCHES.get()).as("batches taken whole").isGreaterThan(bulk);
    assertThat(Routing.INPUT_IN_TASK_ROUTES.get()).as("by the state's one task with one "
        + "partition").isEqualTo(inTask + (partitions == 1 ? 1 : 0));
    Run fromRows = run(batch.localCheckpoint(), partitions, BANK);
    assertThat(fromBatches).isEqualTo(fromRows);
    assertThat(fromBatches.outcomes()).hasSize(1_500);
  }

  private static final String SCALE = """
      program scale(dst: int32, by: float64, add: float32, bump: int32)
          regions level: float64
      {
        level[dst] = level[dst] * by + add + bump;
      }
      """;

  /**
   * Parameters of every type (float64, float32, int32) from a Parquet directory's batches: a
   * one-partition state reads each value straight into its chunk, and gets what the same rows
   * give read one by one.
   */
  @ParameterizedTest(name = "{0} partition(s)")
  @ValueSource(ints = {1, 3})
  void parametersOfEveryTypeFromParquetBatchesGiveWhatTheirRowsGive(int partitions,
      @TempDir Path dir) {
    String out = dir.resolve("s").toString();
    TxStateTest.spark.range(0, 5_000, 1, 3).selectExpr("id",
        "(id * 7919 % 40) * 7 + 3 as dst", "cast(1.0 + (id % 5) / 100.0 as double) as by",
        "cast((id % 3) / 4.0 as float) as add", "cast(id % 11 - 5 as int) as bump")
        .write().parquet(out);
    Dataset<Row> batch = TxStateTest.spark.read().parquet(out);
    Dataset<Row> levels = accounts(40, 0).selectExpr("id", "cast(balance as double) as level");
    java.util.function.Function<Dataset<Row>, Run> run = input -> {
      try (TxState s = TxState.from(levels).key("id").partitions(partitions).create()) {
        List<Row> outcomes = s.transactions(input, SCALE).idColumn("id")
            .crossPartition("allow").run().outcomes()
            .select("txId", "program", "outcome", "abortCode", "cause").orderBy("txId")
            .collectAsList();
        return new Run(outcomes, s.toDF().orderBy("id").collectAsList());
      }
    };
    long bulk = Routing.BULK_BATCHES.get();
    Run fromBatches = run.apply(batch);
    assertThat(Routing.BULK_BATCHES.get()).as("batches taken whole").isGreaterThan(bulk);
    Run fromRows = run.apply(batch.localCheckpoint());
    assertThat(fromBatches.outcomes()).hasSize(5_000);
    assertThat(fromBatches).isEqualTo(fromRows);
    assertThat(fromBatches.state().stream().mapToDouble(r -> r.getDouble(1)).sum())
        .as("levels moved").isNotZero();
  }

  private static final String DEPOSIT = """
      program deposit(dst: int32, amount: int64)
          regions balance: int64
      {
        balance[dst] = balance[dst] + amount;
      }
      """;

  @ParameterizedTest(name = "{0} partition(s)")
  @ValueSource(ints = {1, 3})
  void nullKeysAndAProgramColumnAreReadRowByRowFromTheBatches(int partitions) {
    String programs = BANK + DEPOSIT;
    Dataset<Row> base = transfers(2_000, 40, 300, 9, 0, false);
    Dataset<Row> rows = base.withColumn("src", functions.when(functions.col("id").mod(97)
        .equalTo(3), functions.lit(null)).otherwise(functions.col("src")))
        // A program column of indices (a string column would keep the cache in rows).
        .withColumn("program", functions.when(functions.col("id").mod(5).equalTo(0),
            functions.lit(1L)).otherwise(functions.lit(0L))).repartition(3);
    Dataset<Row> cached = rows.cache();
    try {
      cached.count();
      long before = Routing.COLUMNAR_ROUTES.get();
      Run fromBatches = run(cached, partitions, programs);
      assertThat(Routing.COLUMNAR_ROUTES.get()).as("routed from column batches")
          .isEqualTo(before + 1);
      Run fromRows = run(rows.localCheckpoint(), partitions, programs);
      assertThat(fromBatches).isEqualTo(fromRows);
      assertThat(fromBatches.outcomes().toString()).contains("NULL_KEY", "USER_ABORT");
    } finally {
      cached.unpersist(true);
    }
  }
}
