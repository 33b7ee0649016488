package io.gstm.core.workload;

import io.gstm.core.batch.Outcome;

/** What a JVM transaction body sees: transactional reads and buffered writes of raw word bits. */
public interface TxContext {
  /** Reads word {@code index} of {@code region} as raw bits (sign-extended for 32-bit words). */
  long read(int region, int index);

  /** Buffers a write of raw bits to word {@code index} of {@code region}, applied at commit. */
  void write(int region, int index, long bits);

  /**
   * Reads word {@code index} of {@code region} as raw bits outside the read set: for read-only
   * data that no transaction of the batch writes (a graph's edges, k-means points). Such a read
   * takes no lock, is never validated and costs no set entry; reading a word that some
   * transaction writes this way is a bug in the workload.
   */
  long readShared(int region, int index);

  /**
   * Reads {@code count} consecutive words of {@code region} from {@code first}, wrapping to 0 at
   * {@code wrap}, and returns the sum of their signed values: an audit's read of many words. For
   * read-only transactions. PR-STM keeps such a range as one read-set entry (the range and the
   * sum of the versions it saw) however long it is, so it is not bounded by the set capacity; a
   * write after it, or a range in a transaction that has written or already read a range, ends
   * the transaction TOO_LARGE there. This default reads word by word.
   */
  default long sumRange(int region, int first, int count, int wrap) {
    long sum = 0;
    for (int j = 0, i = first; j < count; j++, i = i + 1 == wrap ? 0 : i + 1) {
      sum += read(region, i);
    }
    return sum;
  }

  /**
   * Declares that the application cannot proceed in the state read (an overdraft, a sold-out
   * room, an empty buffer). The body returns at once; if its reads prove consistent, the engine
   * postpones or retries the transaction according to its policy, otherwise it is a
   * concurrency conflict.
   */
  void semanticConflict();

  /**
   * Ends the attempt with a final outcome other than COMMITTED: a program's user abort or a
   * fault (an index out of range, a division by zero, a loop past its bound). The body returns
   * at once. If its reads prove consistent the outcome stands and the transaction changes
   * nothing; otherwise the body saw an inconsistent state, it is a concurrency conflict and the
   * transaction runs again.
   */
  void end(Outcome outcome);

  /**
   * False once this attempt has failed (a lock found held, a set overflowed): its reads return
   * 0 and its writes are dropped, so a body may stop early. True by default.
   */
  default boolean live() {
    return true;
  }
}
