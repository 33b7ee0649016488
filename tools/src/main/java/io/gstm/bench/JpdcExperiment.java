package io.gstm.bench;

import io.gstm.core.batch.Counter;
import io.gstm.core.batch.RunOptions;
import io.gstm.core.batch.SemanticPolicy;
import io.gstm.core.batch.TxBatch;
import io.gstm.core.batch.TxBatches;
import io.gstm.core.engine.Engine;
import io.gstm.core.program.ProgramBatch;
import io.gstm.core.store.Algorithm;
import io.gstm.core.store.TxStore;
import io.gstm.core.workload.bank.SemanticBankConfig;
import io.gstm.core.workload.ds.DsBatch;
import io.gstm.core.workload.ds.DsConfig;
import io.gstm.core.workload.ds.DsKind;
import io.gstm.core.workload.vacation.VacationConfig;
import java.util.ArrayList;
import java.util.List;

/**
 * The JPDC paper's comparison of PR-STM with GPU-STM (figures 7, 8, 10 and 11): bank, vacation
 * (both 100% semantic) and the skip list, committed tx/s over the thread count (960..9600) or
 * the lock coverage (1..64), each with and without pre-sorting. Every workload runs as
 * transaction programs, the only form GPU-STM runs on the GPU, so both algorithms run the same
 * kernels but for the STM. PR-STM keeps its semantic contention manager (postponement); GPU-STM
 * retries in place with the paper's retry limit of 100 semantic conflicts.
 */
record JpdcExperiment(Axis axis) implements Experiment {

  static final Axis THREADS = Sweep.THREADS.axis("jpdc");
  static final Axis COVERAGE = Sweep.COVERAGE.axis("jpdc");

  /** GPU-STM's retry limit in the paper's comparison (section 4.1). */
  static final int GPU_STM_RETRY_LIMIT = 100;

  private static final List<String> WORKLOADS = List.of("bank", "vacation", "skiplist");

  @Override
  public About about() {
    return new About(axis.experiment(),
        "PR-STM (postponement) vs GPU-STM (retry in place, limit " + GPU_STM_RETRY_LIMIT
            + "), bank, vacation (100% semantic) and skip list as transaction programs, over the "
            + axis.words() + ", with and without pre-sorting (skip list: inserts first; "
            + "it has no semantic conflicts) (JPDC paper, figures "
            + (axis.sweep() == Sweep.THREADS ? "7 and 10" : "8 and 11") + ").",
        List.of("workload", "algorithm", "presorted", "threads", "lock_coverage", "tx",
            "committed_tx_per_s", "aborts_per_tx", "aborts_by_cause", "semantic_conflicts",
            "abandoned", "verified"),
        Plot.logLines("PR-STM vs GPU-STM (programs) over the " + axis.words(), axis.column(),
            "committed_tx_per_s", "workload", "algorithm", "presorted").withLogY());
  }

  /**
   * Sizes of one scale.
   *
   * @param threads the thread counts of the thread sweep
   * @param coverages the lock coverages of the coverage sweep
   * @param coverageThreads threads of the coverage sweep, bank and vacation (the paper's 6720)
   * @param skipCoverageThreads threads of the coverage sweep, skip list (the paper's 1536)
   * @param skipTxPerThread transactions per thread of the skip list: its transactions are long
   *     (a search down 5 levels) and commit at thousands per second, so with 32 per thread the
   *     paper-size sweep did not finish in 330 s on the H100; 2 per thread keeps a point to seconds
   */
  private record Sizes(int accounts, int customers, int roomTypes, int roomsPerType,
      int txPerThread, List<Integer> threads, List<Integer> coverages, int coverageThreads,
      int skipCoverageThreads, int skipTxPerThread) {}

  private static Sizes sizes(Scale scale) {
    return scale.pick(
        new Sizes(1024, 1024, 64, 32, 8, List.of(32, 64), List.of(1, 4), 64, 64, 8),
        new Sizes(65_536, 16_384, 256, 64, 64, List.of(64, 128, 256, 512),
            List.of(1, 4, 16, 64), 256, 256, 64),
        new Sizes(2_621_440, VacationConfig.PAPER_CUSTOMERS, VacationConfig.PAPER_ROOM_TYPES,
            VacationConfig.PAPER_ROOMS_PER_TYPE, 32, List.of(960, 1920, 3840, 6720, 9600),
            List.of(1, 2, 4, 8, 16, 32, 64), 6720, 1536, 2));
  }

  @Override
  public List<Step> steps(Engine engine, Scale scale) {
    Sizes sz = sizes(scale);
    int warmups = scale.pick(0, 1, 1);
    int reps = Math.max(1, Trials.reps(scale));
    List<Step> steps = new ArrayList<>();
    for (String workload : WORKLOADS) {
      boolean skip = workload.equals("skiplist");
      for (int v : axis.sweep() == Sweep.THREADS ? sz.threads() : sz.coverages()) {
        int threads = axis.sweep() == Sweep.THREADS ? v
            : skip ? sz.skipCoverageThreads() : sz.coverageThreads();
        int coverage = axis.sweep() == Sweep.COVERAGE ? v : 1;
        // One step per point: its batches are drawn once and reused by all four rows.
        steps.add(out -> {
          if (skip) {
            skipList(engine, sz, threads, coverage, warmups, reps, out);
          } else {
            semantic(engine, workload, sz, threads, coverage, warmups, reps, out);
          }
        });
      }
    }
    return steps;
  }

  /** PR-STM with its defaults (postponement), GPU-STM retrying in place up to the limit. */
  private static RunOptions options(Algorithm a) {
    return a.isGpuStm() ? RunOptions.defaults().withPolicy(SemanticPolicy.RETRY_IN_PLACE)
        .withSemanticLimit(GPU_STM_RETRY_LIMIT) : RunOptions.defaults();
  }

  private static final List<Algorithm> ALGORITHMS = List.of(Algorithm.prStm(),
      Algorithm.gpuStm());

  private static void semantic(Engine engine, String workload, Sizes sz, int threads,
      int coverage, int warmups, int reps, ResultTable out) {
    int tpb = SemanticExperiment.blockSize(threads);
    SemanticScenario sc = workload.equals("bank")
        ? SemanticScenario.bank(SemanticBankConfig.builder().accounts(sz.accounts()).k(2)
            .semanticRatio(1).lockCoverage(coverage).grid(tpb, threads / tpb)
            .txPerThread(sz.txPerThread()).seed(7).build())
        : SemanticScenario.vacation(VacationConfig.builder().customers(sz.customers())
            .roomTypes(sz.roomTypes()).roomsPerType(sz.roomsPerType()).semanticRatio(1)
            .lockCoverage(coverage).grid(tpb, threads / tpb).txPerThread(sz.txPerThread()).seed(7)
            .build());
    for (boolean presort : new boolean[] {false, true}) {
      TxBatch batch = presort ? TxBatches.presort(sc.batch(), sc.tags()) : sc.batch();
      ProgramBatch programs = sc.programs(batch);
      for (Algorithm a : ALGORITHMS) {
        ProgramTrials.Measured m;
        try (TxStore store = engine.createStore(sc.layout(), a)) {
          m = ProgramTrials.run(engine, store, sc::load, programs, options(a), warmups, reps,
              (s, r) -> sc.verify(s, batch, r.stats()) ? List.of()
                  : List.of(workload + " verifier failed"));
        }
        row(out, workload, a, presort, threads, coverage, m);
      }
    }
  }

  /** The paper's skip list: 5,000 of 10,000 keys, 5 levels, a third each operation. */
  private static void skipList(Engine engine, Sizes sz, int threads, int coverage, int warmups,
      int reps, ResultTable out) {
    int tpb = SemanticExperiment.blockSize(threads);
    // Back to back (no local work), as the paper's threads run their transactions.
    DsBatch plain = DsBatch.of(DsConfig.lowContention(DsKind.SKIPLIST,
        threads * sz.skipTxPerThread(), tpb, threads / tpb, 7).withMaxWork(0))
        .withLockCoverage(coverage);
    for (boolean presort : new boolean[] {false, true}) {
      DsBatch b = presort ? plain.presorted() : plain;
      for (Algorithm a : ALGORITHMS) {
        row(out, "skiplist", a, presort, threads, coverage,
            ProgramTrials.dataStructure(engine, b, a, options(a), warmups, reps));
      }
    }
  }

  private static void row(ResultTable out, String workload, Algorithm a, boolean presort,
      int threads, int coverage, ProgramTrials.Measured m) {
    out.add(workload, a.label(), presort, threads, coverage, m.tx(), m.committedPerSecond(),
        m.abortsPerTx(), m.abortsByCause(), m.count(Counter.SEMANTIC_CONFLICTS), m.abandoned(),
        m.ok());
  }
}
