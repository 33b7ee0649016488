package io.gstm.benchmarks;

import io.gstm.bench.ResultTable;
import io.gstm.core.batch.BatchResult;
import io.gstm.core.batch.RunOptions;
import io.gstm.core.batch.TxBatch;
import io.gstm.core.jvm.JvmEngine;
import io.gstm.core.store.TxStore;
import io.gstm.core.workload.bank.BankConfig;
import io.gstm.core.workload.bank.BankVerifier;
import io.gstm.core.workload.bank.BankWorkload;
import java.util.Arrays;
import java.util.List;
import java.util.function.Consumer;
import scala.concurrent.stm.Ref;

/**
 * gstm's JVM engine (a PR-STM bank batch) beside ScalaSTM on the same transfers: same accounts,
 * same seeded transfer list, same k, same thread count, in the same JVM. Each size gets warm-ups
 * and timed repetitions that alternate which side goes first; each side's median counts, and
 * every run of either side is verified (exact final balances and the conserved total).
 */
public final class BankPeer {

  /** The CSV's columns: one row per account count. */
  public static final List<String> COLUMNS = List.of("accounts", "k", "threads", "lanes",
      "transfers", "warmups", "reps", "gstm_tx_per_s", "scalastm_tx_per_s", "ratio",
      "gstm_min_tx_per_s", "gstm_max_tx_per_s", "scalastm_min_tx_per_s",
      "scalastm_max_tx_per_s", "gstm_abort_rate", "scalastm_abort_rate", "gstm_verified",
      "scalastm_verified", "load_1m");

  /** Logical threads per worker: {@link TxBatch#MAX_THREADS_PER_BLOCK}, one block per worker. */
  public static final int MAX_LANES = TxBatch.MAX_THREADS_PER_BLOCK;
  /** Transfers per batch: what {@link BankConfig} allows. */
  public static final int MAX_TRANSFERS = Integer.MAX_VALUE / 16;

  /**
   * One comparison.
   *
   * @param accounts account counts, one row each
   * @param k accounts per transfer, 2..16
   * @param threads worker threads of each side, at least 1
   * @param lanes gstm's logical threads (GPU threads) per worker, 1..256
   * @param transfers transfers per batch, rounded up to a multiple of threads * lanes
   * @param warmups untimed runs of each side per size, at least 0
   * @param reps timed runs of each side per size, at least 1
   * @param seed the transfer list's seed
   */
  public record Settings(List<Integer> accounts, int k, int threads, int lanes, int transfers,
      int warmups, int reps, long seed) {
    public Settings {
      accounts = List.copyOf(accounts);
      if (accounts.isEmpty()) {
        throw new IllegalArgumentException("accounts: give at least one account count");
      }
      int maxK = TxBatch.CAPACITIES[TxBatch.CAPACITIES.length - 1];
      for (int a : accounts) {
        if (a < 2) {
          throw new IllegalArgumentException("accounts must each be at least 2, got " + a);
        }
        if (k > a) {
          throw new IllegalArgumentException("k must be at most the account count " + a
              + " (distinct accounts per transfer), got " + k);
        }
      }
      // A transfer of one account moves nothing: not the workload being compared.
      if (k < 2 || k > maxK) {
        throw new IllegalArgumentException("k must be in 2.." + maxK
            + " (accounts per transfer, at most the largest set capacity), got " + k);
      }
      if (threads < 1) {
        throw new IllegalArgumentException("threads must be at least 1, got " + threads);
      }
      if (lanes < 1 || lanes > MAX_LANES) {
        throw new IllegalArgumentException("lanes must be in 1.." + MAX_LANES
            + " (gstm logical threads per worker, one block of them), got " + lanes);
      }
      if (transfers < 1 || transfers > MAX_TRANSFERS) {
        throw new IllegalArgumentException("transfers must be in 1.." + MAX_TRANSFERS
            + " per batch, got " + transfers);
      }
      if ((long) threads * lanes > MAX_TRANSFERS) {
        throw new IllegalArgumentException("threads * lanes must be at most " + MAX_TRANSFERS
            + ", got " + (long) threads * lanes);
      }
      if (warmups < 0) {
        throw new IllegalArgumentException("warmups must be at least 0, got " + warmups);
      }
      if (reps < 1) {
        throw new IllegalArgumentException("reps must be at least 1, got " + reps);
      }
    }

    /** The transfers of a size: threads * lanes logical threads, one block per worker. */
    BankConfig bank(int accountCount) {
      int logical = threads * lanes;
      int perThread = (int) Math.max(1, ((long) transfers + logical - 1) / logical);
      if ((long) perThread * logical > MAX_TRANSFERS) {
        throw new IllegalArgumentException("transfers " + transfers + " rounded up to a multiple "
            + "of threads * lanes = " + logical + " exceeds " + MAX_TRANSFERS);
      }
      return BankConfig.builder().accounts(accountCount).k(k).readOnly(0).lockCoverage(1)
          .grid(lanes, threads).txPerThread(perThread).seed(seed).build();
    }
  }

  /** One run of one side. */
  record Sample(double txPerSecond, double abortRate, boolean verified) {}

  private BankPeer() {}

  /** Runs the comparison; {@code log} gets a line per run (progress and each run's rate). */
  public static ResultTable run(Settings s, Consumer<String> log) {
    ResultTable table = new ResultTable(COLUMNS);
    try (JvmEngine engine = new JvmEngine(s.threads());
        ScalaStmBank peer = new ScalaStmBank(s.threads())) {
      for (int accounts : s.accounts()) {
        BankConfig cfg = s.bank(accounts);
        TxBatch batch = cfg.batch();
        int[] initial = cfg.initialBalances();
        long[] expected = allCommitted(initial, batch);
        Sample[] gstm = new Sample[s.reps()];
        Sample[] scala = new Sample[s.reps()];
        boolean gstmOk = true;
        boolean scalaOk = true;
        try (TxStore store = engine.createStore(cfg.layout())) {
          for (int i = 0; i < s.warmups() + s.reps(); i++) {
            boolean warm = i < s.warmups();
            // Alternate which side goes first, so neither always runs on a hotter machine.
            boolean gstmFirst = i % 2 == 0;
            Sample g = null;
            Sample p = null;
            for (int side = 0; side < 2; side++) {
              if ((side == 0) == gstmFirst) {
                g = gstm(engine, store, batch, initial);
              } else {
                p = scala(peer, batch, initial, expected);
              }
            }
            gstmOk &= g.verified();
            scalaOk &= p.verified();
            log.accept(String.format(
                "%,d accounts, %s %d: gstm %,.0f tx/s%s, ScalaSTM %,.0f tx/s%s",
                accounts, warm ? "warm-up" : "rep", warm ? i + 1 : i - s.warmups() + 1,
                g.txPerSecond(), g.verified() ? "" : " (FAILED verification)",
                p.txPerSecond(), p.verified() ? "" : " (FAILED verification)"));
            if (!warm) {
              gstm[i - s.warmups()] = g;
              scala[i - s.warmups()] = p;
            }
          }
        }
        double g = median(gstm);
        double p = median(scala);
        table.add(accounts, s.k(), s.threads(), s.lanes(), batch.txCount(), s.warmups(),
            s.reps(), g, p, p == 0 ? 0.0 : g / p, min(gstm), max(gstm), min(scala), max(scala),
            medianAbortRate(gstm), medianAbortRate(scala), gstmOk, scalaOk, loadAverage());
      }
    }
    return table;
  }

  private static Sample gstm(JvmEngine engine, TxStore store, TxBatch batch, int[] initial) {
    store.writeInt32(0, initial);
    System.gc();
    long start = System.nanoTime();
    BatchResult r = engine.run(store, batch, RunOptions.defaults());
    long nanos = System.nanoTime() - start;
    int[] after = store.readInt32(0);
    boolean ok = BankVerifier.verify(initial, batch, r, after).ok()
        && sum(after) == sum(initial);
    // Wall time of the whole call, not the engine's own kernel time: as the peer is timed.
    return new Sample(r.commits() * 1e9 / nanos, r.abortRate(), ok);
  }

  private static Sample scala(ScalaStmBank peer, TxBatch batch, int[] initial, long[] expected) {
    Ref.View<Integer>[] accounts = ScalaStmBank.accounts(initial);
    System.gc();
    ScalaStmBank.Run r = peer.run(batch, accounts);
    int[] after = ScalaStmBank.balances(accounts);
    boolean ok = r.commits() == batch.txCount() && sum(after) == sum(initial);
    for (int i = 0; ok && i < expected.length; i++) {
      ok = after[i] == expected[i];
    }
    return new Sample(r.txPerSecond(), r.abortRate(), ok);
  }

  /** The balances after every transfer of {@code batch} commits, in any order. */
  static long[] allCommitted(int[] initial, TxBatch batch) {
    long[] b = new long[initial.length];
    for (int i = 0; i < b.length; i++) {
      b[i] = initial[i];
    }
    int k = BankWorkload.k(batch);
    int[][] cols = batch.columns();
    for (int t = 0; t < batch.txCount(); t++) {
      int amount = cols[k][t];
      b[cols[0][t]] -= (long) amount * (k - 1);
      for (int j = 1; j < k; j++) {
        b[cols[j][t]] += amount;
      }
    }
    return b;
  }

  /** The machine's 1-minute load average (other processes share the cores), -1 if unknown. */
  static double loadAverage() {
    return java.lang.management.ManagementFactory.getOperatingSystemMXBean()
        .getSystemLoadAverage();
  }

  private static long sum(int[] a) {
    long s = 0;
    for (int v : a) {
      s += v;
    }
    return s;
  }

  private static double median(Sample[] samples) {
    return median(Arrays.stream(samples).mapToDouble(Sample::txPerSecond).toArray());
  }

  private static double medianAbortRate(Sample[] samples) {
    return median(Arrays.stream(samples).mapToDouble(Sample::abortRate).toArray());
  }

  static double median(double[] values) {
    double[] v = values.clone();
    Arrays.sort(v);
    int n = v.length;
    return n % 2 == 1 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
  }

  private static double min(Sample[] samples) {
    return Arrays.stream(samples).mapToDouble(Sample::txPerSecond).min().orElse(0);
  }

  private static double max(Sample[] samples) {
    return Arrays.stream(samples).mapToDouble(Sample::txPerSecond).max().orElse(0);
  }
}
