package io.gstm.core.jvm;

import io.gstm.core.batch.Counter;

/**
 * Cederman, Tsigas and Chaudhry's obstruction-free STM (after Harris and Fraser) on Java threads,
 * over PR-STM's lock table: an object is the words one lock covers. Design, mapping and the
 * argument for its correctness: {@code docs/cederman-stm.md}.
 *
 * <p>Reads and writes are those of the blocking STM (a logged snapshot per word, buffered
 * writes), except that nobody waits for a lock's holder. Commit announces in the worker's public
 * descriptor ({@link OfDescriptors}) the locks it writes with the versions read and the values it
 * will write, then takes those locks by CAS, each word carrying the attempt's tag. A lock held by
 * another attempt stands for what that attempt's state says:
 *
 * <ul>
 *   <li>still acquiring (or aborted): the version its holder read, and the words in the store;
 *       a reader reads through it, but a validation never accepts it while its holder is still
 *       acquiring. A committer that needs the lock, or whose read it is, aborts the holder ("the conflicting transaction may abort the original transaction before
 *       attempting to acquire its own locks") and then releases it for it: at once if it
 *       outranks the holder (a lower priority, as PR-STM's rule), else after waiting
 *       {@link #PATIENCE} rounds for the holder to decide (a holder that stays undecided looks
 *       stalled), so that on thousands of threads the holders of a hot lock do not abort each
 *       other round after round;
 *   <li>committed: the version after, with the announced values. Whoever meets it steals it by
 *       writing those values back and releasing it at the version after ("the conflicting
 *       transaction can steal locks from it, using the new value that is to be written").
 * </ul>
 *
 * <p>The CAS that starts a write-back (held to written-back-by) makes one thread the only writer
 * of the lock's words for that commit, whether the owner or a thief; a stalled owner that later
 * finds its lock taken skips it, so a late store can never overwrite a newer commit. Only a
 * write-back in progress (a few stores) is waited for, a bounded number of tries. An update
 * attempt commits by the CAS of its status from acquiring to committed, after its reads proved
 * current; that CAS fails if another aborted it meanwhile.
 */
final class JvmObstructionFreeTx extends JvmCedermanTx {
  /** Rounds spent settling one lock (a write-back in progress, a holder moving) before giving up. */
  static final int RESOLVE_TRIES = 256;
  /**
   * Rounds a committer waits for an undecided holder that outranks it before it aborts the
   * holder anyway (one that stays undecided this long looks stalled: a JVM thread can be
   * descheduled). The GPU twin has no such rule: a GPU thread is never descheduled, and on
   * thousands of threads the rule aborted every holder of a hot lock (docs/cederman-stm.md).
   */
  static final int PATIENCE = 64;

  private final OfDescriptors descriptors;
  /** This worker's descriptor, the owner its lock words carry. */
  private final int self;
  // What a steal copies from the victim's announcement before it writes it back.
  private final int[] stealRegion;
  private final int[] stealIndex;
  private final long[] stealValue;
  /** Announced attempts of this descriptor; the low 32 bits tag its lock words. */
  private long seq;
  /** The current update attempt's status while it commits (ACQUIRING, as announced). */
  private long mine;
  private Runnable betweenPhases = () -> { };
  /** Locks stolen from other attempts since the executor last took the count. */
  private long stolen;

  JvmObstructionFreeTx(JvmTxStore store, int capacity, OfDescriptors descriptors, int self) {
    super(store, capacity);
    this.descriptors = descriptors;
    this.self = self;
    this.stealRegion = new int[capacity];
    this.stealIndex = new int[capacity];
    this.stealValue = new long[capacity];
  }

  @Override
  public void addCounts(long[] counters) {
    counters[Counter.LOCKS_STOLEN.ordinal()] += stolen;
    stolen = 0;
  }

  /**
   * {@inheritDoc} Gives up after {@link #RESOLVE_TRIES}. A lock held by a committed attempt is
   * stolen first; one held by an undecided or aborted attempt is read through (its holder has
   * written nothing).
   */
  @Override
  long settle(int lock, int region, int index) {
    for (int tries = 0; tries < RESOLVE_TRIES; tries++) {
      long w = locks.get(lock);
      if (LockWord.preLocked(w)) {
        waitTurn(tries); // a write-back in progress: a few stores
        continue;
      }
      if (!LockWord.locked(w)) {
        long version = snapshot(lock, w, region, index);
        if (version >= 0) {
          return version;
        }
        continue;
      }
      int holder = LockWord.owner(w);
      long s = descriptors.status(holder);
      if (OfDescriptors.tag(s) != LockWord.version(w)) {
        continue; // the word or the holder's attempt moved on: look again
      }
      if (OfDescriptors.state(s) == OfDescriptors.COMMITTED) {
        steal(lock, w, holder, s);
        continue;
      }
      long v = descriptors.versionOf(holder, lock);
      settledValue = region < 0 ? 0 : store.data[region].get(index);
      // Unchanged status and word: the holder had not decided, so it had written nothing.
      if (v >= 0 && descriptors.status(holder) == s && locks.get(lock) == w) {
        return v;
      }
    }
    return -1;
  }

  /**
   * Takes {@code lock} (held as {@code w} by committed attempt {@code s} of {@code holder}) by
   * writing back the values it announced for the lock and releasing it at the version after.
   * Nothing happens if the holder moved on or another thread writes the lock back first.
   */
  private void steal(int lock, long w, int holder, long s) {
    long v = descriptors.versionOf(holder, lock);
    int n = descriptors.writesUnder(holder, lock, stealRegion, stealIndex, stealValue);
    if (v < 0 || descriptors.status(holder) != s) {
      return; // what we copied may be a later attempt's
    }
    if (!locks.compareAndSet(lock, w, LockWord.preLockedBy((int) v, self))) {
      return;
    }
    for (int i = 0; i < n; i++) {
      store.beforeWrite(stealRegion[i]); // the batch's failure snapshot, once per region
      store.data[stealRegion[i]].set(stealIndex[i], stealValue[i]);
    }
    locks.set(lock, LockWord.unlocked((int) v + 1));
    stolen++;
  }

  @Override
  public boolean confirmReads() {
    return validOrAbort(readsCurrent(false));
  }

  @Override
  boolean commitUpdate() {
    if (!lockAll()) {
      return false;
    }
    betweenPhases.run();
    if (!validate()) {
      return false;
    }
    betweenPhases.run();
    if (!decide()) {
      return false;
    }
    betweenPhases.run();
    return finish();
  }

  /** Tests stall a committer between its phases, as a preempted or slow holder would. */
  void betweenPhases(Runnable r) {
    betweenPhases = r;
  }

  /**
   * The first phase of an update's commit: announces the attempt and takes its write locks;
   * false (aborted, locks released) if one cannot be had.
   */
  boolean lockAll() {
    mine = announce();
    for (int s = 0; s < nLocks; s++) {
      if (lockWritten[s]) {
        Counter failed = acquire(s, mine);
        if (failed != null) {
          return giveUp(failed);
        }
      }
    }
    return true;
  }

  /** The second phase: what was only read is still current (else aborted, locks released). */
  boolean validate() {
    return readsCurrent(true) || giveUp(Counter.ABORT_VALIDATION);
  }

  /** The commit point: the CAS of the status to COMMITTED, which fails if another aborted us. */
  boolean decide() {
    if (!descriptors.casStatus(self, mine,
        OfDescriptors.withState(mine, OfDescriptors.COMMITTED))) {
      return giveUp(Counter.ABORT_KILLED);
    }
    return true;
  }

  /** Writes back every lock of this committed attempt that nobody stole. */
  boolean finish() {
    long held = LockWord.lockedBy(OfDescriptors.tag(mine), self);
    for (int s = 0; s < nLocks; s++) {
      if (!lockWritten[s]
          || !locks.compareAndSet(lockIdx[s], held, LockWord.preLockedBy(lockVer[s], self))) {
        continue; // stolen: a thief wrote our values back
      }
      for (int i = 0; i < nWrites; i++) {
        if (layout.lockOf(wRegion[i], wIndex[i]) == lockIdx[s]) {
          store.beforeWrite(wRegion[i]);
          store.data[wRegion[i]].set(wIndex[i], wValue[i]);
        }
      }
      locks.set(lockIdx[s], LockWord.unlocked(lockVer[s] + 1));
    }
    return done();
  }

  /** Announces this attempt's written locks and values; returns its ACQUIRING status. */
  private long announce() {
    seq++;
    descriptors.prepare(self, seq, owner);
    for (int s = 0; s < nLocks; s++) {
      if (lockWritten[s]) {
        descriptors.addLock(self, lockIdx[s], lockVer[s]);
      }
    }
    for (int s = 0; s < nWrites; s++) {
      descriptors.addWrite(self, wRegion[s], wIndex[s], layout.lockOf(wRegion[s], wIndex[s]),
          wValue[s]);
    }
    return descriptors.publish(self, seq);
  }

  /**
   * Takes written slot {@code s}'s lock, free at the version read; null, or why not. A holder
   * still acquiring is aborted and its lock released for it, a committed one's is stolen.
   */
  private Counter acquire(int s, long mine) {
    int lock = lockIdx[s];
    long held = LockWord.lockedBy(OfDescriptors.tag(mine), self);
    for (int tries = 0; tries < RESOLVE_TRIES; tries++) {
      if (descriptors.status(self) != mine) {
        return Counter.ABORT_KILLED;
      }
      long w = locks.get(lock);
      if (LockWord.preLocked(w)) {
        waitTurn(tries);
        continue;
      }
      if (!LockWord.locked(w)) {
        if (LockWord.version(w) != lockVer[s]) {
          return Counter.ABORT_VALIDATION;
        }
        if (locks.compareAndSet(lock, w, held)) {
          return null;
        }
        continue;
      }
      if (!resolve(lock, w, tries >= PATIENCE)) {
        waitTurn(tries); // an undecided holder that outranks us: let it decide
      }
    }
    return Counter.ABORT_LOCK_BUSY;
  }

  /**
   * One step towards freeing {@code lock}, held as {@code w} by another attempt: abort it if it
   * is still acquiring and we outrank it (or {@code force}: it kept us waiting past our
   * patience), release its lock if it aborted, steal it if it committed. False when it left an
   * undecided holder that outranks us alone (the caller waits a little).
   */
  private boolean resolve(int lock, long w, boolean force) {
    int holder = LockWord.owner(w);
    long s = descriptors.status(holder);
    if (OfDescriptors.tag(s) != LockWord.version(w)) {
      return true;
    }
    switch (OfDescriptors.state(s)) {
      case OfDescriptors.ACQUIRING -> {
        int rank = descriptors.owner(holder);
        if (descriptors.status(holder) != s || !(force || rank > owner)) {
          return false;
        }
        descriptors.casStatus(holder, s, OfDescriptors.withState(s, OfDescriptors.ABORTED));
      }
      case OfDescriptors.ABORTED -> {
        long v = descriptors.versionOf(holder, lock);
        if (v >= 0 && descriptors.status(holder) == s) {
          locks.compareAndSet(lock, w, LockWord.unlocked((int) v));
        }
      }
      case OfDescriptors.COMMITTED -> steal(lock, w, holder, s);
      default -> { }
    }
    return true;
  }

  /**
   * Every lock only read still stands for the version read (and the range, if any, is
   * unchanged). A lock held by an attempt that committed, or being written back, has moved past
   * it. A lock held by an attempt still acquiring is not accepted as it stands: that attempt is
   * aborted first (as a committer aborts a holder, {@link #resolve}). A holder may decide long
   * after this validation; had a reader of its old values committed meanwhile, a third
   * transaction could order them in a cycle (found by the soak: T read x and holds y; U commits
   * x; R reads U's x and T's old y and commits; T commits). With {@code updating} this attempt
   * holds its write locks and stops when another aborted it.
   */
  private boolean readsCurrent(boolean updating) {
    for (int s = 0; s < nLocks; s++) {
      if (lockWritten[s]) {
        continue;
      }
      long version = -1;
      for (int tries = 0; tries < RESOLVE_TRIES && version < 0; tries++) {
        long w = locks.get(lockIdx[s]);
        if (LockWord.preLocked(w)) {
          return false;
        }
        if (!LockWord.locked(w)) {
          version = LockWord.version(w) & 0xffffffffL;
          break;
        }
        int holder = LockWord.owner(w);
        long st = descriptors.status(holder);
        if (OfDescriptors.tag(st) != LockWord.version(w)) {
          continue;
        }
        int state = OfDescriptors.state(st);
        if (state == OfDescriptors.COMMITTED) {
          return false;
        }
        if (state == OfDescriptors.ACQUIRING) {
          if (updating && descriptors.status(self) != mine) {
            return false; // aborted by another meanwhile
          }
          if (!resolve(lockIdx[s], w, tries >= PATIENCE)) {
            waitTurn(tries);
          }
          continue;
        }
        long v = descriptors.versionOf(holder, lockIdx[s]);
        if (v >= 0 && descriptors.status(holder) == st && locks.get(lockIdx[s]) == w) {
          version = v;
        }
      }
      if (version != (lockVer[s] & 0xffffffffL)) {
        return false;
      }
    }
    return rangeUnchanged();
  }

  /** Aborts this update attempt: marks it aborted, then releases the locks it still holds. */
  private boolean giveUp(Counter cause) {
    boolean killed = !descriptors.casStatus(self, mine,
        OfDescriptors.withState(mine, OfDescriptors.ABORTED));
    long held = LockWord.lockedBy(OfDescriptors.tag(mine), self);
    for (int s = 0; s < nLocks; s++) {
      if (lockWritten[s]) {
        locks.compareAndSet(lockIdx[s], held, LockWord.unlocked(lockVer[s]));
      }
    }
    abort(killed ? Counter.ABORT_KILLED : cause);
    return false;
  }
}
