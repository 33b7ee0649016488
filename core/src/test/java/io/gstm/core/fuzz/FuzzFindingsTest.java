package io.gstm.core.fuzz;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.gstm.core.batch.BatchResult;
import io.gstm.core.batch.Outcome;
import io.gstm.core.batch.RunOptions;
import io.gstm.core.batch.TxBatch;
import io.gstm.core.history.HistoryChecker;
import io.gstm.core.program.ProgramException;
import io.gstm.core.program.ProgramSet;
import io.gstm.core.store.Algorithm;
import io.gstm.core.store.RegionSpec;
import io.gstm.core.store.RegionType;
import io.gstm.core.store.StoreLayout;
import io.gstm.core.store.TxStore;
import io.gstm.core.testing.SharedEngines;
import io.gstm.core.workload.bank.BankConfig;
import io.gstm.core.workload.bank.BankWorkload;
import io.gstm.core.workload.bank.SemanticBankConfig;
import io.gstm.core.workload.memcached.MemcachedConfig;
import io.gstm.core.workload.vacation.VacationConfig;
import io.gstm.core.workload.vacation.VacationWorkload;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Disabled;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** What the store, batch and program fuzzers and the soak found, each pinned by a test. */
class FuzzFindingsTest {
  @RegisterExtension
  static final SharedEngines engines = SharedEngines.ofJvm(2);

  /** Soak: ratio 1 over an odd count made round(n / 2) pairs, one transaction past the table. */
  /**
   * Soak: a random program whose loop ends folded to constants that wrapped around int32 asked
   * for 4,294,967,294 trips; the generator drew it as a valid program (the checker refused it).
   */
  @Test
  void randomProgramsRedrawALoopPastTheTripLimit() {
    io.gstm.core.soak.Soak.Summary s = io.gstm.core.soak.Soak.runBatch(engines.jvm(),
        -875651946808023967L, java.time.Duration.ofSeconds(60), null);
    assertThat(s.violations()).isEmpty();
    assertThat(s.counts().transactions()).isPositive();
  }

  /**
   * Soak: a read-only program that reads a word twice (a loop's start, evaluated again in its
   * end) filled the JVM CSMV history's slots with the repeats and dropped its last read, so the
   * history checker placed it before the write it had seen and the replay failed.
   */
  @Test
  void csmvHistoryHoldsAWordReadTwiceOnce() {
    io.gstm.core.soak.Soak.Summary s = io.gstm.core.soak.Soak.runBatch(engines.jvm(),
        3646372192475139556L, java.time.Duration.ofSeconds(60), null);
    assertThat(s.violations()).isEmpty();
    assertThat(s.counts().transactions()).isPositive();
  }

  @Test
  void pairsFitAnOddTransactionCount() {
    SemanticBankConfig bank = SemanticBankConfig.builder().accounts(64).k(2).semanticRatio(1.0)
        .lockCoverage(1).grid(7, 3).txPerThread(11).seed(5).build();
    assertThat(bank.txCount()).isOdd();
    assertThat(bank.pairs()).isEqualTo(bank.txCount() / 2);
    TxBatch b = bank.batch();
    assertThat(Arrays.stream(b.types()).filter(t -> BankWorkload.Type.TRANSFER.is(t)).count())
        .isEqualTo(1);
    VacationConfig hotel = VacationConfig.builder().customers(1000).roomTypes(10).roomsPerType(10)
        .semanticRatio(1.0).lockCoverage(1).grid(3, 1).txPerThread(1).seed(5).build();
    assertThat(hotel.pairs()).isEqualTo(1);
    assertThat(Arrays.stream(hotel.batch().types()).filter(t -> VacationWorkload.Type.CANCEL.is(t))
        .count()).isEqualTo(1);
  }

  /**
   * Fuzzer: without transfers k went unchecked, so k = 17 failed in batch() and k = 2^31 - 1
   * overflowed the column count (NegativeArraySizeException) or exhausted the heap.
   */
  @Test
  void semanticBankKIsCheckedWithOrWithoutTransfers() {
    assertThatThrownBy(() -> SemanticBankConfig.builder().accounts(64).k(17).semanticRatio(1.0)
        .lockCoverage(1).grid(2, 1).txPerThread(1).seed(1).build())
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("k must be in 0..16");
    assertThatThrownBy(() -> SemanticBankConfig.builder().accounts(64).k(Integer.MAX_VALUE)
        .semanticRatio(1.0).lockCoverage(1).grid(2, 1).txPerThread(1).seed(1).build())
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("k must be in");
    // An odd count at ratio 1 has a transfer: k must then suit it.
    assertThatThrownBy(() -> SemanticBankConfig.builder().accounts(64).k(0).semanticRatio(1.0)
        .lockCoverage(1).grid(3, 1).txPerThread(1).seed(1).build())
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("k must be in 1..16");
    assertThat(SemanticBankConfig.builder().accounts(64).k(0).semanticRatio(1.0).lockCoverage(1)
        .grid(2, 1).txPerThread(1).seed(1).build().batch().txCount()).isEqualTo(2);
  }

  /** Fuzzer: a null region was a NullPointerException without a message. */
  @Test
  void aNullRegionIsNamed() {
    RegionSpec ok = new RegionSpec("a", RegionType.INT32, 4, 1);
    assertThatThrownBy(() -> new StoreLayout(Arrays.asList(ok, null)))
        .isInstanceOf(IllegalArgumentException.class).hasMessage("regions[1] is null");
  }

  /**
   * Fuzzer: on the JVM engine a hand-written CSMV batch recorded at most its set capacity of
   * writes per transaction, so the history checker saw reads of versions nobody produced.
   */
  @Test
  void csmvHistoryKeepsWritesBeyondTheBatchCapacity() {
    MemcachedConfig cfg = MemcachedConfig.builder().sets(8).ways(4).keys(60).getFraction(0.8)
        .zipfTheta(0.9).grid(32, 2).txPerThread(2).seed(3).build();
    TxBatch b = cfg.batch();
    TxBatch small = new TxBatch(b.workload(), b.types(), b.columns(), b.params(),
        b.threadsPerBlock(), b.blocks(), 2);
    try (TxStore store = engines.jvm().createStore(cfg.layout(), Algorithm.csmv(4))) {
      int[][] init = cfg.initialState();
      for (int r = 0; r < init.length; r++) {
        store.writeInt32(r, init[r]);
      }
      BatchResult r = engines.jvm().run(store, small, RunOptions.defaults().withHistory(true));
      HistoryChecker.Verdict h = HistoryChecker.check(r.history());
      assertThat(h.serializable()).as("%s", h.violations()).isTrue();
    }
  }

  /**
   * Fuzzer: the JVM CSMV runner made a lane for every thread of the grid, so 64 transactions on
   * 2^30 threads exhausted the heap ("batch failed" after seconds of garbage collection).
   */
  @Test
  void csmvGridFarLargerThanTheBatchCostsNothing() {
    BankConfig cfg = BankConfig.builder().accounts(100).k(2).readOnly(0.2).lockCoverage(1)
        .grid(32, 1).txPerThread(2).seed(1).build();
    TxBatch b = cfg.batch();
    TxBatch huge = new TxBatch(b.workload(), b.types(), b.columns(), b.params(), 256,
        2_000_000, b.capacity());
    try (TxStore store = engines.jvm().createStore(cfg.layout(), Algorithm.csmv(4))) {
      store.writeInt32(0, cfg.initialBalances());
      BatchResult r = engines.jvm().run(store, huge, RunOptions.defaults());
      assertThat(r.commits()).isEqualTo(b.txCount());
      for (int t = 0; t < b.txCount(); t++) {
        assertThat(r.outcome(t)).isEqualTo(Outcome.COMMITTED);
      }
    }
  }

  /**
   * Fuzzer (not fixed here: io.gstm.core.program is another session's): the parser recurses
   * once per nesting level, so about a thousand nested parentheses overflow the stack instead
   * of ending in a ProgramException. Enable when the parser bounds its depth.
   */
  @Test
  @Disabled("reported: ProgramParser needs a nesting bound (StackOverflowError at ~1000 levels)")
  void deepNestsAreProgramExceptions() {
    for (String text : List.of(
        "program p(x: int32) regions r: int32 { r[0] = " + "(".repeat(5_000) + "x"
            + ")".repeat(5_000) + "; }",
        "program p(x: int32) regions r: int32 { " + "if (x < 1) { ".repeat(5_000) + "r[0] = 1;"
            + " }".repeat(5_000) + " }",
        "program p(x: int32) regions r: int32 { r[0] = " + "-".repeat(5_000) + "x; }")) {
      assertThatThrownBy(() -> ProgramSet.parse(text)).isInstanceOf(ProgramException.class);
    }
  }
}
