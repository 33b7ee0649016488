package io.gstm.spark.state;

import java.io.Serializable;
import java.util.Arrays;
import java.util.stream.IntStream;

/**
 * An epoch's transaction ids as its outcomes keep them: as runs of consecutive ids where they
 * come so (ids from {@code range} or a monotonically increasing id: a run or a few per input
 * partition), else as the routed array itself. Ten million ids were an array of 80 MB kept with
 * every epoch's outcomes; as runs they are a few hundred bytes, and the routed array goes back
 * to the executor's pool ({@link TxChunk#recycle}).
 */
final class TxIds implements Serializable {
  private static final long serialVersionUID = 1L;
  /** Rows per unit of the parallel passes. */
  private static final int SLICE = 1 << 16;
  /** Runs at most one per this many rows, or the array is kept. */
  private static final int ROWS_PER_RUN = 16;

  /** The ids, when not kept as runs. */
  private final long[] ids;
  /** Each run's first row, ascending (the first 0). */
  private final int[] starts;
  /** Each run's first id. */
  private final long[] firsts;

  private TxIds(long[] ids, int[] starts, long[] firsts) {
    this.ids = ids;
    this.starts = starts;
    this.firsts = firsts;
  }

  /**
   * The first {@code n} of {@code ids}: as runs when there are few, else that array (a copy of
   * its first n when it is longer).
   */
  static TxIds of(long[] ids, int n) {
    int slices = (n + SLICE - 1) / SLICE;
    int[] breaks = new int[slices + 1];
    IntStream each = IntStream.range(0, slices);
    // Counted without a branch per row (a row begins a run when its id is not the last one's + 1).
    (slices > 1 ? each.parallel() : each).forEach(k -> {
      int c = 0;
      for (int i = Math.max(1, k * SLICE), to = Math.min(n, (k + 1) * SLICE); i < to; i++) {
        long gap = ids[i] - ids[i - 1] - 1;
        c += (int) ((gap | -gap) >>> 63);
      }
      breaks[k + 1] = c;
    });
    Arrays.parallelPrefix(breaks, Integer::sum);
    int runs = n == 0 ? 0 : 1 + breaks[slices];
    if (runs > Math.max(1, n / ROWS_PER_RUN)) {
      return new TxIds(ids.length == n ? ids : Arrays.copyOf(ids, n), null, null);
    }
    int[] starts = new int[runs];
    long[] firsts = new long[runs];
    if (runs > 0) {
      firsts[0] = ids[0];
    }
    IntStream listed = IntStream.range(0, slices).filter(k -> breaks[k + 1] > breaks[k]);
    (slices > 1 ? listed.parallel() : listed).forEach(k -> {
      int at = 1 + breaks[k];
      for (int i = Math.max(1, k * SLICE), to = Math.min(n, (k + 1) * SLICE); i < to; i++) {
        if (ids[i] != ids[i - 1] + 1) {
          starts[at] = i;
          firsts[at++] = ids[i];
        }
      }
    });
    return new TxIds(null, starts, firsts);
  }

  /** Whether these are {@code array} itself (the caller must not reuse it). */
  boolean holds(long[] array) {
    return ids == array;
  }

  /** Row {@code i}'s id. */
  long get(int i) {
    if (ids != null) {
      return ids[i];
    }
    int r = Arrays.binarySearch(starts, i);
    r = r >= 0 ? r : -r - 2;
    return firsts[r] + (i - starts[r]);
  }
}
