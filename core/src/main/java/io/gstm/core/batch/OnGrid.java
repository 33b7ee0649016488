package io.gstm.core.batch;

/**
 * A workload configuration laid out on a {@link Grid}: its shape, read through from the grid, so
 * that each configuration need not delegate the same five accessors itself.
 */
public interface OnGrid {
  /** The grid the configuration's batch runs on. */
  Grid grid();

  default int threadsPerBlock() {
    return grid().threadsPerBlock();
  }

  default int blocks() {
    return grid().blocks();
  }

  default int txPerThread() {
    return grid().txPerThread();
  }

  /** Threads in the grid. */
  default int threads() {
    return grid().threads();
  }

  /** Transactions in the batch: every thread's. */
  default int txCount() {
    return grid().txCount();
  }
}
