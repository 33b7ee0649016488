package io.gstm.core.csmv;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.gstm.core.batch.Counter;
import io.gstm.core.batch.TxBatch;
import io.gstm.core.store.Algorithm;
import io.gstm.core.store.CsmvMemory;
import io.gstm.core.store.CsmvVariant;
import io.gstm.core.store.RegionSpec;
import io.gstm.core.store.RegionType;
import io.gstm.core.store.StoreLayout;
import io.gstm.core.store.TxStore;
import io.gstm.core.testing.Seeds;
import io.gstm.core.testing.SharedEngines;
import io.gstm.core.workload.bank.BankConfig;
import io.gstm.core.workload.memcached.MemcachedConfig;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.junit.jupiter.params.provider.ValueSource;

/** CSMV's semantics on the JVM engine: snapshots, verifier, history, ring and bad input. */
class CsmvJvmTest {
  @RegisterExtension
  static final SharedEngines engines = SharedEngines.ofJvm(4);

  @ParameterizedTest
  @EnumSource(CsmvVariant.class)
  void auditsSeeTheTotalAndTransfersVerify(CsmvVariant variant) {
    BankConfig cfg = BankConfig.builder().accounts(256).k(2).readOnly(0.5).lockCoverage(1)
        .grid(64, 4).txPerThread(8).seed(11).build();
    CsmvRuns.BankCheck c =
        CsmvRuns.bank(engines.jvm(), Algorithm.csmv(4).withVariant(variant), cfg, true).assertOk();
    assertThat(c.result().commits()).isEqualTo(cfg.txCount());
    assertThat(c.result().count(Counter.READ_ONLY_COMMITS)).isGreaterThan(0);
  }

  @ParameterizedTest
  @ValueSource(doubles = {0.1, 0.5, 0.9})
  void prStmAuditsOfEveryAccountSeeTheTotal(double ro) {
    // PR-STM, the comparator of the 99% read-only table: an audit of all 256 accounts is one
    // range read, far past its set capacity of 2, validated by the sum of the versions it saw.
    BankConfig cfg = BankConfig.builder().accounts(256).k(2).readOnly(ro).lockCoverage(1)
        .grid(64, 4).txPerThread(8).seed(13).build();
    CsmvRuns.BankCheck c = CsmvRuns.bank(engines.jvm(), Algorithm.prStm(), cfg, true).assertOk();
    assertThat(c.result().count(Counter.READ_ONLY_COMMITS)).isGreaterThan(0);
    assertThat(c.result().count(Counter.TOO_LARGE)).isZero();
  }

  @ParameterizedTest
  @ValueSource(doubles = {0.01, 0.1, 0.9, 0.99})
  void readOnlyFractions(double ro) {
    BankConfig cfg = BankConfig.builder().accounts(64).k(2).readOnly(ro).lockCoverage(1).grid(32, 8)
        .txPerThread(8).seed(5).build();
    CsmvRuns.bank(engines.jvm(), Algorithm.csmv(8), cfg, true).assertOk();
  }

  @Test
  void readOnlyTransactionsNeverAbortForConflicts() {
    BankConfig cfg = BankConfig.builder().accounts(32).k(2).readOnly(0.5).lockCoverage(1)
        .grid(64, 4).txPerThread(16).seed(3).build();
    CsmvRuns.BankCheck c = CsmvRuns.bank(engines.jvm(), Algorithm.csmv(16), cfg, false).assertOk();
    // Conflicts are counted only for update transactions; with 16 versions rings suffice.
    assertThat(c.result().count(Counter.ABORT_RW_CONFLICT)
        + c.result().count(Counter.ABORT_PREVALIDATION)).isGreaterThanOrEqualTo(0);
    assertThat(c.result().count(Counter.ABORT_VALIDATION)).isZero();
  }

  @Test
  void shortRingGivesDataAgeAbortsNeverTornValues() {
    // Data-age aborts need two workers to overlap; on a loaded 2-core machine one can be
    // descheduled for many batches (64 seeds once saw none), so try more before failing.
    long dataAge = Seeds.sumUntilPositive(1024, seed -> CsmvRuns.bank(engines.jvm(),
        Algorithm.csmv(2), BankConfig.builder().accounts(16).k(2).readOnly(0.3).lockCoverage(1)
            .grid(64, 4).txPerThread(16).seed(seed).build(), false).assertOk().result()
        .count(Counter.ABORT_DATA_AGE));
    assertThat(dataAge).as("data-age aborts with 2 versions").isGreaterThan(0);
  }

  @Test
  void tinyCommitRecordGivesRecordAgeAborts() {
    // Timing-dependent, like the data-age test: more seeds before failing on a loaded machine.
    long recordAge = Seeds.sumUntilPositive(256, seed -> CsmvRuns.bank(engines.jvm(),
        Algorithm.csmv(4).withRecordEntries(Algorithm.MIN_RECORD), BankConfig.builder()
            .accounts(4096).k(2).readOnly(0.0).lockCoverage(1).grid(64, 8).txPerThread(16)
            .seed(seed).build(), false).assertOk().result().count(Counter.ABORT_RECORD_AGE));
    assertThat(recordAge).isGreaterThan(0);
  }

  @ParameterizedTest
  @ValueSource(ints = {4, 16, 64, 256})
  void memcachedMatchesTheSerialReplay(int ways) {
    MemcachedConfig cfg = MemcachedConfig.builder().sets(Math.max(1, 1024 / ways)).ways(ways)
        .keys(4096).getFraction(0.9).zipfTheta(0.99).grid(64, 4).txPerThread(8).seed(ways).build();
    CsmvRuns.CacheCheck c = CsmvRuns.memcached(engines.jvm(), Algorithm.csmv(4), cfg);
    assertThat(c.verdict().ok()).as(c.verdict().toString()).isTrue();
    assertThat(c.result().commits()).isEqualTo(cfg.txCount());
  }

  @Test
  void memcachedDefaultMixVerifies() {
    MemcachedConfig cfg = MemcachedConfig.of(4096, 8, 64, 4, 16, 1);
    CsmvRuns.CacheCheck c = CsmvRuns.memcached(engines.jvm(), Algorithm.csmv(4), cfg);
    assertThat(c.verdict().ok()).as(c.verdict().toString()).isTrue();
  }

  @ParameterizedTest
  @ValueSource(ints = {2, 3, 4, 7, 8, 10})
  void memoryMatchesThePaperFormula(int versions) {
    BankConfig cfg = BankConfig.builder().accounts(4096).k(2).readOnly(0.9).lockCoverage(1)
        .grid(32, 1).txPerThread(1).seed(1).build();
    try (TxStore s = engines.jvm().createStore(cfg.layout(), Algorithm.csmv(versions))) {
      CsmvMemory m = s.csmvMemory();
      assertThat(m.formulaBytes()).isEqualTo(4096L * (4 + 8L * versions));
      assertThat(m.matchesFormula()).as(m.toString()).isTrue();
    }
  }

  @Test
  void badInputNamesTheLimit() {
    assertThatThrownBy(() -> Algorithm.csmv(1)).isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("versions").hasMessageContaining("2..");
    assertThatThrownBy(() -> Algorithm.csmv(4).withRecordEntries(1))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("recordEntries");
    StoreLayout longs = StoreLayout.of(new RegionSpec("x", RegionType.INT64, 8, 1));
    assertThatThrownBy(() -> engines.jvm().createStore(longs, Algorithm.csmv(4)))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("4-byte");
    BankConfig cfg = BankConfig.builder().accounts(64).k(9).readOnly(0.5).lockCoverage(1)
        .grid(32, 1).txPerThread(2).seed(1).build();
    CsmvRuns.assertRefusedBeforeRunning(engines.jvm(), Algorithm.csmv(4), cfg, cfg.batch(),
        "k must be at most 8");
  }

  @Test
  void checkedTransfersAreRefusedBeforeRunning() {
    BankConfig cfg = BankConfig.builder().accounts(64).k(2).readOnly(0.5).lockCoverage(1)
        .grid(32, 1).txPerThread(2).seed(1).build();
    TxBatch b = cfg.batch();
    TxBatch checked = new TxBatch(b.workload(), b.types(), b.columns(), new int[] {2, 0, 1},
        b.threadsPerBlock(), b.blocks(), b.capacity());
    CsmvRuns.assertRefusedBeforeRunning(engines.jvm(), Algorithm.csmv(4), cfg, checked,
        "checked");
  }

  @Test
  void storeKeepsStateAcrossBatches() {
    BankConfig cfg = BankConfig.builder().accounts(128).k(2).readOnly(0.5).lockCoverage(1)
        .grid(32, 4).txPerThread(4).seed(9).build();
    CsmvRuns.assertStoreKeepsStateAcrossBatches(engines.jvm(), cfg, 128);
  }
}
