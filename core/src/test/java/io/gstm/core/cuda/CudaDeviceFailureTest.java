package io.gstm.core.cuda;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.gstm.core.batch.BatchResult;
import io.gstm.core.batch.RunOptions;
import io.gstm.core.batch.TxBatch;
import io.gstm.core.engine.LeakTracker;
import io.gstm.core.store.RegionSpec;
import io.gstm.core.store.RegionType;
import io.gstm.core.store.StoreLayout;
import io.gstm.core.store.TxStore;
import io.gstm.core.testing.EnabledIfGpu;
import io.gstm.core.testing.SharedEngines;
import io.gstm.core.workload.bank.BankConfig;
import io.gstm.core.workload.bank.BankVerifier;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Device memory failures: out of memory is a typed, recoverable error that leaks nothing and
 * leaves other stores intact; device memory returns to its baseline after many stores and
 * batches; a store never closed is freed by the leak tracker.
 */
@EnabledIfGpu
class CudaDeviceFailureTest {
  /** Allocation granularity and the driver's own bookkeeping: what "back to baseline" allows. */
  private static final long SLACK = 8L << 20;
  @RegisterExtension
  static final SharedEngines engines = SharedEngines.ofGpu();

  private static long free() {
    System.gc(); // leaked buffers of earlier tests, if any, go first
    CudaEngine gpu = (CudaEngine) engines.gpu();
    gpu.releaseIdleMemory(); // and the batch buffers earlier batches left for the next ones
    return gpu.memoryInfo().freeBytes();
  }

  /** Int64 regions of at most 2^31 - 1 words (16 GiB) each, covering {@code bytes}. */
  /** The largest store regionsOf can lay out: every region of 2^31 - 1 64-bit words. */
  private static final long MAX_STORE_BYTES = StoreLayout.MAX_REGIONS * 8L * Integer.MAX_VALUE;

  private static StoreLayout regionsOf(long bytes) {
    List<RegionSpec> specs = new ArrayList<>();
    long left = bytes;
    for (int r = 0; left > 0; r++) {
      int words = (int) Math.min(Integer.MAX_VALUE, (left + 7) / 8);
      specs.add(new RegionSpec("r" + r, RegionType.INT64, words, 1 << 20));
      left -= 8L * words;
    }
    return StoreLayout.of(specs.toArray(new RegionSpec[0]));
  }

  private static BankConfig small() {
    return BankConfig.builder().accounts(1 << 16).k(2).readOnly(0.2).lockCoverage(1).grid(256, 132)
        .txPerThread(4).seed(7).build();
  }

  private static void runVerified(TxStore store, BankConfig cfg, TxBatch batch) {
    int[] before = store.readInt32(0);
    BatchResult r = engines.gpu().run(store, batch, RunOptions.defaults());
    assertThat(BankVerifier.verify(before, batch, r, store.readInt32(0)).ok()).isTrue();
  }

  @Test
  void aStoreLargerThanTheDeviceIsARecoverableOutOfMemoryError() {
    BankConfig cfg = small();
    try (TxStore existing = engines.gpu().createStore(cfg.layout())) {
      existing.writeInt32(0, cfg.initialBalances());
      long tooMuch = engines.gpu().memoryInfo().totalBytes() + (1L << 30);
      // A device larger than a store can be (8 regions of 16 GiB; an H200 has 141 GB): fill
      // most of it first, then ask for more than is left.
      TxStore hog = null;
      if (tooMuch > MAX_STORE_BYTES) {
        hog = engines.gpu().createStore(regionsOf(free() - (16L << 30)));
        tooMuch = free() + (1L << 30);
      }
      try {
        long baseline = free();
        long ask = tooMuch;
        assertThatThrownBy(() -> engines.gpu().createStore(regionsOf(ask)))
            .isInstanceOf(DeviceOutOfMemoryException.class)
            .hasMessageContaining("out of device memory").hasMessageContaining("bytes free");
        assertThat(free()).as("nothing of the failed store is kept")
            .isGreaterThan(baseline - SLACK);
      } finally {
        if (hog != null) {
          hog.close();
        }
      }
      assertThat(existing.readInt32(0)).containsExactly(cfg.initialBalances());
      runVerified(existing, cfg, cfg.batch());
    }
  }

  @Test
  void aBatchThatDoesNotFitIsRecoverableAndRunsOnceMemoryIsFreed() {
    BankConfig cfg = small();
    try (TxStore existing = engines.gpu().createStore(cfg.layout())) {
      existing.writeInt32(0, cfg.initialBalances());
      // 24 M transfers need about 0.7 GB of batch buffers; leave the device 64 MB.
      BankConfig big = BankConfig.builder().accounts(1 << 16).k(2).readOnly(0.2).lockCoverage(1)
          .grid(256, 132).txPerThread(24_000_000 / (256 * 132)).seed(9).build();
      TxBatch batch = big.batch();
      long filler = free() - (64L << 20);
      // Beyond what one store can hold (a device over 128 GiB), a second store fills the rest.
      TxStore hog = engines.gpu().createStore(regionsOf(Math.min(filler,
          MAX_STORE_BYTES - (1L << 30))));
      TxStore hog2 = filler > MAX_STORE_BYTES - (1L << 30)
          ? engines.gpu().createStore(regionsOf(free() - (64L << 20))) : null;
      long before = free();
      assertThatThrownBy(() -> engines.gpu().run(existing, batch, RunOptions.defaults()))
          .isInstanceOf(DeviceOutOfMemoryException.class);
      assertThat(free()).as("the failed batch kept nothing").isGreaterThan(before - SLACK);
      assertThat(existing.readInt32(0)).as("the store as it was")
          .containsExactly(cfg.initialBalances());
      hog.close();
      if (hog2 != null) {
        hog2.close();
      }
      runVerified(existing, cfg, batch);
    }
  }

  @Test
  void deviceMemoryReturnsToItsBaselineAfterManyStoresAndBatches() {
    long baseline = free();
    BankConfig cfg = small();
    TxBatch batch = cfg.batch();
    for (int i = 0; i < 200; i++) {
      try (TxStore store = engines.gpu().createStore(cfg.layout())) {
        store.writeInt32(0, cfg.initialBalances());
        engines.gpu().run(store, batch, RunOptions.defaults().withHistory(i % 10 == 0));
      }
    }
    assertThat(free()).isGreaterThan(baseline - SLACK);
  }

  @Test
  void aStoreNeverClosedIsReportedAndFreedByTheLeakTracker() throws InterruptedException {
    long baseline = free();
    long leaks = LeakTracker.leaks();
    TxStore leaked = engines.gpu().createStore(regionsOf(1L << 30));
    assertThat(engines.gpu().memoryInfo().freeBytes()).isLessThan(baseline - (1L << 30) + SLACK);
    leaked = null; // dropped without close()
    for (int i = 0; i < 300 && LeakTracker.leaks() == leaks; i++) {
      System.gc();
      Thread.sleep(10);
    }
    Thread.sleep(200); // the tracker frees the store's buffers one by one
    assertThat(LeakTracker.leaks()).as("buffers reported").isGreaterThan(leaks);
    assertThat(free()).as("freed by the tracker").isGreaterThan(baseline - SLACK);
  }
}
