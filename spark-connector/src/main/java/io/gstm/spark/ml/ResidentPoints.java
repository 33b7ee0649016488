package io.gstm.spark.ml;

import io.gstm.spark.exec.ThisExecutor;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * The points of a TxKMeans fit that stay on the executor that read them, by fit run and input
 * partition: the tasks that read the input leave their blocks here instead of in Spark's cache,
 * and the fit's point-set tasks, pinned to this executor, take them from here. Nothing of the
 * points crosses the network or is serialized; an executor lost takes its points with it, and
 * the fit starts over from its input ({@link PointsLostException}). At most {@value #MAX_RUNS}
 * runs are held (a fit that failed before releasing its own goes first).
 */
final class ResidentPoints {
  static final int MAX_RUNS = 4;

  private static final LinkedHashMap<Long, TreeMap<Integer, TxKMeans.Block>> RUNS =
      new LinkedHashMap<>(8, 0.75f, true);

  private ResidentPoints() {}

  /** Keeps input partition {@code partition}'s block of fit {@code run} on this executor. */
  static void add(long run, int partition, TxKMeans.Block block) {
    synchronized (RUNS) {
      RUNS.computeIfAbsent(run, r -> new TreeMap<>()).put(partition, block);
      Iterator<Map.Entry<Long, TreeMap<Integer, TxKMeans.Block>>> it = RUNS.entrySet().iterator();
      while (RUNS.size() > MAX_RUNS && it.hasNext()) {
        it.next();
        it.remove();
      }
    }
  }

  /**
   * Point set {@code set} of {@code sets} on this executor: its blocks of fit {@code run} whose
   * input partitions are {@code partitions} (every {@code sets}-th from {@code set}, in partition
   * order), as they are: the engine copies each to its place, never into one merged array.
   *
   * @throws PointsLostException if a block is not here (its executor was lost, or this task runs
   *     on another executor than the one it was pinned to)
   */
  static List<TxKMeans.Block> take(long run, int[] partitions, int set, int sets) {
    List<TxKMeans.Block> mine = new ArrayList<>();
    synchronized (RUNS) {
      TreeMap<Integer, TxKMeans.Block> blocks = RUNS.get(run);
      for (int i = set; i < partitions.length; i += sets) {
        TxKMeans.Block b = blocks == null ? null : blocks.get(partitions[i]);
        if (b == null) {
          throw new PointsLostException("the points of input partition " + partitions[i]
              + " are not on executor " + ThisExecutor.id() + " (lost with their executor, or "
              + "this task did not run where they were read)");
        }
        mine.add(b);
      }
    }
    return mine;
  }

  /** Drops fit {@code run}'s points held here. */
  static void release(long run) {
    synchronized (RUNS) {
      RUNS.remove(run);
    }
  }

  /** Fit runs with points held here. */
  static int runs() {
    synchronized (RUNS) {
      return RUNS.size();
    }
  }

  /**
   * Points a fit needs are gone from the executor that held them: the fit starts over from its
   * input, as after a lost checkpoint block.
   */
  static final class PointsLostException extends IllegalStateException {
    private static final long serialVersionUID = 1L;

    PointsLostException(String message) {
      super("gstm TxKMeans: " + message);
    }

    PointsLostException(String message, Throwable cause) {
      super("gstm TxKMeans: " + message, cause);
    }
  }
}
