package io.gstm.spark.state;

import java.io.Serializable;
import java.util.Arrays;

/** What travels between the driver and the tasks of a state's jobs. */
final class Exchange {
  private Exchange() {}

  /**
   * Where a partition lives: its executor, the executor's block manager ({@code host:port}),
   * and the incarnation of its store there.
   */
  record Placement(int partition, String executorId, String host, long incarnation, int rows,
      String engine) implements Serializable {}

  /** Values of keys, per region as raw bits; {@code found[i]} false for a key the state lacks. */
  record KeyValues(long[] keys, boolean[] found, long[][] bits) implements Serializable {
    static KeyValues empty(int regions) {
      return new KeyValues(new long[0], new boolean[0], new long[regions][0]);
    }

    /** Several partitions' answers as one, keys ascending (each key has one owner). */
    static KeyValues merge(java.util.List<KeyValues> parts, int regions) {
      int n = 0;
      for (KeyValues p : parts) {
        n += p.keys.length;
      }
      long[][] order = new long[n][];
      int f = 0;
      for (int q = 0; q < parts.size(); q++) {
        for (int i = 0; i < parts.get(q).keys.length; i++) {
          order[f++] = new long[] {parts.get(q).keys[i], q, i};
        }
      }
      Arrays.sort(order, (a, b) -> Long.compare(a[0], b[0]));
      long[] keys = new long[n];
      boolean[] found = new boolean[n];
      long[][] bits = new long[regions][n];
      for (int i = 0; i < n; i++) {
        KeyValues p = parts.get((int) order[i][1]);
        int at = (int) order[i][2];
        keys[i] = order[i][0];
        found[i] = p.found[at];
        for (int r = 0; r < regions; r++) {
          bits[r][i] = p.bits[r][at];
        }
      }
      return new KeyValues(keys, found, bits);
    }
  }

  /** Engine work of one task. */
  record TaskStats(long transactions, long kernelNanos, long taskNanos, String engine,
      boolean gpu, boolean migrated) implements Serializable {
    static TaskStats none() {
      return new TaskStats(0, 0, 0, null, false, false);
    }
  }

  /**
   * What a partition's phase-1 task gives back: its outcomes (kept in the task's output, left
   * out of the {@link #summary()} the driver collects), the values the cross-partition
   * transactions asked of it, and where it ran.
   */
  record LocalResult(int partition, long epoch, OutcomeChunk outcomes, KeyValues requested,
      TaskStats stats, Placement placement, boolean replayed, java.util.Map<String, Long> counts)
      implements Serializable {
    LocalResult summary() {
      return new LocalResult(partition, epoch, null, requested, stats, placement, replayed,
          counts);
    }
  }

  /** What the cross-partition phase gives back: outcomes and the new values per owner. */
  record CrossResult(OutcomeChunk outcomes, KeyValues[] writes, TaskStats stats)
      implements Serializable {}

  /** A partition's rows: keys ascending, values per region as raw bits. */
  record Rows(int partition, long[] keys, long[][] bits) implements Serializable {}
}
