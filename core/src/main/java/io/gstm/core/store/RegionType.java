package io.gstm.core.store;

/**
 * Element type of a store region. Order matches the kernels' {@code RegionType}: the ordinal is
 * the code they use.
 */
public enum RegionType {
  INT32,
  INT64,
  FLOAT32,
  FLOAT64;

  /** The numeric code shared with the CUDA kernels. */
  public int code() {
    return ordinal();
  }

  /** Bytes per element: 4 or 8. */
  public int wordBytes() {
    return this == INT64 || this == FLOAT64 ? 8 : 4;
  }
}
