package io.gstm.core.store;

/** Element type of a store region. The code is what the kernels' {@code RegionType} uses. */
public enum RegionType {
  INT32(0, 4),
  INT64(1, 8),
  FLOAT32(2, 4),
  FLOAT64(3, 8);

  private final int code;
  private final int wordBytes;

  RegionType(int code, int wordBytes) {
    this.code = code;
    this.wordBytes = wordBytes;
  }

  /** The numeric code shared with the CUDA kernels. */
  public int code() {
    return code;
  }

  /** Bytes per element: 4 or 8. */
  public int wordBytes() {
    return wordBytes;
  }
}
