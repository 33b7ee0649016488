package io.gstm.core.cuda;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.gstm.core.batch.BatchResult;
import io.gstm.core.batch.Counter;
import io.gstm.core.batch.RunOptions;
import io.gstm.core.batch.TxBatch;
import io.gstm.core.engine.LimitsReport;
import io.gstm.core.history.HistoryChecker;
import io.gstm.core.store.TxStore;
import io.gstm.core.testing.BankMatrix;
import io.gstm.core.testing.BankRun;
import io.gstm.core.testing.EnabledIfGpu;
import io.gstm.core.testing.Seeds;
import io.gstm.core.testing.SharedEngines;
import io.gstm.core.workload.bank.BankConfig;
import io.gstm.core.workload.bank.BankVerifier;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The same seeded bank batches on the CUDA engine and the JVM engine: both pass the verifier and
 * the history checker, every transaction commits on both, and the final balances are identical
 * (transfers commute, so any serial order gives the same balances).
 */
@EnabledIfGpu
class CudaPrStmDifferentialTest {
  @RegisterExtension
  static final SharedEngines engines = SharedEngines.ofGpuAndJvm(4);

  static Stream<BankConfig> matrix() {
    // The JVM suite's configurations, plus more seeds.
    return Stream.concat(BankMatrix.configs(20261122L, 120).stream(),
        BankMatrix.configs(7L, 200).stream());
  }

  @ParameterizedTest
  @MethodSource("matrix")
  void sameBatchSameBalancesBothVerified(BankConfig config) {
    BankRun onGpu = BankRun.run(engines.gpu(), config);
    BankRun onJvm = BankRun.run(engines.jvm(), config);

    assertThat(onGpu.verdict().ok()).as("GPU verifier: %s", onGpu.verdict()).isTrue();
    assertThat(onGpu.history().serializable()).as("GPU history: %s", onGpu.history().violations())
        .isTrue();
    assertThat(onGpu.result().commits()).isEqualTo(config.txCount());
    assertThat(onJvm.verdict().ok()).isTrue();
    assertThat(onJvm.result().commits()).as("JVM commits; counters %s",
        java.util.Arrays.toString(onJvm.result().counters())).isEqualTo(config.txCount());
    // Arrays.equals first: assertj's containsExactly diffs 100k-element arrays in O(n^2).
    if (!java.util.Arrays.equals(onGpu.balances(), onJvm.balances())) {
      int i = java.util.Arrays.mismatch(onGpu.balances(), onJvm.balances());
      throw new AssertionError("balances differ first at account " + i + ": GPU "
          + onGpu.balances()[i] + ", JVM " + onJvm.balances()[i] + "; " + config);
    }
  }

  @Test
  void hotBatchesConflictOnTheGpuAndStayCorrect() {
    long aborts = Seeds.sum(20, seed -> BankRun.run(engines.gpu(), BankConfig.builder()
        .accounts(16).k(4).readOnly(0.2).lockCoverage(1).grid(256, 16).txPerThread(8).seed(seed)
        .build()).assertCorrect().result().aborts());
    assertThat(aborts).as("aborts over 20 hot batches of 32k transactions").isPositive();
  }

  @Test
  void lockCoverageSharesLocksAcrossAccounts() {
    for (int coverage : new int[] {2, 8, 64, 1024}) {
      BankConfig cfg = BankConfig.builder().accounts(4096).k(8).readOnly(0.2).lockCoverage(coverage)
          .grid(256, 32).txPerThread(4).seed(coverage).build();
      BankRun run = BankRun.run(engines.gpu(), cfg);
      assertThat(run.verdict().ok()).as("coverage %d: %s", coverage, run.verdict()).isTrue();
      assertThat(run.history().serializable()).as("coverage %d", coverage).isTrue();
    }
  }

  @Test
  void paperSizedBatchVerifies() {
    // 2,621,440 accounts, 33,792 threads (132 SMs x 256), 8 transactions each, k = 2 and 4.
    for (int k : new int[] {2, 4}) {
      BankConfig cfg = BankConfig.builder().accounts(2_621_440).k(k).readOnly(0.2).lockCoverage(1)
          .grid(256, 132).txPerThread(8).seed(k).build();
      BankRun run = BankRun.run(engines.gpu(), cfg, RunOptions.defaults());
      assertThat(run.verdict().ok()).as("k=%d %s", k, run.verdict()).isTrue();
      assertThat(run.result().commits()).isEqualTo(cfg.txCount());
    }
  }

  @Test
  void storeStaysOnTheDeviceAcrossBatches() {
    BankConfig cfg = BankConfig.builder().accounts(512).k(3).readOnly(0.3).lockCoverage(1)
        .grid(128, 8).txPerThread(4).seed(11).build();
    try (TxStore store = engines.gpu().createStore(cfg.layout())) {
      int[] balances = cfg.initialBalances();
      store.writeInt32(0, balances);
      for (long seed = 0; seed < 5; seed++) {
        BankConfig next = BankConfig.builder().accounts(512).k(3).readOnly(0.3).lockCoverage(1)
            .grid(128, 8).txPerThread(4).seed(seed).build();
        TxBatch batch = next.batch();
        BatchResult r = engines.gpu().run(store, batch, RunOptions.defaults().withHistory(true));
        int[] after = store.readInt32(0);
        assertThat(BankVerifier.verify(balances, batch, r, after).ok()).isTrue();
        assertThat(HistoryChecker.check(r.history()).serializable()).isTrue();
        balances = after;
      }
    }
  }

  @Test
  void tooLargeAndBadInputLeaveTheStoreAsItWas() {
    BankConfig cfg = BankConfig.builder().accounts(64).k(4).readOnly(0.2).lockCoverage(1)
        .grid(64, 2).txPerThread(2).seed(3).build();
    BankRun.assertTooLargeChangesNothing(engines.gpu(), cfg);

    try (TxStore store = engines.gpu().createStore(cfg.layout())) {
      store.writeInt32(0, cfg.initialBalances());
      TxBatch good = cfg.batch();
      int[][] cols = good.columns().clone();
      cols[0] = cols[0].clone();
      cols[0][0] = 64;
      TxBatch bad = new TxBatch(good.workload(), good.types(), cols, good.params(),
          good.threadsPerBlock(), good.blocks(), good.capacity());
      assertThatThrownBy(() -> engines.gpu().run(store, bad, RunOptions.defaults()))
          .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("account 64");
      assertThat(store.readInt32(0)).containsExactly(cfg.initialBalances());
    }
  }

  @Test
  void abandonedTransactionsChangeNothingOnTheGpu() {
    // One attempt each on 4 hot accounts: some transactions give up.
    long abandoned = Seeds.sum(10, seed -> BankRun.run(engines.gpu(), BankConfig.builder()
        .accounts(4).k(4).readOnly(0).lockCoverage(1).grid(256, 8).txPerThread(4).seed(seed)
        .build(), new RunOptions(1, true)).assertCorrect().result().count(Counter.ABANDONED));
    assertThat(abandoned).isPositive();
  }

  @Test
  void everyKernelSymbolResolvesAndTheProbeMeasures() {
    engines.gpu().resolveAllKernels();
    assertThat(engines.gpu().moduleNames()).containsAll(CudaEngine.kernelSymbols().keySet());
    LimitsReport r = engines.gpu().probeLimits(1 << 20);
    assertThat(r.readCasPerSecond()).isGreaterThan(1e9);
    assertThat(r.atomicAddPerSecond()).isGreaterThan(1e9);
  }
}
