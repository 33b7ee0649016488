package io.gstm.core.graph;

import io.gstm.core.batch.TxCounts;

/**
 * What one engine's relaxation rounds did ({@code JvmGraphRelax}, {@code CudaGraphRelax}), before
 * {@link GraphRelaxer} adds the call's wall time.
 *
 * @param rounds rounds run
 * @param converged whether the last round left an empty frontier (a fixpoint)
 * @param tx transactions started, committed, aborted
 * @param relaxations edges examined
 * @param improved vertices queued because their value dropped, once per round
 * @param kernelNanos time the rounds ran (GPU time of the launches on the CUDA engine)
 */
public record RoundStats(int rounds, boolean converged, TxCounts tx, long relaxations,
    long improved, long kernelNanos) {

  /** These counters as a call's statistics, with its wall time. */
  public RelaxStats withTotal(long totalNanos) {
    return new RelaxStats(rounds, tx, relaxations, improved, kernelNanos, totalNanos);
  }
}
