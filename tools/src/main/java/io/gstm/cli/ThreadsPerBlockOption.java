package io.gstm.cli;

import io.gstm.core.batch.TxBatch;
import picocli.CommandLine.Option;

/** {@code --threads-per-block}: GPU threads per block (on the JVM engine, logical threads). */
final class ThreadsPerBlockOption {
  @Option(names = "--threads-per-block", description = "Threads per block, 1.."
      + TxBatch.MAX_THREADS_PER_BLOCK + " (default ${DEFAULT-VALUE}).")
  int threadsPerBlock;

  /** The command's default, shown in its help. */
  ThreadsPerBlockOption(int threadsPerBlock) {
    this.threadsPerBlock = threadsPerBlock;
  }

  /** Checked before anything runs, as every batch checks it; the value. */
  int check() {
    TxBatch.checkThreads(threadsPerBlock, 1);
    return threadsPerBlock;
  }
}
