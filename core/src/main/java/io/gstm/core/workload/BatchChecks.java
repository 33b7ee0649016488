package io.gstm.core.workload;

import io.gstm.core.batch.TxBatch;

/**
 * The checks every hand-written workload makes of a batch before it runs, in one place and with
 * one wording: how many parameters and columns, which type codes, and per-transaction indices
 * in range. Regions are checked by {@link io.gstm.core.store.StoreLayout#checkRegion(int,
 * io.gstm.core.store.RegionType, String)} (through {@link ParamSlot#region}), which programs use
 * too (by name, through {@link io.gstm.core.store.StoreLayout#regionNamed}).
 */
public final class BatchChecks {
  private BatchChecks() {}

  /** {@code params: <workload> expects <shape>, got N values} unless the count is allowed. */
  public static void params(TxBatch batch, String workload, String shape, int... allowed) {
    int n = batch.params().length;
    for (int a : allowed) {
      if (n == a) {
        return;
      }
    }
    throw new IllegalArgumentException("params: " + workload + " expects " + shape + ", got "
        + n + " values");
  }

  /** {@code params: <workload> expects {a, b, ..}, N values, got M values}: one per slot. */
  public static void params(TxBatch batch, String workload, ParamSlot... slots) {
    params(batch, workload, "{" + labels(slots) + "}, " + slots.length + " values", slots.length);
  }

  /** {@code columns: <workload> expects N columns (<names>), got M}. */
  public static void columns(TxBatch batch, String workload, int expected, String names) {
    if (batch.columns().length != expected) {
      throw new IllegalArgumentException("columns: " + workload + " expects " + expected
          + " columns (" + names + "), got " + batch.columns().length);
    }
  }

  /** As {@link #columns(TxBatch, String, int, String)}, one column per slot. */
  public static void columns(TxBatch batch, String workload, ColumnSlot... columns) {
    columns(batch, workload, columns.length, labels(columns));
  }

  /** As {@link #types(TxBatch, String, String...)}, named by the types' labels. */
  public static void types(TxBatch batch, String workload, TxType... types) {
    String[] names = new String[types.length];
    for (TxType type : types) {
      names[type.code()] = type.label();
    }
    types(batch, workload, names);
  }

  /**
   * Every type code is one of {@code 0 .. names.length - 1}; else
   * {@code types[t] = x is not a <workload> type (0 a, 1 b, ...)}.
   */
  public static void types(TxBatch batch, String workload, String... names) {
    int[] types = batch.types();
    for (int t = 0; t < types.length; t++) {
      if (types[t] < 0 || types[t] >= names.length) {
        StringBuilder known = new StringBuilder();
        for (int i = 0; i < names.length; i++) {
          known.append(i == 0 ? "" : ", ").append(i).append(' ').append(names[i]);
        }
        throw new IllegalArgumentException("types[" + t + "] = " + types[t] + " is not a "
            + workload + " type (" + known + ")");
      }
    }
  }

  private static String labels(Slot... slots) {
    StringBuilder b = new StringBuilder();
    for (Slot slot : slots) {
      b.append(b.length() == 0 ? "" : ", ").append(slot.label());
    }
    return b.toString();
  }

  /**
   * Value {@code value} of transaction {@code t} lies in {@code 0 .. limit - 1}; else
   * {@code <what> <value> (transaction t) is out of range: <range> 0..limit-1}.
   */
  public static void index(int value, int limit, int t, String what, String range) {
    if (value < 0 || value >= limit) {
      throw new IllegalArgumentException(what + " " + value + " (transaction " + t
          + ") is out of range: " + range + " 0.." + (limit - 1));
    }
  }
}
