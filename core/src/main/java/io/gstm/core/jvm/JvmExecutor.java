package io.gstm.core.jvm;

import io.gstm.core.batch.Counter;
import io.gstm.core.batch.Outcome;
import io.gstm.core.batch.RunOptions;
import io.gstm.core.batch.SemanticPolicy;
import io.gstm.core.batch.TxBatch;
import io.gstm.core.workload.Workload;
import java.util.concurrent.locks.LockSupport;

/**
 * One worker's share of a batch: the logical threads {@code worker, worker + W, ...}, advanced one
 * attempt at a time in turn, as the lanes of a GPU run side by side. The twin of the semantic
 * kernel's loop ({@code gstm/semantic.cuh}).
 *
 * <p>Logical thread {@code lt} owns transactions {@code lt, lt + T, lt + 2T, ...}, taken in
 * windows of {@value #WINDOW}. A concurrency conflict retries the same transaction; a semantic
 * conflict postpones it (the thread moves to its next pending transaction in the window, wrapping
 * around) or retries it in place, as the policy says.
 */
final class JvmExecutor {
  /** Transactions a thread juggles at once (as on the GPU, one bit each). */
  static final int WINDOW = 32;
  private static final long MIN_BACKOFF_NANOS = 1_000;
  private static final long MAX_BACKOFF_NANOS = 200_000;

  private final Workload workload;
  private final TxBatch batch;
  private final RunOptions options;
  private final JvmPrStmTx tx;
  private final long[] counters;
  private final byte[] outcomes;
  private final long[] results;
  private final int[] semanticConflicts;
  private final long[] histReads;
  private final long[] histWrites;
  private final int[] histCounts;
  /** Whether any transaction finished in the current sweep. */
  private boolean progress;

  JvmExecutor(Workload workload, TxBatch batch, RunOptions options, JvmPrStmTx tx,
      long[] counters, byte[] outcomes, long[] results, int[] semanticConflicts, long[] histReads,
      long[] histWrites, int[] histCounts) {
    this.workload = workload;
    this.batch = batch;
    this.options = options;
    this.tx = tx;
    this.counters = counters;
    this.outcomes = outcomes;
    this.results = results;
    this.semanticConflicts = semanticConflicts;
    this.histReads = histReads;
    this.histWrites = histWrites;
    this.histCounts = histCounts;
  }

  /** Runs every transaction of logical threads {@code first, first + stride, ...}. */
  void run(int first, int stride) {
    int threads = batch.threads();
    int n = batch.txCount();
    int count = first < threads ? (threads - 1 - first) / stride + 1 : 0;
    int[] lts = new int[count];
    int[] windowBase = new int[count];
    long[] pending = new long[count];
    int[] cursor = new int[count];
    int[] conflicts = new int[count];
    int active = 0;
    for (int j = 0; j < count; j++) {
      lts[j] = first + j * stride;
      windowBase[j] = -WINDOW;
      if (refill(lts[j], j, windowBase, pending, cursor, n)) {
        lts[active] = lts[j];
        windowBase[active] = windowBase[j];
        pending[active] = pending[j];
        cursor[active] = cursor[j];
        active++;
      }
    }
    long backoffNanos = MIN_BACKOFF_NANOS;
    while (active > 0) {
      progress = false;
      for (int j = 0; j < active; ) {
        step(lts[j], j, windowBase, pending, cursor, conflicts);
        if (pending[j] == 0 && !refill(lts[j], j, windowBase, pending, cursor, n)) {
          // Thread done: move the last active one into its slot.
          active--;
          lts[j] = lts[active];
          windowBase[j] = windowBase[active];
          pending[j] = pending[active];
          cursor[j] = cursor[active];
          conflicts[j] = conflicts[active];
        } else {
          j++;
        }
      }
      // A sweep in which nothing finished means every thread waits on others (other workers may
      // not even be scheduled): back off, as a GPU lane sleeps, instead of burning the limits.
      if (progress) {
        backoffNanos = MIN_BACKOFF_NANOS;
      } else {
        LockSupport.parkNanos(backoffNanos);
        backoffNanos = Math.min(2 * backoffNanos, MAX_BACKOFF_NANOS);
      }
    }
  }

  /** Loads the next window of thread {@code lt}; false when it has no more transactions. */
  private boolean refill(int lt, int j, int[] windowBase, long[] pending, int[] cursor, int n) {
    int threads = batch.threads();
    windowBase[j] += WINDOW;
    long first = lt + (long) windowBase[j] * threads;
    if (first >= n) {
      return false;
    }
    long mask = 0;
    for (int b = 0; b < WINDOW; b++) {
      if (first + (long) b * threads < n) {
        mask |= 1L << b;
      }
    }
    pending[j] = mask;
    cursor[j] = 0;
    return true;
  }

  /** One attempt of thread {@code lt}'s current transaction. */
  private void step(int lt, int j, int[] windowBase, long[] pending, int[] cursor,
      int[] conflicts) {
    int bit = nextPending(pending[j], cursor[j]);
    int t = lt + (windowBase[j] + bit) * batch.threads();
    tx.begin(lt);
    long result = workload.run(tx, batch, t);
    Outcome done = null;
    if (tx.status() == JvmPrStmTx.Status.SEMANTIC) {
      if (tx.confirmSemantic()) {
        counters[Counter.SEMANTIC_CONFLICTS.ordinal()]++;
        conflicts[j] = 0;
        if (++semanticConflicts[t] >= options.semanticLimit()) {
          done = Outcome.ABANDONED_SEMANTIC;
        } else if (options.policy() == SemanticPolicy.POSTPONE) {
          cursor[j] = (bit + 1) % WINDOW;
        }
      } else {
        done = concurrencyAbort(j, conflicts);
      }
    } else if (tx.commit()) {
      done = Outcome.COMMITTED;
      counters[Counter.COMMITS.ordinal()]++;
      if (tx.readOnly()) {
        counters[Counter.READ_ONLY_COMMITS.ordinal()]++;
        results[t] = result;
      }
      if (histCounts != null) {
        int base = t * batch.capacity();
        histCounts[t] = tx.record(histReads, base, histWrites, base);
      }
    } else if (tx.status() == JvmPrStmTx.Status.OVERFLOW) {
      done = Outcome.TOO_LARGE;
    } else {
      done = concurrencyAbort(j, conflicts);
    }
    if (done != null) {
      progress = true;
      outcomes[t] = (byte) done.ordinal();
      if (done == Outcome.ABANDONED) {
        counters[Counter.ABANDONED.ordinal()]++;
      } else if (done == Outcome.TOO_LARGE) {
        counters[Counter.TOO_LARGE.ordinal()]++;
      } else if (done == Outcome.ABANDONED_SEMANTIC) {
        counters[Counter.ABANDONED_SEMANTIC.ordinal()]++;
      }
      pending[j] &= ~(1L << bit);
      conflicts[j] = 0;
      cursor[j] = (bit + 1) % WINDOW;
    }
  }

  /** Counts a concurrency abort; the transaction is abandoned once it reaches maxRetries. */
  private Outcome concurrencyAbort(int j, int[] conflicts) {
    counters[tx.abortCause().ordinal()]++;
    Thread.onSpinWait();
    return ++conflicts[j] >= options.maxRetries() ? Outcome.ABANDONED : null;
  }

  /** The first pending bit at or after {@code from}, wrapping around. */
  static int nextPending(long mask, int from) {
    long rotated = Long.rotateRight(mask, from);
    return (Long.numberOfTrailingZeros(rotated) + from) % WINDOW;
  }
}
