package io.gstm.core.jvm;

import io.gstm.core.batch.Counter;
import io.gstm.core.batch.Outcome;
import io.gstm.core.batch.RunOptions;
import io.gstm.core.batch.SemanticPolicy;
import java.util.ArrayList;
import java.util.List;
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
 * transaction of its thread gets a turn (Algorithm 3 of the JPDC paper). Waits that can never
 * come true end as {@link Quiescence} says, the same rule as on the GPU.
 */
final class JvmExecutor {
  /** Transactions a thread juggles at once (as on the GPU, one bit each). */
  static final int WINDOW = 32;
  private static final long MIN_BACKOFF_NANOS = 1_000;
  private static final long MAX_BACKOFF_NANOS = 200_000;

  private final TxBody body;
  /** Logical threads of the batch (its grid). */
  private final int threads;
  private final RunOptions options;
  private final JvmTx tx;
  private final long[] counters;
  private final BatchOutputs out;
  private final byte[] outcomes;
  /** Whether any transaction finished in the current sweep. */
  private boolean progress;
  /** The batch's rule for semantic waits in vain, shared by its workers. */
  private final Quiescence quiescence;

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
    /** The current attempt's priority ({@link Priority}): ordinary until it turns urgent. */
    int owner;
    /** Semantic conflicts since the last commit. */
    int fruitless;
    final Quiescence.Streak streak;

    Lane(int lt, int owned, Quiescence quiescence) {
      this.lt = lt;
      this.owned = owned;
      this.remaining = owned;
      this.pending = owned >= WINDOW ? (1L << WINDOW) - 1 : (1L << owned) - 1;
      this.owner = Priority.ordinary(lt);
      this.streak = quiescence.new Streak();
    }
  }

  JvmExecutor(TxBody body, int threads, RunOptions options, JvmTx tx, long[] counters,
      BatchOutputs out, Quiescence quiescence) {
    this.quiescence = quiescence;
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
      lanes.add(new Lane(lt, (n - lt - 1) / threads + 1, quiescence));
    }
    runLanes(lanes);
  }

  private void runLanes(List<Lane> lanes) {
    int active = lanes.size();
    long backoffNanos = MIN_BACKOFF_NANOS;
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
      // When this worker holds every lane still running there is nobody to wait for: a pause
      // would only slow its own pass over what it postponed (one lane once took minutes).
      if (progress) {
        backoffNanos = MIN_BACKOFF_NANOS;
      } else if (active >= quiescence.liveThreads()) {
        Thread.onSpinWait();
      } else {
        LockSupport.parkNanos(backoffNanos);
        backoffNanos = Math.min(2 * backoffNanos, MAX_BACKOFF_NANOS);
      }
    }
  }

  /**
   * The waits are in vain while postponing: every pending transaction of {@code lane} but
   * {@code t} (which the caller ends) was tried and ends ABANDONED_SEMANTIC; {@code t} is left
   * as the lane's last.
   */
  private void abandonInVain(Lane lane, int t, int bit) {
    for (int i = 0; i < lane.owned; i++) {
      int u = lane.lt + i * threads;
      if (u != t && outcomes[u] == Outcome.PENDING.ordinal()) {
        outcomes[u] = (byte) Outcome.ABANDONED_SEMANTIC.ordinal();
        counters[Counter.ABANDONED_SEMANTIC.ordinal()]++;
      }
    }
    lane.pending = 1L << bit;
    lane.remaining = 1;
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
    tx.begin(lane.owner);
    long result = body.run(tx, t);
    Outcome done = null;
    if (tx.status() == JvmTx.Status.ENDED) {
      // A program's abort or fault stands only if what it read was consistent.
      done = tx.confirmReads() ? tx.endOutcome() : concurrencyAbort(lane);
    } else if (tx.status() == JvmTx.Status.SEMANTIC) {
      if (tx.confirmReads()) {
        counters[Counter.SEMANTIC_CONFLICTS.ordinal()]++;
        lane.conflicts = 0;
        lane.owner = Priority.ordinary(lane.lt);
        int pass = options.policy() == SemanticPolicy.POSTPONE
            ? 2 * lane.remaining + 2 * WINDOW : Quiescence.MIN_STREAK;
        if (++out.semanticConflicts[t] >= options.semanticLimit()) {
          done = Outcome.ABANDONED_SEMANTIC;
        } else if (lane.streak.conflict(pass)) {
          done = Outcome.ABANDONED_SEMANTIC; // a wait in vain (Quiescence)
          if (options.policy() == SemanticPolicy.POSTPONE) {
            abandonInVain(lane, t, bit);
          }
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
    } else if (tx.status() == JvmTx.Status.OVERFLOW) {
      done = Outcome.TOO_LARGE;
    } else {
      done = concurrencyAbort(lane);
    }
    tx.addCounts(counters);
    if (done != null) {
      progress = true;
      lane.streak.finished(lane.remaining == 1);
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
      lane.owner = Priority.ordinary(lane.lt);
      lane.cursor = (bit + 1) % WINDOW;
      if (--lane.remaining > 0 && lane.pending == 0) {
        nextChunk(lane);
      }
    }
  }

  /**
   * Counts a concurrency abort; the transaction is abandoned once it reaches maxRetries, and
   * turns urgent after {@code options.urgentAfter()} in a row.
   */
  private Outcome concurrencyAbort(Lane lane) {
    lane.streak.reset();
    counters[tx.abortCause().ordinal()]++;
    Thread.onSpinWait();
    if (!tx.lostInLine()) {
      lane.conflicts++; // losing to an older urgent transaction is waiting in line
    }
    if (lane.conflicts >= options.maxRetries()) {
      return Outcome.ABANDONED;
    }
    pause(tx.backoffNanos(lane.conflicts));
    if (lane.conflicts == options.urgentAfter() && tx.hasUrgentMode()
        && !Priority.isUrgent(lane.owner)) {
      lane.owner = Priority.urgent(out.urgentTickets);
      counters[Counter.URGENT.ordinal()]++;
    }
    return null;
  }

  /**
   * Waits {@code nanos} before the lane's next attempt, as a GPU lane sleeps (and holds up its
   * warp: here the worker's other lanes). Short waits spin, since parking costs tens of us.
   */
  static void pause(long nanos) {
    if (nanos <= 0) {
      return;
    }
    if (nanos >= 50_000) {
      LockSupport.parkNanos(nanos);
      return;
    }
    long until = System.nanoTime() + nanos;
    while (System.nanoTime() - until < 0) {
      Thread.onSpinWait();
    }
  }

  /** The first pending bit at or after {@code from}, wrapping around. */
  static int nextPending(long mask, int from) {
    long rotated = Long.rotateRight(mask, from);
    return (Long.numberOfTrailingZeros(rotated) + from) % WINDOW;
  }
}
