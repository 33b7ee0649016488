package io.gstm.core.batch;

/**
 * A statistics record that carries {@link TxCounts}: its transactions, commits and aborts read
 * directly, as {@code stats.commits()} for {@code stats.tx().commits()}.
 */
public interface WithTxCounts {
  /** The transaction counters. */
  TxCounts tx();

  /** Transactions started. */
  default long transactions() {
    return tx().transactions();
  }

  /** Committed transactions. */
  default long commits() {
    return tx().commits();
  }

  /** Aborted attempts, whatever the cause (each retried). */
  default long aborts() {
    return tx().aborts();
  }
}
