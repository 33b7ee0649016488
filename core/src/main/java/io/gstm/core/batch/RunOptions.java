package io.gstm.core.batch;

/**
 * How an engine runs a batch. Immutable: {@code withX} returns a new object.
 *
 * @param maxRetries concurrency aborts a transaction may meet before it is ABANDONED, at least 1
 * @param history record the lock versions each committed transaction read and produced
 * @param policy what to do on a semantic conflict
 * @param semanticLimit semantic conflicts a transaction may meet before it is
 *     ABANDONED_SEMANTIC, at least 1
 * @param urgentAfter PR-STM: concurrency aborts in a row after which a transaction turns urgent
 *     (outranks ordinary ones and reads visibly, so that it commits; docs/design.md, "Progress"),
 *     at least 1; {@link Integer#MAX_VALUE} keeps the paper's static priorities alone
 * @param results bring back each transaction's result ({@link BatchResult#results()}); false
 *     for a caller that reads a program batch's outputs alone: the GPU then leaves the results
 *     on the device (every one reads 0), ten million of which were 80 MB to download a batch
 * @param allOutputs a program batch's outputs for every transaction ({@code
 *     ProgramResult.outputs()}); false for a caller that reads the committed transactions'
 *     alone ({@code ProgramResult.committedOutputs()}): the GPU then brings back only those
 *     (two outputs of ten million transactions were 160 MB of Java array a batch, most of it
 *     for transactions whose program has no output)
 */
public record RunOptions(int maxRetries, boolean history, SemanticPolicy policy,
    int semanticLimit, int urgentAfter, boolean results, boolean allOutputs) {
  /** Enough for any contention PR-STM's priority rule resolves; a bound so a batch always ends. */
  public static final int DEFAULT_MAX_RETRIES = 1_000_000;
  /**
   * Losses in a row before a transaction turns urgent: past the first retries, which usually
   * succeed, and low enough that the urgent mode ends a starvation early.
   */
  public static final int DEFAULT_URGENT_AFTER = 8;

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
    if (urgentAfter < 1) {
      throw new IllegalArgumentException(
          "urgentAfter (aborts in a row before a transaction turns urgent) must be at least 1, got "
              + urgentAfter);
    }
  }

  /** These limits and policy, the results and every transaction's outputs brought back. */
  public RunOptions(int maxRetries, boolean history, SemanticPolicy policy, int semanticLimit,
      int urgentAfter) {
    this(maxRetries, history, policy, semanticLimit, urgentAfter, true, true);
  }

  /** As the canonical constructor, every transaction's outputs brought back. */
  public RunOptions(int maxRetries, boolean history, SemanticPolicy policy, int semanticLimit,
      int urgentAfter, boolean results) {
    this(maxRetries, history, policy, semanticLimit, urgentAfter, results, true);
  }

  /** These limits and policy, with {@link #DEFAULT_URGENT_AFTER}. */
  public RunOptions(int maxRetries, boolean history, SemanticPolicy policy, int semanticLimit) {
    this(maxRetries, history, policy, semanticLimit, DEFAULT_URGENT_AFTER);
  }

  /** Concurrency aborts bounded by {@code maxRetries}, postponement policy with its limit. */
  public RunOptions(int maxRetries, boolean history) {
    this(maxRetries, history, SemanticPolicy.POSTPONE, SemanticPolicy.POSTPONE.defaultLimit());
  }

  public static RunOptions defaults() {
    return new RunOptions(DEFAULT_MAX_RETRIES, false);
  }

  public RunOptions withMaxRetries(int value) {
    return new RunOptions(value, history, policy, semanticLimit, urgentAfter, results,
        allOutputs);
  }

  public RunOptions withHistory(boolean value) {
    return new RunOptions(maxRetries, value, policy, semanticLimit, urgentAfter, results,
        allOutputs);
  }

  /** This policy with its default limit. */
  public RunOptions withPolicy(SemanticPolicy value) {
    return new RunOptions(maxRetries, history, value, value.defaultLimit(), urgentAfter,
        results, allOutputs);
  }

  public RunOptions withSemanticLimit(int value) {
    return new RunOptions(maxRetries, history, policy, value, urgentAfter, results,
        allOutputs);
  }

  /** {@link Integer#MAX_VALUE}: never urgent (the paper's static priorities alone). */
  public RunOptions withUrgentAfter(int value) {
    return new RunOptions(maxRetries, history, policy, semanticLimit, value, results,
        allOutputs);
  }

  /** Results left on the device (each reads 0): see {@link #results()}. */
  public RunOptions withoutResults() {
    return new RunOptions(maxRetries, history, policy, semanticLimit, urgentAfter, false,
        allOutputs);
  }

  /** Only the committed transactions' outputs brought back: see {@link #allOutputs()}. */
  public RunOptions withCommittedOutputsOnly() {
    return new RunOptions(maxRetries, history, policy, semanticLimit, urgentAfter, results,
        false);
  }
}
