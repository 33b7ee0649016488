package io.gstm.core.batch;

/**
 * How an engine runs a batch. Immutable: {@code withX} returns a new object.
 *
 * @param maxRetries attempts per transaction before it is ABANDONED, at least 1
 * @param history record the lock versions each committed transaction read and produced
 */
public record RunOptions(int maxRetries, boolean history) {
  /** Enough for any contention PR-STM's priority rule resolves; a bound so a batch always ends. */
  public static final int DEFAULT_MAX_RETRIES = 1_000_000;

  public RunOptions {
    if (maxRetries < 1) {
      throw new IllegalArgumentException("maxRetries must be at least 1, got " + maxRetries);
    }
  }

  public static RunOptions defaults() {
    return new RunOptions(DEFAULT_MAX_RETRIES, false);
  }

  public RunOptions withMaxRetries(int value) {
    return new RunOptions(value, history);
  }

  public RunOptions withHistory(boolean value) {
    return new RunOptions(maxRetries, value);
  }
}
