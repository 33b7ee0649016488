package io.gstm.core.graph;

import io.gstm.core.batch.TxCounts;
import io.gstm.core.batch.WithTxCounts;

/**
 * What one {@link GraphRelaxer#relax} call did.
 *
 * @param rounds frontier rounds run until no vertex improved (on the JVM engine: phases, one
 *     per bucket of values; one with a single worker)
 * @param tx transactions run (one per active vertex and chunk of its out-edges; on the CUDA
 *     engine only chunks that a plain read shows can improve some target run one), committed
 *     and aborted (each retried)
 * @param edgeRelaxations out-edges examined by committed transactions
 * @param improvedWrites vertex values lowered, counted once per vertex and round (the size of
 *     the next round's frontier; on the JVM engine every lowering)
 * @param kernelNanos time the transactions ran (GPU time on the CUDA engine)
 * @param totalNanos wall time of the call, uploads and downloads included
 */
public record RelaxStats(int rounds, TxCounts tx, long edgeRelaxations, long improvedWrites,
    long kernelNanos, long totalNanos) implements WithTxCounts {

  /** Edge relaxations per second of kernel time (0 when nothing ran). */
  public double edgesPerSecond() {
    return kernelNanos == 0 ? 0 : edgeRelaxations * 1e9 / kernelNanos;
  }
}
