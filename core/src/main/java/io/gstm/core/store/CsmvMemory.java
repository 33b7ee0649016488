package io.gstm.core.store;

/**
 * Memory of a CSMV store's transactional items. The paper's formula: per item of
 * {@code valueBytes}, {@code 4 + (valueBytes + 4) x versions} bytes (a 4-byte head, and a value
 * with its 4-byte commit timestamp per version). PR-STM's comparator is one value per item plus
 * its 8-byte lock word (with lock coverage 1).
 *
 * @param items versioned items (every word of every region)
 * @param valueBytes bytes per value (4: CSMV stores hold 32-bit words)
 * @param versions versions per item
 * @param formulaBytes the paper's formula times {@code items}
 * @param allocatedBytes what the store really holds for its items
 */
public record CsmvMemory(long items, int valueBytes, int versions, long formulaBytes,
    long allocatedBytes) {

  /** The paper's formula for one item. */
  public static long perItem(int valueBytes, int versions) {
    return 4L + (valueBytes + 4L) * versions;
  }

  public static CsmvMemory of(long items, int valueBytes, int versions, long allocatedBytes) {
    return new CsmvMemory(items, valueBytes, versions, items * perItem(valueBytes, versions),
        allocatedBytes);
  }

  /** True when the store allocates exactly what the formula says. */
  public boolean matchesFormula() {
    return formulaBytes == allocatedBytes;
  }

  @Override
  public String toString() {
    return String.format("%,d items x (4 + (%d + 4) x %d) = %,d B (%.1f KiB), allocated %,d B%s",
        items, valueBytes, versions, formulaBytes, formulaBytes / 1024.0, allocatedBytes,
        matchesFormula() ? "" : " (MISMATCH)");
  }
}
