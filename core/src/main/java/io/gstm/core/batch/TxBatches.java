package io.gstm.core.batch;

import java.util.Arrays;

/** Batch transformations. */
public final class TxBatches {
  private TxBatches() {}

  /**
   * The batch with its transactions stably sorted by descending ordering tag, so that earlier
   * rounds run the transactions others depend on (the "pre-sorting" baseline of the JPDC paper).
   *
   * @param tags ordering tag per type code; must cover every type the batch uses
   */
  public static TxBatch presort(TxBatch batch, int[] tags) {
    int n = batch.txCount();
    int[] types = batch.types();
    for (int t = 0; t < n; t++) {
      if (types[t] < 0 || types[t] >= tags.length) {
        throw new IllegalArgumentException("tags: the ordering tag table covers type codes 0.."
            + (tags.length - 1) + " but transaction " + t + " has type " + types[t]);
      }
    }
    Integer[] order = new Integer[n];
    for (int t = 0; t < n; t++) {
      order[t] = t;
    }
    Arrays.sort(order, (a, b) -> Integer.compare(tags[types[b]], tags[types[a]]));
    int[] sortedTypes = new int[n];
    int[][] cols = new int[batch.columns().length][n];
    for (int i = 0; i < n; i++) {
      int t = order[i];
      sortedTypes[i] = types[t];
      for (int c = 0; c < cols.length; c++) {
        cols[c][i] = batch.columns()[c][t];
      }
    }
    return new TxBatch(batch.workload(), sortedTypes, cols, batch.params().clone(),
        batch.threadsPerBlock(), batch.blocks(), batch.capacity());
  }
}
