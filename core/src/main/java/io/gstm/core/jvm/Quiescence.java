package io.gstm.core.jvm;

import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Ends semantic waits that can never come true: the twin of {@code gstm/quiescence.cuh}, one
 * rule on both engines (keep the two in step).
 *
 * <p>A logical thread whose pending transactions all met a confirmed semantic conflict in a row
 * (a whole pass over its share, or {@value #MIN_STREAK} attempts under retry-in-place) reads the
 * batch's finish count; if a second such pass leaves it unchanged, the thread registers as stuck
 * at that count. When every thread that still owns
 * pending transactions is registered at the current count, the waits are in vain: the state is
 * the one each of them was found to conflict with, only a commit could change it, and a commit
 * needs one of them to succeed on that same state. What they waited on then ends
 * ABANDONED_SEMANTIC: every pending transaction of the thread under postponement (each was
 * tried), the one retried under retry-in-place (the thread's later ones were never tried and run
 * next). A thread adds its finishes to the count when it reads the count and when its share is
 * done (the GPU avoids a hot word per commit that way): a registered thread has committed nothing
 * since its streak began and added what it committed before, so when every live thread is
 * registered at the current count, no commit is missing from it.
 */
final class Quiescence {
  /** Fewest conflicts in a row that make a streak, and the spacing of its checks. */
  static final int MIN_STREAK = 32;
  private final AtomicLong finishes = new AtomicLong();
  /** The finish count the stuck threads registered at (high half) and how many (low half). */
  private final AtomicLong stuck = new AtomicLong();
  private final AtomicInteger sharesDone = new AtomicInteger();
  /** The finish count + 1 at which the waits were found in vain (0: never). */
  private final AtomicLong inVainAt = new AtomicLong();
  /** Logical threads that own transactions. */
  private final int live0;

  Quiescence(int threads, int transactions) {
    this.live0 = Math.min(threads, transactions);
  }


  /** Logical threads that still own pending transactions. */
  int liveThreads() {
    return live0 - sharesDone.get();
  }

  private static long pack(int epoch, int count) {
    return ((long) epoch << 32) | (count & 0xffffffffL);
  }

  /** One logical thread's streak of semantic conflicts. */
  final class Streak {
    /** Conflicts until the streak's next check (0: no streak). */
    private int left;
    /** The finish count, read a whole pass into the streak. */
    private int seen;
    private boolean armed;
    /** This thread's finishes not in the count yet. */
    private int unflushed;
    /** The count + 1 this thread is counted as stuck at (0: none). */
    private long enrolled;
    private boolean registered;

    /** A concurrency abort of this thread: the streak starts over. */
    void reset() {
      left = 0;
      armed = false;
      registered = false;
    }

    /** A transaction of this thread finished (any outcome); {@code shareDone} if its last. */
    void finished(boolean shareDone) {
      reset();
      unflushed++;
      if (shareDone) {
        flush();
        sharesDone.incrementAndGet();
      }
    }

    private void flush() {
      if (unflushed != 0) {
        finishes.addAndGet(unflushed);
        unflushed = 0;
      }
    }

    /**
     * After a confirmed semantic conflict that did not end the transaction; {@code needed}
     * conflicts in a row make a whole pass. True when the waits are in vain: the caller abandons
     * its thread's pending transactions.
     */
    boolean conflict(int needed) {
      // The shared words are read once every `needed` conflicts, from a whole pass on.
      if (left == 0) {
        left = needed;
      }
      if (--left != 0) {
        return false;
      }
      left = needed;
      if (!armed) {
        flush();
        seen = (int) finishes.get();
        armed = true;
        return false;
      }
      // Found in vain at the count this thread is stuck at (checked before a newer count resets
      // the streak: the others' abandons move the count on).
      if (registered && inVainAt.get() == (seen & 0xffffffffL) + 1) {
        return true;
      }
      if ((int) finishes.get() != seen) {
        reset();
        return false;
      }
      if (!registered) {
        // Counted once per count: a streak that restarts at the same count (after a concurrency
        // abort) must not count this thread twice.
        long at = (seen & 0xffffffffL) + 1;
        registered = enrolled == at || enrol();
        if (registered) {
          enrolled = at;
        } else {
          reset();
        }
        return false;
      }
      int live = live0 - sharesDone.get();
      if (stuck.get() == pack(seen, live) && (int) finishes.get() == seen) {
        inVainAt.set((seen & 0xffffffffL) + 1);
        return true;
      }
      return false;
    }

    /** Counts this thread as stuck at {@code seen}; false if a later count is registered. */
    private boolean enrol() {
      while (true) {
        long w = stuck.get();
        int epoch = (int) (w >>> 32);
        long next;
        if (epoch == seen) {
          next = w + 1;
        } else if (seen - epoch > 0) {
          next = pack(seen, 1);
        } else {
          return false;
        }
        if (stuck.compareAndSet(w, next)) {
          return true;
        }
      }
    }
  }
}
