package io.gstm.core.csmv;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.gstm.core.batch.Counter;
import io.gstm.core.batch.RunOptions;
import io.gstm.core.store.Algorithm;
import io.gstm.core.store.CsmvVariant;
import io.gstm.core.store.TxStore;
import io.gstm.core.testing.EnabledIfGpu;
import io.gstm.core.testing.SharedEngines;
import io.gstm.core.workload.bank.BankConfig;
import io.gstm.core.workload.memcached.MemcachedConfig;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * CSMV on the GPU, every variant: the same seeded batches as on the JVM engine; audits over
 * every account must see the invariant total, the bank verifier and the memcached serial replay
 * must pass, every transaction must commit, and the error word must stay clear (no timeouts).
 */
@Tag("gpu")
@EnabledIfGpu
class CudaCsmvTest {
  @RegisterExtension
  static final SharedEngines engines = SharedEngines.ofGpuAndJvm(4);

  @ParameterizedTest
  @EnumSource(CsmvVariant.class)
  void bankAuditsAndVerifierEveryVariant(CsmvVariant variant) {
    for (double ro : new double[] {0.01, 0.5, 0.99}) {
      for (int versions : new int[] {2, 4, 8}) {
        // Few accounts: many conflicts, ring wrap, pre-validation and record pressure.
        BankConfig cfg = BankConfig.builder().accounts(64).k(2).readOnly(ro).lockCoverage(1)
            .grid(64, 8).txPerThread(4).seed(7 + versions).build();
        Algorithm alg = Algorithm.csmv(versions).withVariant(variant);
        CsmvRuns.BankCheck gpuRun = CsmvRuns.bank(engines.gpu(), alg, cfg, false);
        assertThat(gpuRun.ok()).as(variant + " ro=" + ro + " v=" + versions + ": " + gpuRun)
            .isTrue();
        assertThat(gpuRun.result().commits()).isEqualTo(cfg.txCount());
        CsmvRuns.BankCheck jvmRun = CsmvRuns.bank(engines.jvm(), alg, cfg, true);
        assertThat(jvmRun.ok()).as(jvmRun.toString()).isTrue();
        // Same batch, same committed set (all), so the same final balances.
        assertThat(gpuRun.balances()).isEqualTo(jvmRun.balances());
      }
    }
  }

  @ParameterizedTest
  @EnumSource(CsmvVariant.class)
  void bankLargeGrid(CsmvVariant variant) {
    Algorithm alg = Algorithm.csmv(4).withVariant(variant);
    int blocks = Math.min(64, engines.gpu().csmvMaxClientBlocks(alg, 256, "bank"));
    BankConfig cfg = BankConfig.builder().accounts(4096).k(2).readOnly(0.5).lockCoverage(1)
        .grid(256, blocks).txPerThread(4).seed(3).build();
    CsmvRuns.BankCheck c = CsmvRuns.bank(engines.gpu(), alg, cfg, false).assertOk();
    assertThat(c.result().commits()).isEqualTo(cfg.txCount());
  }

  @Test
  void prStmAuditsOfEveryAccountSeeTheTotal() {
    // The 99% read-only table's PR-STM column: audits of all accounts as one range read each.
    for (double ro : new double[] {0.1, 0.5, 0.99}) {
      BankConfig cfg = BankConfig.builder().accounts(4096).k(2).readOnly(ro).lockCoverage(1)
          .grid(256, 16).txPerThread(4).seed(21).build();
      CsmvRuns.BankCheck gpuRun = CsmvRuns.bank(engines.gpu(), Algorithm.prStm(), cfg, false);
      assertThat(gpuRun.ok()).as("ro=" + ro + ": " + gpuRun).isTrue();
      assertThat(gpuRun.result().count(Counter.READ_ONLY_COMMITS)).isGreaterThan(0);
      assertThat(gpuRun.result().count(Counter.TOO_LARGE)).isZero();
      CsmvRuns.BankCheck jvmRun = CsmvRuns.bank(engines.jvm(), Algorithm.prStm(), cfg, true);
      assertThat(jvmRun.ok()).as(jvmRun.toString()).isTrue();
    }
  }

  @Test
  void shortRingAbortsForDataAgeNeverTorn() {
    BankConfig cfg = BankConfig.builder().accounts(16).k(2).readOnly(0.5).lockCoverage(1)
        .grid(128, 16).txPerThread(8).seed(1).build();
    CsmvRuns.BankCheck c = CsmvRuns.bank(engines.gpu(), Algorithm.csmv(2), cfg, false).assertOk();
    assertThat(c.result().count(Counter.ABORT_DATA_AGE)
        + c.result().count(Counter.ABORT_RW_CONFLICT)).isGreaterThan(0);
  }

  @ParameterizedTest
  @ValueSource(ints = {4, 16, 64, 256})
  void memcachedMatchesTheSerialReplay(int ways) {
    for (CsmvVariant variant : CsmvVariant.values()) {
      MemcachedConfig cfg = MemcachedConfig.builder().sets(Math.max(1, 4096 / ways)).ways(ways)
          .keys(8192).getFraction(0.9).zipfTheta(0.99).grid(64, 8).txPerThread(4).seed(ways)
          .build();
      CsmvRuns.CacheCheck c =
          CsmvRuns.memcached(engines.gpu(), Algorithm.csmv(4).withVariant(variant), cfg);
      assertThat(c.verdict().ok()).as(variant + ": " + c.verdict()).isTrue();
      assertThat(c.result().commits()).isEqualTo(cfg.txCount());
    }
  }

  @Test
  void storeKeepsStateAcrossBatches() {
    BankConfig cfg = BankConfig.builder().accounts(256).k(2).readOnly(0.5).lockCoverage(1)
        .grid(64, 4).txPerThread(4).seed(9).build();
    CsmvRuns.assertStoreKeepsStateAcrossBatches(engines.gpu(), cfg, 256);
  }

  @Test
  void badInputBeforeLaunch() {
    BankConfig cfg = BankConfig.builder().accounts(64).k(2).readOnly(0.5).lockCoverage(1)
        .grid(64, 100_000).txPerThread(1).seed(1).build();
    CsmvRuns.assertRefusedBeforeRunning(engines.gpu(), Algorithm.csmv(4), cfg, cfg.batch(),
        "blocks");
    Algorithm huge = Algorithm.csmv(4).withRecordEntries(Algorithm.MAX_RECORD);
    BankConfig small = BankConfig.builder().accounts(64).k(2).readOnly(0.5).lockCoverage(1)
        .grid(64, 1).txPerThread(1).seed(1).build();
    try (TxStore s = engines.gpu().createStore(small.layout(), huge)) {
      s.writeInt32(0, small.initialBalances());
      assertThatThrownBy(() -> engines.gpu().run(s, small.batch(), RunOptions.defaults()))
          .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("recordEntries");
    }
  }

  @Test
  void memoryMatchesTheFormula() {
    BankConfig cfg = BankConfig.builder().accounts(4096).k(2).readOnly(0.5).lockCoverage(1)
        .grid(64, 1).txPerThread(1).seed(1).build();
    for (int v = 2; v <= 10; v++) {
      try (TxStore s = engines.gpu().createStore(cfg.layout(), Algorithm.csmv(v))) {
        assertThat(s.csmvMemory().matchesFormula()).as(s.csmvMemory().toString()).isTrue();
      }
    }
  }
}
