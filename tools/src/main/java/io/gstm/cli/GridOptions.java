package io.gstm.cli;

import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/** The launch grid of the one-batch commands: threads per block, blocks, tx per thread. */
final class GridOptions {
  @Mixin ThreadsPerBlockOption threads;

  @Option(names = "--blocks", description = "Default ${DEFAULT-VALUE}.")
  int blocks;

  @Option(names = "--tx-per-thread", description = "Transactions per thread; with semantic "
      + "conflicts at most 32 (the postponement window). Default ${DEFAULT-VALUE}.")
  int txPerThread;

  /** The command's defaults, shown in its help. */
  GridOptions(int threadsPerBlock, int blocks, int txPerThread) {
    this.threads = new ThreadsPerBlockOption(threadsPerBlock);
    this.blocks = blocks;
    this.txPerThread = txPerThread;
  }

  int threadsPerBlock() {
    return threads.threadsPerBlock;
  }

  /** Threads in the grid. */
  int threads() {
    return threadsPerBlock() * blocks;
  }
}
