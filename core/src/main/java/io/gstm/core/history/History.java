package io.gstm.core.history;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Objects;

/**
 * The committed transactions of one batch together with the lock versions at the start of that
 * batch. Aborted transactions are deliberately absent: they produced nothing, so only committed
 * ones constrain serializability.
 *
 * <p>Instances are immutable; both inputs are copied on construction.
 */
public final class History {

  private final int[] initialVersions;
  private final List<TxRecord> committed;

  /**
   * Creates a history.
   *
   * @param initialVersions version of every lock at the start of the batch; its length is the
   *     lock count
   * @param committed the committed transactions, in any order
   * @throws NullPointerException if an argument or a list element is null
   */
  public History(int[] initialVersions, List<TxRecord> committed) {
    this.initialVersions = Objects.requireNonNull(initialVersions, "initialVersions").clone();
    this.committed = List.copyOf(Objects.requireNonNull(committed, "committed"));
  }

  /**
   * Returns the size of the global lock table.
   *
   * @return the number of locks; valid lock indices are {@code [0, lockCount())}
   */
  public int lockCount() {
    return initialVersions.length;
  }

  /**
   * Returns a lock's version at the start of the batch.
   *
   * @param lock lock index in {@code [0, lockCount())}
   * @return the initial version
   * @throws IndexOutOfBoundsException if {@code lock} is out of range
   */
  public int initialVersion(int lock) {
    Objects.checkIndex(lock, initialVersions.length);
    return initialVersions[lock];
  }

  /**
   * Returns the committed transactions.
   *
   * @return an unmodifiable list, in the order given at construction
   */
  public List<TxRecord> committed() {
    return committed;
  }

  /**
   * Builds from flat arrays as a GPU kernel writes them: for committed tx i ({@code txIds[i]}),
   * {@code readCounts[i]} entries start at {@code reads[i * maxEntries]} and
   * {@code writeCounts[i]} entries start at {@code writes[i * maxEntries]}. Slots past a count are
   * ignored, since kernels leave them uninitialised.
   *
   * @param initialVersions version of every lock at the start of the batch
   * @param txIds id of each committed transaction
   * @param readCounts number of read entries of each committed transaction
   * @param reads packed read entries, {@code maxEntries} slots per transaction
   * @param writeCounts number of write entries of each committed transaction
   * @param writes packed write entries, {@code maxEntries} slots per transaction
   * @param maxEntries slots reserved per transaction in {@code reads} and {@code writes}
   * @return the history
   * @throws IllegalArgumentException if the per-transaction arrays differ in length, a count is
   *     negative or above {@code maxEntries}, or an entry array is too short
   * @throws NullPointerException if an argument is null
   */
  public static History fromFlat(int[] initialVersions, int[] txIds, int[] readCounts,
      long[] reads, int[] writeCounts, long[] writes, int maxEntries) {
    Objects.requireNonNull(initialVersions, "initialVersions");
    Objects.requireNonNull(txIds, "txIds");
    Objects.requireNonNull(readCounts, "readCounts");
    Objects.requireNonNull(reads, "reads");
    Objects.requireNonNull(writeCounts, "writeCounts");
    Objects.requireNonNull(writes, "writes");
    int n = txIds.length;
    if (readCounts.length != n || writeCounts.length != n) {
      throw new IllegalArgumentException("txIds, readCounts and writeCounts differ in length: "
          + n + ", " + readCounts.length + ", " + writeCounts.length);
    }
    if (maxEntries < 0) {
      throw new IllegalArgumentException("maxEntries is negative: " + maxEntries);
    }
    List<TxRecord> txs = new ArrayList<>(n);
    for (int i = 0; i < n; i++) {
      // long arithmetic: i * maxEntries overflows int for large batches with wide slots.
      long base = (long) i * maxEntries;
      txs.add(new TxRecord(txIds[i], slice(reads, "reads", base, readCounts[i], maxEntries, i),
          slice(writes, "writes", base, writeCounts[i], maxEntries, i)));
    }
    // The constructor copies again; a batch is built once, so simplicity wins over one copy.
    return new History(initialVersions, txs);
  }

  private static long[] slice(long[] flat, String name, long base, int count, int maxEntries,
      int tx) {
    if (count < 0 || count > maxEntries) {
      throw new IllegalArgumentException(name + " count of committed tx #" + tx + " is " + count
          + ", outside [0, " + maxEntries + "]");
    }
    if (base + count > flat.length) {
      throw new IllegalArgumentException(name + " array too short: committed tx #" + tx
          + " needs " + (base + count) + " slots, array has " + flat.length);
    }
    return Arrays.copyOfRange(flat, (int) base, (int) base + count);
  }
}
