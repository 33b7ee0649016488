package io.gstm.core.jvm;

import io.gstm.core.batch.Counter;
import io.gstm.core.store.Backoff;

/**
 * What Cederman's two STMs ({@link JvmBlockingTx}, {@link JvmObstructionFreeTx}) share over the
 * lock table: a read takes the word at the version its lock stands for and logs it (the paper's
 * local copy: a second read returns it), a blind write takes the lock's version as a read would,
 * and an abort is followed by the algorithm's {@link Backoff}. A subclass says what a lock stands
 * for ({@link #settle}) and how it commits.
 */
abstract class JvmCedermanTx extends JvmLockTableTx {
  private final ReadLog reads;
  private final Backoff backoff;
  /** The value {@link #settle} read with the version it returned. */
  long settledValue;

  JvmCedermanTx(JvmTxStore store, int capacity) {
    super(store, capacity);
    this.reads = new ReadLog(capacity);
    this.backoff = store.algorithm().backoff();
  }

  @Override
  void onBegin() {
    reads.clear();
  }

  @Override
  public long backoffNanos(int abortsInARow) {
    return backoff.delayNanos(abortsInARow);
  }

  /**
   * The version {@code lock} stands for now, reading word {@code index} of {@code region} at that
   * version into {@link #settledValue} (when region >= 0); -1 when the algorithm's bounded tries
   * ran out.
   */
  abstract long settle(int lock, int region, int index);

  /**
   * Reads the word into {@link #settledValue} under lock word {@code w}, unlocked as the caller
   * saw it: its version, or -1 if the lock moved meanwhile (then the value may be torn).
   */
  final long snapshot(int lock, long w, int region, int index) {
    settledValue = region < 0 ? 0 : store.data[region].get(index);
    return locks.get(lock) == w ? LockWord.version(w) & 0xffffffffL : -1;
  }

  @Override
  final long readUnbuffered(int region, int index) {
    int logged = reads.find(region, index);
    if (logged >= 0) {
      return reads.value(logged);
    }
    if (reads.full()) {
      overflow();
      return 0;
    }
    int lock = layout.lockOf(region, index);
    long version = settle(lock, region, index);
    if (version < 0) {
      abort(Counter.ABORT_READ_LOCKED);
      return 0;
    }
    join(lock, (int) version, false);
    if (status == Status.ACTIVE) {
      reads.add(region, index, lock, settledValue);
    }
    return settledValue;
  }

  @Override
  final boolean trackNewWrite(int lock) {
    long version = settle(lock, -1, 0);
    if (version < 0) {
      abort(Counter.ABORT_READ_LOCKED);
      return false;
    }
    join(lock, (int) version, true);
    return status == Status.ACTIVE;
  }
}
