package io.gstm.core.kmeans;

import io.gstm.core.batch.RunOptions;
import io.gstm.core.batch.TxBatch;
import java.util.Objects;

/**
 * How a {@link KMeansUpdater} runs. Immutable.
 *
 * @param threadsPerBlock GPU threads per block, 1..{@value TxBatch#MAX_THREADS_PER_BLOCK}
 * @param pointsPerTransaction points aggregated before one transaction per centroid adds them,
 *     at least 1 (1 is the JPDC workload's one point per transaction)
 * @param run retry limits and history mode of the underlying batches
 */
public record KMeansOptions(int threadsPerBlock, int pointsPerTransaction, RunOptions run) {
  /** Default {@link #threadsPerBlock()}. */
  public static final int DEFAULT_THREADS_PER_BLOCK = 256;
  /** Default {@link #pointsPerTransaction()}. */
  public static final int DEFAULT_POINTS_PER_TRANSACTION = 4096;

  public KMeansOptions {
    TxBatch.checkThreads(threadsPerBlock, 1);
    if (pointsPerTransaction < 1) {
      throw new IllegalArgumentException(
          "pointsPerTransaction must be at least 1, got " + pointsPerTransaction);
    }
    Objects.requireNonNull(run, "run");
  }

  /**
   * 256 threads per block, 4096 points per transaction (with k = 16, about 16 transactions per
   * 4096 points: the 16 records are hot, so each transaction carries much), default run options.
   */
  public static KMeansOptions defaults() {
    return new KMeansOptions(DEFAULT_THREADS_PER_BLOCK, DEFAULT_POINTS_PER_TRANSACTION,
        RunOptions.defaults());
  }

  public KMeansOptions withThreadsPerBlock(int value) {
    return new KMeansOptions(value, pointsPerTransaction, run);
  }

  public KMeansOptions withPointsPerTransaction(int value) {
    return new KMeansOptions(threadsPerBlock, value, run);
  }

  public KMeansOptions withRun(RunOptions value) {
    return new KMeansOptions(threadsPerBlock, pointsPerTransaction, value);
  }
}
