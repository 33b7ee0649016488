package io.gstm.core.batch;

/**
 * How a batch is laid out over threads: {@code blocks} blocks of {@code threadsPerBlock} threads,
 * each running {@code txPerThread} transactions. A plain value: the configurations that hold one
 * check it, each with its own limits.
 *
 * @param threadsPerBlock threads in a block
 * @param blocks blocks in the grid
 * @param txPerThread transactions each thread runs
 */
public record Grid(int threadsPerBlock, int blocks, int txPerThread) {

  /** Threads in the grid. */
  public int threads() {
    return blocks * threadsPerBlock;
  }

  /** Transactions in the batch: every thread's. */
  public int txCount() {
    return threads() * txPerThread;
  }
}
