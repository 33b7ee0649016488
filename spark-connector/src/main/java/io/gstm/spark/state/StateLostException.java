package io.gstm.spark.state;

/**
 * A partition of a {@link TxState} is not where the driver placed it: its executor was lost (or
 * its store closed), so the epochs committed since the last checkpoint are gone with it. The
 * message names the state, the partition, the executor, the committed epoch and the last
 * checkpoint to restore from.
 */
public final class StateLostException extends IllegalStateException {
  private static final long serialVersionUID = 1L;
  private final int partition;

  public StateLostException(String message, int partition) {
    super(message);
    this.partition = partition;
  }

  /** The lost partition. */
  public int partition() {
    return partition;
  }
}
