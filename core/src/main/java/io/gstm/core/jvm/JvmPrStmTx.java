package io.gstm.core.jvm;

import io.gstm.core.batch.Counter;
import java.util.Arrays;

/**
 * PR-STM on Java threads, the twin of {@code gstm/prstm.cuh} (same lock words, same phases, same
 * abort causes). One instance per worker thread, reused by {@link #begin(int)}.
 *
 * <p>Reads are invisible and remember the lock version; commit pre-locks every lock in the set
 * (a lower owner id steals a higher one's pre-lock), locks the written ones, validates the
 * read-only ones again (unchanged, not locked), writes back and releases with the version
 * advanced.
 *
 * <p>An urgent attempt ({@link Priority}) pre-locks each lock as it first meets it (visible
 * reads): it steals younger owners' pre-locks and waits, without aborting, while a committing
 * writer holds the lock or an older urgent owner holds the pre-lock; so no writer can change what
 * it read and the oldest urgent transaction commits. Those pre-locks are released whenever the
 * attempt ends.
 *
 * <p>{@link #sumRange} keeps a read-only transaction's range as one entry: the range and the sum
 * of the versions it saw. Commit re-reads the range's lock words; an equal sum with none locked
 * means no version moved, because versions never decrease.
 */
final class JvmPrStmTx extends JvmLockTableTx {
  /** Slot s was pre-locked by an urgent attempt when it met the lock. */
  private final boolean[] lockVisible;
  /** This urgent attempt lost to an older urgent transaction: see {@link #lostInLine()}. */
  private boolean lostInLine;

  JvmPrStmTx(JvmTxStore store, int capacity) {
    super(store, capacity);
    this.lockVisible = new boolean[capacity];
  }

  @Override
  void onBegin() {
    Arrays.fill(lockVisible, false);
    this.lostInLine = false;
  }

  @Override
  void onEnd() {
    releaseVisible();
  }

  /**
   * An urgent attempt that lost to an older urgent transaction (which alone can take what it
   * pre-locked): waiting its turn, not a failure, so it does not count against the retry limit.
   * Range reads are not pre-locked: their failures count.
   */
  @Override
  public boolean lostInLine() {
    return lostInLine;
  }

  @Override
  public boolean hasUrgentMode() {
    return true;
  }

  @Override
  long readUnbuffered(int region, int index) {
    int lock = layout.lockOf(region, index);
    long w = meet(lock);
    if (status != Status.ACTIVE) {
      return 0;
    }
    long value = store.data[region].get(index);
    track(lock, LockWord.version(w), false);
    return value;
  }

  @Override
  boolean trackNewWrite(int lock) {
    long w = meet(lock);
    if (status != Status.ACTIVE) {
      return false;
    }
    track(lock, LockWord.version(w), true);
    return status == Status.ACTIVE;
  }

  /**
   * The lock word of {@code lock} as a read or write meets it (pre-locked first if the attempt is
   * urgent); the attempt ends if it is locked.
   */
  private long meet(int lock) {
    if (Priority.isUrgent(owner) && !takeVisible(lock)) {
      return 0;
    }
    long w = locks.get(lock);
    if (LockWord.locked(w)) {
      lose(Counter.ABORT_READ_LOCKED); // only an older urgent one takes our pre-lock
    }
    return w;
  }

  /** True if every version read is still current (see {@link JvmTx#confirmReads()}). */
  @Override
  public boolean confirmReads() {
    for (int s = 0; s < nLocks; s++) {
      long w = locks.get(lockIdx[s]);
      if (LockWord.version(w) != lockVer[s] || LockWord.locked(w)) {
        lose(Counter.ABORT_VALIDATION);
        return false;
      }
    }
    if (!rangeUnchanged()) {
      abort(Counter.ABORT_VALIDATION);
      return false;
    }
    releaseVisible();
    return true;
  }

  @Override
  boolean commitUpdate() {
    for (int pre = 0; pre < nLocks; pre++) {
      Counter refused = preLock(pre);
      if (refused != null) {
        return giveUp(pre, 0, refused);
      }
    }
    for (int s = 0; s < nLocks; s++) {
      if (!lockWritten[s]) {
        continue;
      }
      long mine = LockWord.preLockedBy(lockVer[s], owner);
      if (!locks.compareAndSet(lockIdx[s], mine, LockWord.lockedBy(lockVer[s], owner))) {
        return giveUp(nLocks, s, Counter.ABORT_STOLEN);
      }
    }
    // With every written lock held, what we only read must be unchanged and not locked by a
    // writer (TL2-style). A stolen read-only pre-lock alone is no reason to abort: requiring it
    // lets a higher priority that stole it, then met our locked write, abort us both forever.
    for (int s = 0; s < nLocks; s++) {
      long w = lockWritten[s] ? 0 : locks.get(lockIdx[s]);
      if (!lockWritten[s] && (LockWord.version(w) != lockVer[s] || LockWord.locked(w))) {
        return giveUp(nLocks, nLocks, Counter.ABORT_STOLEN);
      }
    }
    writeBackAndRelease(lockVer);
    release(nLocks, nLocks); // the pre-locks of what was only read
    return done();
  }

  /**
   * Aborts a commit that pre-locked the slots below {@code preCount} and locked the written ones
   * below {@code lockedBelow}, releasing them all; an urgent attempt lost to an older one.
   */
  private boolean giveUp(int preCount, int lockedBelow, Counter cause) {
    release(preCount, lockedBelow);
    lostInLine = Priority.isUrgent(owner);
    return releaseAndAbort(lockedBelow, lockVer, cause);
  }

  /** An abort that, for an urgent attempt, means losing to an older urgent transaction. */
  private void lose(Counter cause) {
    lostInLine = Priority.isUrgent(owner);
    abort(cause);
  }

  /** Pre-locks slot s; null on success, else the abort cause. */
  private Counter preLock(int s) {
    long mine = LockWord.preLockedBy(lockVer[s], owner);
    while (true) {
      long w = locks.get(lockIdx[s]);
      if (LockWord.version(w) != lockVer[s]) {
        return Counter.ABORT_VALIDATION;
      }
      if (LockWord.locked(w) || (LockWord.preLocked(w) && LockWord.owner(w) < owner)) {
        return Counter.ABORT_PRELOCK_REFUSED;
      }
      if (locks.compareAndSet(lockIdx[s], w, mine)) {
        return null;
      }
    }
  }

  /** Undoes the pre-locks of slots below {@code preCount} that are not locked (by CAS). */
  private void release(int preCount, int lockedBelow) {
    for (int s = 0; s < preCount; s++) {
      if (s < lockedBelow && lockWritten[s]) {
        continue;
      }
      locks.compareAndSet(
          lockIdx[s], LockWord.preLockedBy(lockVer[s], owner), LockWord.unlocked(lockVer[s]));
    }
  }

  /** {@link #join}; a lock met again at another version is lost, as any failed read. */
  private void track(int lock, int version, boolean written) {
    join(lock, version, written);
    if (status == Status.ABORTED) {
      lostInLine = Priority.isUrgent(owner);
    }
  }

  /**
   * An urgent attempt's pre-lock of a lock it meets for the first time: steals a younger
   * owner's pre-lock, waits while the lock is held or an older owner's pre-lock stands (their
   * holders are other workers' attempts in progress: an attempt never spans two steps). False
   * (attempt ended) if the sets are full or the wait outlasts {@link Priority#MAX_WAIT_NANOS}.
   */
  private boolean takeVisible(int lock) {
    if (find(lock) >= 0) {
      return true;
    }
    if (nLocks == capacity) {
      overflow();
      return false;
    }
    int waits = 0;
    long deadline = 0;
    long w = locks.get(lock);
    while (true) {
      if (LockWord.locked(w) || (LockWord.preLocked(w) && LockWord.owner(w) < owner)) {
        if ((++waits & 63) != 0) {
          Thread.onSpinWait();
        } else {
          long now = System.nanoTime();
          deadline = deadline == 0 ? now + Priority.MAX_WAIT_NANOS : deadline;
          if (now - deadline > 0) {
            abort(LockWord.locked(w) ? Counter.ABORT_READ_LOCKED : Counter.ABORT_PRELOCK_REFUSED);
            return false;
          }
          Thread.yield(); // the holder may be a worker waiting for a core
        }
        w = locks.get(lock);
        continue;
      }
      long mine = LockWord.preLockedBy(LockWord.version(w), owner);
      if (locks.compareAndSet(lock, w, mine)) {
        break;
      }
      w = locks.get(lock);
    }
    // Fill the slot track() gives this lock next, so that an abort before track() releases it.
    lockIdx[nLocks] = lock;
    lockVer[nLocks] = LockWord.version(w);
    lockVisible[nLocks] = true;
    return true;
  }

  /** Undoes the pre-locks an urgent attempt took as it met its locks (by CAS: they may be stolen). */
  private void releaseVisible() {
    for (int s = 0; s < capacity; s++) { // slot nLocks too: taken, not yet tracked
      if (lockVisible[s]) {
        lockVisible[s] = false;
        locks.compareAndSet(
            lockIdx[s], LockWord.preLockedBy(lockVer[s], owner), LockWord.unlocked(lockVer[s]));
      }
    }
  }
}
