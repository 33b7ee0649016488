package io.gstm.core.jvm;

import io.gstm.core.batch.Counter;
import io.gstm.core.batch.Outcome;
import io.gstm.core.batch.RunOptions;
import io.gstm.core.batch.SemanticPolicy;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;

/**
 * One worker's share of a batch: the logical threads {@code worker, worker + W, ...}, advanced one
 * attempt at a time in turn, as the lanes of a GPU run side by side. The twin of the semantic
 * kernel's loop ({@code gstm/semantic.cuh}).
 *
 * <p>Logical thread {@code lt} owns transactions {@code lt, lt + T, lt + 2T, ...}, in chunks of
 * {@value #WINDOW}. A concurrency conflict retries the same transaction; a semantic conflict
 * postpones it (the thread moves to its next pending transaction in the chunk, wrapping around)
 * or retries it in place, as the policy says. The thread moves on to its next chunk with pending
 * transactions, wrapping around its whole share, when its chunk is done or when a whole pass over
 * the chunk committed nothing, so a postponed transaction waits while every other pending
 * transaction of its thread gets a turn (Algorithm 3 of the JPDC paper).
 */
final class JvmExecutor {
  /** Transactions a thread juggles at once (as on the GPU, one bit each). */
  static final int WINDOW = 32;
  private static final long MIN_BACKOFF_NANOS = 1_000;
  private static final long MAX_BACKOFF_NANOS = 200_000;
  /**
   * How long the last running worker may go without finishing a transaction, after it has
   * retried every pending one, before its postponed transactions are taken to wait in vain.
   */
  private static final long WAIT_IN_VAIN_NANOS = 2_000_000_000L;

  private final TxBody body;
  /** Logical threads of the batch (its grid). */
  private final int threads;
  private final RunOptions options;
  private final JvmPrStmTx tx;
  private final long[] counters;
  private final BatchOutputs out;
  private final byte[] outcomes;
  /** Whether any transaction finished in the current sweep. */
  private boolean progress;
  /** Workers of the batch still running, this one included. */
  private final AtomicInteger running;

  /** A logical thread's place in its share of the table, as a GPU lane keeps it in registers. */
  private static final class Lane {
    final int lt;
    /** Transactions the lane owns: lt + i * threads for i < owned. */
    final int owned;
    int remaining;
    /** Chunk bit b is transaction number base + b of the lane. */
    int base;
    long pending;
    int cursor;
    int conflicts;
    /** Semantic conflicts since the last commit. */
    int fruitless;

    Lane(int lt, int owned) {
      this.lt = lt;
      this.owned = owned;
      this.remaining = owned;
      this.pending = owned >= WINDOW ? (1L << WINDOW) - 1 : (1L << owned) - 1;
    }
  }

  JvmExecutor(TxBody body, int threads, RunOptions options, JvmPrStmTx tx, long[] counters,
      BatchOutputs out, AtomicInteger running) {
    this.running = running;
    this.body = body;
    this.threads = threads;
    this.options = options;
    this.tx = tx;
    this.counters = counters;
    this.out = out;
    this.outcomes = out.outcomes;
  }

  /** Runs every transaction of logical threads {@code first, first + stride, ...}. */
  void run(int first, int stride) {
    int n = outcomes.length;
    List<Lane> lanes = new ArrayList<>();
    for (int lt = first; lt < threads && lt < n; lt += stride) {
      lanes.add(new Lane(lt, (n - lt - 1) / threads + 1));
    }
    try {
      runLanes(lanes);
    } finally {
      running.decrementAndGet();
    }
  }

  private void runLanes(List<Lane> lanes) {
    int active = lanes.size();
    long backoffNanos = MIN_BACKOFF_NANOS;
    long quietSweeps = 0;
    long quietSince = 0;
    while (active > 0) {
      progress = false;
      for (int j = 0; j < active; ) {
        Lane lane = lanes.get(j);
        step(lane);
        if (lane.remaining == 0) {
          // Lane done: move the last active one into its slot.
          active--;
          lanes.set(j, lanes.get(active));
        } else {
          j++;
        }
      }
      // A sweep in which nothing finished means every thread waits on others (other workers may
      // not even be scheduled): back off, as a GPU lane sleeps, instead of burning the limits.
      if (progress) {
        backoffNanos = MIN_BACKOFF_NANOS;
        quietSweeps = 0;
      } else {
        if (quietSweeps++ == 0) {
          quietSince = System.nanoTime();
        }
        if (waitsInVain(lanes, active, quietSweeps, quietSince)) {
          abandonPending(lanes, active);
          return;
        }
        LockSupport.parkNanos(backoffNanos);
        backoffNanos = Math.min(2 * backoffNanos, MAX_BACKOFF_NANOS);
      }
    }
  }

  /**
   * True when nothing can change any more: this is the batch's last running worker (no other
   * thread writes the store), each of its lanes has retried every pending transaction since the
   * last one finished (a lane visits its pending transactions in turn, so twice its remaining
   * count plus two windows of sweeps covers them all), and that has lasted a while. Its
   * postponed transactions then wait for a state that cannot come (a withdrawal no deposit
   * will cover, a cancellation whose booking was abandoned), and only the semantic limit would
   * end them; with a large limit that is a hang.
   */
  private boolean waitsInVain(List<Lane> lanes, int active, long quietSweeps, long quietSince) {
    if (running.get() != 1) {
      return false;
    }
    long needed = 2L * WINDOW;
    for (int j = 0; j < active; j++) {
      needed = Math.max(needed, 2L * lanes.get(j).remaining + 2L * WINDOW);
    }
    return quietSweeps > needed && System.nanoTime() - quietSince > WAIT_IN_VAIN_NANOS;
  }

  /** Ends every pending transaction of the active lanes as ABANDONED_SEMANTIC. */
  private void abandonPending(List<Lane> lanes, int active) {
    for (int j = 0; j < active; j++) {
      Lane lane = lanes.get(j);
      for (int i = 0; i < lane.owned; i++) {
        int t = lane.lt + i * threads;
        if (outcomes[t] == Outcome.PENDING.ordinal()) {
          outcomes[t] = (byte) Outcome.ABANDONED_SEMANTIC.ordinal();
          counters[Counter.ABANDONED_SEMANTIC.ordinal()]++;
        }
      }
    }
  }

  /** Moves {@code lane} to its next chunk, wrapping, that holds a pending transaction. */
  private void nextChunk(Lane lane) {
    do {
      lane.base = lane.base + WINDOW >= lane.owned ? 0 : lane.base + WINDOW;
      lane.pending = 0;
      for (int b = 0; b < WINDOW && lane.base + b < lane.owned; b++) {
        int t = lane.lt + (lane.base + b) * threads;
        if (outcomes[t] == Outcome.PENDING.ordinal()) {
          lane.pending |= 1L << b;
        }
      }
    } while (lane.pending == 0);
    lane.cursor = 0;
  }

  /** One attempt of {@code lane}'s current transaction. */
  private void step(Lane lane) {
    int bit = nextPending(lane.pending, lane.cursor);
    int t = lane.lt + (lane.base + bit) * threads;
    tx.begin(lane.lt);
    long result = body.run(tx, t);
    Outcome done = null;
    if (tx.status() == JvmPrStmTx.Status.ENDED) {
      // A program's abort or fault stands only if what it read was consistent.
      done = tx.confirmReads() ? tx.endOutcome() : concurrencyAbort(lane);
    } else if (tx.status() == JvmPrStmTx.Status.SEMANTIC) {
      if (tx.confirmReads()) {
        counters[Counter.SEMANTIC_CONFLICTS.ordinal()]++;
        lane.conflicts = 0;
        if (++out.semanticConflicts[t] >= options.semanticLimit()) {
          done = Outcome.ABANDONED_SEMANTIC;
        } else if (options.policy() == SemanticPolicy.POSTPONE) {
          lane.cursor = (bit + 1) % WINDOW;
          int inChunk = Long.bitCount(lane.pending);
          if (++lane.fruitless >= inChunk) {
            lane.fruitless = 0;
            if (lane.remaining > inChunk) {
              nextChunk(lane);
            }
          }
        }
      } else {
        done = concurrencyAbort(lane);
      }
    } else if (tx.commit()) {
      done = Outcome.COMMITTED;
      lane.fruitless = 0;
      counters[Counter.COMMITS.ordinal()]++;
      if (tx.readOnly()) {
        counters[Counter.READ_ONLY_COMMITS.ordinal()]++;
        out.results[t] = result;
      }
      if (out.history()) {
        int base = t * out.capacity;
        out.histCounts[t] = tx.record(out.histReads, base, out.histWrites, base);
      }
    } else if (tx.status() == JvmPrStmTx.Status.OVERFLOW) {
      done = Outcome.TOO_LARGE;
    } else {
      done = concurrencyAbort(lane);
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
      lane.pending &= ~(1L << bit);
      lane.conflicts = 0;
      lane.cursor = (bit + 1) % WINDOW;
      if (--lane.remaining > 0 && lane.pending == 0) {
        nextChunk(lane);
      }
    }
  }

  /** Counts a concurrency abort; the transaction is abandoned once it reaches maxRetries. */
  private Outcome concurrencyAbort(Lane lane) {
    counters[tx.abortCause().ordinal()]++;
    Thread.onSpinWait();
    return ++lane.conflicts >= options.maxRetries() ? Outcome.ABANDONED : null;
  }

  /** The first pending bit at or after {@code from}, wrapping around. */
  static int nextPending(long mask, int from) {
    long rotated = Long.rotateRight(mask, from);
    return (Long.numberOfTrailingZeros(rotated) + from) % WINDOW;
  }
}
