package io.gstm.core.jvm;

import static org.assertj.core.api.Assertions.assertThat;

import io.gstm.core.batch.Counter;
import io.gstm.core.store.Algorithm;
import org.junit.jupiter.api.Test;

/** Hand-made interleavings of GPU-STM transactions on the JVM engine. */
class GpuStmInterleavingTest {
  private static JvmTxStore store(int words, int coverage) {
    return Interleavings.store(Algorithm.gpuStm(), words, coverage);
  }

  /** A transaction of thread {@code owner}, begun; sets of four locks. */
  private static JvmGpuStmTx tx(JvmTxStore s, int owner) {
    return Interleavings.begun(new JvmGpuStmTx(s, 4), owner);
  }

  /** One committed transaction that sets word {@code i} to {@code v}. */
  private static void set(JvmTxStore s, int i, long v) {
    JvmGpuStmTx t = tx(s, 9);
    t.write(0, i, v);
    assertThat(t.commit()).isTrue();
  }

  @Test
  void aReadWhoseVersionMovedButWhoseValueHoldsCommitsAtTheCurrentVersion() {
    JvmTxStore s = store(2, 1);
    set(s, 0, 5); // lock 0 at version 1
    JvmGpuStmTx a = tx(s, 0);
    assertThat(a.read(0, 0)).isEqualTo(5);
    set(s, 0, 6); // version 2
    set(s, 0, 5); // version 3: the value a read, again (ABA)
    a.write(0, 1, 1);
    assertThat(a.commit()).isTrue();
    long[] reads = new long[4];
    long[] writes = new long[4];
    int counts = a.record(reads, 0, writes, 0);
    assertThat(counts & 0xffff).isEqualTo(2);
    assertThat(reads[0]).isEqualTo(3L); // lock 0 read at version 3, the current one
    assertThat(writes[0]).isEqualTo(1L << 32 | 1); // lock 1 written at version 1
  }

  @Test
  void aReadWhoseValueChangedAborts() {
    JvmTxStore s = store(2, 1);
    JvmGpuStmTx a = tx(s, 0);
    long v = a.read(0, 0);
    set(s, 0, 7);
    a.write(0, 1, v + 1);
    assertThat(a.commit()).isFalse();
    assertThat(a.abortCause()).isEqualTo(Counter.ABORT_VALIDATION);
    assertThat(s.readInt32(0)).containsExactly(7, 0);
  }

  @Test
  void aWordReadAndWrittenWhoseValueHoldsCommitsAtTheVersionAfterTheCurrentOne() {
    JvmTxStore s = store(2, 2); // both words under lock 0
    JvmGpuStmTx a = tx(s, 0);
    long v = a.read(0, 0);
    set(s, 1, 3); // the other word under the same lock: version 1, word 0 unchanged
    a.write(0, 0, v + 1);
    assertThat(a.commit()).isTrue();
    long[] reads = new long[4];
    long[] writes = new long[4];
    a.record(reads, 0, writes, 0);
    assertThat(reads[0]).isEqualTo(1L);
    assertThat(writes[0]).isEqualTo(2L);
    assertThat(s.readInt32(0)).containsExactly(1, 3);
  }

  @Test
  void aSemanticDecisionStandsOnlyOnConsistentReads() {
    JvmTxStore s = store(2, 1);
    JvmGpuStmTx a = tx(s, 0);
    a.read(0, 0);
    a.semanticConflict();
    assertThat(a.confirmReads()).isTrue();
    a.begin(Priority.ordinary(0));
    a.read(0, 0);
    set(s, 0, 1);
    a.semanticConflict();
    assertThat(a.confirmReads()).isFalse();
  }

  @Test
  void locksAreKeptSortedAsTheyAreMet() {
    JvmTxStore s = store(8, 1);
    JvmGpuStmTx a = new JvmGpuStmTx(s, 8);
    a.begin(Priority.ordinary(0));
    a.write(0, 5, 1);
    a.read(0, 2);
    a.write(0, 7, 1);
    a.read(0, 0);
    assertThat(a.commit()).isTrue();
    long[] reads = new long[8];
    long[] writes = new long[8];
    int counts = a.record(reads, 0, writes, 0);
    assertThat(counts & 0xffff).isEqualTo(4);
    assertThat(new long[] {reads[0] >>> 32, reads[1] >>> 32, reads[2] >>> 32, reads[3] >>> 32})
        .containsExactly(0, 2, 5, 7);
  }

  /**
   * Transfers in both orders and audits: every committed audit saw the invariant total (a
   * snapshot at one instant, value-validated reads included).
   */
  @Test
  void concurrentTransfersAndAuditsKeepTheInvariant() throws InterruptedException {
    JvmTxStore s = store(4, 1);
    TransferHammer.run(s, 4, 20_000, id -> new JvmGpuStmTx(s, 4));
  }
}
