package io.gstm.spark.state;

import java.util.Arrays;

/**
 * A partition's key-to-row lookup, from its keys in ascending order (a key's row is its rank),
 * picked by how the keys spread: consecutive keys (a state of ids 0..n-1 in one partition) need
 * only a subtraction; keys within a range at most {@value #DENSE_SPREAD} times their count (ids
 * hash-partitioned over a few partitions) a direct table of that range; others an open-addressing
 * hash map. The lookup runs for every key of every transaction, and a hash map of ten million
 * keys misses the caches on nearly every probe.
 */
final class KeyIndexes {
  static final int DENSE_SPREAD = 8;

  private KeyIndexes() {}

  static BatchRunner.KeyIndex of(long[] sorted) {
    int n = sorted.length;
    if (n == 0) {
      return key -> -1;
    }
    long first = sorted[0];
    long span = sorted[n - 1] - first; // keys are distinct, so span >= n - 1
    if (span == n - 1) {
      return key -> key >= first && key - first < n ? (int) (key - first) : -1;
    }
    if (span >= 0 && span < (long) DENSE_SPREAD * n && span < Integer.MAX_VALUE - 8) {
      int[] table = new int[(int) span + 1];
      Arrays.fill(table, -1);
      for (int i = 0; i < n; i++) {
        table[(int) (sorted[i] - first)] = i;
      }
      return key -> {
        long d = key - first;
        return d >= 0 && d < table.length ? table[(int) d] : -1;
      };
    }
    LongIntMap map = new LongIntMap(n);
    for (int i = 0; i < n; i++) {
      map.put(sorted[i], i);
    }
    return map::get;
  }
}
