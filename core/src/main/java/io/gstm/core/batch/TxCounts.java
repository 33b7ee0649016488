package io.gstm.core.batch;

import java.io.Serializable;

/**
 * The transaction counters that every statistics record reports (graph rounds and calls, k-means
 * partials): what ran, what committed, what aborted. Serializable: the Spark connector's tasks
 * send it to the driver and its reports keep it.
 *
 * @param transactions transactions started
 * @param commits committed transactions
 * @param aborts aborted attempts, whatever the cause (each retried)
 */
public record TxCounts(long transactions, long commits, long aborts) implements Serializable {
  /** No transactions. */
  public static final TxCounts NONE = new TxCounts(0, 0, 0);

  /** The sum of these counters and {@code other}'s. */
  public TxCounts plus(TxCounts other) {
    return new TxCounts(transactions + other.transactions, commits + other.commits,
        aborts + other.aborts);
  }
}
