package io.gstm.core.cuda;

import io.gstm.core.store.RegionSpec;
import io.gstm.core.store.StoreLayout;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;

/**
 * Packs the structs kernels take by value, byte for byte as nvcc lays them out on x86-64 and
 * the GPU (little-endian, natural alignment). Keep in step with {@code store_view.cuh},
 * {@code batch.cuh} and {@code workloads/bank.cuh}.
 */
final class KernelStructs {
  static final int MAX_REGIONS = 8;
  static final int STORE_VIEW_BYTES = 16 + 24 * MAX_REGIONS;
  static final int BANK_BATCH_BYTES = 48;
  static final int BATCH_OUT_BYTES = 48;

  private KernelStructs() {}

  /** {@code gstm::StoreView}. */
  static byte[] storeView(StoreLayout layout, long locks, long[] regionBases) {
    ByteBuffer b = buffer(STORE_VIEW_BYTES);
    b.putLong(locks).putInt(layout.lockCount()).putInt(layout.regionCount());
    for (int r = 0; r < MAX_REGIONS; r++) {
      if (r < layout.regionCount()) {
        RegionSpec s = layout.region(r);
        b.putLong(regionBases[r]).putInt(s.length()).putInt(s.type().wordBytes())
            .putInt(layout.lockBase(r)).putInt(s.lockCoverage());
      } else {
        b.putLong(0).putInt(0).putInt(0).putInt(0).putInt(1);
      }
    }
    return b.array();
  }

  /** {@code gstm::bank::Batch}. */
  static byte[] bankBatch(long type, long accounts, long amount, long auditSums, int txCount,
      int k, int region) {
    return buffer(BANK_BATCH_BYTES).putLong(type).putLong(accounts).putLong(amount)
        .putLong(auditSums).putInt(txCount).putInt(k).putInt(region).putInt(0).array();
  }

  /** {@code gstm::BatchOut}. */
  static byte[] batchOut(long outcome, long counters, long histReads, long histWrites,
      long histCounts, int maxRetries) {
    return buffer(BATCH_OUT_BYTES).putLong(outcome).putLong(counters).putLong(histReads)
        .putLong(histWrites).putLong(histCounts).putInt(maxRetries).putInt(0).array();
  }

  private static ByteBuffer buffer(int bytes) {
    return ByteBuffer.allocate(bytes).order(ByteOrder.LITTLE_ENDIAN);
  }
}
