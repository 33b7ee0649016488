package io.gstm.core.batch;

import java.util.Arrays;
import java.util.Objects;

/**
 * A global transaction table in struct-of-arrays form, and how it maps onto threads.
 *
 * <p>Transaction {@code t} has a type code {@code types[t]} and argument {@code c} at
 * {@code columns[c][t]}; what the columns mean is up to the {@link #workload()}. Thread {@code i}
 * of the {@code blocks * threadsPerBlock} threads runs transactions {@code i, i + T, i + 2T, ...}
 * with priority {@code i} (lower wins).
 *
 * @param workload workload name, e.g. {@code "bank"}
 * @param types one type code per transaction
 * @param columns argument columns, each as long as {@code types}
 * @param params workload scalars (for the bank: k and the region index)
 * @param threadsPerBlock threads per block, 1..{@value #MAX_THREADS_PER_BLOCK}
 * @param blocks blocks, at least 1
 * @param capacity read/write/lock set entries per transaction
 */
public record TxBatch(
    String workload,
    int[] types,
    int[][] columns,
    int[] params,
    int threadsPerBlock,
    int blocks,
    int capacity) {

  /** The kernels' {@code __launch_bounds__}. */
  public static final int MAX_THREADS_PER_BLOCK = 256;
  /**
   * The lock word's 30-bit owner field holds ordinary owners 2^29 + thread and, below them, the
   * urgent transactions' tickets (docs/design.md, "Progress"): threads 0 .. 2^29 - 1.
   */
  public static final long MAX_THREADS = 1L << 29;
  /** Set capacities the kernels are built for. */
  public static final int[] CAPACITIES = {2, 4, 8, 16};

  public TxBatch {
    Objects.requireNonNull(workload, "workload");
    Objects.requireNonNull(types, "types");
    Objects.requireNonNull(columns, "columns");
    Objects.requireNonNull(params, "params");
    if (types.length < 1) {
      throw new IllegalArgumentException("types: a batch needs at least 1 transaction");
    }
    for (int c = 0; c < columns.length; c++) {
      if (columns[c].length != types.length) {
        throw new IllegalArgumentException(
            "columns[" + c + "] has " + columns[c].length + " entries, expected one per "
                + "transaction (" + types.length + ")");
      }
    }
    checkThreads(threadsPerBlock, blocks);
    if (Arrays.stream(CAPACITIES).noneMatch(c -> c == capacity)) {
      throw new IllegalArgumentException(
          "capacity must be one of " + Arrays.toString(CAPACITIES) + ", got " + capacity);
    }
  }

  /**
   * Throws an IllegalArgumentException naming the parameter and the limit unless the grid is
   * 1..{@value #MAX_THREADS_PER_BLOCK} threads per block, at least 1 block, and at most
   * 2^29 threads in all (what the lock word's owner field can name beside urgent tickets).
   */
  public static void checkThreads(int threadsPerBlock, int blocks) {
    if (threadsPerBlock < 1 || threadsPerBlock > MAX_THREADS_PER_BLOCK) {
      throw new IllegalArgumentException(
          "threadsPerBlock must be in 1.." + MAX_THREADS_PER_BLOCK + ", got " + threadsPerBlock);
    }
    if (blocks < 1) {
      throw new IllegalArgumentException("blocks must be at least 1, got " + blocks);
    }
    if ((long) blocks * threadsPerBlock > MAX_THREADS) {
      throw new IllegalArgumentException(
          "threads: blocks * threadsPerBlock = " + (long) blocks * threadsPerBlock
              + " exceeds " + MAX_THREADS + ", what the lock word's 30-bit owner field can name");
    }
  }

  public int txCount() {
    return types.length;
  }

  public int threads() {
    return blocks * threadsPerBlock;
  }

  /** The smallest built capacity that holds {@code entries} set entries. */
  public static int capacityFor(int entries) {
    for (int c : CAPACITIES) {
      if (c >= entries) {
        return c;
      }
    }
    throw new IllegalArgumentException(
        "a transaction with " + entries + " set entries exceeds the largest set capacity "
            + CAPACITIES[CAPACITIES.length - 1]);
  }
}
