package io.gstm.bench;

import io.gstm.core.batch.RunOptions;
import io.gstm.core.batch.TxBatch;
import io.gstm.core.engine.Engine;
import io.gstm.core.store.TxStore;
import io.gstm.core.workload.bank.BankConfig;
import io.gstm.core.workload.bank.BankVerifier;
import java.util.ArrayList;
import java.util.List;

/**
 * The PR-STM paper's bank figures: committed transfers per second over the transaction size,
 * the lock coverage or the thread count, at 0% and 20% read-only, each point beside the random
 * read+CAS bound measured in the same run. Sizes stop at the largest set capacity (16 accounts):
 * the paper's 32..128 need larger sets than the kernels are built with.
 */
record PrStmBankExperiment(Axis axis) implements Experiment {

  // Each sweep moves one parameter; the others stay at the paper's defaults.
  static final Axis SIZE = Sweep.SIZE.axis("prstm");
  static final Axis COVERAGE = Sweep.COVERAGE.axis("prstm", "lock coverage (accounts per lock)");
  static final Axis THREADS = Sweep.THREADS.axis("prstm");

  private static final double[] READ_ONLY = {0, 0.2};

  @Override
  public About about() {
    String title = "PR-STM bank vs " + axis.words();
    return new About(axis.experiment(),
        "PR-STM bank: committed tx/s over the " + axis.words()
            + ", 0% and 20% read-only, beside the read+CAS bound (PR-STM paper).",
        List.of("read_only", "k", "lock_coverage", "threads", "tx", "committed_tx_per_s",
            "abort_rate", "cas_bound_per_s", "ratio_to_bound", "verified"),
        axis.sweep() == Sweep.SIZE
            ? Plot.lines(title, axis.column(), "committed_tx_per_s", "read_only")
            : Plot.logLines(title, axis.column(), "committed_tx_per_s", "read_only"));
  }

  @Override
  public List<Step> steps(Engine engine, Scale scale) {
    int accounts = scale.pick(1024, 65_536, 2_621_440);
    int threadsPerBlock = scale.pick(32, 64, 256);
    int blocks = scale.pick(2, 4, 2112);
    int txTarget = scale.pick(2048, 65_536, 8_388_608);
    int reps = Trials.reps(scale);
    List<Integer> values = switch (axis.sweep()) {
      case SIZE -> scale.pick(List.of(2, 4), List.of(2, 4, 8, 16), List.of(2, 4, 8, 16));
      case COVERAGE -> scale.pick(List.of(1, 4), List.of(1, 4, 16, 64),
          List.of(1, 2, 4, 8, 16, 32, 64));
      case THREADS -> scale.pick(List.of(1, 2), List.of(1, 2, 4, 8),
          List.of(132, 264, 528, 1056, 2112, 4224));
      case RATIO -> throw new IllegalStateException("prstm: no ratio sweep");
    };
    double[] bound = new double[1];
    List<Step> steps = new ArrayList<>();
    steps.add(out -> bound[0] = engine.probeLimits(accounts).readCasPerSecond());
    for (double ro : READ_ONLY) {
      for (int v : values) {
        int k = axis.sweep() == Sweep.SIZE ? v : 2;
        int coverage = axis.sweep() == Sweep.COVERAGE ? v : 1;
        int b = axis.sweep() == Sweep.THREADS ? v : blocks;
        int perThread = Math.max(1, txTarget / (b * threadsPerBlock));
        BankConfig cfg = BankConfig.builder().accounts(accounts).k(k).readOnly(ro)
            .lockCoverage(coverage).grid(threadsPerBlock, b).txPerThread(perThread).seed(42 + k)
            .build();
        steps.add(out -> point(engine, cfg, reps, bound[0], out));
      }
    }
    return steps;
  }

  private static void point(Engine engine, BankConfig cfg, int reps, double bound,
      ResultTable out) {
    TxBatch batch = cfg.batch();
    int[] initial = cfg.initialBalances();
    Trials.Checked best;
    try (TxStore store = engine.createStore(cfg.layout())) {
      best = Trials.best(reps, () -> {
        store.writeInt32(0, initial);
        var r = engine.run(store, batch, RunOptions.defaults());
        return new Trials.Checked(r,
            BankVerifier.verify(initial, batch, r, store.readInt32(0)).ok());
      });
    }
    double rate = best.result().committedPerSecond();
    out.add(cfg.readOnlyFraction(), cfg.k(), cfg.lockCoverage(), cfg.threads(), cfg.txCount(),
        rate, best.result().abortRate(), bound, rate / bound, best.ok());
  }
}
