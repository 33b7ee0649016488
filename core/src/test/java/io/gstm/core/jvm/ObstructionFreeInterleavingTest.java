package io.gstm.core.jvm;

import static org.assertj.core.api.Assertions.assertThat;

import io.gstm.core.batch.Counter;
import io.gstm.core.store.Algorithm;
import org.junit.jupiter.api.Test;

/**
 * Hand-made interleavings of Cederman's obstruction-free STM on the JVM engine: a commit stopped
 * between its phases stands for a holder that is descheduled there.
 */
class ObstructionFreeInterleavingTest {
  private final OfDescriptors descriptors = new OfDescriptors(4, 4);
  /** The store of two words, a lock each, that every hand-made interleaving runs on. */
  private final JvmTxStore s = store(2);

  private static JvmTxStore store(int words) {
    return Interleavings.store(Algorithm.obstructionFree(), words, 1);
  }

  private JvmObstructionFreeTx tx(int worker) {
    return Interleavings.begun(new JvmObstructionFreeTx(s, 4, descriptors, worker), worker);
  }

  /** The phases between taking the locks and writing back: validation and the commit point. */
  private static boolean decides(JvmObstructionFreeTx t) {
    return t.validate() && t.decide();
  }

  /** A stalled holder resumes: its validation finds that another transaction aborted it. */
  private static void assertKilledWhenItResumes(JvmObstructionFreeTx holder) {
    assertThat(decides(holder)).isFalse();
    assertThat(holder.abortCause()).isEqualTo(Counter.ABORT_KILLED);
  }

  private static long stolen(JvmTx t) {
    long[] counters = new long[Counter.COUNT];
    t.addCounts(counters);
    return counters[Counter.LOCKS_STOLEN.ordinal()];
  }

  @Test
  void aCommitterAbortsAHolderStillAcquiringAndCommits() {
    JvmObstructionFreeTx a = tx(0);
    a.write(0, 0, a.read(0, 0) + 1);
    assertThat(a.lockAll()).isTrue(); // a holds word 0 and stalls
    JvmObstructionFreeTx b = tx(1);
    assertThat(b.read(0, 0)).as("read through an undecided holder").isEqualTo(0);
    b.write(0, 0, 5);
    assertThat(b.commit()).isTrue();
    assertKilledWhenItResumes(a);
    assertThat(s.readInt32(0)).containsExactly(5, 0);
    assertThat(s.lockVersions()).containsExactly(1, 0);
  }

  @Test
  void aReadOnlyTransactionReadsThroughAnUndecidedHolderAndItsValidationAbortsIt() {
    JvmObstructionFreeTx a = tx(0);
    a.write(0, 0, 7);
    assertThat(a.lockAll()).isTrue();
    JvmObstructionFreeTx r = tx(1);
    assertThat(r.read(0, 0)).as("read through").isEqualTo(0);
    assertThat(r.commit()).as("serialized before a, which it aborted").isTrue();
    assertKilledWhenItResumes(a);
    assertThat(s.readInt32(0)).containsExactly(0, 0);
  }

  /**
   * Found by the soak: T reads x and holds y, validated; U commits x; R reads U's x and, through
   * T, the old y. Had R committed while T was undecided, and T then committed, no serial order
   * would exist (T before U before R before T). R's validation aborts T instead.
   */
  @Test
  void aReaderOfAnUndecidedHoldersOldValuesNeverCommitsBesideIt() {
    // Word 0 is x, word 1 is y.
    JvmObstructionFreeTx t = tx(0);
    t.write(0, 1, t.read(0, 0) + 1);
    assertThat(t.lockAll()).isTrue();
    assertThat(t.validate()).isTrue(); // x still at the version read; t stalls before deciding
    JvmObstructionFreeTx u = tx(1);
    u.write(0, 0, 5);
    assertThat(u.commit()).isTrue();
    JvmObstructionFreeTx r = tx(2);
    assertThat(r.read(0, 0)).isEqualTo(5);
    assertThat(r.read(0, 1)).as("y through t").isEqualTo(0);
    boolean readerCommitted = r.commit();
    boolean holderCommitted = t.decide();
    assertThat(readerCommitted && holderCommitted).as("both: a cycle").isFalse();
    assertThat(readerCommitted).isTrue();
    assertThat(t.abortCause()).isEqualTo(Counter.ABORT_KILLED);
  }

  @Test
  void aCommittedHoldersLocksAreStolenWithItsAnnouncedValues() {
    JvmObstructionFreeTx a = tx(0);
    a.write(0, 0, 7);
    a.write(0, 1, 8);
    assertThat(a.lockAll()).isTrue();
    assertThat(decides(a)).isTrue(); // committed, not written back: a stalls here
    JvmObstructionFreeTx b = tx(1);
    assertThat(b.read(0, 0)).as("a's announced value").isEqualTo(7);
    assertThat(stolen(b)).isEqualTo(1);
    b.write(0, 0, 9);
    assertThat(b.commit()).isTrue();
    assertThat(a.finish()).isTrue(); // a's late write-back skips the stolen lock
    assertThat(s.readInt32(0)).as("no late store over b's commit").containsExactly(9, 8);
    assertThat(s.lockVersions()).containsExactly(2, 1);
  }

  @Test
  void aCommitterStealsWhatItNeedsAndFindsItsReadStale() {
    JvmObstructionFreeTx b = tx(1);
    long x = b.read(0, 0); // version 0
    JvmObstructionFreeTx a = tx(0);
    a.write(0, 0, 7);
    assertThat(a.lockAll()).isTrue();
    assertThat(decides(a)).isTrue();
    b.write(0, 0, x + 1);
    assertThat(b.commit()).isFalse();
    assertThat(b.abortCause()).isEqualTo(Counter.ABORT_VALIDATION);
    assertThat(stolen(b)).as("b wrote a's value back on the way").isEqualTo(1);
    assertThat(s.readInt32(0)).containsExactly(7, 0);
    a.finish();
    assertThat(s.readInt32(0)).containsExactly(7, 0);
    assertThat(s.lockVersions()).containsExactly(1, 0);
  }

  @Test
  void writeSkewIsPreventedWhenBothHoldTheirLocks() {
    JvmObstructionFreeTx a = tx(0);
    JvmObstructionFreeTx b = tx(1);
    Interleavings.crossWrites(a, b);
    assertThat(a.lockAll()).isTrue();
    assertThat(b.lockAll()).isTrue();
    assertThat(decides(a)).as("a aborts b, whose lock covers what a read").isTrue();
    assertThat(b.validate()).isFalse();
    assertThat(a.finish()).isTrue();
    assertThat(s.readInt32(0)).containsExactly(0, 1);
  }

  @Test
  void aWriteBackInProgressIsWaitedForABoundedTime() {
    s.locks.set(0, LockWord.preLockedBy(0, 3)); // a thread stalled amid its stores
    JvmObstructionFreeTx a = tx(0);
    a.read(0, 0);
    assertThat(a.status()).isEqualTo(JvmTx.Status.ABORTED);
    assertThat(a.abortCause()).isEqualTo(Counter.ABORT_READ_LOCKED);
    JvmObstructionFreeTx b = tx(1);
    s.locks.set(0, LockWord.unlocked(0));
    b.write(0, 0, 1);
    s.locks.set(0, LockWord.preLockedBy(0, 3));
    assertThat(b.commit()).isFalse();
    assertThat(b.abortCause()).isEqualTo(Counter.ABORT_LOCK_BUSY);
    assertThat(s.locks.get(0)).isEqualTo(LockWord.preLockedBy(0, 3));
  }

  @Test
  void anAbortedHoldersLockIsReleasedForIt() {
    JvmObstructionFreeTx a = tx(0);
    a.write(0, 0, 7);
    assertThat(a.lockAll()).isTrue();
    JvmObstructionFreeTx c = tx(2);
    c.write(0, 1, 1);
    c.read(0, 0);
    assertThat(c.commit()).as("c aborts a, whose lock covers what c read").isTrue();
    // a, descheduled, never learns it was aborted: its lock is released by whoever needs it.
    JvmObstructionFreeTx b = tx(1);
    b.write(0, 0, 3);
    assertThat(b.commit()).isTrue();
    assertThat(s.readInt32(0)).containsExactly(3, 1);
    assertKilledWhenItResumes(a);
    assertThat(s.readInt32(0)).containsExactly(3, 1);
  }

  @Test
  void aFailedBatchPutsHeldLocksBackToTheirVersions() {
    JvmObstructionFreeTx a = tx(0);
    a.write(0, 1, 4);
    assertThat(a.lockAll()).isTrue();
    assertThat(LockWord.locked(s.locks.get(1))).isTrue();
    descriptors.releaseAll(s.locks);
    assertThat(s.locks.get(1)).isEqualTo(LockWord.unlocked(0));
  }

  /** Transfers in both orders and audits on more threads than cores: the invariant holds. */
  @Test
  void concurrentTransfersAndAuditsKeepTheInvariant() throws InterruptedException {
    JvmTxStore four = store(4);
    OfDescriptors shared = new OfDescriptors(6, 4);
    TransferHammer.run(four, 6, 20_000, id -> new JvmObstructionFreeTx(four, 4, shared, id));
  }

  /**
   * The same with committers that yield between their phases, so that others often meet their
   * locks while they acquire (and abort them) or after they decided (and steal): the invariant
   * holds, and both happened.
   */
  @Test
  void committersStalledBetweenPhasesAreAbortedOrRobbedAndTheInvariantHolds()
      throws InterruptedException {
    JvmTxStore four = store(4);
    OfDescriptors shared = new OfDescriptors(6, 4);
    JvmObstructionFreeTx[] txs = new JvmObstructionFreeTx[6];
    java.util.concurrent.atomic.AtomicLong kills = new java.util.concurrent.atomic.AtomicLong();
    TransferHammer.run(four, 6, 1_000, id -> {
      txs[id] = new JvmObstructionFreeTx(four, 4, shared, id);
      txs[id].betweenPhases(Thread::yield);
      return new Counting(txs[id], kills);
    });
    long stolen = 0;
    for (JvmObstructionFreeTx t : txs) {
      stolen += stolen(t);
    }
    assertThat(kills.get()).isPositive();
    assertThat(stolen).isPositive();
  }

  /** Counts the commits that failed because another transaction aborted them. */
  private record Counting(JvmObstructionFreeTx t, java.util.concurrent.atomic.AtomicLong kills)
      implements JvmTx {
    @Override
    public boolean commit() {
      boolean ok = t.commit();
      if (!ok && t.abortCause() == Counter.ABORT_KILLED) {
        kills.incrementAndGet();
      }
      return ok;
    }

    @Override
    public void begin(int owner) {
      t.begin(owner);
    }

    @Override
    public Status status() {
      return t.status();
    }

    @Override
    public Counter abortCause() {
      return t.abortCause();
    }

    @Override
    public boolean readOnly() {
      return t.readOnly();
    }

    @Override
    public io.gstm.core.batch.Outcome endOutcome() {
      return t.endOutcome();
    }

    @Override
    public boolean confirmReads() {
      return t.confirmReads();
    }

    @Override
    public int record(long[] reads, int readOffset, long[] writes, int writeOffset) {
      return t.record(reads, readOffset, writes, writeOffset);
    }

    @Override
    public long read(int region, int index) {
      return t.read(region, index);
    }

    @Override
    public void write(int region, int index, long bits) {
      t.write(region, index, bits);
    }

    @Override
    public long readShared(int region, int index) {
      return t.readShared(region, index);
    }

    @Override
    public void semanticConflict() {
      t.semanticConflict();
    }

    @Override
    public void end(io.gstm.core.batch.Outcome outcome) {
      t.end(outcome);
    }
  }
}
