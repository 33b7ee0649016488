package io.gstm.core.workload;

import io.gstm.core.batch.TxBatch;
import io.gstm.core.store.StoreLayout;

/**
 * A family of transaction types over a store layout, JVM side: checks a batch against a store
 * before anything runs, and runs one transaction body. The CUDA twin lives in
 * {@code kernels/src/main/cuda/include/gstm/workloads/}.
 */
public interface Workload {
  /** The name batches carry in {@link TxBatch#workload()}. */
  String name();

  /** Throws IllegalArgumentException naming the parameter and the limit for a bad batch. */
  void validate(StoreLayout layout, TxBatch batch);

  /**
   * Runs transaction {@code t}'s body; returns its result (0 if it has none). A body that cannot
   * proceed calls {@link TxContext#semanticConflict()} and returns.
   */
  long run(TxContext tx, TxBatch batch, int t);

  /**
   * Ordering tag of each type code (index = type): a batch pre-sorted for the semantic contention
   * manager runs higher tags first (in a bank, deposits before withdrawals).
   */
  int[] orderingTags();

  /**
   * True when transactions of {@code type} are declared read-only: CSMV runs them on a snapshot
   * without a read set, and one that writes fails the batch. None by default.
   */
  default boolean readOnly(TxBatch batch, int type) {
    return false;
  }
}
