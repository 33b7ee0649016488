package io.gstm.core.workload;

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
}
