package io.gstm.core.jvm;

import io.gstm.core.batch.Counter;

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
 * <p>Abort causes: read-locked (a read met a locked word), lock busy (a write lock stayed busy at
 * commit), validation (a read changed in value).
 */
final class JvmGpuStmTx extends JvmLockTableTx {
  /** Tries on a busy write lock at commit before the attempt gives up (no unbounded waits). */
  static final int ACQUIRE_TRIES = 256;
  /** Collects of the read versions before validation gives up. */
  static final int COLLECTS = 4;

  /** Per slot: the version held (written) or validated (read only) at commit. */
  private final int[] seenVer;
  private final ReadLog reads;

  JvmGpuStmTx(JvmTxStore store, int capacity) {
    super(store, capacity);
    this.seenVer = new int[capacity];
    this.reads = new ReadLog(capacity);
  }

  @Override
  void onBegin() {
    reads.clear();
  }

  @Override
  long readUnbuffered(int region, int index) {
    int logged = reads.find(region, index);
    if (logged >= 0) {
      return reads.value(logged); // repeatable: the value validation will check
    }
    int lock = layout.lockOf(region, index);
    long w = locks.get(lock);
    long value = store.data[region].get(index);
    if (LockWord.locked(w) || locks.get(lock) != w) {
      abort(Counter.ABORT_READ_LOCKED); // a writer was between its lock and its release
      return 0;
    }
    if (reads.full()) {
      overflow();
      return 0;
    }
    track(lock, LockWord.version(w), false);
    if (status != Status.ACTIVE) {
      return 0;
    }
    reads.add(region, index, lock, value);
    return value;
  }

  @Override
  boolean trackNewWrite(int lock) {
    long w = locks.get(lock);
    if (LockWord.locked(w)) {
      abort(Counter.ABORT_READ_LOCKED);
      return false;
    }
    track(lock, LockWord.version(w), true);
    return status == Status.ACTIVE;
  }

  @Override
  public boolean confirmReads() {
    return validOrAbort(validate(false));
  }

  @Override
  boolean commitUpdate() {
    // Write locks in ascending lock order: no cycle of waits.
    for (int s = 0; s < nLocks; s++) {
      if (lockWritten[s] && !acquire(s)) {
        return releaseAndAbort(s, seenVer, Counter.ABORT_LOCK_BUSY);
      }
    }
    if (!validate(true)) {
      return releaseAndAbort(nLocks, seenVer, Counter.ABORT_VALIDATION);
    }
    writeBackAndRelease(seenVer);
    return done();
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
      } else {
        waitTurn(tries);
      }
    }
    return false;
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
    return reads.valuesHold(lockIdx[s], store.data);
  }

  /**
   * Reads at the versions validation saw (the serial order's), writes at the version after the
   * one held; a slot only written is recorded as read at the version held, as PR-STM does.
   */
  @Override
  int recordedVersion(int s) {
    return seenVer[s];
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
}
