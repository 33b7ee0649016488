package io.gstm.spark.state;

import com.esotericsoftware.kryo.DefaultSerializer;
import com.esotericsoftware.kryo.serializers.JavaSerializer;
import java.io.Serializable;
import java.util.Arrays;

/** What travels between the driver and the tasks of a state's jobs. */
final class Exchange {
  private Exchange() {}

  /**
   * Where a partition lives: its executor, the executor's block manager ({@code host:port}),
   * and the incarnation of its store there.
   */
  @DefaultSerializer(JavaSerializer.class)
  record Placement(int partition, String executorId, String host, long incarnation, int rows,
      String engine) implements Serializable {}

  /** Values of keys, per region as raw bits; {@code found[i]} false for a key the state lacks. */
  @DefaultSerializer(JavaSerializer.class)
  record KeyValues(long[] keys, boolean[] found, long[][] bits) implements Serializable {
    static KeyValues empty(int regions) {
      return new KeyValues(new long[0], new boolean[0], new long[regions][0]);
    }

    /**
     * Several partitions' answers as one, keys ascending: each part's keys ascend and each key
     * has one owner, so the parts merge (millions of keys: no object per key).
     */
    static KeyValues merge(java.util.List<KeyValues> parts, int regions) {
      int n = 0;
      for (KeyValues p : parts) {
        n += p.keys.length;
      }
      long[] keys = new long[n];
      boolean[] found = new boolean[n];
      long[][] bits = new long[regions][n];
      int[] next = new int[parts.size()];
      for (int f = 0; f < n; f++) {
        int q = -1;
        for (int i = 0; i < next.length; i++) {
          KeyValues p = parts.get(i);
          if (next[i] < p.keys.length
              && (q < 0 || p.keys[next[i]] < parts.get(q).keys[next[q]])) {
            q = i;
          }
        }
        KeyValues p = parts.get(q);
        int at = next[q]++;
        keys[f] = p.keys[at];
        found[f] = p.found[at];
        for (int r = 0; r < regions; r++) {
          bits[r][f] = p.bits[r][at];
        }
      }
      return new KeyValues(keys, found, bits);
    }
  }

  /** Engine work of one task. */
  @DefaultSerializer(JavaSerializer.class)
  record TaskStats(long transactions, long kernelNanos, long taskNanos, String engine,
      boolean gpu, boolean migrated) implements Serializable {
    static TaskStats none() {
      return new TaskStats(0, 0, 0, null, false, false);
    }
  }

  /**
   * What a partition's phase-1 task gives back: its outcomes and the values the cross-partition
   * transactions asked of it (both kept in the task's output, left out of the {@link #summary()}
   * the driver collects), and where it ran.
   */
  @DefaultSerializer(JavaSerializer.class)
  record LocalResult(int partition, long epoch, OutcomeChunk outcomes, KeyValues requested,
      TaskStats stats, Placement placement, boolean replayed, java.util.Map<String, Long> counts)
      implements Serializable {
    /** What the driver collects: neither the outcomes nor the values asked. */
    LocalSummary summary() {
      return new LocalSummary(partition, epoch, requested.keys.length, stats, placement,
          replayed, counts);
    }
  }

  /** A partition's phase 1 as the driver sees it: {@code asked} keys for the cross phase. */
  @DefaultSerializer(JavaSerializer.class)
  record LocalSummary(int partition, long epoch, int asked, TaskStats stats, Placement placement,
      boolean replayed, java.util.Map<String, Long> counts) implements Serializable {}

  /**
   * What the cross-partition phase computes: outcomes and the new values per owner. It stays on
   * the executor that ran the phase; the owners fetch their writes, the driver a summary.
   */
  @DefaultSerializer(JavaSerializer.class)
  record CrossResult(OutcomeChunk outcomes, KeyValues[] writes, TaskStats stats)
      implements Serializable {
    CrossSummary summary() {
      java.util.Map<String, Long> counts = new java.util.TreeMap<>();
      outcomes.count(counts);
      return new CrossSummary(outcomes.n, counts, stats);
    }
  }

  /** The cross-partition phase as the driver sees it. */
  @DefaultSerializer(JavaSerializer.class)
  record CrossSummary(long transactions, java.util.Map<String, Long> counts, TaskStats stats)
      implements Serializable {}

  /** A partition's rows: keys ascending, values per region as raw bits. */
  @DefaultSerializer(JavaSerializer.class)
  record Rows(int partition, long[] keys, long[][] bits) implements Serializable {}
}
