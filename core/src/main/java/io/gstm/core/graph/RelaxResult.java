package io.gstm.core.graph;

import java.util.Objects;
import java.util.function.Supplier;

/**
 * The local fixpoint a {@link GraphRelaxer#relax} call reached: the relaxed value of every vertex
 * (a new array), the vertices whose value is lower than in the input, and counters and timings.
 *
 * <p>On the GPU the changed vertices are listed only when {@link #changedVertices()} is first
 * called (a list of every vertex of a components run is as large as the values): a caller that
 * needs only the values does not pay for it, before or after the relaxer's next call.
 */
public final class RelaxResult {
  private final double[] values;
  private final RelaxStats stats;
  private Supplier<int[]> changedSource;
  private int[] changed;

  /** A result whose changed vertices are known. */
  public RelaxResult(double[] values, int[] changedVertices, RelaxStats stats) {
    this.values = Objects.requireNonNull(values, "values");
    this.changed = Objects.requireNonNull(changedVertices, "changedVertices");
    this.stats = Objects.requireNonNull(stats, "stats");
  }

  /** A result whose changed vertices {@code changedVertices} lists when first asked. */
  RelaxResult(double[] values, Supplier<int[]> changedVertices, RelaxStats stats) {
    this.values = Objects.requireNonNull(values, "values");
    this.changedSource = Objects.requireNonNull(changedVertices, "changedVertices");
    this.stats = Objects.requireNonNull(stats, "stats");
  }

  /** The relaxed value of every vertex. */
  public double[] values() {
    return values;
  }

  /**
   * Ids of the vertices whose value is lower than in the input, ascending (the Spark connector
   * ships the boundary ones to other partitions). The same array on every call.
   */
  public synchronized int[] changedVertices() {
    if (changed == null) {
      changed = changedSource.get();
      changedSource = null;
    }
    return changed;
  }

  /** Counters and timings. */
  public RelaxStats stats() {
    return stats;
  }

  @Override
  public String toString() {
    return "RelaxResult[" + values.length + " values, " + stats + "]";
  }
}
