package io.gstm.core.history;

import io.gstm.core.batch.Outcome;

/** Turns the flat history arrays both engines fill into a {@link History} of committed txs. */
public final class HistoryFlattener {
  private HistoryFlattener() {}

  /**
   * @param counts per transaction: reads in the low 16 bits, writes in the high 16
   * @param capacity entries reserved per transaction in {@code reads} and {@code writes}
   */
  public static History committed(int[] initialVersions, byte[] outcomes, int[] counts,
      long[] reads, long[] writes, int capacity) {
    int committed = 0;
    for (byte o : outcomes) {
      if (o == Outcome.COMMITTED.ordinal()) {
        committed++;
      }
    }
    int[] txIds = new int[committed];
    int[] readCounts = new int[committed];
    int[] writeCounts = new int[committed];
    long[] r = new long[committed * capacity];
    long[] w = new long[committed * capacity];
    int i = 0;
    for (int t = 0; t < outcomes.length; t++) {
      if (outcomes[t] != Outcome.COMMITTED.ordinal()) {
        continue;
      }
      txIds[i] = t;
      readCounts[i] = counts[t] & 0xffff;
      writeCounts[i] = counts[t] >>> 16;
      System.arraycopy(reads, t * capacity, r, i * capacity, capacity);
      System.arraycopy(writes, t * capacity, w, i * capacity, capacity);
      i++;
    }
    return History.fromFlat(initialVersions, txIds, readCounts, r, writeCounts, w, capacity);
  }
}
