package io.gstm.core.jvm;

import java.util.concurrent.atomic.AtomicIntegerArray;
import java.util.concurrent.atomic.AtomicLongArray;

/**
 * The public transaction descriptors of the obstruction-free STM ({@link JvmObstructionFreeTx}),
 * one per worker of a batch (a worker runs one attempt at a time). A committing attempt
 * announces here the locks it writes, with the versions it read them at, and the values it will
 * write; others read them to decide what a lock it holds stands for, to abort it, or to steal a
 * lock from it by writing those values back.
 *
 * <p>A status word per descriptor: the attempt's sequence number above two state bits. A lock
 * word held by an attempt carries the low 32 bits of that number (its tag) in place of the
 * version, and the descriptor's id as its owner, so a lock word names one attempt and a stale
 * word of an earlier attempt can never be mistaken for a later one's. The announcement of an
 * attempt is written while its status says PREPARING and read only by whoever finds a lock word
 * with its tag; a reader checks that the status did not change around what it read.
 */
final class OfDescriptors {
  /** Announcing: no lock word carries the attempt's tag yet. */
  static final int PREPARING = 0;
  /** Taking its locks and validating: not decided, nothing written; others may abort it. */
  static final int ACQUIRING = 1;
  /** Decided: every lock it writes is held and stands for the announced values. */
  static final int COMMITTED = 2;
  /** Aborted (by itself or another): the locks it still holds stand for the versions read. */
  static final int ABORTED = 3;

  private final int capacity;
  private final AtomicLongArray status;
  /** The attempt's priority ({@link Priority}: lower wins), for the contention manager. */
  private final AtomicIntegerArray owner;
  private final AtomicIntegerArray lockCount;
  private final AtomicIntegerArray lockIdx;
  private final AtomicIntegerArray lockVer;
  private final AtomicIntegerArray writeCount;
  private final AtomicIntegerArray wRegion;
  private final AtomicIntegerArray wIndex;
  private final AtomicIntegerArray wLock;
  private final AtomicLongArray wValue;

  /** Descriptors for {@code count} workers whose sets hold at most {@code capacity} entries. */
  OfDescriptors(int count, int capacity) {
    this.capacity = capacity;
    this.status = new AtomicLongArray(count);
    this.owner = new AtomicIntegerArray(count);
    this.lockCount = new AtomicIntegerArray(count);
    this.lockIdx = new AtomicIntegerArray(count * capacity);
    this.lockVer = new AtomicIntegerArray(count * capacity);
    this.writeCount = new AtomicIntegerArray(count);
    this.wRegion = new AtomicIntegerArray(count * capacity);
    this.wIndex = new AtomicIntegerArray(count * capacity);
    this.wLock = new AtomicIntegerArray(count * capacity);
    this.wValue = new AtomicLongArray(count * capacity);
  }

  static long word(long seq, int state) {
    return seq << 2 | state;
  }

  static int state(long status) {
    return (int) status & 3;
  }

  /** The attempt's tag, as the lock words it holds carry it. */
  static int tag(long status) {
    return (int) (status >>> 2);
  }

  /** {@code status} with its state replaced. */
  static long withState(long status, int state) {
    return (status & ~3L) | state;
  }

  long status(int d) {
    return status.get(d);
  }

  boolean casStatus(int d, long from, long to) {
    return status.compareAndSet(d, from, to);
  }

  /** Opens attempt {@code seq} of {@code d}, of priority {@code owner}: PREPARING until published. */
  void prepare(int d, long seq, int owner) {
    status.set(d, word(seq, PREPARING));
    this.owner.set(d, owner);
    lockCount.set(d, 0);
    writeCount.set(d, 0);
  }

  /** Announces that {@code d}'s attempt writes under {@code lock}, read at {@code version}. */
  void addLock(int d, int lock, int version) {
    int i = lockCount.get(d);
    lockIdx.set(d * capacity + i, lock);
    lockVer.set(d * capacity + i, version);
    lockCount.set(d, i + 1);
  }

  /** Announces a value {@code d}'s attempt will write to word {@code index} of {@code region}. */
  void addWrite(int d, int region, int index, int lock, long value) {
    int i = writeCount.get(d);
    wRegion.set(d * capacity + i, region);
    wIndex.set(d * capacity + i, index);
    wLock.set(d * capacity + i, lock);
    wValue.set(d * capacity + i, value);
    writeCount.set(d, i + 1);
  }

  /** Ends the announcement of attempt {@code seq}: ACQUIRING; returns that status. */
  long publish(int d, long seq) {
    long s = word(seq, ACQUIRING);
    status.set(d, s);
    return s;
  }

  /** The priority of {@code d}'s attempt (the caller checks that its status did not change). */
  int owner(int d) {
    return owner.get(d);
  }

  /** The version {@code d}'s attempt read {@code lock} at, or -1 if it announced no such lock. */
  long versionOf(int d, int lock) {
    int n = lockCount.get(d);
    for (int i = 0; i < n; i++) {
      if (lockIdx.get(d * capacity + i) == lock) {
        return lockVer.get(d * capacity + i) & 0xffffffffL;
      }
    }
    return -1;
  }

  /** Copies {@code d}'s announced writes under {@code lock} into the arrays; returns how many. */
  int writesUnder(int d, int lock, int[] region, int[] index, long[] value) {
    int n = writeCount.get(d);
    int found = 0;
    for (int i = 0; i < n && found < region.length; i++) {
      if (wLock.get(d * capacity + i) == lock) {
        region[found] = wRegion.get(d * capacity + i);
        index[found] = wIndex.get(d * capacity + i);
        value[found] = wValue.get(d * capacity + i);
        found++;
      }
    }
    return found;
  }

  /**
   * After a failed batch (every worker stopped): each lock word still held by an attempt is put
   * back to the version that attempt read, so that the store's own restore finds versions only.
   */
  void releaseAll(AtomicLongArray locks) {
    for (int d = 0; d < status.length(); d++) {
      long s = status.get(d);
      if (state(s) == PREPARING) {
        continue;
      }
      long held = LockWord.lockedBy(tag(s), d);
      for (int i = 0; i < lockCount.get(d); i++) {
        int lock = lockIdx.get(d * capacity + i);
        locks.compareAndSet(lock, held, LockWord.unlocked(lockVer.get(d * capacity + i)));
      }
    }
  }
}
