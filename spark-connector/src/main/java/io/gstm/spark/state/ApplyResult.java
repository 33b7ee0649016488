package io.gstm.spark.state;

import java.util.List;
import java.util.Map;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;

/**
 * What one {@link TxState} apply did. {@link #outcomes()} has a row per transaction:
 * {@code txId, epoch, partition} (the owner, -1 for a cross-partition transaction),
 * {@code program, outcome, committed, postponements} (semantic conflicts met before it ended),
 * {@code abortCode} (for USER_ABORT), {@code cause} (for outcomes the data decided),
 * {@code serial} (with {@code recordOrder}: the transaction's place in a serial order of the
 * epoch's committed transactions), then one column per program output (null where the program
 * has no such output or the transaction did not commit). The rows are computed once, when the
 * apply runs, and kept on the executors until the DataFrame is no longer referenced.
 */
public final class ApplyResult {
  /** Makes the outcome DataFrame, once, when first asked ({@link #outcomes()}). */
  private final java.util.function.Supplier<Dataset<Row>> outcomes;
  private final long epoch;
  private final Long batchId;
  private final boolean replayed;
  private final Map<String, Long> counts;
  private final long crossPartition;
  private final long kernelNanos;
  private final long taskNanos;
  private final long wallNanos;
  private final List<String> engines;
  private final boolean fellBack;
  private final String exchange;

  ApplyResult(java.util.function.Supplier<Dataset<Row>> outcomes, long epoch, Long batchId,
      boolean replayed, Map<String, Long> counts, long crossPartition, long kernelNanos,
      long taskNanos, long wallNanos, List<String> engines, boolean fellBack, String exchange) {
    this.outcomes = outcomes == null ? () -> null : once(outcomes);
    this.epoch = epoch;
    this.batchId = batchId;
    this.replayed = replayed;
    this.counts = Map.copyOf(counts);
    this.crossPartition = crossPartition;
    this.kernelNanos = kernelNanos;
    this.taskNanos = taskNanos;
    this.wallNanos = wallNanos;
    this.engines = List.copyOf(engines);
    this.fellBack = fellBack;
    this.exchange = exchange;
  }

  /** This result as returned again for a replayed batch id (nothing was applied). */
  ApplyResult asReplay() {
    return new ApplyResult(outcomes, epoch, batchId, true, counts, crossPartition, kernelNanos,
        taskNanos, wallNanos, engines, fellBack, exchange);
  }

  /** A row per transaction (see the class comment); null for a replayed batch id whose
   * outcomes are no longer held. */
  public Dataset<Row> outcomes() {
    return outcomes.get();
  }

  /** {@code make}'s value, made by the first call. */
  private static <T> java.util.function.Supplier<T> once(java.util.function.Supplier<T> make) {
    return new java.util.function.Supplier<>() {
      private T made;

      @Override
      public synchronized T get() {
        if (made == null) {
          made = make.get();
        }
        return made;
      }
    };
  }

  /** The epoch this apply was (every apply is one, numbered from 1 after creation). */
  public long epoch() {
    return epoch;
  }

  /** The batch id given to the apply, or null. */
  public Long batchId() {
    return batchId;
  }

  /** True when the batch id had been applied before and this call changed nothing. */
  public boolean replayed() {
    return replayed;
  }

  /** Transactions per outcome name (COMMITTED, ABANDONED_SEMANTIC, MISSING_KEY, ...). */
  public Map<String, Long> outcomeCounts() {
    return counts;
  }

  public long transactions() {
    return counts.values().stream().mapToLong(Long::longValue).sum();
  }

  public long committed() {
    return counts.getOrDefault("COMMITTED", 0L);
  }

  /** Transactions whose keys had several owners (run in the cross-partition phase). */
  public long crossPartition() {
    return crossPartition;
  }

  /** Engine time of the batches, summed over the tasks. */
  public long kernelNanos() {
    return kernelNanos;
  }

  /** Time in the state's tasks (batch building, engine, undo copies), summed over the tasks. */
  public long taskNanos() {
    return taskNanos;
  }

  /** Wall time of the apply on the driver, checks to commit. */
  public long wallNanos() {
    return wallNanos;
  }

  /** The engines the tasks ran on, with why. */
  public List<String> engines() {
    return engines;
  }

  /** True when a task fell back to the JVM engine although a GPU was allowed. */
  public boolean fellBackToJvm() {
    return fellBack;
  }

  /**
   * How the epoch ran: "one" (a state of one partition), "mesh" (one stage, the cross-partition
   * transactions as one batch on the epoch's coordinator) or "jobs" (see {@code
   * spark.gstm.state.exchange}); "none" for a replayed batch id whose result is no longer held.
   */
  public String exchange() {
    return exchange;
  }

  @Override
  public String toString() {
    return "ApplyResult{epoch=" + epoch + (batchId == null ? "" : ", batchId=" + batchId)
        + (replayed ? ", replayed" : "") + ", outcomes=" + counts + ", crossPartition="
        + crossPartition + ", exchange=" + exchange + ", wall=" + wallNanos / 1_000_000
        + " ms, engines=" + engines + "}";
  }
}
