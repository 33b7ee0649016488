package io.gstm.core.jvm;

import io.gstm.core.batch.Counter;
import io.gstm.core.batch.Outcome;
import io.gstm.core.store.StoreLayout;
import java.util.concurrent.atomic.AtomicLongArray;

/**
 * What every algorithm over the lock table ({@link JvmTxStore}) keeps alike, so that each
 * subclass holds only its algorithm: the attempt's status and abort cause, the lock set (lock,
 * version read, written), the write buffer, the read-only range of {@link #sumRange}, and the
 * history record, the commit of a read-only attempt, and the write-back and release of an
 * update's locks. A subclass decides how a read meets its lock ({@link #readUnbuffered}), how a
 * write joins the lock set ({@link #trackNewWrite}), and how an update validates and commits
 * ({@link #commitUpdate}). One instance per worker thread, reused by {@link #begin(int)}.
 */
abstract class JvmLockTableTx implements JvmTx {
  final JvmTxStore store;
  final StoreLayout layout;
  final AtomicLongArray locks;
  final int capacity;
  // The lock set: lock index, version read, whether a word under it is written.
  final int[] lockIdx;
  final int[] lockVer;
  final boolean[] lockWritten;
  int nLocks;
  // The write buffer.
  final int[] wRegion;
  final int[] wIndex;
  final long[] wValue;
  int nWrites;
  private int rangeRegion;
  private int rangeFirst;
  private int rangeCount;
  private int rangeWrap;
  private long rangeVersions;
  int owner;
  Status status;
  private Counter cause;
  private Outcome endOutcome;

  JvmLockTableTx(JvmTxStore store, int capacity) {
    this.store = store;
    this.layout = store.layout();
    this.locks = store.locks;
    this.capacity = capacity;
    this.lockIdx = new int[capacity];
    this.lockVer = new int[capacity];
    this.lockWritten = new boolean[capacity];
    this.wRegion = new int[capacity];
    this.wIndex = new int[capacity];
    this.wValue = new long[capacity];
  }

  @Override
  public void begin(int owner) {
    store.checkNotStopped();
    this.owner = owner;
    this.nLocks = 0;
    this.nWrites = 0;
    this.rangeCount = 0;
    this.status = Status.ACTIVE;
    this.cause = null;
    onBegin();
  }

  /** Resets what the subclass keeps per attempt (called at the end of {@link #begin}). */
  void onBegin() {}

  /** Releases what the attempt holds while it runs (called when it aborts or overflows). */
  void onEnd() {}

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
  public boolean live() {
    return status == Status.ACTIVE;
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

  /** The write buffer first (a transaction reads its own writes), else {@link #readUnbuffered}. */
  @Override
  public final long read(int region, int index) {
    if (status != Status.ACTIVE) {
      return 0;
    }
    for (int s = 0; s < nWrites; s++) {
      if (wRegion[s] == region && wIndex[s] == index) {
        return wValue[s];
      }
    }
    return readUnbuffered(region, index);
  }

  /** A read of a word the attempt has not written; 0 once the attempt has ended. */
  abstract long readUnbuffered(int region, int index);

  @Override
  public long readShared(int region, int index) {
    return status == Status.ACTIVE ? store.data[region].get(index) : 0;
  }

  /**
   * Buffers the write; a lock already in the lock set is marked written, a new one joins it
   * through {@link #trackNewWrite}. A write after a range read overflows (ranges are for read-only
   * transactions).
   */
  @Override
  public final void write(int region, int index, long bits) {
    if (status != Status.ACTIVE) {
      return;
    }
    if (rangeCount != 0) {
      overflow();
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
    } else if (!trackNewWrite(lock)) {
      return;
    }
    wRegion[nWrites] = region;
    wIndex[nWrites] = index;
    wValue[nWrites] = value;
    nWrites++;
  }

  /**
   * Adds {@code lock}, not yet in the lock set, to it as written; false (attempt ended) if that
   * failed.
   */
  abstract boolean trackNewWrite(int lock);

  /**
   * False once the attempt has ended; an attempt that wrote nothing commits by confirming its
   * reads, one that wrote by {@link #commitUpdate}.
   */
  @Override
  public final boolean commit() {
    if (status != Status.ACTIVE) {
      return false;
    }
    return nWrites == 0 ? confirmReads() && done() : commitUpdate();
  }

  /** The commit of an active attempt that wrote: true once done, false once it aborted. */
  abstract boolean commitUpdate();

  /** The attempt committed. */
  final boolean done() {
    status = Status.DONE;
    return true;
  }

  /**
   * {@link #confirmReads} of an algorithm whose validation gave {@code valid}: true, or the
   * attempt aborts for validation.
   */
  final boolean validOrAbort(boolean valid) {
    if (valid) {
      return true;
    }
    abort(Counter.ABORT_VALIDATION);
    return false;
  }

  /**
   * Reads a range as one entry: the range and the sum of the versions it saw, validated by
   * {@link #rangeUnchanged}. For read-only transactions: a range after a write, or a second
   * one, overflows.
   */
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

  /**
   * True when no range was read, or none of its locks is locked and the versions add up to what
   * the reads saw: exact, because versions never decrease, so an equal sum means none moved.
   */
  boolean rangeUnchanged() {
    if (rangeCount == 0) {
      return true; // rangeVersions may be a former transaction's
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

  /** Applies the write buffer to the store (the caller holds every written lock). */
  private void writeBack() {
    for (int s = 0; s < nWrites; s++) {
      store.beforeWrite(wRegion[s]); // the batch's failure snapshot, once per region
      store.data[wRegion[s]].set(wIndex[s], wValue[s]);
    }
  }

  /**
   * With every written lock held, at {@code heldVer[s]} for slot s: writes back, then releases
   * each written lock at the version after.
   */
  final void writeBackAndRelease(int[] heldVer) {
    writeBack();
    unlockWritten(nLocks, heldVer, 1);
  }

  /**
   * Aborts an attempt that holds the written locks below slot {@code below}, releasing them at
   * the versions held ({@code heldVer}); false, for the commit to return.
   */
  final boolean releaseAndAbort(int below, int[] heldVer, Counter cause) {
    unlockWritten(below, heldVer, 0);
    abort(cause);
    return false;
  }

  private void unlockWritten(int below, int[] heldVer, int advance) {
    for (int s = 0; s < below; s++) {
      if (lockWritten[s]) {
        locks.set(lockIdx[s], LockWord.unlocked(heldVer[s] + advance));
      }
    }
  }

  /** The version the history records slot {@code s} as read at: the one read, by default. */
  int recordedVersion(int s) {
    return lockVer[s];
  }

  /**
   * Every lock of the set as read at {@link #recordedVersion}, and the written ones as produced
   * at the version after it.
   */
  @Override
  public int record(long[] reads, int readOffset, long[] writes, int writeOffset) {
    int nw = 0;
    for (int s = 0; s < nLocks; s++) {
      long lock = (long) lockIdx[s] << 32;
      int v = recordedVersion(s);
      reads[readOffset + s] = lock | (v & 0xffffffffL);
      if (lockWritten[s]) {
        writes[writeOffset + nw++] = lock | ((v + 1) & 0xffffffffL);
      }
    }
    return nLocks | (nw << 16);
  }

  /** The slot of {@code lock} in the lock set, or -1. */
  int find(int lock) {
    for (int s = 0; s < nLocks; s++) {
      if (lockIdx[s] == lock) {
        return s;
      }
    }
    return -1;
  }

  /**
   * Adds {@code lock} to the lock set in the order met, or checks that a lock already there was
   * read at the same version (two words under one lock must be one snapshot).
   */
  void join(int lock, int version, boolean written) {
    int slot = find(lock);
    if (slot >= 0) {
      if (lockVer[slot] != version) {
        abort(Counter.ABORT_VALIDATION);
      }
      lockWritten[slot] |= written;
      return;
    }
    if (nLocks == capacity) {
      overflow();
      return;
    }
    lockIdx[nLocks] = lock;
    lockVer[nLocks] = version;
    lockWritten[nLocks] = written;
    nLocks++;
  }

  void abort(Counter c) {
    status = Status.ABORTED;
    cause = c;
    onEnd();
  }

  void overflow() {
    status = Status.OVERFLOW;
    onEnd();
  }

  /** A spin on a lock held by another worker: its holder may be a worker waiting for a core. */
  static void waitTurn(int tries) {
    if ((tries & 15) == 15) {
      Thread.yield();
    } else {
      Thread.onSpinWait();
    }
  }
}
