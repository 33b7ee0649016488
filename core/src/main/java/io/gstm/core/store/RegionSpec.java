package io.gstm.core.store;

import java.util.Objects;

/**
 * One typed region of a {@link StoreLayout}: {@code length} words of {@code type}, with one lock
 * for every {@code lockCoverage} consecutive words.
 *
 * @param name a label used in errors and reports
 * @param type element type
 * @param length number of words, at least 1
 * @param lockCoverage words per lock, at least 1
 */
public record RegionSpec(String name, RegionType type, int length, int lockCoverage) {

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
  }

  /** Locks this region needs: ceil(length / lockCoverage). */
  public int lockCount() {
    return (int) ((length + (long) lockCoverage - 1) / lockCoverage);
  }
}
