package io.gstm.bench;

import io.gstm.core.batch.BatchResult;

/** Repeated batches of one point: the fastest kept, verified every time. */
final class Trials {
  private Trials() {}

  /**
   * A batch and its verifier's verdict.
   *
   * @param result what the engine reported
   * @param ok whether the workload's exact verifier accepted the final state
   */
  record Checked(BatchResult result, boolean ok) {}

  /** Loads fresh contents, runs one batch and verifies it. */
  interface Trial {
    Checked run();
  }

  /**
   * One warm-up batch (module loads, JIT) and then {@code reps} timed ones, the fastest kept;
   * with {@code reps} 0 the single cold batch counts. Verified only if every batch was.
   */
  static Checked best(int reps, Trial trial) {
    BatchResult best = null;
    boolean ok = true;
    for (int rep = 0; rep <= reps; rep++) {
      Checked c = trial.run();
      ok &= c.ok();
      if ((rep > 0 || reps == 0)
          && (best == null || c.result().kernelNanos() < best.kernelNanos())) {
        best = c.result();
      }
    }
    return new Checked(best, ok);
  }

  /** Timed batches per point at each scale. */
  static int reps(Scale scale) {
    return scale.pick(0, 1, 3);
  }
}
