package io.gstm.core.jvm;

import io.gstm.core.batch.Counter;
import io.gstm.core.batch.Outcome;
import io.gstm.core.workload.TxContext;

/**
 * One lock-table transaction as {@link JvmExecutor} drives it, attempt after attempt: PR-STM
 * ({@link JvmPrStmTx}), GPU-STM ({@link JvmGpuStmTx}), Cederman's blocking
 * ({@link JvmBlockingTx}) or obstruction-free ({@link JvmObstructionFreeTx}) STM, all over
 * {@link JvmLockTableTx}. The
 * body reads and writes through {@link TxContext}.
 */
interface JvmTx extends TxContext {
  enum Status { ACTIVE, ABORTED, OVERFLOW, SEMANTIC, ENDED, DONE }

  /** Starts a new attempt as {@code owner} (its priority, lower wins: {@link Priority}). */
  void begin(int owner);

  Status status();

  /** Why the last attempt aborted (status ABORTED). */
  Counter abortCause();

  /** Whether the attempt wrote nothing. */
  boolean readOnly();

  /** The outcome a program ended this attempt with (status ENDED). */
  Outcome endOutcome();

  /**
   * After a semantic conflict or a program's early end: true if what the attempt read is still
   * current (the decision stands), false (a validation abort) if it saw an inconsistent state.
   */
  boolean confirmReads();

  /** Validates and commits; false means aborted ({@link #abortCause()}) or overflowed. */
  boolean commit();

  /** Writes this committed transaction's history; returns reads | writes << 16. */
  int record(long[] reads, int readOffset, long[] writes, int writeOffset);

  /** Whether a transaction that keeps losing turns urgent ({@link Priority}): PR-STM's. */
  default boolean hasUrgentMode() {
    return false;
  }

  /**
   * How long to wait before the next attempt after {@code abortsInARow} concurrency aborts in a
   * row (Cederman's STMs: their backoff); 0 for no wait, the default.
   */
  default long backoffNanos(int abortsInARow) {
    return 0;
  }

  /** Adds what the algorithm counts besides aborts (locks stolen) to {@code counters}. */
  default void addCounts(long[] counters) {}

  /**
   * The last attempt lost to an older urgent transaction: waiting in line, not counted against
   * the retry limit.
   */
  default boolean lostInLine() {
    return false;
  }
}
