package io.gstm.bench;

import io.gstm.core.batch.BatchResult;
import io.gstm.core.batch.Counter;
import io.gstm.core.batch.RunOptions;
import io.gstm.core.batch.SemanticPolicy;
import io.gstm.core.batch.TxBatch;
import io.gstm.core.batch.TxBatches;
import io.gstm.core.engine.Engine;
import io.gstm.core.store.TxStore;
import io.gstm.core.workload.bank.SemanticBankConfig;
import io.gstm.core.workload.vacation.VacationConfig;
import java.util.ArrayList;
import java.util.List;

/**
 * The JPDC paper's semantic contention manager figures, bank and vacation: committed tx/s of
 * postponement and retry-in-place over the semantic ratio (with and without pre-sorting by type
 * tags), the thread count or the lock coverage (both at 100% semantic, not pre-sorted).
 */
record SemanticExperiment(Axis axis) implements Experiment {

  static final Axis RATIO = Sweep.RATIO.axis("semantic");
  static final Axis THREADS = Sweep.THREADS.axis("semantic");
  static final Axis COVERAGE = Sweep.COVERAGE.axis("semantic");

  private static final List<String> WORKLOADS = List.of("bank", "vacation");

  @Override
  public About about() {
    String title = "Semantic CM vs " + axis.words();
    return new About(axis.experiment(),
        "Semantic contention manager, bank and vacation: postpone vs retry-in-place over the "
            + axis.words() + (axis.sweep() == Sweep.RATIO ? ", with and without pre-sorting" : "")
            + " (JPDC paper).",
        List.of("workload", "policy", "presorted", "semantic_ratio", "threads", "lock_coverage",
            "tx", "committed_tx_per_s", "abandoned_semantic", "semantic_conflicts", "abort_rate",
            "verified"),
        axis.sweep() == Sweep.RATIO
            ? Plot.lines(title, axis.column(), "committed_tx_per_s", "workload", "policy",
                "presorted")
            : Plot.logLines(title, axis.column(), "committed_tx_per_s", "workload", "policy"));
  }

  /** Sizes of one scale. */
  private record Sizes(int accounts, int customers, int roomTypes, int roomsPerType,
      int threads, int txPerThread) {}

  @Override
  public List<Step> steps(Engine engine, Scale scale) {
    Sizes sz = scale.pick(new Sizes(1024, 1024, 64, 32, 64, 8),
        new Sizes(65_536, 16_384, 256, 64, 256, 16),
        new Sizes(2_621_440, VacationConfig.PAPER_CUSTOMERS, VacationConfig.PAPER_ROOM_TYPES,
            VacationConfig.PAPER_ROOMS_PER_TYPE, 6720, 32));
    int reps = Trials.reps(scale);
    List<Step> steps = new ArrayList<>();
    for (String workload : WORKLOADS) {
      switch (axis.sweep()) {
        case RATIO -> {
          for (double ratio : scale.pick(List.of(0.0, 1.0), List.of(0.0, 0.5, 1.0),
              List.of(0.0, 0.25, 0.5, 0.75, 1.0))) {
            for (boolean presort : new boolean[] {false, true}) {
              for (SemanticPolicy p : SemanticPolicy.values()) {
                steps.add(out -> point(engine, workload, sz, ratio, sz.threads(), 1, presort, p,
                    reps, out));
              }
            }
          }
        }
        case THREADS -> {
          for (int n : scale.pick(List.of(32, 64), List.of(64, 128, 256, 512),
              List.of(960, 1920, 3840, 6720, 9600))) {
            for (SemanticPolicy p : SemanticPolicy.values()) {
              steps.add(out -> point(engine, workload, sz, 1, n, 1, false, p, reps, out));
            }
          }
        }
        case COVERAGE -> {
          for (int c : scale.pick(List.of(1, 4), List.of(1, 4, 16), List.of(1, 4, 16, 64))) {
            for (SemanticPolicy p : SemanticPolicy.values()) {
              steps.add(out -> point(engine, workload, sz, 1, sz.threads(), c, false, p, reps,
                  out));
            }
          }
        }
      }
    }
    return steps;
  }

  private static void point(Engine engine, String workload, Sizes sz, double ratio, int threads,
      int coverage, boolean presort, SemanticPolicy policy, int reps, ResultTable out) {
    int tpb = blockSize(threads);
    SemanticScenario sc = workload.equals("bank")
        ? SemanticScenario.bank(SemanticBankConfig.builder().accounts(sz.accounts()).k(2)
            .semanticRatio(ratio).lockCoverage(coverage).grid(tpb, threads / tpb)
            .txPerThread(sz.txPerThread()).seed(7).build())
        : SemanticScenario.vacation(VacationConfig.builder().customers(sz.customers())
            .roomTypes(sz.roomTypes()).roomsPerType(sz.roomsPerType()).semanticRatio(ratio)
            .lockCoverage(coverage).grid(tpb, threads / tpb).txPerThread(sz.txPerThread()).seed(7)
            .build());
    TxBatch batch = presort ? TxBatches.presort(sc.batch(), sc.tags()) : sc.batch();
    RunOptions options = RunOptions.defaults().withPolicy(policy);
    Trials.Checked best;
    try (TxStore store = engine.createStore(sc.layout())) {
      best = Trials.best(reps, () -> {
        sc.load(store);
        BatchResult r = engine.run(store, batch, options);
        return new Trials.Checked(r, sc.verify(store, batch, r));
      });
    }
    BatchResult r = best.result();
    out.add(workload, policy.cliName(), presort, ratio, threads, coverage, batch.txCount(),
        r.committedPerSecond(), r.count(Counter.ABANDONED_SEMANTIC),
        r.count(Counter.SEMANTIC_CONFLICTS), r.abortRate(), best.ok());
  }

  /** The largest block of whole warps, at most 256 threads, that divides the thread count. */
  static int blockSize(int threads) {
    for (int tpb = 256; tpb >= 32; tpb -= 32) {
      if (threads % tpb == 0) {
        return tpb;
      }
    }
    throw new IllegalArgumentException("threads must be a multiple of 32 (whole warps), got "
        + threads);
  }
}
