package io.gstm.spark.bench;

import static org.apache.spark.sql.functions.coalesce;
import static org.apache.spark.sql.functions.col;
import static org.apache.spark.sql.functions.lit;
import static org.apache.spark.sql.functions.pmod;
import static org.apache.spark.sql.functions.sum;
import static org.apache.spark.sql.functions.xxhash64;

import io.gstm.core.workload.bank.BankPrograms;
import io.gstm.spark.cli.SparkOptions;
import io.gstm.spark.conf.GstmConf;
import io.gstm.spark.conf.GstmSettings;
import io.gstm.spark.state.ApplyResult;
import io.gstm.spark.state.TxState;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.Callable;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.storage.StorageLevel;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/**
 * The transactional-state benchmark (not a test): N accounts, M random transfers applied in
 * batches to a {@link TxState} (PR-STM with overdraft checks: a transfer that would overdraw
 * aborts), end to end (routing, the partitions' batches, the cross-partition phase), against
 * what a Spark user would write without gstm on the same cached data and cores: per batch a
 * groupBy of the net delta per account, joined back to the balances (no isolation, no overdraft
 * check). Prints committed transactions per second of each side, gstm's engine time and the
 * share of the wall that is not the engine's, and checks that both conserve the total.
 */
@Command(name = "tx-bench", mixinStandardHelpOptions = true,
    description = "TxState bank transfers vs a groupBy/join of net deltas, in Spark local mode.")
public final class TxBenchmark implements Callable<Integer> {
  static final String BANK = BankPrograms.KEYED_TRANSFER;

  /** With --inserts or --deletes: accounts opened (new keys) and closed beside the transfers. */
  static final String OPEN_CLOSE = """
      program open(acct: int32, amount: int64) regions balance: int64, exists: int32
          outputs opened: int64 {
        if (exists[acct] == 1) { abort(3); }
        exists[acct] = 1;
        balance[acct] = amount;
        opened = amount;
      }
      program close(acct: int32) regions balance: int64, exists: int32
          outputs paidOut: int64 {
        if (exists[acct] == 0) { abort(4); }
        paidOut = balance[acct];
        exists[acct] = 0;
      }
      """;

  @Mixin
  SparkOptions spark = new SparkOptions();

  @Option(names = "--accounts", description = "accounts (default: ${DEFAULT-VALUE})")
  long accounts = 1_000_000;

  @Option(names = "--transfers", description = "transfers in all (default: ${DEFAULT-VALUE})")
  long transfers = 4_000_000;

  @Option(names = "--batches", description = "applies (epochs) the transfers are split into "
      + "(default: ${DEFAULT-VALUE})")
  int batches = 4;

  @Option(names = "--balance", description = "initial balance (default: ${DEFAULT-VALUE})")
  long balance = 1_000;

  @Option(names = "--max-amount", description = "transfers move 1..this (default: "
      + "${DEFAULT-VALUE})")
  long maxAmount = 100;

  @Option(names = "--seed", description = "seed (default: ${DEFAULT-VALUE})")
  long seed = 42;

  @Option(names = "--input-partitions", description = "partitions of the transfers DataFrame "
      + "(default: four per task slot (core) of the executors, at least --partitions: a "
      + "one-partition state reads them all in its task, and the cores that finish early take "
      + "another)")
  int inputPartitions = -1;

  @Option(names = "--inserts", description = "share of the transactions that open a new "
      + "account (a key beyond --accounts) with a balance, 0..1 (default: ${DEFAULT-VALUE}); "
      + "with --inserts or --deletes the state takes inserts and deletes, and the total is "
      + "checked against what the committed opens and closes moved")
  double inserts = 0;

  @Option(names = "--deletes", description = "share of the transactions that close a random "
      + "account and pay out its balance, 0..1 (default: ${DEFAULT-VALUE})")
  double deletes = 0;

  @Option(names = "--no-baseline", description = "time gstm only")
  boolean noBaseline;

  @Option(names = "--no-core", description = "skip the raw core engine's run of the same "
      + "transfers (gstm-core from Java arrays, no Spark)")
  boolean noCore;

  @Option(names = "--warmup-transfers", description = "transfers each gstm side (the TxState, "
      + "at least twice, and the raw core run) applies to a throwaway state before it is timed, "
      + "so that neither times the JIT's warm-up nor an executor's first arrays of the batch's "
      + "size (default: one timed batch, --transfers / --batches; 0: none)")
  long warmupTransfers = -1;

  @Option(names = "--input", description = "a Parquet directory of transfers (id, src, dst, "
      + "amount) as `gen transfers` writes them, read by the applies instead of generating "
      + "them; give the --accounts, --transfers and --seed it was written with (the core run "
      + "checks its first rows against its own)")
  String input;

  @Option(names = "--cache-input", description = "cache the generated transfers before timing "
      + "(default: when there are at most 20,000,000; else each side generates them as it reads "
      + "them, the same way)")
  Boolean cacheInput;

  @Option(names = "--generator-codegen", description = "read a generated input (not cached) "
      + "with whole-stage code generation, Spark's default. Each batch's range has its bounds "
      + "as literals in the generated code, so each apply would compile and warm new classes; "
      + "without this option the applies, their warm-up and the bound line read a generated "
      + "input with spark.sql.codegen.wholeStage=false (one set of classes for every batch), "
      + "unless --conf sets it")
  boolean generatorCodegen;

  @Override
  public Integer call() {
    if (accounts < 2 || transfers < 1 || batches < 1 || maxAmount < 1) {
      throw new IllegalArgumentException("--accounts >= 2, --transfers >= 1, --batches >= 1 and "
          + "--max-amount >= 1 are needed");
    }
    if (inserts < 0 || deletes < 0 || inserts + deletes > 1) {
      throw new IllegalArgumentException("--inserts and --deletes are shares of the "
          + "transactions: each at least 0, together at most 1; got " + inserts + " and "
          + deletes);
    }
    if (warmupTransfers < -1) {
      throw new IllegalArgumentException("--warmup-transfers must be 0 (no warm-up) or more; "
          + "got " + warmupTransfers);
    }
    if (warmupTransfers < 0) {
      warmupTransfers = (transfers + batches - 1) / batches; // the default: one timed batch
    }
    boolean keysChange = inserts > 0 || deletes > 0;
    if (keysChange && accounts + transfers > Integer.MAX_VALUE) {
      throw new IllegalArgumentException("--accounts + --transfers must stay below 2^31 with "
          + "--inserts or --deletes (new accounts are numbered after the old)");
    }
    if (keysChange && input != null) {
      throw new IllegalArgumentException("--input holds transfers only: leave out --inserts and "
          + "--deletes with it");
    }
    String programs = keysChange ? BANK + OPEN_CLOSE : BANK;
    SparkSession session = spark.session("gstm-tx-bench");
    try {
      int inParts = inputPartitions > 0 ? inputPartitions
          : Math.max(spark.partitions,
              4 * io.gstm.spark.exec.TaskHub.taskSlots(session.sparkContext()));
      Dataset<Row> start = session.range(0, accounts, 1, inParts)
          .select(col("id"), lit(balance).as("balance"));
      List<Dataset<Row>> input = new ArrayList<>();
      boolean cache = cacheInput != null ? cacheInput : transfers <= 20_000_000L;
      long per = (transfers + batches - 1) / batches;
      Dataset<Row> stored = this.input == null ? null : checkedInput(session);
      boolean batched = stored != null
          && java.util.Arrays.asList(stored.columns()).contains("batch");
      for (int b = 0; b < batches; b++) {
        long from = b * per;
        long to = Math.min(transfers, from + per);
        // A batched input: the batch's own directory, read as it is (its files alone, column
        // batches straight from the scan); else the batch's range of ids.
        Dataset<Row> t = stored != null
            ? (batched ? stored.where(col("batch").equalTo(b))
                : stored.where(col("id").geq(from).and(col("id").lt(to))))
                .select("id", "src", "dst", "amount")
            : keysChange ? withOpensAndCloses(session.range(from, to, 1, inParts), accounts, seed)
            : transfers(session.range(from, to, 1, inParts), accounts, maxAmount, seed);
        if (cache) {
          t = t.persist(StorageLevel.MEMORY_ONLY());
          t.count();
        }
        input.add(t);
      }
      long total = accounts * balance;
      System.out.printf(Locale.ROOT, "tx-bench: %,d accounts, %,d transfers in %d batches, "
              + "%d state partitions, %d input partitions, input %s, Spark %s (%s)%n", accounts,
          transfers, batches, spark.partitions, inParts,
          (keysChange ? String.format(Locale.ROOT, "%.1f%% opens of new accounts and %.1f%% "
              + "closes, ", 100 * inserts, 100 * deletes) : "")
              + (stored != null ? "from Parquet " + this.input + ", " : "")
              + (cache ? "cached" : stored != null ? "read by each apply" : "generated as read"),
          session.version(), spark.master);

      // Spark's own cost of a new range per batch kept out of the applies (the baseline below
      // runs with Spark's settings as given).
      String wholeStage = "spark.sql.codegen.wholeStage";
      boolean codegenOff = !cache && stored == null && !generatorCodegen
          && spark.conf.stream().noneMatch(kv -> kv.startsWith(wholeStage + "="));
      String wholeStageWas = session.conf().get(wholeStage, null);
      if (codegenOff) {
        session.conf().set(wholeStage, "false");
        System.out.println("  (the generated input read with " + wholeStage + "=false: one set "
            + "of classes for every batch; --generator-codegen to keep Spark's default)");
      }
      warmUp(session, inParts, programs, keysChange, cache);
      long t0 = System.nanoTime();
      TxState.Builder builder = TxState.from(start).key("id").values("balance")
          .partitions(spark.partitions).name("bench");
      TxState state = (keysChange ? builder.insertsAndDeletes() : builder).create();
      List<ApplyResult> results = new ArrayList<>();
      long created = System.nanoTime();
      long committed = 0;
      long cross = 0;
      long kernel = 0;
      long task = 0;
      Map<String, Long> counts = new TreeMap<>();
      List<String> engines = new ArrayList<>();
      long[] gcBefore = gcCountAndMillis();
      long applyStart = System.nanoTime();
      for (int b = 0; b < batches; b++) {
        ApplyResult r = state.transactions(input.get(b), programs).idColumn("id").run();
        if (keysChange) {
          results.add(r);
        }
        committed += r.committed();
        cross += r.crossPartition();
        kernel += r.kernelNanos();
        task += r.taskNanos();
        r.outcomeCounts().forEach((k, v) -> counts.merge(k, v, Long::sum));
        for (String e : r.engines()) {
          if (!engines.contains(e)) {
            engines.add(e);
          }
        }
      }
      long applied = System.nanoTime();
      long[] gcAfter = gcCountAndMillis();
      long gstmTotal = state.toDF().agg(sum("balance")).first().getLong(0);
      long rows = state.toDF().count();
      state.close();
      long moved = 0;
      for (ApplyResult r : results) {
        Row m = r.outcomes().where(col("committed")).agg(coalesce(sum("opened"), lit(0L)),
            coalesce(sum("paidOut"), lit(0L))).first();
        moved += m.getLong(0) - m.getLong(1);
      }
      double wall = (applied - applyStart) / 1e9;
      System.out.println("engine: " + String.join(" + ", engines));
      System.out.printf(Locale.ROOT, "gstm TxState: create %.2f s; %d applies %.2f s: %,.0f "
              + "committed tx/s (%,d committed, outcomes %s; %.1f%% cross-partition)%n",
          (created - t0) / 1e9, batches, wall, committed / wall, committed, counts,
          100.0 * cross / transfers);
      System.out.printf(Locale.ROOT, "  engine time %.2f s (summed over tasks), task time %.2f s;"
              + " wall / engine = %.2fx%n", kernel / 1e9, task / 1e9,
          kernel == 0 ? 0 : (applied - applyStart) / (double) kernel);
      // This JVM's collection pauses (in local mode the executor's too): a run slowed by the
      // collector tells itself apart from one slowed by the engine or by Spark.
      System.out.printf(Locale.ROOT, "  this JVM's garbage collection pauses during the "
          + "applies: %d, %.2f s%s%n", gcAfter[0] - gcBefore[0], (gcAfter[1] - gcBefore[1]) / 1e3,
          spark.master.startsWith("local") ? "" : " (the driver's; the executors' are theirs)");
      boolean ok = gstmTotal == total + moved;
      System.out.printf(Locale.ROOT, "  total balance %,d (%s)%s%n", gstmTotal,
          ok ? "conserved" : "NOT CONSERVED, expected " + (total + moved),
          keysChange ? String.format(Locale.ROOT, ": %,d opened less paid out; %,d accounts "
              + "now", moved, rows) : "");
      if (keysChange && !noCore) {
        System.out.println("(the raw core run is of transfers only: skipped with --inserts or "
            + "--deletes)");
      }
      if (!cache) {
        // The bound for an input that is read by each apply: Spark producing the same rows,
        // every column read, and nothing else.
        double alone = readAlone(input);
        System.out.printf(Locale.ROOT, "  Spark reading the input alone (a job an apply, every "
                + "column of every row read): %.2f s: %,.0f rows/s; gstm's applies take %.2fx "
                + "that%n", alone, transfers / alone, wall / alone);
      }

      if (codegenOff && wholeStageWas == null) {
        session.conf().unset(wholeStage);
      } else if (codegenOff) {
        session.conf().set(wholeStage, wholeStageWas);
      }

      if (!noCore && !keysChange) {
        ok &= core(session, input.get(0), per, wall);
      }

      if (!noBaseline) {
        Dataset<Row> balances = start.persist(StorageLevel.MEMORY_ONLY());
        balances.count();
        long b0 = System.nanoTime();
        for (int b = 0; b < batches; b++) {
          Dataset<Row> t = input.get(b);
          if (keysChange) {
            t = t.where(col("program").equalTo(0L));
          }
          Dataset<Row> deltas = t.select(col("src").as("id"), col("amount").multiply(-1)
                  .as("delta"))
              .union(t.select(col("dst").as("id"), col("amount").as("delta")))
              .groupBy("id").agg(sum("delta").as("delta"));
          Dataset<Row> next = balances.join(deltas, "id", "left_outer")
              .select(col("id"), col("balance").plus(coalesce(col("delta"), lit(0L)))
                  .cast(DataTypes.LongType).as("balance"));
          if (keysChange) {
            // Closes drop their accounts, opens add theirs (a MERGE without its checks).
            Dataset<Row> all = input.get(b);
            next = next.join(all.where(col("program").equalTo(2L)).select(col("acct").as("id")),
                    "id", "left_anti")
                .union(all.where(col("program").equalTo(1L)).select(col("acct").as("id"),
                    col("amount").as("balance")));
          }
          next = next.persist(StorageLevel.MEMORY_ONLY());
          next.count();
          balances.unpersist(false);
          balances = next;
        }
        long b1 = System.nanoTime();
        long baseTotal = balances.agg(sum("balance")).first().getLong(0);
        double bw = (b1 - b0) / 1e9;
        System.out.printf(Locale.ROOT, "Spark groupBy+join%s (no isolation, no overdraft check): "
            + "%.2f s: %,.0f transactions/s; total %,d%n", keysChange ? ", anti-join and union"
            : "", bw, transfers / bw, baseTotal);
        System.out.printf(Locale.ROOT, "gstm / baseline throughput: %.2fx%n",
            (committed / wall) / (transfers / bw));
        ok &= keysChange || baseTotal == total;
      }
      return ok ? 0 : 1;
    } finally {
      SparkOptions.stop(session);
    }
  }

  /**
   * Pauses and their milliseconds so far, over this JVM's collectors that stop the application
   * (G1's and ZGC's concurrent cycles have beans of their own, left out).
   */
  private static long[] gcCountAndMillis() {
    long count = 0;
    long millis = 0;
    for (java.lang.management.GarbageCollectorMXBean gc
        : java.lang.management.ManagementFactory.getGarbageCollectorMXBeans()) {
      if (gc.getName().contains("Concurrent") || gc.getName().contains("Cycles")) {
        continue;
      }
      count += Math.max(0, gc.getCollectionCount());
      millis += Math.max(0, gc.getCollectionTime());
    }
    return new long[] {count, millis};
  }

  /**
   * Seconds Spark takes to produce the rows of {@code input}, one job per batch as the applies
   * run, every column of every row read (its fields summed, so that no read is skipped).
   */
  private static double readAlone(List<Dataset<Row>> input) {
    long t0 = System.nanoTime();
    long sum = 0;
    for (Dataset<Row> t : input) {
      int width = t.schema().size();
      sum += t.queryExecution().toRdd().toJavaRDD().mapPartitions(it -> {
        long s = 0;
        while (it.hasNext()) {
          org.apache.spark.sql.catalyst.InternalRow r = it.next();
          for (int i = 0; i < width; i++) {
            s += r.isNullAt(i) ? 0 : r.getLong(i);
          }
        }
        return List.of(s).iterator();
      }).reduce(Long::sum);
    }
    double seconds = (System.nanoTime() - t0) / 1e9;
    return sum == 42 ? seconds + 1e-9 : seconds; // the sum used
  }

  /**
   * The transfers of ids {@code ids} (a column "id"): source, destination and amount drawn from
   * the id by seeded hashes, the same on every machine and for any partitioning (`gen transfers`
   * writes them; the core run draws them again as {@link CoreTransfers#batch}).
   */
  public static Dataset<Row> transfers(Dataset<?> ids, long accounts, long maxAmount,
      long seed) {
    return ids.select(
        col("id"),
        pmod(xxhash64(col("id"), lit(seed)), lit(accounts)).as("src"),
        pmod(xxhash64(col("id"), lit(seed + 1)), lit(accounts)).as("dst"),
        pmod(xxhash64(col("id"), lit(seed + 2)), lit(maxAmount)).plus(1).as("amount"));
  }

  /**
   * {@link #transfers} in {@code batches} batches of {@code per} ids (column "batch", to write
   * partitioned by it): row i of {@code rows} (a column "id" of 0 .. batches * per - 1) is id
   * {@code (i % batches) * per + i / batches}, so that every partition of {@code rows} holds ids
   * of every batch and every writer writes a file into each batch's directory.
   */
  public static Dataset<Row> batchedTransfers(Dataset<?> rows, int batches, long per,
      long accounts, long maxAmount, long seed) {
    Dataset<Row> ids = rows.select(org.apache.spark.sql.functions.expr(
        "pmod(id, " + batches + "L) * " + per + "L + (id div " + batches + "L)").as("id"));
    return transfers(ids, accounts, maxAmount, seed).withColumn("batch",
        org.apache.spark.sql.functions.expr("cast(id div " + per + "L as int)"));
  }

  /**
   * {@link #transfers} of ids {@code ids} over {@code accounts} accounts, drawn with {@code
   * seed}, with a program each (column "program", its index: 0 transfer, 1 open, 2 close): a
   * share --inserts opens account {@code accounts + id} (column "acct", a key no other
   * transaction names) with the transfer's amount, a share --deletes closes account {@code src},
   * the rest are the transfers.
   */
  private Dataset<Row> withOpensAndCloses(Dataset<?> ids, long accounts, long seed) {
    org.apache.spark.sql.Column u = pmod(xxhash64(col("id"), lit(seed + 3)), lit(1_000_000L));
    // The program's index in BANK + OPEN_CLOSE: an integral column keeps a cached input in
    // column batches (routed a column at a time).
    org.apache.spark.sql.Column program = org.apache.spark.sql.functions
        .when(u.lt(Math.round(inserts * 1_000_000)), lit(1L))
        .when(u.lt(Math.round((inserts + deletes) * 1_000_000)), lit(2L))
        .otherwise(lit(0L));
    return transfers(ids, accounts, maxAmount, seed).select(col("id"), col("src"), col("dst"),
        col("amount"), program.as("program"),
        org.apache.spark.sql.functions.when(program.equalTo(1L),
            col("id").plus(accounts)).otherwise(col("src")).as("acct"));
  }

  /** The --input transfers, checked against the options: their columns, count and ids. */
  private Dataset<Row> checkedInput(SparkSession session) {
    // The input read in a task a core: --partitions sets spark.default.parallelism, and Spark
    // would pack an apply's files into that many reading (routing) tasks.
    session.conf().set("spark.sql.files.minPartitionNum",
        String.valueOf(Math.max(1, io.gstm.spark.exec.TaskHub.taskSlots(
            session.sparkContext()))));
    Dataset<Row> t = session.read().parquet(input);
    if (!java.util.Arrays.asList(t.columns()).containsAll(List.of("id", "src", "dst",
        "amount"))) {
      throw new IllegalArgumentException("--input: " + input + " needs columns id, src, dst, "
          + "amount; it has " + java.util.Arrays.toString(t.columns()));
    }
    boolean batched = java.util.Arrays.asList(t.columns()).contains("batch");
    Row r = t.agg(org.apache.spark.sql.functions.count(lit(1)),
        org.apache.spark.sql.functions.max(org.apache.spark.sql.functions.greatest(col("src"),
            col("dst"))),
        org.apache.spark.sql.functions.max(batched ? col("batch") : lit(0))).first();
    if (r.getLong(0) != transfers) {
      throw new IllegalArgumentException("--input: " + input + " holds " + r.getLong(0)
          + " transfers, --transfers says " + transfers);
    }
    if (!r.isNullAt(1) && r.getLong(1) >= accounts) {
      throw new IllegalArgumentException("--input: account " + r.getLong(1) + " is beyond "
          + "--accounts " + accounts);
    }
    if (batched && !r.isNullAt(2) && r.getInt(2) + 1 != batches) {
      throw new IllegalArgumentException("--input: " + input + " was written in "
          + (r.getInt(2) + 1) + " batches (gen transfers --batches); give --batches "
          + (r.getInt(2) + 1) + ", got " + batches);
    }
    return batched ? t.select("id", "src", "dst", "amount", "batch")
        : t.select("id", "src", "dst", "amount");
  }

  /**
   * Untimed applies of {@code --warmup-transfers} to a throwaway state of as many accounts, of
   * the timed run's shape: its programs, its kind of state (with inserts and deletes when the
   * run has them), its input cached when the run's is ({@code cache}: another reading path), a
   * quarter of the accounts starting empty so that some transfers abort. The
   * JIT compiles a hot loop without the branches it never saw taken; the first row that takes
   * one (the first abort, the first released row) sends it back to the interpreter, and a timed
   * epoch paid 0.3-0.5 s for that. One apply per state partition, so that with the epoch's
   * cross-partition transactions run by each partition in turn, every partition's task has
   * coordinated them once (with one apply, the timed run's second epoch paid the other
   * partition's first coordination, 0.3-0.4 s on the node of two H200s); with inserts and
   * deletes at least four, so that rows run short and the state grows once.
   */
  private void warmUp(SparkSession session, int inParts, String programs, boolean keysChange,
      boolean cache) {
    if (warmupTransfers <= 0) {
      return;
    }
    long n = Math.min(accounts, warmupTransfers);
    // Twice at least: the second apply decodes into the columns the first gave back.
    int applies = Math.max(keysChange ? 4 : 2, spark.partitions);
    TxState.Builder b = TxState.from(session.range(0, n, 1, inParts).select(col("id"),
            org.apache.spark.sql.functions.when(col("id").mod(4).equalTo(0), lit(0L))
                .otherwise(lit(balance)).as("balance")))
        .key("id").values("balance").partitions(spark.partitions).name("bench-warm-up");
    try (TxState warm = (keysChange ? b.insertsAndDeletes() : b).create()) {
      for (int e = 0; e < applies; e++) {
        Dataset<Long> ids = session.range(e * warmupTransfers, (e + 1) * warmupTransfers, 1,
            inParts);
        Dataset<Row> t = keysChange ? withOpensAndCloses(ids, n, seed + 7)
            : transfers(ids, n, maxAmount, seed + 7);
        if (cache) {
          t = t.persist(StorageLevel.MEMORY_ONLY());
          t.count();
        }
        try {
          warm.transactions(t, programs).idColumn("id").run();
        } finally {
          if (cache) {
            t.unpersist(false);
          }
        }
      }
    }
  }

  /**
   * The same transfers through the raw core engine ({@link CoreTransfers}), after checking that
   * its arrays hold the first batch's first rows as the DataFrame computes them; prints its
   * rate, the Spark applies' wall over the core run's and Spark's share (the time it adds).
   */
  private boolean core(SparkSession session, Dataset<Row> first, long per, double sparkWall) {
    List<Row> head = first.orderBy("id").limit(1000).collectAsList();
    CoreTransfers.Batch check = CoreTransfers.batch(0, head.size(), accounts, maxAmount, seed);
    for (int i = 0; i < head.size(); i++) {
      Row r = head.get(i);
      if (r.getLong(0) != i || r.getLong(1) != check.src()[i] || r.getLong(2) != check.dst()[i]
          || r.getLong(3) != check.amount()[i]) {
        throw new IllegalStateException("the core run's transfers differ from the DataFrame's "
            + "at id " + i + ": " + r);
      }
    }
    GstmSettings settings = GstmConf.settings(session.sparkContext().getConf());
    if (warmupTransfers > 0) {
      long n = Math.min(accounts, warmupTransfers);
      CoreTransfers.run(BANK, settings.executors().engine(), settings, n, balance, 1,
          b -> CoreTransfers.batch(0, warmupTransfers, n, maxAmount, seed + 7));
    }
    CoreTransfers.Result c = CoreTransfers.run(BANK, settings.executors().engine(), settings,
        accounts, balance, batches, b -> CoreTransfers.batch(b * per,
            Math.min(transfers, (b + 1) * per), accounts, maxAmount, seed));
    System.out.printf(Locale.ROOT, "raw core engine (gstm-core from Java arrays, no Spark; %s): "
            + "%.2f s: %,.0f committed tx/s (%,d committed; kernel %.2f s)%n", c.engine(),
        c.seconds(), c.committed() / c.seconds(), c.committed(), c.kernelNanos() / 1e9);
    System.out.printf(Locale.ROOT, "  the applies' wall / the core run's = %.2fx: Spark's share "
        + "(the time it adds) %.2fx the core run's%n", sparkWall / c.seconds(),
        sparkWall / c.seconds() - 1);
    long total = accounts * balance;
    boolean ok = c.total() == total;
    System.out.printf(Locale.ROOT, "  total balance %,d (%s)%n", c.total(),
        ok ? "conserved" : "NOT CONSERVED, expected " + total);
    return ok;
  }
}
