package io.gstm.core.batch;

import io.gstm.core.history.History;

/**
 * What a batch did: an outcome per transaction, counters, per-transaction results (the bank's
 * audit sums), optional history, and timings. Engines build it with {@link #builder}, by name:
 *
 * <ul>
 *   <li>{@code engine}: the engine that ran it
 *   <li>{@code outcomes}: {@link Outcome} code per transaction
 *   <li>{@code counters}: indexed by {@link Counter#ordinal()}
 *   <li>{@code results}: per-transaction result (what a committed read-only transaction saw), or 0
 *   <li>{@code semanticConflicts}: per transaction, how often it met a semantic conflict (was
 *       postponed or retried in place) before it committed or was abandoned
 *   <li>{@code history}: versions read and produced by committed transactions, or null
 *   <li>{@code uploadNanos}, {@code kernelNanos}, {@code downloadNanos}: time to send the batch,
 *       time the transactions ran, time to bring results back
 *   <li>{@code stamps}: CSMV: per committed transaction its commit timestamp (update) or snapshot
 *       timestamp (read-only); empty for other algorithms
 * </ul>
 */
public final class BatchResult {
  private final String engine;
  private final byte[] outcomes;
  private final long[] counters;
  /** Null until asked for when the engine left them all 0 (most batches: 8 B a transaction). */
  private volatile long[] results;
  private volatile int[] semanticConflicts;
  private final History history;
  private final long uploadNanos;
  private final long kernelNanos;
  private final long downloadNanos;
  private final long[] stamps;

  private BatchResult(Builder b) {
    this.engine = b.engine;
    this.outcomes = b.outcomes;
    this.counters = b.counters;
    this.results = b.results;
    this.semanticConflicts = b.semanticConflicts;
    this.history = b.history;
    this.uploadNanos = b.uploadNanos;
    this.kernelNanos = b.kernelNanos;
    this.downloadNanos = b.downloadNanos;
    this.stamps = b.stamps;
  }

  /**
   * A builder of the result of {@code outcomes.length} transactions run by {@code engine}; what
   * is not set is empty: zero counters, results and semantic conflicts, no history, no time, no
   * timestamps.
   */
  public static Builder builder(String engine, byte[] outcomes) {
    return new Builder(engine, outcomes);
  }

  /** A builder holding this result's values, to derive another. */
  public Builder toBuilder() {
    return builder(engine, outcomes).counters(counters).results(results())
        .semanticConflicts(semanticConflicts()).history(history)
        .timings(uploadNanos, kernelNanos, downloadNanos).stamps(stamps);
  }

  public String engine() {
    return engine;
  }

  public byte[] outcomes() {
    return outcomes;
  }

  public long[] counters() {
    return counters;
  }

  public long[] results() {
    long[] r = results;
    if (r == null) {
      synchronized (this) {
        if (results == null) {
          results = new long[outcomes.length];
        }
        r = results;
      }
    }
    return r;
  }

  /** Semantic conflicts of transaction {@code tx} (0 when none was counted: no array made). */
  public int semanticConflicts(int tx) {
    int[] c = semanticConflicts;
    return c == null ? 0 : c[tx];
  }

  /**
   * Whether the per-transaction counts were recorded: an engine may leave them out when no
   * transaction met a conflict (then every {@link #semanticConflicts(int)} is 0).
   */
  public boolean semanticConflictsCounted() {
    return semanticConflicts != null;
  }

  public int[] semanticConflicts() {
    int[] c = semanticConflicts;
    if (c == null) {
      synchronized (this) {
        if (semanticConflicts == null) {
          semanticConflicts = new int[outcomes.length];
        }
        c = semanticConflicts;
      }
    }
    return c;
  }

  public History history() {
    return history;
  }

  public long uploadNanos() {
    return uploadNanos;
  }

  public long kernelNanos() {
    return kernelNanos;
  }

  public long downloadNanos() {
    return downloadNanos;
  }

  public long[] stamps() {
    return stamps;
  }

  public Outcome outcome(int tx) {
    return Outcome.ofCode(outcomes[tx]);
  }

  public long count(Counter counter) {
    return counters[counter.ordinal()];
  }

  public long commits() {
    return count(Counter.COMMITS);
  }

  /** All aborts, whatever the cause. */
  public long aborts() {
    long sum = 0;
    for (Counter c : Counter.values()) {
      if (c.isAbort()) {
        sum += counters[c.ordinal()];
      }
    }
    return sum;
  }

  /** Aborts per attempt: aborts / (aborts + commits). */
  public double abortRate() {
    long attempts = aborts() + commits();
    return attempts == 0 ? 0 : (double) aborts() / attempts;
  }

  /** Committed transactions per second of kernel time. */
  public double committedPerSecond() {
    return kernelNanos == 0 ? 0 : commits() * 1e9 / kernelNanos;
  }

  /** Named parts of a {@link BatchResult}. */
  public static final class Builder {
    private final String engine;
    private final byte[] outcomes;
    private long[] counters = new long[Counter.values().length];
    private long[] results;
    private int[] semanticConflicts;
    private History history;
    private long uploadNanos;
    private long kernelNanos;
    private long downloadNanos;
    private long[] stamps = new long[0];

    private Builder(String engine, byte[] outcomes) {
      this.engine = engine;
      this.outcomes = outcomes;
    }

    /** Indexed by {@link Counter#ordinal()}. */
    public Builder counters(long[] values) {
      counters = values;
      return this;
    }

    /** Per transaction, what a committed read-only transaction saw, or 0 (null: all 0). */
    public Builder results(long[] values) {
      results = values;
      return this;
    }

    /** Per transaction, how often it met a semantic conflict (null: never). */
    public Builder semanticConflicts(int[] values) {
      semanticConflicts = values;
      return this;
    }

    /** Versions read and produced by committed transactions, or null. */
    public Builder history(History value) {
      history = value;
      return this;
    }

    /** Time to send the batch, time the transactions ran, time to bring results back. */
    public Builder timings(long uploadNanos, long kernelNanos, long downloadNanos) {
      this.uploadNanos = uploadNanos;
      this.kernelNanos = kernelNanos;
      this.downloadNanos = downloadNanos;
      return this;
    }

    /** CSMV: per committed transaction its commit or snapshot timestamp. */
    public Builder stamps(long[] values) {
      stamps = values;
      return this;
    }

    public BatchResult build() {
      return new BatchResult(this);
    }
  }
}
