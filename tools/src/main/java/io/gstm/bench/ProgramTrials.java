package io.gstm.bench;

import io.gstm.core.batch.BatchResult;
import io.gstm.core.batch.Counter;
import io.gstm.core.batch.Outcome;
import io.gstm.core.batch.RunOptions;
import io.gstm.core.engine.Engine;
import io.gstm.core.program.ProgramBatch;
import io.gstm.core.program.ProgramResult;
import io.gstm.core.program.StoreContents;
import io.gstm.core.store.Algorithm;
import io.gstm.core.store.TxStore;
import io.gstm.core.workload.ds.DsBatch;
import io.gstm.core.workload.ds.DsRun;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.function.Consumer;

/**
 * Repeated runs of one transaction-program batch on one store, every run checked by the
 * workload's exact verifier: the median committed tx/s and the batch of median aborts (whose
 * causes then add up to its aborts per transaction). Shared by {@code gstm bench-ds} and the
 * experiments that run programs, so that a table and a figure measure the same way.
 */
public final class ProgramTrials {
  private ProgramTrials() {}

  /** What a run's checks found wrong in the store after it; empty when all passed. */
  public interface Check {
    List<String> problems(TxStore store, ProgramResult result);
  }

  /**
   * One point measured.
   *
   * @param tx transactions per batch
   * @param committedPerSecond median committed tx/s over the timed runs
   * @param abortsPerTx median aborts per transaction
   * @param counters the counters of the timed batch of median aborts
   * @param userAborts transactions of that batch a program ended with abort(code)
   * @param problems the first problem of each run that failed its checks (empty: verified)
   */
  public record Measured(int tx, double committedPerSecond, double abortsPerTx, long[] counters,
      long userAborts, List<String> problems) {

    public boolean ok() {
      return problems.isEmpty();
    }

    public long count(Counter c) {
      return counters[c.ordinal()];
    }

    /** Transactions given up: at the concurrency retry limit or the semantic limit. */
    public long abandoned() {
      return count(Counter.ABANDONED) + count(Counter.ABANDONED_SEMANTIC);
    }

    /** The causes of the aborts per transaction, as {@link #byCause} words them. */
    public String abortsByCause() {
      return byCause(counters, tx);
    }
  }

  /**
   * {@code warmups} untimed runs, then {@code reps} timed ones; before each {@code load}
   * writes the initial contents, after each {@code check} verifies the store. For this
   * package's experiments only: eight positional arguments are no public API.
   */
  static Measured run(Engine engine, TxStore store, Consumer<TxStore> load,
      ProgramBatch batch, RunOptions options, int warmups, int reps, Check check) {
    if (reps < 1) {
      throw new IllegalArgumentException("reps must be at least 1, got " + reps);
    }
    if (warmups < 0) {
      throw new IllegalArgumentException("warmups must be at least 0, got " + warmups);
    }
    int n = batch.txCount();
    List<Double> rates = new ArrayList<>();
    List<Double> abortsPerTx = new ArrayList<>();
    List<long[]> counters = new ArrayList<>();
    List<Long> ends = new ArrayList<>();
    List<String> problems = new ArrayList<>();
    for (int rep = 0; rep < warmups + reps; rep++) {
      load.accept(store);
      ProgramResult r = engine.run(store, batch, options);
      List<String> p = check.problems(store, r);
      if (!p.isEmpty()) {
        problems.add(p.get(0));
      }
      if (rep >= warmups) {
        BatchResult s = r.stats();
        rates.add(s.committedPerSecond());
        abortsPerTx.add(s.aborts() / (double) n);
        counters.add(s.counters());
        ends.add((long) r.outcomeCounts().getOrDefault(Outcome.USER_ABORT, 0));
      }
    }
    int mid = medianIndex(abortsPerTx);
    return new Measured(n, rates.get(medianIndex(rates)), abortsPerTx.get(mid),
        counters.get(mid), ends.get(mid), List.copyOf(problems));
  }

  /**
   * A data-structure batch on a fresh store of {@code algorithm}, checked by {@link DsRun#check}
   * (with {@code options}' history, also the history checker and both replays).
   */
  public static Measured dataStructure(Engine engine, DsBatch b, Algorithm algorithm,
      RunOptions options, int warmups, int reps) {
    b.cfg().checkAlgorithm(algorithm);
    try (TxStore store = engine.createStore(b.layout(), algorithm)) {
      return run(engine, store, s -> StoreContents.write(s, b.initial()), b.batch(), options,
          warmups, reps, (s, r) -> DsRun.check(b, r, StoreContents.read(s)));
    }
  }

  /**
   * The causes of the aborts per transaction (and the obstruction-free STM's stolen locks) of
   * one batch, those that reach 0.001: "validation 0.120, killed 0.010"; "-" when none does.
   */
  public static String byCause(long[] counters, double transactions) {
    StringBuilder out = new StringBuilder();
    for (Counter c : Counter.values()) {
      double perTx = counters[c.ordinal()] / transactions;
      if ((c.isAbort() || c == Counter.LOCKS_STOLEN) && perTx >= 0.0005) {
        out.append(out.length() == 0 ? "" : ", ").append(c.label())
            .append(String.format(Locale.ROOT, " %.3f", perTx));
      }
    }
    return out.length() == 0 ? "-" : out.toString();
  }

  /** The index of the median of {@code v} (the upper one of an even count). */
  private static int medianIndex(List<Double> v) {
    List<Integer> order = new ArrayList<>();
    for (int i = 0; i < v.size(); i++) {
      order.add(i);
    }
    order.sort((x, y) -> Double.compare(v.get(x), v.get(y)));
    return order.get(v.size() / 2);
  }
}
