package io.gstm.core.program;

/**
 * What checking found out about a program, bounds over every path through its body (loops at
 * their most trips), so that an engine can size a transaction's sets before the run and a
 * transaction that outgrows them ends TOO_LARGE, never anything worse.
 *
 * @param reads region reads, shared ones included (CSMV keeps a read-set slot for each read of
 *     an update transaction)
 * @param locks PR-STM lock-set entries
 * @param writeEntries distinct words written (the write buffer)
 * @param sums range sums ({@code sum(region, first, count)})
 * @param steps instructions one attempt can execute; the interpreters stop an attempt past it
 * @param readOnly no region write anywhere: CSMV runs it on a snapshot without a read set
 * @param retries whether the body can declare a semantic conflict
 */
public record Analysis(long reads, Locks locks, long writeEntries, long sums, long steps,
    boolean readOnly, boolean retries) {

  /**
   * Bounds on PR-STM's lock set, which holds a lock once however many words it guards.
   *
   * @param byWord distinct words read or written (a write to a word the body has already read,
   *     at the same index expression, shares its entry): a lock a word
   * @param byIndex distinct index expressions read or written, whatever the region: the bound
   *     when all the program's regions share one row of locks ({@code RegionSpec.withLocksOf}),
   *     so that a vertex's distance, parent and hops take one lock
   */
  public record Locks(long byWord, long byIndex) {}

  /** Lock-set entries with a lock a word ({@link Locks#byWord}). */
  public long lockEntries() {
    return locks.byWord();
  }

  /** Lock-set entries over regions that share one row of locks ({@link Locks#byIndex}). */
  public long rowLockEntries() {
    return locks.byIndex();
  }

  /** The set capacity PR-STM needs for this program (unbounded in principle: capped later). */
  public long setEntries() {
    return Math.max(lockEntries(), writeEntries);
  }

  /** The set capacity PR-STM needs when all the program's regions share one row of locks. */
  public long rowSetEntries() {
    return Math.max(rowLockEntries(), writeEntries);
  }
}
