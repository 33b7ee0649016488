package io.gstm.core.soak;

import io.gstm.core.batch.Outcome;
import io.gstm.core.batch.RunOptions;
import io.gstm.core.store.Algorithm;
import io.gstm.core.workload.ds.DsBatch;
import io.gstm.core.workload.ds.DsConfig;
import io.gstm.core.workload.ds.DsKind;
import io.gstm.core.workload.ds.DsRun;
import java.util.SplittableRandom;

/**
 * Soak batches of the data structures ({@code io.gstm.core.workload.ds}): any structure, full
 * or low contention, PR-STM, a CSMV variant, GPU-STM or a Cederman STM with any backoff, any
 * grid, and now and then a pool too small for the inserts; checked by {@link DsRun#check}
 * (verifier, and with a history the history checker and both replays).
 */
final class DsSoak {
  private DsSoak() {}

  static SoakCases.Case draw(long seed, SplittableRandom rnd) {
    DsKind kind = DsKind.values()[rnd.nextInt(DsKind.values().length)];
    int roll = rnd.nextInt(6);
    boolean csmv = roll < 2;
    Algorithm alg = csmv ? SoakCases.csmv(rnd) : roll == 2 ? Algorithm.prStm()
        : SoakCases.lockTable(rnd);
    int[] g = SoakCases.grid(rnd, 4096, csmv);
    int n = g[0] * g[1] * g[2];
    boolean full = rnd.nextBoolean();
    DsConfig cfg = (full ? DsConfig.fullContention(kind, n, g[0], g[1], rnd.nextLong())
        : DsConfig.lowContention(kind, n, g[0], g[1], rnd.nextLong())
            .withMaxWork(rnd.nextInt(64))).runnableOn(alg);
    if (rnd.nextInt(4) == 0) {
      cfg = cfg.withPool(smallPool(cfg, rnd)); // some inserts end POOL_EXHAUSTED
    }
    DsConfig c = cfg;
    String label = kind.label() + ", " + (full ? "full" : "low") + " contention, "
        + c.keyRange() + " keys, " + c.initialEntries() + " initial, pool "
        + (c.pool() == 0 ? "as needed" : c.pool()) + ", " + SoakCases.gridText(g) + ", "
        + alg.label();
    return new SoakCases.Case(seed, SoakCases.Family.DATA_STRUCTURES, label, n, engine -> {
      DsBatch b = DsBatch.of(c);
      DsRun run = DsRun.run(engine, alg, b, SoakCases.supported(engine, alg,
          RunOptions.defaults().withHistory(true)));
      long committed = run.result().commits();
      long abandoned = run.result().outcomeCounts().getOrDefault(Outcome.ABANDONED, 0);
      return new SoakCases.Check(n, committed, abandoned, 0, run.problems());
    });
  }

  /** A pool between what the initial contents need and what the batch needs. */
  private static int smallPool(DsConfig cfg, SplittableRandom rnd) {
    int needed = DsBatch.of(cfg).pool();
    int least = needed;
    for (int p = needed; p >= 1; p /= 2) {
      try {
        cfg.withPool(p);
        least = p;
      } catch (IllegalArgumentException e) {
        break;
      }
    }
    return least + rnd.nextInt(Math.max(1, needed - least + 1));
  }
}
