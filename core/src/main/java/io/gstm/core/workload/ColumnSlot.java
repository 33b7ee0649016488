package io.gstm.core.workload;

import io.gstm.core.batch.TxBatch;

/** A named column of a batch's {@link TxBatch#columns()}, declared as an enum constant. */
public interface ColumnSlot extends Slot {
  /** This column of {@code batch}: one value per transaction. */
  default int[] of(TxBatch batch) {
    return batch.columns()[index()];
  }
}
