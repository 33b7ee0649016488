package io.gstm.core.workload;

/** What a JVM transaction body sees: transactional reads and buffered writes of raw word bits. */
public interface TxContext {
  /** Reads word {@code index} of {@code region} as raw bits (sign-extended for 32-bit words). */
  long read(int region, int index);

  /** Buffers a write of raw bits to word {@code index} of {@code region}, applied at commit. */
  void write(int region, int index, long bits);
}
