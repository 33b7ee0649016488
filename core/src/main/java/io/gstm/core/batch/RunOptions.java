package io.gstm.core.batch;

/**
 * How an engine runs a batch. Immutable: {@code withX} returns a new object.
 *
 * @param maxRetries concurrency aborts a transaction may meet before it is ABANDONED, at least 1
 * @param history record the lock versions each committed transaction read and produced
 * @param policy what to do on a semantic conflict
 * @param semanticLimit semantic conflicts a transaction may meet before it is
 *     ABANDONED_SEMANTIC, at least 1
 */
public record RunOptions(int maxRetries, boolean history, SemanticPolicy policy,
    int semanticLimit) {
  /** Enough for any contention PR-STM's priority rule resolves; a bound so a batch always ends. */
  public static final int DEFAULT_MAX_RETRIES = 1_000_000;

  public RunOptions {
    if (maxRetries < 1) {
      throw new IllegalArgumentException("maxRetries must be at least 1, got " + maxRetries);
    }
    if (policy == null) {
      throw new IllegalArgumentException("policy must not be null");
    }
    if (semanticLimit < 1) {
      throw new IllegalArgumentException(
          "semanticLimit (retry limit for semantic conflicts) must be at least 1, got "
              + semanticLimit);
    }
  }

  /** Concurrency aborts bounded by {@code maxRetries}, postponement policy with its limit. */
  public RunOptions(int maxRetries, boolean history) {
    this(maxRetries, history, SemanticPolicy.POSTPONE, SemanticPolicy.POSTPONE.defaultLimit());
  }

  public static RunOptions defaults() {
    return new RunOptions(DEFAULT_MAX_RETRIES, false);
  }

  public RunOptions withMaxRetries(int value) {
    return new RunOptions(value, history, policy, semanticLimit);
  }

  public RunOptions withHistory(boolean value) {
    return new RunOptions(maxRetries, value, policy, semanticLimit);
  }

  /** This policy with its default limit. */
  public RunOptions withPolicy(SemanticPolicy value) {
    return new RunOptions(maxRetries, history, value, value.defaultLimit());
  }

  public RunOptions withSemanticLimit(int value) {
    return new RunOptions(maxRetries, history, policy, value);
  }
}
