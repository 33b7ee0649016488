package io.gstm.core.jvm;

import static org.assertj.core.api.Assertions.assertThat;

import io.gstm.core.batch.Counter;
import io.gstm.core.store.Algorithm;
import org.junit.jupiter.api.Test;

/**
 * Hand-made interleavings of two PR-STM transactions on the JVM twin (those it ends as the
 * blocking STM does: {@link LockTableInterleavingTest}).
 */
class PrStmInterleavingTest {
  private static JvmTxStore store(int words, int coverage) {
    return Interleavings.store(Algorithm.prStm(), words, coverage);
  }

  /** A transaction of thread {@code owner}, begun; sets of two locks. */
  private static JvmPrStmTx tx(JvmTxStore s, int owner) {
    return Interleavings.begun(new JvmPrStmTx(s, 2), owner);
  }

  @Test
  void readOfALockedWordAborts() {
    JvmTxStore s = store(2, 1);
    s.locks.set(0, LockWord.lockedBy(0, 3));
    JvmPrStmTx a = tx(s, 0);
    a.read(0, 0);
    assertThat(a.commit()).isFalse();
    assertThat(a.abortCause()).isEqualTo(Counter.ABORT_READ_LOCKED);
  }

  @Test
  void higherPriorityStealsAPreLockAndLowerPriorityIsRefused() {
    JvmTxStore s = store(2, 1);
    // Thread 7 holds a pre-lock on word 0: thread 3 (higher priority) steals it ...
    s.locks.set(0, LockWord.preLockedBy(0, Priority.ordinary(7)));
    JvmPrStmTx high = tx(s, 3);
    high.write(0, 0, 1);
    assertThat(high.commit()).isTrue();
    // ... while thread 9 (lower priority) is refused by thread 7's pre-lock.
    s.locks.set(1, LockWord.preLockedBy(0, Priority.ordinary(7)));
    JvmPrStmTx low = tx(s, 9);
    low.write(0, 1, 1);
    assertThat(low.commit()).isFalse();
    assertThat(low.abortCause()).isEqualTo(Counter.ABORT_PRELOCK_REFUSED);
    assertThat(s.readInt32(0)).containsExactly(1, 0);
  }

  @Test
  void wordsUnderOneLockShareItsVersion() {
    JvmTxStore s = store(4, 4);
    JvmPrStmTx a = tx(s, 0);
    a.write(0, 0, a.read(0, 0) + 1);
    a.write(0, 3, a.read(0, 3) + 1);
    assertThat(a.commit()).isTrue();
    assertThat(s.lockVersions()).containsExactly(1);
    assertThat(s.readInt32(0)).containsExactly(1, 0, 0, 1);
  }

  @Test
  void overflowingTheSetsIsReportedNotThrown() {
    JvmTxStore s = store(8, 1);
    JvmPrStmTx a = tx(s, 0);
    for (int i = 0; i < 3; i++) {
      a.write(0, i, 1);
    }
    assertThat(a.commit()).isFalse();
    assertThat(a.status()).isEqualTo(JvmPrStmTx.Status.OVERFLOW);
    assertThat(s.readInt32(0)).containsOnly(0);
  }

  @Test
  void rangeReadCommitsWhenNoVersionMoved() {
    JvmTxStore s = store(4, 1);
    s.writeInt32(0, new int[] {1, 2, 3, -4});
    JvmPrStmTx a = tx(s, 0);
    assertThat(a.sumRange(0, 3, 3, 4)).as("words 3, 0, 1 (wrapping)").isEqualTo(-4 + 1 + 2);
    assertThat(a.readOnly()).isTrue();
    assertThat(a.commit()).isTrue();
  }

  @Test
  void rangeReadAbortsWhenAWriterCommitsInsideIt() {
    JvmTxStore s = store(8, 1);
    JvmPrStmTx audit = tx(s, 0);
    audit.sumRange(0, 0, 8, 8);
    JvmPrStmTx writer = tx(s, 1);
    writer.write(0, 5, writer.read(0, 5) + 1);
    assertThat(writer.commit()).isTrue();
    assertThat(audit.commit()).as("one version moved by one: the sum differs").isFalse();
    assertThat(audit.abortCause()).isEqualTo(Counter.ABORT_VALIDATION);
  }

  @Test
  void rangeReadAbortsOnALockedWord() {
    JvmTxStore s = store(4, 1);
    s.locks.set(2, LockWord.lockedBy(0, 3));
    JvmPrStmTx a = tx(s, 0);
    a.sumRange(0, 0, 4, 4);
    assertThat(a.commit()).isFalse();
    assertThat(a.abortCause()).isEqualTo(Counter.ABORT_READ_LOCKED);
    // Locked after the range was read (a writer mid-commit): validation refuses it too.
    s.locks.set(2, LockWord.unlocked(0));
    a.begin(Priority.ordinary(0));
    a.sumRange(0, 0, 4, 4);
    s.locks.set(2, LockWord.lockedBy(0, 3));
    assertThat(a.commit()).isFalse();
    assertThat(a.abortCause()).isEqualTo(Counter.ABORT_VALIDATION);
  }

  @Test
  void rangeReadIsForReadOnlyTransactions() {
    JvmTxStore s = store(4, 1);
    JvmPrStmTx a = tx(s, 0);
    a.sumRange(0, 0, 4, 4);
    a.write(0, 0, 1);
    assertThat(a.commit()).isFalse();
    assertThat(a.status()).isEqualTo(JvmPrStmTx.Status.OVERFLOW);
    a.begin(Priority.ordinary(0));
    a.write(0, 0, 1);
    a.sumRange(0, 0, 4, 4);
    assertThat(a.status()).isEqualTo(JvmPrStmTx.Status.OVERFLOW);
    assertThat(s.readInt32(0)).containsOnly(0);
  }

  @Test
  void anUrgentReadRefusesWritersUntilItCommits() {
    JvmTxStore s = store(2, 1);
    JvmPrStmTx urgent = new JvmPrStmTx(s, 2);
    urgent.begin(0); // ticket 0: outranks every ordinary owner
    long x = urgent.read(0, 0);
    // An ordinary writer with the best thread id reads x too and tries to commit first: the
    // urgent reader's pre-lock refuses it, where an invisible read would have been invalidated.
    JvmPrStmTx writer = tx(s, 0);
    writer.write(0, 0, writer.read(0, 0) + 5);
    assertThat(writer.commit()).isFalse();
    assertThat(writer.abortCause()).isEqualTo(Counter.ABORT_PRELOCK_REFUSED);
    urgent.write(0, 1, x + 1);
    assertThat(urgent.commit()).isTrue();
    assertThat(s.readInt32(0)).containsExactly(0, 1);
    assertThat(s.locks.get(0)).as("the read's pre-lock is released").isEqualTo(LockWord.unlocked(0));
  }

  @Test
  void anUrgentReadStealsAnOrdinaryPreLock() {
    JvmTxStore s = store(2, 1);
    s.locks.set(0, LockWord.preLockedBy(0, Priority.ordinary(0)));
    JvmPrStmTx urgent = new JvmPrStmTx(s, 2);
    urgent.begin(3);
    urgent.read(0, 0);
    assertThat(s.locks.get(0)).isEqualTo(LockWord.preLockedBy(0, 3));
    assertThat(urgent.commit()).isTrue();
    assertThat(s.locks.get(0)).isEqualTo(LockWord.unlocked(0));
  }

  @Test
  void anAbortedUrgentAttemptReleasesItsVisibleReads() {
    JvmTxStore s = store(3, 1);
    s.locks.set(2, LockWord.preLockedBy(0, 1)); // an older urgent transaction's pre-lock
    JvmPrStmTx urgent = new JvmPrStmTx(s, 2);
    urgent.begin(5);
    urgent.read(0, 0);
    urgent.read(0, 1);
    urgent.read(0, 2); // a third lock: the sets (capacity 2) overflow
    assertThat(urgent.status()).isEqualTo(JvmPrStmTx.Status.OVERFLOW);
    assertThat(s.locks.get(0)).isEqualTo(LockWord.unlocked(0));
    assertThat(s.locks.get(1)).isEqualTo(LockWord.unlocked(0));
    assertThat(s.locks.get(2)).as("not ours").isEqualTo(LockWord.preLockedBy(0, 1));
  }

  @Test
  void aYoungerUrgentAttemptWaitsForAnOlderOnesPreLock() throws Exception {
    JvmTxStore s = store(2, 1);
    s.locks.set(0, LockWord.preLockedBy(0, 1)); // older urgent owner 1 holds word 0
    JvmPrStmTx younger = new JvmPrStmTx(s, 2);
    Thread release = new Thread(() -> {
      try {
        Thread.sleep(50);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
      s.data[0].set(0, 7); // the older one commits a write to word 0, then unlocks
      s.locks.set(0, LockWord.unlocked(1));
    });
    younger.begin(2);
    release.start();
    long v = younger.read(0, 0);
    release.join();
    assertThat(younger.live()).as("waited instead of aborting").isTrue();
    assertThat(v).isEqualTo(7);
    assertThat(younger.commit()).isTrue();
  }
}
