package io.gstm.core.program;

/**
 * What checking found out about a program, bounds over every path through its body (loops at
 * their most trips), so that an engine can size a transaction's sets before the run and a
 * transaction that outgrows them ends TOO_LARGE, never anything worse.
 *
 * @param reads region reads, shared ones included (CSMV keeps a read-set slot for each read of
 *     an update transaction)
 * @param lockEntries PR-STM lock-set entries: distinct words read or written (a write to a word
 *     the body has already read, at the same index expression, shares its entry)
 * @param writeEntries distinct words written (the write buffer)
 * @param sums range sums ({@code sum(region, first, count)})
 * @param steps instructions one attempt can execute; the interpreters stop an attempt past it
 * @param readOnly no region write anywhere: CSMV runs it on a snapshot without a read set
 * @param retries whether the body can declare a semantic conflict
 */
public record Analysis(long reads, long lockEntries, long writeEntries, long sums, long steps,
    boolean readOnly, boolean retries) {

  /** The set capacity PR-STM needs for this program (unbounded in principle: capped later). */
  public long setEntries() {
    return Math.max(lockEntries, writeEntries);
  }
}
