package io.gstm.core.jvm;

import io.gstm.core.batch.Counter;
import io.gstm.core.batch.Outcome;
import io.gstm.core.store.StoreLayout;
import java.util.concurrent.atomic.AtomicLongArray;

/**
 * GPU-STM (Xu et al.) on Java threads, over PR-STM's lock table (same lock words; nobody
 * pre-locks). Design and reasons: {@code docs/gpu-stm.md}.
 *
 * <p>Reads are invisible: each remembers its lock's version and the value it saw (read between
 * two equal, unlocked lock words, so the value is that version's). The lock set is kept sorted
 * by lock index as locks are met (encounter-time sorting). Commit takes the write locks in that
 * order (so two transactions never wait on each other in a cycle), a bounded number of tries
 * each, then validates: a lock still at the version read is valid (time-based); one that moved
 * is valid if every word read under it still holds the value read (value-based). Validation is a
 * double collect, so that the versions it records were all current at one instant and the
 * history checker sees the serial order the transaction took. Then it writes back and releases
 * the locks with their versions advanced by one, as PR-STM does.
 *
 * <p>Abort causes reuse PR-STM's counters: read-locked (a read met a locked word), pre-lock
 * refused (a write lock stayed busy at commit), validation (a read changed in value).
 */
final class JvmGpuStmTx implements JvmTx {
  /** Tries on a busy write lock at commit before the attempt gives up (no unbounded waits). */
  static final int ACQUIRE_TRIES = 256;
  /** Collects of the read versions before validation gives up. */
  static final int COLLECTS = 4;

  private final JvmTxStore store;
  private final StoreLayout layout;
  private final AtomicLongArray locks;
  private final int capacity;
  // The lock set, ascending by lock index.
  private final int[] lockIdx;
  private final int[] lockVer;
  private final boolean[] lockWritten;
  /** Per slot: the version held (written) or validated (read only) at commit. */
  private final int[] seenVer;
  // Words read, with the value seen.
  private final int[] rRegion;
  private final int[] rIndex;
  private final int[] rLock;
  private final long[] rValue;
  // The write buffer.
  private final int[] wRegion;
  private final int[] wIndex;
  private final long[] wValue;
  private int nLocks;
  private int nReads;
  private int nWrites;
  private int rangeRegion;
  private int rangeFirst;
  private int rangeCount;
  private int rangeWrap;
  private long rangeVersions;
  private int owner;
  private Status status;
  private Counter cause;
  private Outcome endOutcome;

  JvmGpuStmTx(JvmTxStore store, int capacity) {
    this.store = store;
    this.layout = store.layout();
    this.locks = store.locks;
    this.capacity = capacity;
    this.lockIdx = new int[capacity];
    this.lockVer = new int[capacity];
    this.lockWritten = new boolean[capacity];
    this.seenVer = new int[capacity];
    this.rRegion = new int[capacity];
    this.rIndex = new int[capacity];
    this.rLock = new int[capacity];
    this.rValue = new long[capacity];
    this.wRegion = new int[capacity];
    this.wIndex = new int[capacity];
    this.wValue = new long[capacity];
  }

  @Override
  public void begin(int owner) {
    store.checkNotStopped();
    this.owner = owner;
    this.nLocks = 0;
    this.nReads = 0;
    this.nWrites = 0;
    this.rangeCount = 0;
    this.status = Status.ACTIVE;
    this.cause = null;
  }

  @Override
  public Status status() {
    return status;
  }

  @Override
  public Counter abortCause() {
    return cause;
  }

  @Override
  public boolean readOnly() {
    return nWrites == 0;
  }

  @Override
  public Outcome endOutcome() {
    return endOutcome;
  }

  @Override
  public long read(int region, int index) {
    if (status != Status.ACTIVE) {
      return 0;
    }
    for (int s = 0; s < nWrites; s++) {
      if (wRegion[s] == region && wIndex[s] == index) {
        return wValue[s];
      }
    }
    for (int r = 0; r < nReads; r++) {
      if (rRegion[r] == region && rIndex[r] == index) {
        return rValue[r]; // repeatable: the value validation will check
      }
    }
    int lock = layout.lockOf(region, index);
    long w = locks.get(lock);
    long value = store.data[region].get(index);
    if (LockWord.locked(w) || locks.get(lock) != w) {
      abort(Counter.ABORT_READ_LOCKED); // a writer was between its lock and its release
      return 0;
    }
    if (nReads == capacity) {
      overflow();
      return 0;
    }
    track(lock, LockWord.version(w), false);
    if (status != Status.ACTIVE) {
      return 0;
    }
    rRegion[nReads] = region;
    rIndex[nReads] = index;
    rLock[nReads] = lock;
    rValue[nReads] = value;
    nReads++;
    return value;
  }

  @Override
  public long readShared(int region, int index) {
    return status == Status.ACTIVE ? store.data[region].get(index) : 0;
  }

  /** A range as one entry, validated by the sum of its versions (as PR-STM's). */
  @Override
  public long sumRange(int region, int first, int count, int wrap) {
    if (status != Status.ACTIVE || count == 0) {
      return 0;
    }
    if (nWrites != 0 || rangeCount != 0) {
      overflow();
      return 0;
    }
    long sum = 0;
    long versions = 0;
    for (int j = 0, i = first; j < count; j++, i = i + 1 == wrap ? 0 : i + 1) {
      long w = locks.get(layout.lockOf(region, i));
      if (LockWord.locked(w)) {
        abort(Counter.ABORT_READ_LOCKED);
        return 0;
      }
      versions += LockWord.version(w) & 0xffffffffL;
      sum += store.data[region].get(i);
    }
    rangeRegion = region;
    rangeFirst = first;
    rangeCount = count;
    rangeWrap = wrap;
    rangeVersions = versions;
    return sum;
  }

  private boolean rangeUnchanged() {
    if (rangeCount == 0) {
      return true;
    }
    long versions = 0;
    for (int j = 0, i = rangeFirst; j < rangeCount; j++, i = i + 1 == rangeWrap ? 0 : i + 1) {
      long w = locks.get(layout.lockOf(rangeRegion, i));
      if (LockWord.locked(w)) {
        return false;
      }
      versions += LockWord.version(w) & 0xffffffffL;
    }
    return versions == rangeVersions;
  }

  @Override
  public void write(int region, int index, long bits) {
    if (status != Status.ACTIVE) {
      return;
    }
    if (rangeCount != 0) {
      overflow(); // a range is for read-only transactions
      return;
    }
    long value = JvmTxStore.normalise(layout.region(region).type(), bits);
    for (int s = 0; s < nWrites; s++) {
      if (wRegion[s] == region && wIndex[s] == index) {
        wValue[s] = value;
        return;
      }
    }
    if (nWrites == capacity) {
      overflow();
      return;
    }
    int lock = layout.lockOf(region, index);
    int slot = find(lock);
    if (slot >= 0) {
      lockWritten[slot] = true;
    } else {
      long w = locks.get(lock);
      if (LockWord.locked(w)) {
        abort(Counter.ABORT_READ_LOCKED);
        return;
      }
      track(lock, LockWord.version(w), true);
      if (status != Status.ACTIVE) {
        return;
      }
    }
    wRegion[nWrites] = region;
    wIndex[nWrites] = index;
    wValue[nWrites] = value;
    nWrites++;
  }

  @Override
  public void semanticConflict() {
    if (status == Status.ACTIVE) {
      status = Status.SEMANTIC;
    }
  }

  @Override
  public void end(Outcome outcome) {
    if (status == Status.ACTIVE) {
      status = Status.ENDED;
      endOutcome = outcome;
    }
  }

  @Override
  public boolean live() {
    return status == Status.ACTIVE;
  }

  @Override
  public boolean confirmReads() {
    if (validate(false)) {
      return true;
    }
    abort(Counter.ABORT_VALIDATION);
    return false;
  }

  @Override
  public boolean commit() {
    if (status != Status.ACTIVE) {
      return false;
    }
    if (nWrites == 0) {
      if (!validate(false)) {
        abort(Counter.ABORT_VALIDATION);
        return false;
      }
      status = Status.DONE;
      return true;
    }
    // Write locks in ascending lock order: no cycle of waits.
    for (int s = 0; s < nLocks; s++) {
      if (lockWritten[s] && !acquire(s)) {
        releaseHeld(s);
        abort(Counter.ABORT_PRELOCK_REFUSED);
        return false;
      }
    }
    if (!validate(true)) {
      releaseHeld(nLocks);
      abort(Counter.ABORT_VALIDATION);
      return false;
    }
    for (int s = 0; s < nWrites; s++) {
      store.beforeWrite(wRegion[s]); // the batch's failure snapshot, once per region
      store.data[wRegion[s]].set(wIndex[s], wValue[s]);
    }
    for (int s = 0; s < nLocks; s++) {
      if (lockWritten[s]) {
        locks.set(lockIdx[s], LockWord.unlocked(seenVer[s] + 1));
      }
    }
    status = Status.DONE;
    return true;
  }

  /** Locks slot {@code s} at its current version (into seenVer); false if it stays busy. */
  private boolean acquire(int s) {
    for (int tries = 0; tries < ACQUIRE_TRIES; tries++) {
      long w = locks.get(lockIdx[s]);
      if (!LockWord.locked(w) && !LockWord.preLocked(w)) {
        int v = LockWord.version(w);
        if (locks.compareAndSet(lockIdx[s], w, LockWord.lockedBy(v, owner))) {
          seenVer[s] = v;
          return true;
        }
      } else if ((tries & 15) == 15) {
        Thread.yield(); // the holder may be a worker waiting for a core
      } else {
        Thread.onSpinWait();
      }
    }
    return false;
  }

  /** Unlocks the written slots below {@code below}, which we hold, at the version taken. */
  private void releaseHeld(int below) {
    for (int s = 0; s < below; s++) {
      if (lockWritten[s]) {
        locks.set(lockIdx[s], LockWord.unlocked(seenVer[s]));
      }
    }
  }

  /**
   * Hierarchical validation as a double collect: every read-only lock's version is collected
   * (unlocked; where it moved, each word read under it must still hold the value read), then
   * collected again; equal collects mean those versions were all current between the two, with
   * the values read. With {@code holding} (at commit) the written locks are ours: where their
   * version moved since the read, the words read under them must hold the values read.
   */
  private boolean validate(boolean holding) {
    for (int s = 0; holding && s < nLocks; s++) {
      if (lockWritten[s] && seenVer[s] != lockVer[s] && !valuesHold(s)) {
        return false;
      }
    }
    for (int collect = 0; collect < COLLECTS; collect++) {
      boolean ok = true;
      for (int s = 0; s < nLocks && ok; s++) {
        if (holding && lockWritten[s]) {
          continue; // ours since acquire: seenVer holds its version
        }
        long w = locks.get(lockIdx[s]);
        if (LockWord.locked(w)) {
          ok = false;
          break;
        }
        int v = LockWord.version(w);
        if (v != lockVer[s] && (!valuesHold(s) || locks.get(lockIdx[s]) != w)) {
          return false; // changed in value (or moving again: then it changed)
        }
        seenVer[s] = v;
      }
      for (int s = 0; s < nLocks && ok; s++) {
        if (!(holding && lockWritten[s])
            && locks.get(lockIdx[s]) != LockWord.unlocked(seenVer[s])) {
          ok = false;
        }
      }
      if (ok) {
        return rangeUnchanged();
      }
    }
    return false;
  }

  /** Every word read under slot {@code s}'s lock still holds the value read. */
  private boolean valuesHold(int s) {
    for (int r = 0; r < nReads; r++) {
      if (rLock[r] == lockIdx[s] && store.data[rRegion[r]].get(rIndex[r]) != rValue[r]) {
        return false;
      }
    }
    return true;
  }

  /**
   * Reads at the versions validation saw (the serial order's), writes at the version after the
   * one held; a slot only written is recorded as read at the version held, as PR-STM does.
   */
  @Override
  public int record(long[] reads, int readOffset, long[] writes, int writeOffset) {
    int nw = 0;
    for (int s = 0; s < nLocks; s++) {
      long lock = (long) lockIdx[s] << 32;
      reads[readOffset + s] = lock | (seenVer[s] & 0xffffffffL);
      if (lockWritten[s]) {
        writes[writeOffset + nw++] = lock | ((seenVer[s] + 1) & 0xffffffffL);
      }
    }
    return nLocks | (nw << 16);
  }

  /** Inserts a lock into the sorted set, or checks the version of one already there. */
  private void track(int lock, int version, boolean written) {
    int at = 0;
    while (at < nLocks && lockIdx[at] < lock) {
      at++;
    }
    if (at < nLocks && lockIdx[at] == lock) {
      if (lockVer[at] != version) {
        abort(Counter.ABORT_VALIDATION); // two words under one lock at different versions
      }
      lockWritten[at] |= written;
      return;
    }
    if (nLocks == capacity) {
      overflow();
      return;
    }
    for (int s = nLocks; s > at; s--) {
      lockIdx[s] = lockIdx[s - 1];
      lockVer[s] = lockVer[s - 1];
      lockWritten[s] = lockWritten[s - 1];
    }
    lockIdx[at] = lock;
    lockVer[at] = version;
    lockWritten[at] = written;
    nLocks++;
  }

  private int find(int lock) {
    for (int s = 0; s < nLocks; s++) {
      if (lockIdx[s] == lock) {
        return s;
      }
    }
    return -1;
  }

  private void abort(Counter c) {
    status = Status.ABORTED;
    cause = c;
  }

  private void overflow() {
    status = Status.OVERFLOW;
  }
}
