package io.gstm.core.cuda;

import io.gstm.core.batch.RunOptions;

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
  static final int STORE_VIEW_BYTES = 16 + 24 * StoreLayout.MAX_REGIONS;
  static final int BANK_BATCH_BYTES = 48;
  static final int BATCH_OUT_BYTES = 48;
  static final int TX_TABLE_BYTES = 56;
  static final int SEMANTIC_OUT_BYTES = 64;
  static final int TX_TABLE_PARAMS = 6;

  private KernelStructs() {}

  /** {@code gstm::StoreView}. */
  static byte[] storeView(StoreLayout layout, long locks, long[] regionBases) {
    ByteBuffer b = buffer(STORE_VIEW_BYTES);
    b.putLong(locks).putInt(layout.lockCount()).putInt(layout.regionCount());
    for (int r = 0; r < StoreLayout.MAX_REGIONS; r++) {
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
      long histCounts, RunOptions options) {
    return buffer(BATCH_OUT_BYTES).putLong(outcome).putLong(counters).putLong(histReads)
        .putLong(histWrites).putLong(histCounts).putInt(options.maxRetries())
        .putInt(options.urgentAfter()).array();
  }

  /** {@code gstm::TxTable}; {@code params} holds at most {@value #TX_TABLE_PARAMS} values. */
  static byte[] txTable(long type, long cols, long results, int txCount, int ncols,
      int[] params) {
    if (params.length > TX_TABLE_PARAMS) {
      throw new IllegalArgumentException(
          "params: at most " + TX_TABLE_PARAMS + " workload parameters, got " + params.length);
    }
    ByteBuffer b = buffer(TX_TABLE_BYTES).putLong(type).putLong(cols).putLong(results)
        .putInt(txCount).putInt(ncols);
    for (int i = 0; i < TX_TABLE_PARAMS; i++) {
      b.putInt(i < params.length ? params[i] : 0);
    }
    return b.array();
  }

  /** {@code gstm::SemanticOut}. */
  static byte[] semanticOut(long outcome, long semanticConflicts, long counters, long histReads,
      long histWrites, long histCounts, RunOptions options) {
    return buffer(SEMANTIC_OUT_BYTES).putLong(outcome).putLong(semanticConflicts)
        .putLong(counters).putLong(histReads).putLong(histWrites).putLong(histCounts)
        .putInt(options.maxRetries()).putInt(options.semanticLimit())
        .putInt(options.policy().code()).putInt(options.urgentAfter()).array();
  }

  private static ByteBuffer buffer(int bytes) {
    return ByteBuffer.allocate(bytes).order(ByteOrder.LITTLE_ENDIAN);
  }
}
