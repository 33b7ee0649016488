package io.gstm.core.workload;

import io.gstm.core.batch.TxBatch;
import io.gstm.core.store.RegionType;
import io.gstm.core.store.StoreLayout;

/** A named slot of a batch's {@link TxBatch#params()}, declared as an enum constant. */
public interface ParamSlot extends Slot {
  /** True when {@code batch} carries this slot (trailing slots may be optional). */
  default boolean in(TxBatch batch) {
    return batch.params().length > index();
  }

  /** This slot's value in {@code batch}. */
  default int of(TxBatch batch) {
    return batch.params()[index()];
  }

  /**
   * This slot's value, checked to be a region of {@code layout} holding {@code type}: else an
   * IllegalArgumentException that starts with the slot's label.
   */
  default int region(TxBatch batch, StoreLayout layout, RegionType type) {
    return checkedRegion(batch, layout, type, label());
  }

  /** As {@link #region(TxBatch, StoreLayout, RegionType)}, labelled "label (the holding)". */
  default int region(TxBatch batch, StoreLayout layout, RegionType type, String holding) {
    return checkedRegion(batch, layout, type, label() + " (the " + holding + ")");
  }

  private int checkedRegion(TxBatch batch, StoreLayout layout, RegionType type, String what) {
    int region = of(batch);
    layout.checkRegion(region, type, what);
    return region;
  }
}
