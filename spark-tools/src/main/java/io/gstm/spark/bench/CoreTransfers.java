package io.gstm.spark.bench;

import io.gstm.core.batch.RunOptions;
import io.gstm.core.engine.Engine;
import io.gstm.core.engine.EngineChoice;
import io.gstm.core.engine.Engines;
import io.gstm.core.jvm.JvmEngine;
import io.gstm.core.program.ProgramBatch;
import io.gstm.core.program.ProgramResult;
import io.gstm.core.program.ProgramSet;
import io.gstm.core.program.StoreContents;
import io.gstm.core.store.RegionSpec;
import io.gstm.core.store.RegionType;
import io.gstm.core.store.StoreLayout;
import io.gstm.core.store.TxStore;
import io.gstm.spark.conf.GstmSettings;
import java.util.List;
import java.util.function.IntFunction;
import org.apache.spark.sql.catalyst.expressions.XXH64;

/**
 * The raw core engine beside {@link TxBenchmark}'s Spark side: the same transfers (same ids,
 * accounts and amounts), the same program, batches, grid and retry limit, run through gstm-core
 * directly from Java arrays on the same kind of engine in this JVM, as a user without Spark
 * would. Timed from the arrays to the outcomes read back: building each batch, running it,
 * counting its commits. Generating the arrays is not timed (the Spark side reads them cached).
 */
final class CoreTransfers {
  private CoreTransfers() {}

  /** What the core run did. */
  record Result(String engine, double seconds, long committed, long kernelNanos, long total) {}

  /** The transfers of ids {@code [from, to)}, as the benchmark's DataFrame computes them. */
  record Batch(int[] src, int[] dst, long[] amount) {}

  /** Spark's {@code xxhash64(id, lit(seed))}: the columns hashed in turn from seed 42. */
  static long xxhash64(long id, long seed) {
    return XXH64.hashLong(seed, XXH64.hashLong(id, 42));
  }

  static Batch batch(long from, long to, long accounts, long maxAmount, long seed) {
    int m = Math.toIntExact(to - from);
    int[] src = new int[m];
    int[] dst = new int[m];
    long[] amount = new long[m];
    for (int i = 0; i < m; i++) {
      long id = from + i;
      src[i] = (int) Math.floorMod(xxhash64(id, seed), accounts);
      dst[i] = (int) Math.floorMod(xxhash64(id, seed + 1), accounts);
      amount[i] = Math.floorMod(xxhash64(id, seed + 2), maxAmount) + 1;
    }
    return new Batch(src, dst, amount);
  }

  /** Runs batches {@code 0 .. batches - 1}; {@code batch} makes one (not timed). */
  static Result run(String bank, EngineChoice choice, GstmSettings settings, long accounts,
      long balance, int batches, IntFunction<Batch> batch) {
    ProgramSet programs = ProgramSet.parse(bank);
    int n = Math.toIntExact(accounts);
    StoreLayout layout = new StoreLayout(List.of(new RegionSpec("balance", RegionType.INT64, n,
        settings.transactions().lockCoverage())));
    long[][] start = new long[1][n];
    java.util.Arrays.fill(start[0], balance);
    RunOptions options = RunOptions.defaults()
        .withMaxRetries(settings.transactions().retryLimit());
    int tpb = settings.transactions().threadsPerBlock();
    long perBlock = (long) tpb * ProgramBatch.DEFAULT_TX_PER_THREAD;
    try (Engine engine = open(choice, settings);
        TxStore store = engine.createStore(layout)) {
      StoreContents.write(store, start);
      long committed = 0;
      long kernel = 0;
      long timed = 0;
      for (int i = 0; i < batches; i++) {
        Batch b = batch.apply(i);
        long t0 = System.nanoTime();
        int m = b.src().length;
        // As a user with batches of millions would: the arrays read in place, one program.
        ProgramBatch pb = ProgramBatch.builder(programs).all("transfer", m)
            .wrapInt32("src", b.src()).wrapInt32("dst", b.dst()).wrapInt64("amount", b.amount())
            .grid(tpb, (int) Math.max(1, (m + perBlock - 1) / perBlock)).build();
        ProgramResult r = engine.run(store, pb, options);
        committed += r.commits();
        timed += System.nanoTime() - t0;
        kernel += r.stats().kernelNanos();
      }
      double seconds = timed / 1e9;
      long total = 0;
      for (long v : StoreContents.read(store)[0]) {
        total += v;
      }
      return new Result(engine.name() + " on " + engine.device(), seconds, committed, kernel,
          total);
    }
  }

  /** The Spark side's engine kind: the GPU of the settings' device, or a JVM engine of
   * {@code spark.gstm.jvmWorkers} threads. */
  private static Engine open(EngineChoice choice, GstmSettings settings) {
    if (choice != EngineChoice.JVM) {
      Engines.Selection s = Engines.open(choice, settings.executors().deviceOrdinal());
      if (!(s.engine() instanceof JvmEngine)) {
        return s.engine();
      }
      s.engine().close();
    }
    return new JvmEngine(settings.executors().jvmWorkers());
  }
}
