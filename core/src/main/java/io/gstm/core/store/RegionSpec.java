package io.gstm.core.store;

import java.util.Objects;

/**
 * One typed region of a {@link StoreLayout}: {@code length} words of {@code type}, with one lock
 * for every {@code lockCoverage} consecutive words, or the locks of another region.
 *
 * <p>Regions that hold the columns of one row (a vertex's distance, parent and hop count; an
 * account's balance and limit) and that transactions read and write together can share one lock
 * a row ({@link #withLocksOf}): word {@code i} of this region is then guarded by the lock of word
 * {@code i} of the region named. A transaction that writes a row's three words takes one lock
 * instead of three (and reads one lock word where it read three); two transactions that touch
 * different columns of one row conflict, as if they touched the same word.
 *
 * @param name a label used in errors and reports
 * @param type element type
 * @param length number of words, at least 1
 * @param lockCoverage words per lock, at least 1
 * @param locksOf the earlier region whose locks this one shares (same length and lock coverage),
 *     or null for locks of its own
 */
public record RegionSpec(String name, RegionType type, int length, int lockCoverage,
    String locksOf) {

  public RegionSpec {
    Objects.requireNonNull(name, "name");
    Objects.requireNonNull(type, "type");
    if (length < 1) {
      throw new IllegalArgumentException(
          "region '" + name + "': length must be at least 1, got " + length);
    }
    if (lockCoverage < 1) {
      throw new IllegalArgumentException(
          "region '" + name + "': lockCoverage must be at least 1 word per lock, got "
              + lockCoverage);
    }
    if (name.equals(locksOf)) {
      throw new IllegalArgumentException(
          "region '" + name + "': locksOf must name another region, got its own name");
    }
  }

  /** A region with locks of its own. */
  public RegionSpec(String name, RegionType type, int length, int lockCoverage) {
    this(name, type, length, lockCoverage, null);
  }

  /**
   * This region guarded by the locks of the earlier region {@code region} of the same layout,
   * word for word (it must have the same length and lock coverage, and locks of its own).
   */
  public RegionSpec withLocksOf(String region) {
    return new RegionSpec(name, type, length, lockCoverage, Objects.requireNonNull(region,
        "region"));
  }

  /** Whether this region shares another region's locks. */
  public boolean sharesLocks() {
    return locksOf != null;
  }

  /** Locks this region needs of its own: ceil(length / lockCoverage), 0 if it shares them. */
  public int lockCount() {
    return sharesLocks() ? 0 : (int) ((length + (long) lockCoverage - 1) / lockCoverage);
  }
}
