package io.gstm.core.history;

import java.util.Arrays;
import java.util.Objects;

/**
 * What one committed transaction saw and produced. Each entry packs
 * {@code (lockIndex << 32) | (version & 0xffffffffL)}, the same layout a GPU kernel writes, so
 * histories can be copied off the device without unpacking.
 *
 * <p>{@code reads} holds one entry {@code (lock, version observed)} for every lock the transaction
 * read; a lock that is both read and written appears there with the version seen before the write.
 * {@code writes} holds one entry {@code (lock, version produced)}, i.e. observed + 1, per distinct
 * lock written.
 *
 * <p>The arrays are copied on the way in and out so that a record, once built, cannot be changed
 * behind a checker's back.
 *
 * @param txId the transaction's id, used only to name it in reports
 * @param reads packed {@code (lock, version observed)} entries
 * @param writes packed {@code (lock, version produced)} entries
 */
public record TxRecord(int txId, long[] reads, long[] writes) {

  /**
   * Copies the arrays so the record owns its state.
   *
   * @param txId the transaction's id
   * @param reads packed {@code (lock, version observed)} entries, copied
   * @param writes packed {@code (lock, version produced)} entries, copied
   * @throws NullPointerException if {@code reads} or {@code writes} is null
   */
  public TxRecord {
    reads = Objects.requireNonNull(reads, "reads").clone();
    writes = Objects.requireNonNull(writes, "writes").clone();
  }

  /**
   * Returns a copy of the read entries; a copy because arrays are mutable and records are not.
   *
   * @return packed {@code (lock, version observed)} entries
   */
  @Override
  public long[] reads() {
    return reads.clone();
  }

  /**
   * Returns a copy of the write entries; a copy because arrays are mutable and records are not.
   *
   * @return packed {@code (lock, version produced)} entries
   */
  @Override
  public long[] writes() {
    return writes.clone();
  }

  /**
   * Packs a lock index and a version into one entry.
   *
   * @param lockIndex index into the global lock table
   * @param version 32-bit lock version (treated as unsigned bits)
   * @return {@code (lockIndex << 32) | (version & 0xffffffffL)}
   */
  public static long entry(int lockIndex, int version) {
    return ((long) lockIndex << 32) | (version & 0xffffffffL);
  }

  /**
   * Extracts the lock index of a packed entry.
   *
   * @param entry a value built by {@link #entry(int, int)}
   * @return the high 32 bits
   */
  public static int lockOf(long entry) {
    return (int) (entry >>> 32);
  }

  /**
   * Extracts the version of a packed entry.
   *
   * @param entry a value built by {@link #entry(int, int)}
   * @return the low 32 bits
   */
  public static int versionOf(long entry) {
    return (int) entry;
  }

  /**
   * Compares by content, since the default record equality would compare array identity and make
   * round-trip tests meaningless.
   *
   * @param o the object to compare with
   * @return whether {@code o} is a record with the same id and the same entries in the same order
   */
  @Override
  public boolean equals(Object o) {
    return o instanceof TxRecord other
        && txId == other.txId
        && Arrays.equals(reads, other.reads)
        && Arrays.equals(writes, other.writes);
  }

  /**
   * Hashes by content, consistent with {@link #equals(Object)}.
   *
   * @return a content-based hash
   */
  @Override
  public int hashCode() {
    return 31 * (31 * Integer.hashCode(txId) + Arrays.hashCode(reads)) + Arrays.hashCode(writes);
  }

  /**
   * Renders entries as {@code lock@version} so failing tests and logs are readable.
   *
   * @return e.g. {@code TxRecord[txId=3, reads=[0@5], writes=[0@6]]}
   */
  @Override
  public String toString() {
    return "TxRecord[txId=" + txId + ", reads=" + render(reads) + ", writes=" + render(writes)
        + "]";
  }

  private static String render(long[] entries) {
    StringBuilder sb = new StringBuilder("[");
    for (int i = 0; i < entries.length; i++) {
      if (i > 0) {
        sb.append(", ");
      }
      sb.append(lockOf(entries[i])).append('@')
          .append(Integer.toUnsignedString(versionOf(entries[i])));
    }
    return sb.append(']').toString();
  }
}
