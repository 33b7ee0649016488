package io.gstm.bench;

import io.gstm.core.batch.RunOptions;
import io.gstm.core.engine.Engine;
import io.gstm.core.store.Algorithm;
import io.gstm.core.workload.ds.DsBatch;
import io.gstm.core.workload.ds.DsConfig;
import io.gstm.core.workload.ds.DsKind;
import java.util.ArrayList;
import java.util.List;

/**
 * Cederman, Tsigas and Chaudhry's benchmarks: the queue, hash map, tree and skip list (as
 * transaction programs) on all five STMs at full and low contention, measured as
 * {@code gstm bench-ds} measures them ({@link ProgramTrials}), beside the random read+CAS bound
 * of the same run. The skip list runs on 4 levels on CSMV (its updates write at most 8 words).
 */
final class CedermanDsExperiment implements Experiment {

  private static final List<Algorithm> ALGORITHMS = List.of(Algorithm.prStm(),
      Algorithm.csmv(Algorithm.DEFAULT_VERSIONS), Algorithm.gpuStm(), Algorithm.blocking(),
      Algorithm.obstructionFree());

  @Override
  public About about() {
    return new About("cederman-ds",
        "Queue, hash map, tree and skip list on prstm, csmv, gpu-stm, blocking and "
            + "obstruction-free at full and low contention: committed tx/s, aborts per tx in all "
            + "and by cause, beside the read+CAS bound (Cederman et al.; as bench-ds).",
        List.of("structure", "contention", "levels", "algorithm", "tx", "committed_tx_per_s",
            "aborts_per_tx", "aborts_by_cause", "walk_pool_ends", "cas_bound_per_s",
            "ratio_to_bound", "verified"),
        Plot.bars("Cederman's data structures on five STMs", "structure",
            "committed_tx_per_s", "contention", "algorithm"));
  }

  /** Transactions per batch and the grid that runs them. */
  private record Grid(int tx, int threadsPerBlock, int blocks) {}

  @Override
  public List<Step> steps(Engine engine, Scale scale) {
    // Paper: the paper's 60 thread blocks, one warp each (CSMV's least block; the paper ran one
    // transaction per block). bench-ds --threads-per-block 256 --blocks 64 runs 16,384 threads.
    Grid g = scale.pick(new Grid(1024, 32, 4), new Grid(65_536, 64, 16),
        new Grid(61_440, 32, 60));
    int warmups = scale.pick(0, 1, 1);
    int reps = Math.max(1, Trials.reps(scale));
    double[] bound = new double[1];
    List<Step> steps = new ArrayList<>();
    steps.add(out -> bound[0] = engine.probeLimits(1 << 16).readCasPerSecond());
    for (DsKind kind : DsKind.values()) {
      for (String contention : List.of("full", "low")) {
        DsConfig base = contention.equals("full")
            ? DsConfig.fullContention(kind, g.tx(), g.threadsPerBlock(), g.blocks(), 42)
            : DsConfig.lowContention(kind, g.tx(), g.threadsPerBlock(), g.blocks(), 42);
        // One step per structure and contention: its batch is drawn once for all five.
        steps.add(out -> {
          DsBatch drawn = DsBatch.of(base);
          for (Algorithm a : ALGORITHMS) {
            DsConfig cfg = base.runnableOn(a);
            ProgramTrials.Measured m = ProgramTrials.dataStructure(engine,
                cfg.equals(base) ? drawn : DsBatch.of(cfg), a, RunOptions.defaults(), warmups,
                reps);
            out.add(kind.label(), contention, cfg.levels(), a.label(), m.tx(),
                m.committedPerSecond(), m.abortsPerTx(), m.abortsByCause(), m.userAborts(),
                bound[0], m.committedPerSecond() / bound[0], m.ok());
          }
        });
      }
    }
    return steps;
  }
}
