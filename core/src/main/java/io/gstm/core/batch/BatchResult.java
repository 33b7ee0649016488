package io.gstm.core.batch;

import io.gstm.core.history.History;

/**
 * What a batch did: an outcome per transaction, counters, per-transaction results (the bank's
 * audit sums), optional history, and timings.
 *
 * @param engine the engine that ran it
 * @param outcomes {@link Outcome} code per transaction
 * @param counters indexed by {@link Counter#ordinal()}
 * @param results per-transaction result (what a committed read-only transaction saw), or 0
 * @param semanticConflicts per transaction, how often it met a semantic conflict (was postponed
 *     or retried in place) before it committed or was abandoned
 * @param history versions read and produced by committed transactions, or null
 * @param uploadNanos time to send the batch
 * @param kernelNanos time the transactions ran
 * @param downloadNanos time to bring results back
 * @param stamps CSMV: per committed transaction its commit timestamp (update) or snapshot
 *     timestamp (read-only); empty for other algorithms
 */
public record BatchResult(
    String engine,
    byte[] outcomes,
    long[] counters,
    long[] results,
    int[] semanticConflicts,
    History history,
    long uploadNanos,
    long kernelNanos,
    long downloadNanos,
    long[] stamps) {

  /** A result without timestamps (PR-STM). */
  public BatchResult(String engine, byte[] outcomes, long[] counters, long[] results,
      int[] semanticConflicts, History history, long uploadNanos, long kernelNanos,
      long downloadNanos) {
    this(engine, outcomes, counters, results, semanticConflicts, history, uploadNanos, kernelNanos,
        downloadNanos, new long[0]);
  }

  public Outcome outcome(int tx) {
    return Outcome.ofCode(outcomes[tx]);
  }

  public long count(Counter counter) {
    return counters[counter.ordinal()];
  }

  public long commits() {
    return count(Counter.COMMITS);
  }

  /** All aborts, whatever the cause. */
  public long aborts() {
    long sum = 0;
    for (Counter c : Counter.values()) {
      if (c.isAbort()) {
        sum += counters[c.ordinal()];
      }
    }
    return sum;
  }

  /** Aborts per attempt: aborts / (aborts + commits). */
  public double abortRate() {
    long attempts = aborts() + commits();
    return attempts == 0 ? 0 : (double) aborts() / attempts;
  }

  /** Committed transactions per second of kernel time. */
  public double committedPerSecond() {
    return kernelNanos == 0 ? 0 : commits() * 1e9 / kernelNanos;
  }
}
