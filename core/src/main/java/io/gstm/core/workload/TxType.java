package io.gstm.core.workload;

import java.util.Locale;

/**
 * A workload's transaction type, declared as an enum constant: its ordinal is the type code
 * batches carry in {@link io.gstm.core.batch.TxBatch#types()} and the CUDA twin switches on, so
 * the order of the constants is the encoding.
 */
public interface TxType {
  int ordinal();

  String name();

  /** The type code batches carry. */
  default int code() {
    return ordinal();
  }

  /** True when {@code code} is this type's code. */
  default boolean is(int code) {
    return code == ordinal();
  }

  /** The name messages use: {@code SHORTEST_PATHS} is "shortest paths". */
  default String label() {
    return name().toLowerCase(Locale.ROOT).replace('_', ' ');
  }
}
