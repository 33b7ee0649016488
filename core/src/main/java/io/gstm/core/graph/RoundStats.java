package io.gstm.core.graph;

/**
 * What one engine's relaxation rounds did ({@code JvmGraphRelax}, {@code CudaGraphRelax}), before
 * {@link GraphRelaxer} adds the call's wall time.
 *
 * @param rounds rounds run
 * @param converged whether the last round left an empty frontier (a fixpoint)
 * @param transactions transactions started
 * @param commits committed transactions
 * @param aborts aborted attempts
 * @param relaxations edges examined
 * @param improved vertices queued because their value dropped, once per round
 * @param kernelNanos time the rounds ran (GPU time of the launches on the CUDA engine)
 */
public record RoundStats(int rounds, boolean converged, long transactions, long commits,
    long aborts, long relaxations, long improved, long kernelNanos) {

  /** These counters as a call's statistics, with its wall time. */
  public RelaxStats withTotal(long totalNanos) {
    return new RelaxStats(rounds, transactions, commits, aborts, relaxations, improved,
        kernelNanos, totalNanos);
  }
}
