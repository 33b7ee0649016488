package io.gstm.core.jvm;

import java.util.concurrent.atomic.AtomicLong;

/**
 * What the workers of one JVM batch write, per transaction: outcome, the result of a committed
 * read-only transaction, semantic conflicts met, and in history mode the lock versions read
 * and produced ({@code capacity} entries per transaction).
 */
final class BatchOutputs {
  final int capacity;
  final byte[] outcomes;
  final long[] results;
  final int[] semanticConflicts;
  final long[] histReads;
  final long[] histWrites;
  final int[] histCounts;
  /** Tickets of the batch's urgent transactions ({@link Priority#urgent}). */
  final AtomicLong urgentTickets = new AtomicLong();

  BatchOutputs(int n, int capacity, boolean history) {
    this.capacity = capacity;
    this.outcomes = new byte[n];
    this.results = new long[n];
    this.semanticConflicts = new int[n];
    this.histReads = history ? new long[n * capacity] : null;
    this.histWrites = history ? new long[n * capacity] : null;
    this.histCounts = history ? new int[n] : null;
  }

  boolean history() {
    return histCounts != null;
  }
}
