package io.gstm.core.workload;

import io.gstm.core.batch.Grid;
import io.gstm.core.batch.TxBatch;

/**
 * Checks of one named value against its limits, with one wording for the workload configurations
 * and the workloads' batch checks: {@code <name> must be at least <min>[ <unit>], got <value>} and
 * {@code <name> must be in <min>..<max>[ (<why>)], got <value>}.
 */
public final class ValueChecks {
  /** Most transactions a workload configuration's batch may hold. */
  public static final int MAX_BATCH = Integer.MAX_VALUE / 16;

  private ValueChecks() {}

  /** {@code <name> must be at least <min>, got <value>}. */
  public static void atLeast(String name, long value, long min) {
    atLeast(name, value, min, "");
  }

  /** {@code <name> must be at least <min> <unit>, got <value>}, e.g. "1 word per lock". */
  public static void atLeast(String name, long value, long min, String unit) {
    if (value < min) {
      throw new IllegalArgumentException(name + " must be at least " + min
          + (unit.isEmpty() ? "" : " " + unit) + ", got " + value);
    }
  }

  /** {@code <name> must be in <min>..<max>, got <value>}. */
  public static void inRange(String name, long value, long min, long max) {
    inRange(name, value, min, max, "");
  }

  /** {@code <name> must be in <min>..<max> (<why>), got <value>}. */
  public static void inRange(String name, long value, long min, long max, String why) {
    if (value < min || value > max) {
      throw new IllegalArgumentException(name + " must be in " + min + ".." + max
          + (why.isEmpty() ? "" : " (" + why + ")") + ", got " + value);
    }
  }

  /** {@code <name> must be in 0..1, got <value>} (NaN too). */
  public static void fraction(String name, double value) {
    if (!(value >= 0 && value <= 1)) {
      throw new IllegalArgumentException(name + " must be in 0..1, got " + value);
    }
  }

  /**
   * The grid of a configuration that runs {@code txPerThread} transactions on every thread: the
   * threads {@link TxBatch#checkThreads} allows, at least one transaction per thread, and at most
   * {@link #MAX_BATCH} transactions in all.
   */
  public static void grid(Grid grid) {
    TxBatch.checkThreads(grid.threadsPerBlock(), grid.blocks());
    atLeast("txPerThread", grid.txPerThread(), 1);
    long txCount = (long) grid.threads() * grid.txPerThread();
    if (txCount > MAX_BATCH) {
      throw new IllegalArgumentException("transactions: blocks * threadsPerBlock * txPerThread = "
          + txCount + " exceeds " + MAX_BATCH + " per batch");
    }
  }
}
