package io.gstm.core.jvm;

import io.gstm.core.batch.Counter;
import io.gstm.core.store.Backoff;

/**
 * Cederman, Tsigas and Chaudhry's blocking STM (section 5 of their paper) on Java threads, over
 * PR-STM's lock table: an object is the words one lock covers, its versioned lock the lock word
 * (version above, a locked bit below; nobody pre-locks). Design and mapping:
 * {@code docs/cederman-stm.md}.
 *
 * <p>A read waits while the object's lock is held, then takes the version, the word and the
 * version again, and tries again until the two versions match; the word is logged (the paper's
 * local copy: a second read returns it). Writes are buffered. Commit locks each written object
 * by one CAS from the version read to locked; any failure (held, or the version moved) aborts at
 * once, releasing what it took, so nobody waits at commit and there is no deadlock. With every
 * written lock held it checks that what it only read is unchanged and not locked (the paper
 * checks "the objects read or written"), writes back and releases with the version advanced.
 *
 * <p>Waits are bounded: a read that finds the lock held after {@link #READ_WAITS} tries aborts
 * (read-locked); a commit that finds a written lock held aborts at once (lock busy). On the GPU a lane spinning on a lock held by a diverged lane of its own warp can
 * starve it ({@code docs/design.md}); the paper ran one transaction per thread block and so never
 * met that. After an abort the executor waits as the algorithm's {@link Backoff} says.
 */
final class JvmBlockingTx extends JvmCedermanTx {
  /** Tries on a locked word before a read gives up. */
  static final int READ_WAITS = 256;

  JvmBlockingTx(JvmTxStore store, int capacity) {
    super(store, capacity);
  }

  /**
   * Waits while the lock is held (a writer is writing the object back), then takes the version,
   * the word and the version again, until the two versions match: a consistent snapshot.
   */
  @Override
  long settle(int lock, int region, int index) {
    for (int tries = 0; tries < READ_WAITS; tries++) {
      long w = locks.get(lock);
      if (LockWord.locked(w)) {
        waitTurn(tries);
        continue;
      }
      long version = snapshot(lock, w, region, index);
      if (version >= 0) {
        return version;
      }
    }
    return -1;
  }

  @Override
  public boolean confirmReads() {
    return validOrAbort(readsCurrent());
  }

  @Override
  boolean commitUpdate() {
    for (int s = 0; s < nLocks; s++) {
      if (lockWritten[s]) {
        Counter failed = lock(s);
        if (failed != null) {
          return releaseAndAbort(s, lockVer, failed);
        }
      }
    }
    if (!readsCurrent()) {
      return releaseAndAbort(nLocks, lockVer, Counter.ABORT_VALIDATION);
    }
    writeBackAndRelease(lockVer);
    return done();
  }

  /** Locks slot {@code s} by CAS from the version read; null, or why it failed. */
  private Counter lock(int s) {
    long expected = LockWord.unlocked(lockVer[s]);
    for (int tries = 0; tries < READ_WAITS; tries++) {
      long w = locks.get(lockIdx[s]);
      if (w == expected) {
        if (locks.compareAndSet(lockIdx[s], expected, LockWord.lockedBy(lockVer[s], owner))) {
          return null;
        }
      } else {
        return LockWord.locked(w) ? Counter.ABORT_LOCK_BUSY : Counter.ABORT_VALIDATION;
      }
    }
    return Counter.ABORT_LOCK_BUSY;
  }

  /** Every lock only read is at the version read and not locked; so is the range, if any. */
  private boolean readsCurrent() {
    for (int s = 0; s < nLocks; s++) {
      if (!lockWritten[s] && locks.get(lockIdx[s]) != LockWord.unlocked(lockVer[s])) {
        return false;
      }
    }
    return rangeUnchanged();
  }
}
